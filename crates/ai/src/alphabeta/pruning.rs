//! What lets a node end early: the transposition table, reverse futility and null-move
//! pruning, and how far late moves are reduced or pruned.

use super::{
    Context, LMP_BASE, LMR_BASE, NULL_MIN_DEPTH, NULL_REDUCTION, NULL_VERIFY_DEPTH, PROVEN_BOUND,
};
use crate::eval::Evaluate;
use crate::table::Bound;

pub(super) fn to_table(score: i32, ply: usize) -> i32 {
    if score >= PROVEN_BOUND {
        score + ply as i32
    } else if score <= -PROVEN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub(super) fn from_table(score: i32, ply: usize) -> i32 {
    if score >= PROVEN_BOUND {
        score - ply as i32
    } else if score <= -PROVEN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<G: Evaluate> Context<'_, G> {
    /// Stores a node's result, bounded by how it fell against the `window` it was searched with.
    pub(super) fn store_result(
        &mut self,
        key: u64,
        best_move: Option<G::Move>,
        best: i32,
        (alpha, beta): (i32, i32),
        depth: i32,
        ply: usize,
    ) {
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.ab
            .table
            .store(key, best_move, to_table(best, ply), depth, bound);
    }

    /// The table's move for this position, and its score when that alone decides the node.
    pub(super) fn probe(
        &self,
        key: u64,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (Option<G::Move>, Option<i32>) {
        let Some(entry) = self.ab.table.get(key) else {
            return (None, None);
        };
        if self.ab.config.plain || ply == 0 || (entry.depth as i32) < depth {
            return (entry.mv, None);
        }
        let score = from_table(entry.score, ply);
        let cut = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        (entry.mv, cut.then_some(score))
    }

    /// Reverse futility pruning, as far as the game's [`Pruning`](crate::eval::Pruning) asks: a
    /// null-window node near the horizon whose static value stands above beta by the game's
    /// margin for each of `margin_depth` plies (the remaining `depth`, one less for a side that
    /// is improving) is cut with that value (the opponent is not expected to win the margin back
    /// in so few plies).
    pub(super) fn reverse_futility_cut(
        &self,
        pos: &G,
        (depth, margin_depth): (i32, i32),
        (alpha, beta): (i32, i32),
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        let limit = G::PRUNING.reverse_futility_depth;
        let value =
            self.horizon_value(pos, (depth, limit), (alpha, beta), in_danger, static_value)?;
        (value - G::PRUNING.reverse_futility_margin * margin_depth >= beta).then_some(value)
    }

    /// Futility pruning, as far as the game's [`Pruning`](crate::eval::Pruning) asks: whether
    /// a null-window node near the horizon stands so far below alpha (the game's margin for
    /// each remaining ply) that its quiet moves after the first may be skipped.
    pub(super) fn futile(
        &self,
        pos: &G,
        depth: i32,
        (alpha, beta): (i32, i32),
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> bool {
        let limit = G::PRUNING.futility_depth;
        self.horizon_value(pos, (depth, limit), (alpha, beta), in_danger, static_value)
            .is_some_and(|value| value + G::PRUNING.futility_margin * depth <= alpha)
    }

    /// The static value of a null-window node at most `limit` plies from the horizon, not in
    /// danger and with its window short of proven results: what the futility prunings weigh
    /// against their margins (evaluated once per node, kept in `static_value`).
    fn horizon_value(
        &self,
        pos: &G,
        (depth, limit): (i32, i32),
        (alpha, beta): (i32, i32),
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        let near = !self.ab.config.plain
            && depth <= limit
            && beta - alpha == 1
            && !in_danger
            && alpha.abs() < PROVEN_BOUND
            && beta.abs() < PROVEN_BOUND;
        near.then(|| *static_value.get_or_insert_with(|| pos.evaluate(&self.ab.weights)))
    }

    /// Null-move pruning: when the side to move already stands at `beta` or above, and letting
    /// the opponent move twice (a pass, searched a few plies shallower) still fails high, the
    /// node is cut. Never twice in a row, never when the side to move is in danger or the game
    /// cannot pass; from [`NULL_VERIFY_DEPTH`] on, a search without passes must confirm it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn null_move_cut(
        &mut self,
        pos: &G,
        key: u64,
        depth: i32,
        beta: i32,
        ply: usize,
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        if self.ab.config.plain
            || self.no_passes
            || ply == 0
            || depth < NULL_MIN_DEPTH
            || beta.abs() >= PROVEN_BOUND
            || self.passed[ply]
            || in_danger
        {
            return None;
        }
        // Asked before the evaluation: a game that cannot pass (RC-02) pays nothing here.
        let passed = pos.pass()?;
        if *static_value.get_or_insert_with(|| pos.evaluate(&self.ab.weights)) < beta {
            return None;
        }
        let reduction = NULL_REDUCTION + depth / 6;
        self.path.push(key);
        self.passed[ply + 1] = true;
        self.cut_node[ply + 1] = !self.cut_node[ply];
        self.played[ply + 1] = None;
        self.piece_to[ply + 1] = None;
        let score = -self.negamax(&passed, depth - 1 - reduction, -beta, 1 - beta, ply + 1);
        self.passed[ply + 1] = false;
        self.path.pop();
        if self.aborted || score < beta {
            return None;
        }
        if depth >= NULL_VERIFY_DEPTH {
            self.no_passes = true;
            let verified = self.negamax(pos, depth - reduction, beta - 1, beta, ply);
            self.no_passes = false;
            if self.aborted || verified < beta {
                return None;
            }
        }
        Some(beta)
    }
}

/// How many plies late move `i` (0-based, in search order) is reduced at remaining `depth`:
/// growing with the logarithms of both, as the deeper the search and the later the move, the
/// less likely it is to matter, and shrinking with `divisor` (hundredths); at least one.
pub(super) fn late_move_reduction(depth: i32, i: usize, divisor: i32) -> i32 {
    let (d, m) = (f64::from(depth.max(1)), (i + 1) as f64);
    (LMR_BASE + d.ln() * m.ln() / (f64::from(divisor) / 100.0)).max(1.0) as i32
}

/// How many moves a null-window node `depth` plies from the horizon searches before it skips
/// the quiet ones left (late move pruning): `None` deeper than the game's
/// [`Pruning`](crate::eval::Pruning) allows.
pub(super) fn late_move_count<G: Evaluate>(depth: i32) -> Option<usize> {
    (depth <= G::PRUNING.late_move_depth).then(|| (LMP_BASE + depth * depth) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_divisor_never_reduces_more_and_somewhere_less() {
        let mut less_somewhere = false;
        for depth in 1..=40 {
            for i in 0..60 {
                let (old, new) = (
                    late_move_reduction(depth, i, 225),
                    late_move_reduction(depth, i, 275),
                );
                assert!(new <= old && new >= 1, "depth {depth}, move {i}");
                less_somewhere |= new < old;
            }
        }
        assert!(less_somewhere);
        // The first divisor is the one every game searched with before it was a setting.
        assert_eq!(
            late_move_reduction(12, 30, 225),
            (0.75f64 + 12f64.ln() * 31f64.ln() / 2.25) as i32
        );
    }
}
