//! Self-play games that label positions for training a learnt evaluation
//! (`arbiter tune --selfplay`): every quiet position a game passes through, with the
//! hand-written evaluation, the search's score and the game's result, all for the side to move.
//!
//! Each game starts from an opening, plays a few random moves early for variety, and is
//! searched to a node budget (so a run is the same on any machine and under any load); a game
//! whose searches agree for several plies that one side is far ahead is scored as that side's
//! win. Game `i` depends only on the seed and `i`, whatever the number of threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use arbiter_core::{MoveList, Side, Status};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::alphabeta::MATE_BOUND;
use crate::{AlphaBeta, AlphaBetaConfig, EvalWeights, Evaluate, Limits};

/// How the games are played.
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    pub games: usize,
    /// The search's node budget for each move.
    pub nodes: u64,
    /// During the first `random_plies` plies after the opening, a move is random with
    /// probability `1 / random_one_in` instead of searched.
    pub random_plies: u32,
    pub random_one_in: u32,
    /// Plies after which a game is a draw.
    pub max_plies: u32,
    /// A game is won by the side every search has seen `resign` centipawns or more ahead for
    /// `resign_plies` plies in a row; positions scored beyond it are not written.
    pub resign: i32,
    pub resign_plies: u32,
    pub seed: u64,
    pub threads: usize,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games: 1000,
            nodes: 5000,
            random_plies: 16,
            random_one_in: 8,
            max_plies: 300,
            resign: 1000,
            resign_plies: 6,
            seed: 1,
            threads: 1,
        }
    }
}

/// A position waiting for its game's result.
struct Pending {
    side: Side,
    static_value: i32,
    score: i32,
    inputs: Vec<u16>,
}

/// Plays `config.games` games from `openings` (taken in a seeded order) with `weights`, and
/// hands each finished game's lines (`GAME<TAB>STATIC<TAB>SCORE<TAB>RESULT<TAB>INPUTS`, the
/// inputs comma-separated) to `sink`. The static value leaves out the learnt correction
/// (`learnt`), which is what the lines train. Errors when the game has no learnt inputs or there
/// is no opening, and stops at the first error `sink` returns (a full disk), returning it.
pub fn self_play<G: Evaluate + Send + Sync>(
    openings: &[G],
    weights: &G::Weights,
    config: &SelfPlayConfig,
    sink: &(dyn Fn(String) -> Result<(), String> + Sync),
) -> Result<(), String> {
    let first = openings
        .first()
        .ok_or("no opening to start the games from")?;
    if !first.learnt_inputs(&mut Vec::new()) {
        return Err("this game has no learnt evaluation to train".to_string());
    }
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let mut player = AlphaBeta::<G>::new(weights.clone(), AlphaBetaConfig::default());
                loop {
                    let game = next.fetch_add(1, Ordering::Relaxed);
                    if game >= config.games {
                        break;
                    }
                    let mut rng = SmallRng::seed_from_u64(
                        config.seed ^ (game as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    let opening = &openings[rng.gen_range(0..openings.len())];
                    player.clear();
                    let text = play_game(opening, &mut player, weights, config, &mut rng, game);
                    if let Err(why) = sink(text) {
                        // Every thread stops at its next game.
                        next.store(config.games, Ordering::Relaxed);
                        failed
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get_or_insert(why);
                    }
                }
            });
        }
    });
    failed
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .map_or(Ok(()), Err)
}

/// One game from `start`: its lines, written once the result is known.
fn play_game<G: Evaluate>(
    start: &G,
    player: &mut AlphaBeta<G>,
    weights: &G::Weights,
    config: &SelfPlayConfig,
    rng: &mut SmallRng,
    game: usize,
) -> String {
    let mut static_weights = weights.clone();
    let _ = static_weights.set("learnt", 0);
    let limits = Limits {
        nodes: Some(config.nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let (mut pos, mut pending) = (start.clone(), Vec::new());
    let mut lead: (Option<Side>, u32) = (None, 0);
    let winner = loop {
        if let Status::Won(side) = pos.status() {
            break Some(side);
        }
        if pos.status().is_over() || pos.ply() >= start.ply() + config.max_plies {
            break None;
        }
        let early = pos.ply() < start.ply() + config.random_plies;
        if early && rng.gen_range(0..config.random_one_in.max(1)) == 0 {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                break None;
            }
            pos.play(moves[rng.gen_range(0..moves.len())]);
            continue;
        }
        let found = player.search(&pos, &limits, &stop, &mut |_| {});
        let Some(best) = found.best else { break None };
        let us = pos.side_to_move();
        if found.score.abs() < config.resign && !pos.in_danger() && !pos.is_capture(best) {
            let mut inputs = Vec::new();
            pos.learnt_inputs(&mut inputs);
            let static_value = pos.evaluate(&static_weights);
            pending.push(Pending {
                side: us,
                static_value,
                score: found.score,
                inputs,
            });
        }
        if let Some(side) = decisive(&mut lead, us, found.score, config) {
            break Some(side);
        }
        pos.play(best);
    };
    lines(game, &pending, winner)
}

/// The side the searches have seen far ahead for `resign_plies` plies in a row, if any.
fn decisive(
    lead: &mut (Option<Side>, u32),
    us: Side,
    score: i32,
    config: &SelfPlayConfig,
) -> Option<Side> {
    let ahead = (score.abs() >= config.resign.min(MATE_BOUND)).then(|| {
        if score > 0 {
            us
        } else {
            us.opponent()
        }
    });
    *lead = match (ahead, lead.0) {
        (Some(side), Some(before)) if side == before => (ahead, lead.1 + 1),
        (Some(_), _) => (ahead, 1),
        (None, _) => (None, 0),
    };
    ahead.filter(|_| lead.1 >= config.resign_plies)
}

fn lines(game: usize, pending: &[Pending], winner: Option<Side>) -> String {
    let mut out = String::new();
    for p in pending {
        let result = match winner {
            None => "0.5",
            Some(side) if side == p.side => "1",
            Some(_) => "0",
        };
        let inputs: Vec<String> = p.inputs.iter().map(u16::to_string).collect();
        out += &format!(
            "{game}\t{}\t{}\t{result}\t{}\n",
            p.static_value,
            p.score,
            inputs.join(",")
        );
    }
    out
}

/// Writes what [`self_play`] hands over to `out` as it comes, with a progress line on standard
/// error every `every` games.
pub struct LineSink<W> {
    state: Mutex<(W, usize, usize)>,
    every: usize,
    started: std::time::Instant,
}

impl<W: std::io::Write> LineSink<W> {
    pub fn new(out: W, every: usize) -> LineSink<W> {
        LineSink {
            state: Mutex::new((out, 0, 0)),
            every: every.max(1),
            started: std::time::Instant::now(),
        }
    }

    /// Appends one game's lines.
    pub fn take(&self, text: &str) -> std::io::Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (out, games, positions) = &mut *state;
        out.write_all(text.as_bytes())?;
        *games += 1;
        *positions += text.lines().count();
        if *games % self.every == 0 {
            out.flush()?;
            eprintln!(
                "{games} games, {positions} positions, {:.0} s",
                self.started.elapsed().as_secs_f64()
            );
        }
        Ok(())
    }

    pub fn finish(self) -> std::io::Result<(usize, usize)> {
        let (mut out, games, positions) =
            self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        out.flush()?;
        Ok((games, positions))
    }
}
