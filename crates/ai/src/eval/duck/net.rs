//! A learnt correction to the hand-written evaluation: a small network over where each piece
//! stands, trained (`scripts/train-duck-net.py`) on self-play positions that `arbiter tune duck
//! --selfplay` labels with a search's score and the game's result. The weight `learnt` sets how
//! much of it is added (per cent; 100, the default since it won +321 Elo at 100 ms a move against
//! the hand-written evaluation alone, docs/strength.md; 0 asks nothing of it).
//!
//! Inputs, from the side to move's view: `block * 630 + kind * 90 + row * 9 + column`, block 0
//! for its own pieces and 1 for the opponent's, rows counted from its own back rank. A network
//! of [`THREAT_INPUTS`] also sees blocks 2 and 3: the side to move's and the opponent's pieces
//! that stand [`threatened`] — what a table of where pieces stand cannot tell, and what the
//! games lost at 1 s a move were lost to (docs/strength.md). The hidden units are clipped to
//! `0..=1`; their weighted sum is the correction in centipawns.

use std::sync::LazyLock;

use arbiter_core::Side;
use arbiter_duck::{PieceKind, Position, SQUARES};

/// Inputs of a network that sees where the pieces stand (blocks 0 and 1).
pub const INPUTS: usize = 2 * 7 * 90;
/// Inputs of a network that also sees which pieces stand threatened (blocks 2 and 3).
pub const THREAT_INPUTS: usize = 2 * INPUTS;
/// The most hidden units a network file may have (the sums live on the stack).
const MAX_HIDDEN: usize = 64;

/// The network built into the binary, taught half by Fairy-Stockfish's scores and half by our
/// search's, which scores more against Fairy-Stockfish than one taught by our search alone
/// (docs/strength.md); `ARBITER_DUCK_NET=FILE` replaces it, for trying a newly trained one
/// without building again.
static NET: LazyLock<Result<Net, String>> =
    LazyLock::new(|| match std::env::var_os("ARBITER_DUCK_NET") {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.to_string_lossy()))
            .and_then(|text| Net::parse(&text)),
        None => Net::parse(include_str!("net.txt")),
    });

/// The active inputs of `pos` (one per piece, one more per threatened piece), pushed onto
/// `out`: all [`THREAT_INPUTS`], so that data serves either kind of network.
pub fn inputs(pos: &Position, out: &mut Vec<u16>) {
    let us = pos.side_to_move();
    let [ours, theirs] = [us, us.opponent()].map(|side| attacks(pos, side));
    let threats = threats(pos, &ours, &theirs);
    for_each_input(pos, Some(threats), |index| out.push(index as u16));
}

/// Each kind's attacks of one side, the squares of its own pieces included (so they tell
/// what it defends).
pub type Attacks = [u128; 7];

fn attacks(pos: &Position, side: Side) -> Attacks {
    let mut out = [0; 7];
    pos.for_each_reach(side, |kind, _, reach| out[kind as usize] |= reach);
    out
}

/// `CHEAPER[kind]`: the kinds (a bit each) whose default value is below `kind`'s; the captain
/// is never the cheaper one.
static CHEAPER: LazyLock<[u8; 7]> = LazyLock::new(|| super::cheaper_kinds(super::exchange_price()));

/// The squares of `side`'s pieces that stand threatened: attacked by the `enemy` where nothing
/// of `side` defends them (`own`), or by an enemy kind cheaper than they are; the captain
/// whenever attacked.
pub fn threatened(pos: &Position, side: Side, own: &Attacks, enemy: &Attacks) -> u128 {
    let union = |a: &Attacks| a.iter().fold(0, |acc, x| acc | x);
    let attacked = union(enemy);
    let mut hit = pos.side_set(side) & attacked & pos.kind_set(PieceKind::Captain);
    let enemy_attacks = (enemy, attacked);
    super::threats::for_each_threatened_kind(
        pos,
        side,
        union(own),
        enemy_attacks,
        &CHEAPER,
        |_, squares| hit |= squares,
    );
    hit
}

/// Whether `cheaper` (for each kind, the kinds below it, a bit each) orders the kinds other
/// than the captain as [`threatened`] does, which then finds what a caller with `cheaper` found.
pub fn orders_kinds_as(cheaper: &[u8; 7]) -> bool {
    let captain = PieceKind::Captain as usize;
    (0..7).all(|k| k == captain || cheaper[k] == CHEAPER[k])
}

/// The threatened pieces of the side to move (attacks `ours`) and of the opponent (`theirs`).
pub fn threats(pos: &Position, ours: &Attacks, theirs: &Attacks) -> [u128; 2] {
    let us = pos.side_to_move();
    [
        threatened(pos, us, ours, theirs),
        threatened(pos, us.opponent(), theirs, ours),
    ]
}

/// `ROW_FROM[side][sq]`: `row * 9 + column` of `sq` with rows counted from `side`'s back rank.
const ROW_FROM: [[usize; SQUARES]; 2] = {
    let mut table = [[0; SQUARES]; 2];
    let mut sq = 0;
    while sq < SQUARES {
        table[0][sq] = sq;
        table[1][sq] = (9 - sq / 9) * 9 + sq % 9;
        sq += 1;
    }
    table
};

/// Calls `visit` with the input of each piece, read from the position's square sets, and with
/// each threatened one's when `threats` (the side to move's, the opponent's) are given.
fn for_each_input(pos: &Position, threats: Option<[u128; 2]>, mut visit: impl FnMut(usize)) {
    let us = pos.side_to_move();
    let rows = &ROW_FROM[us.index()];
    let sides = [us, us.opponent()];
    let masks = [!0, !0].into_iter().chain(threats.into_iter().flatten());
    for (block, mask) in masks.enumerate() {
        let own = pos.side_set(sides[block % 2]) & mask;
        for kind in PieceKind::ALL {
            let mut set = own & pos.kind_set(kind);
            while set != 0 {
                let sq = set.trailing_zeros() as usize;
                set &= set - 1;
                visit(block * 630 + kind as usize * 90 + rows[sq]);
            }
        }
    }
}

/// The correction for the side to move, scaled by `percent`; 0 when `ARBITER_DUCK_NET` names
/// a file that is no network (said once on standard error). `threats` gives [`threats`] when
/// the network asks for them.
pub fn correction(pos: &Position, percent: i32, threats: impl FnOnce() -> [u128; 2]) -> i32 {
    let net = match NET.as_ref() {
        Ok(net) => net,
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "arbiter: no learnt correction: ARBITER_DUCK_NET: {why} \
                     (unset it for the built-in network)"
                )
            });
            return 0;
        }
    };
    let threats = net.threats.then(threats);
    (net.correct(pos, threats) * percent as f32 / 100.0).round() as i32
}

#[derive(Debug)]
struct Net {
    hidden: usize,
    /// Whether it has [`THREAT_INPUTS`] (else [`INPUTS`]).
    threats: bool,
    biases: Vec<f32>,
    /// A row of `hidden` weights per input.
    inputs: Vec<f32>,
    outputs: Vec<f32>,
    output_bias: f32,
}

impl Net {
    /// The correction in centipawns for the side to move (`threats` as [`threats`] gives them,
    /// for a network that has their inputs).
    fn correct(&self, pos: &Position, threats: Option<[u128; 2]>) -> f32 {
        let h = self.hidden;
        let mut sums = [0f32; MAX_HIDDEN];
        sums[..h].copy_from_slice(&self.biases);
        for_each_input(pos, threats, |index| {
            let weights = &self.inputs[index * h..(index + 1) * h];
            sums[..h].iter_mut().zip(weights).for_each(|(s, w)| *s += w);
        });
        let hidden = sums[..h].iter().map(|s| s.clamp(0.0, 1.0));
        hidden.zip(&self.outputs).map(|(s, w)| s * w).sum::<f32>() + self.output_bias
    }

    /// Reads the text `scripts/train-duck-net.py` writes: a header `arbiter-duck-net 1 N H`
    /// (N inputs, 1260 or 2520), `#` comments, then the hidden biases, one line of weights per
    /// input, the output weights and the output bias.
    fn parse(text: &str) -> Result<Net, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty());
        let (_, header) = lines.next().ok_or("the network file is empty")?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        let size = |inputs: &str, hidden: &str| {
            let inputs = inputs.parse::<usize>().ok()?;
            let hidden = hidden.parse::<usize>().ok()?;
            ([INPUTS, THREAT_INPUTS].contains(&inputs) && (1..=MAX_HIDDEN).contains(&hidden))
                .then_some((inputs, hidden))
        };
        let (count, hidden) = match fields[..] {
            ["arbiter-duck-net", "1", inputs, hidden] => size(inputs, hidden),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "line 1: expected `arbiter-duck-net 1 N H`, N {INPUTS} or {THREAT_INPUTS}, \
                 H 1 to {MAX_HIDDEN}"
            )
        })?;
        let mut row = |count: usize| -> Result<Vec<f32>, String> {
            let (n, line) = lines.next().ok_or("the network file ends too early")?;
            let values: Result<Vec<f32>, _> = line.split_whitespace().map(str::parse).collect();
            match values {
                Ok(v) if v.len() == count && v.iter().all(|x| x.is_finite()) => Ok(v),
                _ => Err(format!("line {}: expected {count} numbers", n + 1)),
            }
        };
        let biases = row(hidden)?;
        let mut inputs = Vec::with_capacity(count * hidden);
        for _ in 0..count {
            inputs.extend(row(hidden)?);
        }
        let outputs = row(hidden)?;
        let output_bias = row(1)?[0];
        Ok(Net {
            hidden,
            threats: count == THREAT_INPUTS,
            biases,
            inputs,
            outputs,
            output_bias,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::MoveList;
    use arbiter_duck::{Move, Piece, Square};

    /// A network of `hidden` units whose input `i` adds `weight(i)` to every unit.
    fn net_text(hidden: usize, weight: impl Fn(usize) -> f32, outputs: &str, bias: f32) -> String {
        let mut lines = vec![
            format!("arbiter-duck-net 1 {INPUTS} {hidden}"),
            "# test".into(),
        ];
        lines.push(vec!["0"; hidden].join(" "));
        for i in 0..INPUTS {
            lines.push(vec![weight(i).to_string(); hidden].join(" "));
        }
        lines.push(outputs.to_string());
        lines.push(bias.to_string());
        lines.join("\n")
    }

    /// The inputs of where the pieces stand, sorted.
    fn sorted_inputs(pos: &Position) -> Vec<u16> {
        let mut out = Vec::new();
        inputs(pos, &mut out);
        out.retain(|&i| usize::from(i) < INPUTS);
        out.sort_unstable();
        out
    }

    #[test]
    fn inputs_are_seen_from_the_side_to_move() {
        let start = Position::initial();
        let red = sorted_inputs(&start);
        assert_eq!(red.len(), 32);
        let mut blue = start.clone();
        blue.set_side_to_move(Side::Second);
        // The start is symmetric, so blue to move sees what red does.
        assert_eq!(sorted_inputs(&blue), red);
        // Red's captain on its back rank, column 4: block 0, row 0.
        assert!(red.contains(&((PieceKind::Captain as usize * 90 + 4) as u16)));
        // Blue's captain, seen by red: block 1, row 9.
        assert!(red.contains(&((630 + PieceKind::Captain as usize * 90 + 9 * 9 + 4) as u16)));
    }

    #[test]
    fn the_correction_is_the_networks_sum() {
        // Only own soldiers count: five of them push each unit to 5 × 0.1 = 0.5.
        let soldier = |i: usize| {
            if i / 90 == PieceKind::Soldier as usize {
                0.1
            } else {
                0.0
            }
        };
        let net = Net::parse(&net_text(2, soldier, "100 -40", 7.0)).unwrap();
        let start = Position::initial();
        assert!((net.correct(&start, None) - (0.5 * 100.0 - 0.5 * 40.0 + 7.0)).abs() < 1e-3);
        // Clipped at 1: ten own soldiers' worth saturates.
        let strong = Net::parse(&net_text(1, |i| soldier(i) * 3.0, "100", 0.0)).unwrap();
        assert!((strong.correct(&start, None) - 100.0).abs() < 1e-3);
        // After a red move blue is to move: the sum is over its own five soldiers.
        let mut pos = start.clone();
        pos.play(Move::parse("a3-a4").unwrap());
        assert!((net.correct(&pos, None) - 37.0).abs() < 1e-3);
    }

    /// The networks kept beside the built-in one for `ARBITER_DUCK_NET` (docs/strength.md
    /// measures them at 1 s) must stay readable by this build.
    #[test]
    fn the_kept_networks_parse_with_the_threat_inputs() {
        for text in [include_str!("net.txt"), include_str!("net-fsf.txt")] {
            let net = Net::parse(text).expect("a kept network parses");
            assert!(net.threats && net.hidden == 32);
        }
    }

    #[test]
    fn a_bad_network_file_names_its_line() {
        assert!(Net::parse("").unwrap_err().contains("empty"));
        assert!(Net::parse("arbiter-duck-net 1 99 4")
            .unwrap_err()
            .contains("line 1"));
        let short = net_text(2, |_| 0.0, "1", 0.0);
        assert!(
            Net::parse(&short).unwrap_err().contains("line 1264"),
            "{short:.40}"
        );
        let cut: String = net_text(2, |_| 0.0, "1 1", 0.0)
            .lines()
            .take(100)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(Net::parse(&cut).unwrap_err().contains("ends too early"));
    }

    /// Positions of seeded random games, every few plies.
    fn random_positions() -> Vec<Position> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(31);
        let mut out = Vec::new();
        for _ in 0..20 {
            let mut pos = Position::initial();
            for ply in 0..120 {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if pos.is_over() || moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
                if ply % 7 == 0 && !pos.is_over() {
                    out.push(pos.clone());
                }
            }
        }
        out
    }

    /// The input of `piece` on `sq` in the pair of blocks from `first_block` (0 for where the
    /// pieces stand, 2 for the threatened ones), worked out point by point.
    fn slow_input(pos: &Position, first_block: usize, sq: Square, piece: Piece) -> u16 {
        let us = pos.side_to_move();
        let block = first_block + usize::from(piece.side != us);
        let row = if us == Side::First {
            sq.x()
        } else {
            9 - sq.x()
        } as usize;
        (block * 630 + piece.kind as usize * 90 + row * 9 + sq.y() as usize) as u16
    }

    #[test]
    fn inputs_match_a_plain_walk_over_the_points() {
        for pos in random_positions() {
            let mut slow: Vec<u16> = pos
                .pieces()
                .map(|(sq, piece)| slow_input(&pos, 0, sq, piece))
                .collect();
            slow.sort_unstable();
            assert_eq!(sorted_inputs(&pos), slow, "{}", pos.to_fen());
        }
    }

    /// Whether the piece on `sq` stands threatened, found from moves alone: the enemy's
    /// captures onto it with the enemy to move, and whether its own side could take an enemy
    /// piece standing there instead.
    fn slowly_threatened(pos: &Position, sq: Square) -> bool {
        let piece = pos.piece_at(sq).unwrap();
        let captures_onto = |board: &Position, side: Side| {
            let mut board = board.clone();
            board.set_side_to_move(side);
            let mut moves = MoveList::new();
            board.capture_moves(&mut moves);
            let kind = |m: &Move| board.piece_at(m.from).unwrap().kind;
            moves
                .iter()
                .filter(|m| m.to == sq)
                .map(kind)
                .collect::<Vec<_>>()
        };
        let attackers = captures_onto(pos, piece.side.opponent());
        if attackers.is_empty() || piece.kind == PieceKind::Captain {
            return !attackers.is_empty();
        }
        let price = super::super::exchange_price();
        let cheaper = |&a: &PieceKind| a != PieceKind::Captain && price(a) < price(piece.kind);
        let mut turned = pos.clone();
        turned.put(sq, Some(Piece::new(piece.side.opponent(), piece.kind)));
        attackers.iter().any(cheaper) || captures_onto(&turned, piece.side).is_empty()
    }

    #[test]
    fn threat_inputs_match_captures_played_out() {
        let mut seen = 0;
        for pos in random_positions() {
            let mut slow: Vec<u16> = pos
                .pieces()
                .filter(|&(sq, _)| slowly_threatened(&pos, sq))
                .map(|(sq, piece)| slow_input(&pos, 2, sq, piece))
                .collect();
            slow.sort_unstable();
            let mut fast = Vec::new();
            inputs(&pos, &mut fast);
            fast.retain(|&i| usize::from(i) >= INPUTS);
            fast.sort_unstable();
            assert_eq!(fast, slow, "{}", pos.to_fen());
            seen += fast.len();
        }
        assert!(seen > 50, "random games leave pieces threatened: {seen}");
    }

    #[test]
    fn a_threat_network_adds_its_threat_rows() {
        // Every threat input adds 0.1 to the one unit; the piece inputs add nothing.
        let rows = |i: usize| if i >= INPUTS { 0.1 } else { 0.0 };
        let mut lines = vec![format!("arbiter-duck-net 1 {THREAT_INPUTS} 1"), "0".into()];
        lines.extend((0..THREAT_INPUTS).map(|i| rows(i).to_string()));
        lines.extend(["100".into(), "0".into()]);
        let net = Net::parse(&lines.join("\n")).unwrap();
        assert!(net.threats);
        // Red's car on a0 attacked by blue's horse on b2, which nothing defends.
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/1h7/9/R3K4 r").unwrap();
        let threats = [1u128 << Square::new(0, 0).unwrap().index(), 0];
        assert!((net.correct(&pos, Some(threats)) - 10.0).abs() < 1e-3);
        let threatened = |pos: &Position| {
            let mut all = Vec::new();
            inputs(pos, &mut all);
            all.into_iter()
                .filter(|&i| usize::from(i) >= INPUTS)
                .count()
        };
        assert_eq!(threatened(&pos), 1, "the car, not the far captains");
        assert_eq!(threatened(&Position::initial()), 0);
    }

    #[test]
    fn the_built_in_network_reads_and_learnt_adds_it() {
        use crate::eval::duck::DuckWeights;
        use crate::eval::Evaluate;
        let net = Net::parse(include_str!("net.txt")).unwrap();
        assert_eq!(DuckWeights::default().learnt, 100, "all of it by default");
        let plain = DuckWeights {
            learnt: 0,
            ..DuckWeights::default()
        };
        let half = DuckWeights {
            learnt: 50,
            ..DuckWeights::default()
        };
        assert!(net.threats, "the built-in network sees threats");
        let mut moved = 0;
        for pos in random_positions() {
            let added = pos.evaluate(&half) - pos.evaluate(&plain);
            let us = pos.side_to_move();
            let [ours, theirs] = [us, us.opponent()].map(|side| attacks(&pos, side));
            let threats = threats(&pos, &ours, &theirs);
            assert_eq!(
                added,
                (net.correct(&pos, Some(threats)) * 0.5).round() as i32,
                "{}",
                pos.to_fen()
            );
            moved += usize::from(added != 0);
        }
        assert!(
            moved > 10,
            "a trained network corrects most positions: {moved}"
        );
    }
}
