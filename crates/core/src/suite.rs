//! The conformance suite every registered game must pass, whatever its rules: a new game that
//! implements [`Rules`] gets all of it by calling [`check_game`] from a test.
//!
//! * the definition agrees with the game (id, side names, options round trip);
//! * random games to the end: the status, the legal moves and [`Rules::end`] agree at every ply;
//!   every legal move formats, parses back and is judged legal as a network MOVE (and refused
//!   when the other side sends it);
//! * the hash contract: equal [`Rules::state_text`] ⇔ equal hash over every state visited;
//! * [`Rules::pieces`] lists the pieces [`Rules::board`] draws, at every ply;
//! * perft of the start position equals the recorded counts, and the game's own perft the
//!   plain one;
//! * the judge (when the game has one) accepts every random game and reports its end, and its
//!   step-by-step trace (the visualiser's) tells the same.

use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::outcome::MoveReason;
use crate::rules::{perft, split_move, Options, Rules};
use crate::{MoveList, Status};

/// How much the suite plays.
#[derive(Clone, Copy, Debug)]
pub struct SuiteConfig {
    pub games: usize,
    /// Random games stop here if their rules have not ended them.
    pub max_plies: usize,
    /// Perft is checked to this depth at most (and the plain perft to `min(3, this)`).
    pub perft_depth: usize,
    pub seed: u64,
}

impl Default for SuiteConfig {
    fn default() -> Self {
        SuiteConfig {
            games: 30,
            max_plies: 300,
            perft_depth: 4,
            seed: 1,
        }
    }
}

/// What the suite saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SuiteReport {
    pub games: usize,
    pub plies: usize,
    pub finished: usize,
    pub distinct_states: usize,
    pub perft_depths: usize,
    pub judged: usize,
}

/// Runs the whole suite on the game `G` started with `options`; the error says what broke,
/// with the moves that led there.
pub fn check_game<G: Rules>(options: &Options, config: SuiteConfig) -> Result<SuiteReport, String> {
    let def = G::definition();
    let start = G::start(options);
    check_definition(&start, options)?;
    let mut report = SuiteReport::default();
    let mut states: HashMap<u64, String> = HashMap::new();
    let mut rng = SmallRng::seed_from_u64(config.seed);
    for game in 0..config.games {
        let moves = random_game(&start, &mut rng, config.max_plies, &mut states)
            .map_err(|e| format!("{}: random game {game}: {e}", def.id))?;
        report.games += 1;
        report.plies += moves.len();
        let mut end_state = start.clone();
        for text in &moves {
            let mv = end_state.parse_move(text).map_err(|e| e.to_string())?;
            end_state.play(mv);
        }
        if end_state.status().is_over() {
            report.finished += 1;
        }
        if let Some(judge) = def.judge {
            let script = (judge.script)(options, &moves);
            let mut out = Vec::new();
            (judge.run)(&mut script.as_bytes(), &mut out)
                .map_err(|e| format!("{}: the judge refused random game {game}: {e}", def.id))?;
            let text = String::from_utf8_lossy(&out);
            let steps = (judge.trace)(&script).map_err(|e| {
                format!(
                    "{}: the judge's trace refused random game {game}: {e}",
                    def.id
                )
            })?;
            if !crate::rules::trace_agrees(&judge, &steps, &text) {
                return Err(format!(
                    "{}: the judge's trace tells another story than the judge on random game {game}",
                    def.id
                ));
            }
            (judge.verdict)(&text, end_state.end().as_ref()).map_err(|e| {
                format!(
                    "{}: the judge disagrees on random game {game} ({}): {e}",
                    def.id,
                    moves.join(" ")
                )
            })?;
            report.judged += 1;
        }
    }
    report.distinct_states = states.len();
    report.perft_depths = check_perft(&start, options, config.perft_depth)?;
    Ok(report)
}

fn check_definition<G: Rules>(start: &G, options: &Options) -> Result<(), String> {
    let def = G::definition();
    if &start.options() != options {
        return Err(format!(
            "{}: started with {options:?}, options() says {:?}",
            def.id,
            start.options()
        ));
    }
    if start.status().is_over() {
        return Err(format!("{}: the start position is already over", def.id));
    }
    Ok(())
}

/// One random game; checks every ply and records each state's hash.
fn random_game<G: Rules>(
    start: &G,
    rng: &mut SmallRng,
    max_plies: usize,
    states: &mut HashMap<u64, String>,
) -> Result<Vec<String>, String> {
    let mut pos = start.clone();
    let mut played = Vec::new();
    let mut moves = MoveList::new();
    loop {
        let at = |what: String| format!("after `{}`: {what}", played.join(" "));
        check_hash(&pos, states).map_err(at)?;
        check_pieces(&pos).map_err(at)?;
        moves.clear();
        pos.legal_moves(&mut moves);
        check_status(&pos, moves.len()).map_err(at)?;
        if moves.is_empty() || played.len() >= max_plies {
            return Ok(played);
        }
        for &mv in moves.iter() {
            check_move(&pos, mv).map_err(at)?;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        played.push(pos.format_move(mv));
        pos.play(mv);
    }
}

fn check_hash<G: Rules>(pos: &G, states: &mut HashMap<u64, String>) -> Result<(), String> {
    let text = pos.state_text();
    match states.get(&pos.hash()) {
        Some(seen) if *seen != text => Err(format!(
            "two different states share hash {:#x}:\n{seen}\n--- and ---\n{text}",
            pos.hash()
        )),
        _ => {
            states.insert(pos.hash(), text);
            Ok(())
        }
    }
}

fn check_pieces<G: Rules>(pos: &G) -> Result<(), String> {
    let mut listed = Vec::new();
    pos.pieces(&mut |col, row, p| listed.push((col, row, p.side, p.kind)));
    let mut drawn: Vec<_> = (pos.board().cells.into_iter())
        .filter_map(|c| c.piece.map(|p| (c.col, c.row, p.side, p.kind)))
        .collect();
    listed.sort();
    drawn.sort();
    match listed == drawn {
        true => Ok(()),
        false => Err(format!(
            "pieces() lists {listed:?}, board() draws {drawn:?}"
        )),
    }
}

fn check_status<G: Rules>(pos: &G, legal: usize) -> Result<(), String> {
    let status = pos.status();
    let end = pos.end();
    match (status, &end) {
        (Status::Ongoing, None) if legal > 0 => Ok(()),
        (Status::Ongoing, _) => Err(format!("ongoing with {legal} legal moves and end {end:?}")),
        (_, None) => Err(format!("status {status:?} but no end")),
        (_, Some(_)) if legal > 0 => Err(format!("status {status:?} but {legal} legal moves")),
        (Status::Won(w), Some(e)) if e.winner != Some(w) => {
            Err(format!("won by {w:?} but the end says {e:?}"))
        }
        (Status::Drawn, Some(e)) if e.winner.is_some() => {
            Err(format!("drawn but the end says {e:?}"))
        }
        _ => Ok(()),
    }
}

fn check_move<G: Rules>(pos: &G, mv: G::Move) -> Result<(), String> {
    let text = pos.format_move(mv);
    match pos.parse_move(&text) {
        Ok(back) if back == mv => {}
        other => return Err(format!("`{text}` parses back as {other:?}, not {mv:?}")),
    }
    let (from, to) = split_move(&text);
    let mover = pos.side_to_move();
    match pos.judge_move(from, to, mover) {
        Ok(judged) if judged == mv => {}
        other => return Err(format!("MOVE {from} {to} is judged {other:?}, not legal")),
    }
    match pos.judge_move(from, to, mover.opponent()) {
        Err(MoveReason::NotPlayerTurn) => Ok(()),
        other => Err(format!(
            "MOVE {from} {to} out of turn is judged {other:?}, not NOT_PLAYER_TURN"
        )),
    }
}

fn check_perft<G: Rules>(start: &G, options: &Options, max_depth: usize) -> Result<usize, String> {
    let def = G::definition();
    let mut checked = 0;
    for depth in 1..=max_depth.min(3) as u32 {
        let (fast, plain) = (start.perft(depth), perft(start, depth));
        if fast != plain {
            return Err(format!(
                "{}: perft {depth} is {fast}, counted one by one {plain}",
                def.id
            ));
        }
    }
    for record in def.perft {
        let matches = record
            .options
            .iter()
            .all(|&(name, value)| options.get(name) == Some(value));
        if !matches {
            continue;
        }
        for (i, &want) in record.leaves.iter().enumerate().take(max_depth) {
            let got = start.perft(i as u32 + 1);
            if got != want {
                return Err(format!(
                    "{}: perft {} with {options:?} is {got}, recorded {want}",
                    def.id,
                    i + 1
                ));
            }
            checked += 1;
        }
    }
    Ok(checked)
}
