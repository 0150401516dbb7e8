//! Singular extensions (Stockfish's): the table's move is searched a ply deeper when every
//! other move, searched half as deep, falls well short of the table's score for it, so a
//! line that rests on one move is seen to its end; when the others reach beta too, the node
//! is cut (multi-cut).

use super::pruning::from_table;
use super::{Context, PROVEN_BOUND};
use crate::eval::Evaluate;
use crate::table::Bound;

/// From this remaining depth on …
const SINGULAR_MIN_DEPTH: i32 = 6;
/// … with a table result (a lower bound or exact) at most this many plies shallower …
const SINGULAR_TABLE_SLACK: i32 = 3;
/// … the other moves must fall this many centipawns a ply short of it.
const SINGULAR_MARGIN: i32 = 2;

/// What the search of the other moves said of the table's move.
pub(super) enum Singular {
    /// Nothing: search as usual.
    No,
    /// It alone holds the score: a ply deeper.
    Extend,
    /// Another move reaches beta too: the node's score.
    Cut(i32),
}

impl<G: Evaluate> Context<'_, G> {
    /// Whether the table's move `tt_move` of the node at `ply` (`key`, remaining `depth`) is
    /// singular, by a search of the same node without it.
    pub(super) fn singular(
        &mut self,
        pos: &G,
        (key, depth, ply): (u64, i32, usize),
        tt_move: Option<G::Move>,
        beta: i32,
    ) -> Singular {
        let Some(tt_move) = tt_move else {
            return Singular::No;
        };
        if !(G::PRUNING.singular && self.ab.config.singular)
            || self.ab.config.plain
            || ply == 0
            || depth < SINGULAR_MIN_DEPTH
            || self.excluded[ply].is_some()
            || ply >= 2 * self.root_depth as usize
        {
            return Singular::No;
        }
        let Some(entry) = self.ab.table.get(key) else {
            return Singular::No;
        };
        let score = from_table(entry.score, ply);
        if entry.bound == Bound::Upper
            || i32::from(entry.depth) < depth - SINGULAR_TABLE_SLACK
            || score.abs() >= PROVEN_BOUND
        {
            return Singular::No;
        }
        let singular_beta = score - SINGULAR_MARGIN * depth;
        self.excluded[ply] = Some(tt_move);
        let value = self.negamax(pos, (depth - 1) / 2, singular_beta - 1, singular_beta, ply);
        self.excluded[ply] = None;
        self.pv[ply].clear();
        if self.aborted {
            Singular::No
        } else if value < singular_beta {
            Singular::Extend
        } else if singular_beta >= beta {
            Singular::Cut(singular_beta)
        } else {
            Singular::No
        }
    }
}
