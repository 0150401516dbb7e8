//! How the games of an arena run (`arena --out DIR`) went once they reached positions the
//! Surakarta endgame tables cover: for the player with tables, the value of the first covered
//! position, whether its own moves ever lost value, and the result. A player that probes exact
//! tables must never lose a game after a covered position it did not lose.
//! `cargo run --release -p arbiter-ai --example table_games -- TABLES RECORDS PLAYER`

use std::path::Path;

use arbiter_core::{Game, Side};
use arbiter_surakarta::endgame::{Tables, Wdl};
use arbiter_surakarta::{Position, Record};

/// What one game showed: the first covered value for the player, how often its own move lost
/// value, and the result.
struct Seen {
    first: Option<Wdl>,
    drops: usize,
    result: Wdl,
}

fn value_for(tables: &Tables, pos: &Position, side: Side) -> Option<Wdl> {
    let v = tables.probe(pos)?;
    Some(if pos.current_player == side {
        v
    } else {
        v.flip()
    })
}

fn replay(tables: &Tables, record: &Record, side: Side, result: Wdl) -> Result<Seen, String> {
    let mut pos = Position::new(6, 40).ok_or("no 6x6")?;
    let mut seen = Seen {
        first: None,
        drops: 0,
        result,
    };
    for &mv in &record.moves {
        let before = value_for(tables, &pos, side);
        seen.first = seen.first.or(before);
        let mover = pos.current_player;
        pos.play(mv);
        let after = if pos.status().is_over() {
            Some(result)
        } else {
            value_for(tables, &pos, side)
        };
        if let (Some(b), Some(a), true) = (before, after, mover == side) {
            seen.drops += usize::from(a < b);
        }
    }
    Ok(seen)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tables, records, player] = &args[..] else {
        return Err("usage: table_games TABLES RECORDS PLAYER".into());
    };
    let tables = Tables::load(Path::new(tables)).map_err(|e| e.to_string())?;
    let dir = Path::new(records);
    let index = std::fs::read_to_string(dir.join("games.tsv")).map_err(|e| e.to_string())?;
    let (mut games, mut reached, mut bad) = (0, 0, 0);
    let mut by_first = std::collections::BTreeMap::new();
    for row in index.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        let (first, second, winner, file) = (f[1], f[2], f[3], f[6]);
        let side = if first == player {
            Side::First
        } else {
            Side::Second
        };
        if first != player && second != player {
            continue;
        }
        let result = match winner {
            w if w == player => Wdl::Win,
            "draw" => Wdl::Draw,
            _ => Wdl::Loss,
        };
        let text = std::fs::read_to_string(dir.join(file)).map_err(|e| e.to_string())?;
        let record = Record::parse(&text, 6).map_err(|e| format!("{file}: {e}"))?;
        let seen = replay(&tables, &record, side, result)?;
        games += 1;
        let Some(first_value) = seen.first else {
            continue;
        };
        reached += 1;
        *by_first.entry((first_value, seen.result)).or_insert(0) += 1;
        if seen.result < first_value || seen.drops > 0 {
            bad += 1;
            println!(
                "{file}: entered {first_value:?}, ended {:?}, {} own moves lost value",
                seen.result, seen.drops
            );
        }
    }
    println!("{games} games of {player}; {reached} reached a covered position");
    for ((first, result), n) in by_first {
        println!("  first covered value {first:?} -> result {result:?}: {n}");
    }
    println!("games where {player} did worse than its first covered value or lost value by its own move: {bad}");
    Ok(())
}
