//! Position analysis for people: the best move, its score and line, and the moves that lose.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arbiter_core::{MoveList, Status};

use crate::alphabeta::{score_of, AlphaBeta, AlphaBetaConfig, MATE_BOUND};
use crate::eval::Evaluate;
use crate::player::{Limits, Score};

/// What [`analyze`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis<M> {
    pub best: Option<M>,
    pub score: Score,
    pub depth: u32,
    pub pv: Vec<M>,
    /// Moves after which the opponent wins by force within `losing_depth` plies.
    pub losing_moves: Vec<M>,
    /// Moves whose check the time limit or `stop` cut short (they may lose or not).
    pub unchecked: Vec<M>,
}

/// Searches `game` within `limits`, then checks every legal move with a `losing_depth`-ply
/// search from the opponent's side: a move after which the opponent has a forced win is losing.
///
/// With a time limit, the search has half of it and the checks share the rest; `stop` ends
/// everything at once. Moves left unchecked are listed as such.
pub fn analyze<G: Evaluate>(
    game: &G,
    weights: &G::Weights,
    limits: &Limits,
    losing_depth: u32,
    stop: &AtomicBool,
) -> Analysis<G::Move> {
    let started = Instant::now();
    let deadline = limits.time.map(|t| started + t);
    let mut searcher = AlphaBeta::<G>::new(
        weights.clone(),
        AlphaBetaConfig {
            hash_bits: 16,
            ..Default::default()
        },
    );
    let main_limits = Limits {
        time: limits.time.map(|t| t / 2),
        ..*limits
    };
    let result = searcher.search(game, &main_limits, stop, &mut |_| {});
    let mut moves = MoveList::new();
    game.legal_moves(&mut moves);
    let mover = game.side_to_move();
    let (mut losing_moves, mut unchecked) = (Vec::new(), Vec::new());
    for &mv in moves.iter() {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if stop.load(Ordering::Relaxed) || left == Some(Duration::ZERO) {
            unchecked.push(mv);
            continue;
        }
        let mut child = game.clone();
        child.play(mv);
        match loses(&child, mover, weights, losing_depth, left, stop) {
            Some(true) => losing_moves.push(mv),
            Some(false) => {}
            None => unchecked.push(mv),
        }
    }
    Analysis {
        best: result.best,
        score: score_of(result.score),
        depth: result.depth,
        pv: result.pv,
        losing_moves,
        unchecked,
    }
}

/// Whether the opponent wins by force in `child` (after `mover`'s move); `None` when the search
/// was cut short before it could tell.
fn loses<G: Evaluate>(
    child: &G,
    mover: arbiter_core::Side,
    weights: &G::Weights,
    depth: u32,
    time: Option<Duration>,
    stop: &AtomicBool,
) -> Option<bool> {
    match child.status() {
        Status::Won(side) => return Some(side != mover),
        Status::Drawn => return Some(false),
        Status::Ongoing => {}
    }
    let mut probe = AlphaBeta::<G>::new(
        weights.clone(),
        AlphaBetaConfig {
            hash_bits: 12,
            ..Default::default()
        },
    );
    let limits = Limits {
        depth: Some(depth.max(1)),
        time,
        ..Limits::default()
    };
    let found = probe.search(child, &limits, stop, &mut |_| {});
    if found.score >= MATE_BOUND {
        Some(true)
    } else if found.score <= -MATE_BOUND || found.depth >= depth.max(1) {
        Some(false)
    } else {
        None
    }
}
