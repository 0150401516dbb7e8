//! The node searches: negamax with principal variation search, and quiescence.

use arbiter_core::MoveList;

use super::ordering::bring_best_forward;
use super::pruning::{late_move_count, late_move_reduction, to_table};
use super::singular::Singular;
use super::{
    Context, IIR_MIN_DEPTH, INFINITY, LMR_FIRST_MOVE, LMR_MIN_DEPTH, MAX_PLY, MAX_QUIESCENCE, WIN,
};
use crate::eval::Evaluate;
use crate::table::Bound;

/// A node about to search its moves: its key, remaining depth (after any reduction), distance
/// from the root, the table's move, whether the side to move is in danger and from which move
/// (in search order) on its quiet moves may be pruned (see [`Context::prune_from`]), and
/// whether the side to move is improving where the game prunes by it ([`Context::improving`]).
struct Node<M> {
    key: u64,
    depth: i32,
    ply: usize,
    tt_move: Option<M>,
    in_danger: bool,
    prune_from: Option<usize>,
    improving: Option<bool>,
    /// The table's move alone holds the node's score: it is searched a ply deeper.
    singular: bool,
}

/// What a node lets one of its moves skip: a shallower first search (late move reductions),
/// the search altogether (late move and futility pruning, see [`Context::search_move`]).
#[derive(Clone, Copy)]
struct Latitude {
    reduce: bool,
    prune: bool,
}

impl<G: Evaluate> Context<'_, G> {
    pub(super) fn negamax(
        &mut self,
        pos: &G,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        if let Some(score) = self.settled(pos, ply) {
            return score;
        }
        let plain = self.ab.config.plain;
        // Mate-distance pruning: the best any line from here can do is win at this ply, the
        // worst to lose at it; a shorter mate found elsewhere that bounds the window past
        // either makes the node irrelevant.
        if !plain {
            alpha = alpha.max(-(WIN - ply as i32));
            beta = beta.min(WIN - ply as i32);
            if alpha >= beta {
                return alpha;
            }
        }
        let key = pos.hash();
        if !plain && ply > 0 && self.path.iter().rev().skip(1).step_by(2).any(|&h| h == key) {
            return 0;
        }
        if ply >= MAX_PLY - 2 || (plain && depth <= 0) {
            return pos.evaluate(&self.ab.weights);
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        self.main_node(pos, key, depth, (alpha, beta), ply)
    }

    /// A node of the main search that nothing settled: the table, the prunings that cut the
    /// node, whether its table move is singular, then its moves.
    fn main_node(
        &mut self,
        pos: &G,
        key: u64,
        depth: i32,
        (alpha, beta): (i32, i32),
        ply: usize,
    ) -> i32 {
        let plain = self.ab.config.plain;
        // A node that leaves a move out to judge it neither trusts nor shortens by the table.
        let excluded = self.excluded[ply].is_some();
        let (tt_move, cut) = if excluded {
            (None, None)
        } else {
            self.probe(key, depth, alpha, beta, ply)
        };
        if let Some(score) = cut {
            return score;
        }
        let depth = if tt_move.is_none() && !plain && !excluded && depth >= IIR_MIN_DEPTH {
            depth - 1
        } else {
            depth
        };
        let mut node = Node {
            key,
            depth,
            ply,
            tt_move,
            // Duck Chess answers this with an attack search: asked once per node.
            in_danger: pos.in_danger(),
            prune_from: None,
            improving: None,
            singular: false,
        };
        // The static value, asked by the first pruning that needs it (Duck Chess's is costly).
        let mut static_value = None;
        node.improving = self.improving(pos, &node, &mut static_value);
        let cut = (!excluded)
            .then(|| self.static_cut(pos, &node, alpha, beta, &mut static_value))
            .flatten();
        if let Some(score) = cut {
            return score;
        }
        node.prune_from = self.prune_from(pos, &node, (alpha, beta), &mut static_value);
        match self.singular(pos, (key, depth, ply), tt_move, beta) {
            Singular::Cut(score) => return score,
            Singular::Extend => node.singular = true,
            Singular::No => {}
        }
        self.search_moves(pos, &node, alpha, beta)
    }

    /// From which move on (in search order) a null-window node may prune its quiet moves: all
    /// after the first when they are futile, else late move pruning's count, if any.
    fn prune_from(
        &self,
        pos: &G,
        node: &Node<G::Move>,
        (alpha, beta): (i32, i32),
        static_value: &mut Option<i32>,
    ) -> Option<usize> {
        let (depth, in_danger) = (node.depth, node.in_danger);
        if self.ab.config.plain || in_danger || beta - alpha != 1 {
            return None;
        }
        if self.futile(pos, depth, (alpha, beta), in_danger, static_value) {
            return Some(1);
        }
        let count = late_move_count::<G>(depth)?;
        Some(if node.improving == Some(false) {
            count / 2
        } else {
            count
        })
    }

    /// Whether the side to move stands better than at its last move (its static value above
    /// the one two plies up, else four; true when neither is known), for a game whose pruning
    /// asks it and a node not in danger (`None` otherwise). Evaluates the node to know.
    fn improving(
        &mut self,
        pos: &G,
        node: &Node<G::Move>,
        static_value: &mut Option<i32>,
    ) -> Option<bool> {
        let config = &self.ab.config;
        let asked = G::PRUNING.improving && config.improving && !config.plain && !node.in_danger;
        let now =
            asked.then(|| *static_value.get_or_insert_with(|| pos.evaluate(&self.ab.weights)));
        let ply = node.ply;
        self.static_at[ply] = now;
        let earlier = |back: usize| ply.checked_sub(back).and_then(|p| self.static_at[p]);
        let before = earlier(2).or_else(|| earlier(4));
        now.map(|now| before.is_none_or(|before| now > before))
    }

    /// Reverse futility or null-move pruning's value when either cuts the node.
    fn static_cut(
        &mut self,
        pos: &G,
        node: &Node<G::Move>,
        alpha: i32,
        beta: i32,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        let Node {
            key,
            depth,
            ply,
            in_danger,
            ..
        } = *node;
        let margin_depth = depth - i32::from(node.improving == Some(true));
        if let Some(score) = self.reverse_futility_cut(
            pos,
            (depth, margin_depth),
            (alpha, beta),
            in_danger,
            static_value,
        ) {
            return Some(score);
        }
        self.null_move_cut(pos, key, depth, beta, ply, in_danger, static_value)
    }

    /// The moves of a node that nothing cut: each searched in order (the first in full, the
    /// rest by [`Self::search_move`]) until one reaches `beta`; the result goes to the table.
    fn search_moves(&mut self, pos: &G, node: &Node<G::Move>, mut alpha: i32, beta: i32) -> i32 {
        let (key, depth, ply, tt_move) = (node.key, node.depth, node.ply, node.tt_move);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return -(WIN - ply as i32);
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        self.order(pos, &moves, tt_move, ply, &mut keys);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let excluded = self.excluded[ply];
        let reduce = !self.ab.config.plain && depth >= LMR_MIN_DEPTH && !node.in_danger;
        let null_window = beta - alpha == 1;
        self.path.push(key);
        self.quiets[ply].clear();
        for i in 0..moves.len() {
            bring_best_forward(&mut moves, &mut keys, i);
            let mv = moves[i];
            if Some(mv) == excluded {
                continue;
            }
            let prune = self.may_prune(pos, mv, i, node, null_window);
            if prune && !G::PRUNING.spare_threats {
                // Ordered after every capture and killer: the rest are quiet too.
                break;
            }
            let latitude = Latitude { reduce, prune };
            let Some(score) = self.search_move(pos, mv, i, node, (alpha, beta), latitude) else {
                continue;
            };
            if self.statistics && !pos.is_capture(mv) {
                self.quiets[ply].push(mv);
            }
            if self.aborted {
                self.path.pop();
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.new_best_line(mv, ply);
                    if alpha >= beta {
                        self.remember_cutoff(pos, mv, depth, ply);
                        break;
                    }
                }
            }
        }
        self.path.pop();
        self.keys[ply] = keys;
        if excluded.is_none() {
            self.store_result(key, best_move, best, (original_alpha, beta), depth, ply);
        }
        best
    }

    /// The score of move `i` (in search order) of `node` at `pos`: the first with the full
    /// window, the others with a null window first — late quiet ones also shallower, searched
    /// again at full depth when they beat alpha anyway — and with the full window when they land
    /// inside it.
    /// A move that puts the opponent in danger (Duck Chess: attacks its captain) is searched a
    /// ply deeper, so the answer to the threat is seen, unless the opponent just takes the
    /// piece at a profit ([`Evaluate::hangs`]); so is a recapture where the game names
    /// one (Surakarta: +27 ± 21 Elo, docs/tuning.md), so an exchange is seen to its end.
    /// `None` when the node lets the move be pruned and it puts the opponent in no danger (or
    /// only with a piece the opponent takes at a profit: +7 ± 9 Elo, docs/tuning.md).
    fn search_move(
        &mut self,
        pos: &G,
        mv: G::Move,
        i: usize,
        node: &Node<G::Move>,
        (alpha, beta): (i32, i32),
        latitude: Latitude,
    ) -> Option<i32> {
        let (depth, ply) = (node.depth, node.ply);
        let mut child = pos.clone();
        child.play(mv);
        let sound_threat = !self.ab.config.plain && child.in_danger() && !pos.hangs(mv, &child);
        if latitude.prune && !sound_threat {
            return None;
        }
        self.ab.table.prefetch(child.hash());
        self.played[ply + 1] = Some(mv);
        self.piece_to[ply + 1] = self.statistics.then(|| pos.statistics_slots(mv).1);
        let extended = ply < 2 * self.root_depth as usize
            && (sound_threat
                || node.singular && Some(mv) == node.tt_move
                || !self.ab.config.plain
                    && self.played[ply].is_some_and(|prev| pos.recaptures(prev, mv)));
        let next = depth - 1 + i32::from(extended);
        let pv = beta - alpha > 1;
        // A child searched with a null window is expected to do the opposite of its parent
        // (a late move from the principal variation is expected to be refuted: a cut node);
        // the first move's child on the principal variation is on it too.
        let opposite = !self.cut_node[ply];
        if i == 0 {
            self.cut_node[ply + 1] = !pv && opposite;
            return Some(-self.negamax(&child, next, -beta, -alpha, ply + 1));
        }
        let quiet = !extended && self.is_quiet(pos, mv, ply);
        let reduction = if latitude.reduce && i >= LMR_FIRST_MOVE && quiet {
            let base = late_move_reduction(depth, i, self.reduction_divisor());
            let not_improving = node.improving == Some(false) && base >= 2;
            (base + i32::from(not_improving) + self.node_reduction(ply, pv)
                - self.history_reduction(pos, mv, ply))
            .clamp(0, next - 1)
        } else {
            0
        };
        // A reduced late move is expected to fail low, so its reply to cut.
        self.cut_node[ply + 1] = reduction > 0 || opposite;
        let mut score = -self.negamax(&child, next - reduction, -alpha - 1, -alpha, ply + 1);
        if reduction > 0 && score > alpha && !self.aborted {
            self.cut_node[ply + 1] = opposite;
            score = -self.negamax(&child, next, -alpha - 1, -alpha, ply + 1);
        }
        if score > alpha && score < beta && !self.aborted {
            self.cut_node[ply + 1] = false;
            score = -self.negamax(&child, next, -beta, -alpha, ply + 1);
        }
        Some(score)
    }

    /// The divisor of late move reductions: the player's, else the game's.
    fn reduction_divisor(&self) -> i32 {
        let config = &self.ab.config;
        config
            .reduction_divisor
            .unwrap_or(G::PRUNING.reduction_divisor)
    }

    /// Plies more (less, when negative) a late quiet move is reduced for the kind of node it
    /// is played from: more at an expected cut node, less on the principal variation.
    fn node_reduction(&self, ply: usize, pv: bool) -> i32 {
        if pv {
            -self.ab.config.pv_reduction
        } else if self.cut_node[ply] {
            self.ab.config.cut_reduction
        } else {
            0
        }
    }

    /// Whether move `i` (in search order) of `node` may be skipped: a quiet move past late move
    /// or futility pruning's count, or one with bad statistics near the horizon.
    fn may_prune(
        &self,
        pos: &G,
        mv: G::Move,
        i: usize,
        node: &Node<G::Move>,
        null_window: bool,
    ) -> bool {
        (node.prune_from.is_some_and(|from| i >= from)
            || i > 0 && null_window && self.bad_history(pos, mv, node))
            && self.is_quiet(pos, mv, node.ply)
    }

    /// Plies less (more, when negative) a late quiet move is reduced for its statistics.
    fn history_reduction(&self, pos: &G, mv: G::Move, ply: usize) -> i32 {
        if !self.statistics || self.ab.config.history_reduction == 0 {
            return 0;
        }
        (self.quiet_score(pos, mv, ply) / i64::from(self.ab.config.history_reduction)) as i32
    }

    /// A quiet move near the horizon that has done badly as an answer to both moves before it
    /// (Stockfish's continuation-history pruning).
    fn bad_history(&self, pos: &G, mv: G::Move, node: &Node<G::Move>) -> bool {
        if !self.statistics || node.in_danger || node.depth > self.ab.config.history_pruning {
            return false;
        }
        let now = pos.statistics_slots(mv).1;
        let [one, two] = self.ab.stats.continuation(now, self.before(node.ply));
        one.is_some_and(|v| v < 0) && two.is_some_and(|v| v < 0)
    }

    /// Captures only (every move when the side to move is in danger), until the position is
    /// quiet. Results go into the transposition table at depth 0 (any deeper result found there
    /// decides the node), and the table's move is tried first.
    pub(super) fn quiesce(
        &mut self,
        pos: &G,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        depth: u32,
    ) -> i32 {
        if let Some(score) = self.settled(pos, ply) {
            return score;
        }
        if ply >= MAX_PLY - 2 || depth >= MAX_QUIESCENCE {
            return pos.evaluate(&self.ab.weights);
        }
        let key = pos.hash();
        let (tt_move, cut) = self.probe(key, 0, alpha, beta, ply);
        if let Some(score) = cut {
            return score;
        }
        let original_alpha = alpha;
        let danger = depth < 2 && pos.in_danger();
        let mut best = -INFINITY;
        if !danger {
            let stand = pos.evaluate(&self.ab.weights);
            if stand >= beta {
                self.ab
                    .table
                    .store(key, None, to_table(stand, ply), 0, Bound::Lower);
                return stand;
            }
            best = stand;
            alpha = alpha.max(stand);
        }
        let mut moves = MoveList::new();
        if !quiescence_moves(pos, danger, &mut moves) {
            return -(WIN - ply as i32);
        }
        let node = Node {
            key,
            depth: 0,
            ply,
            tt_move,
            in_danger: danger,
            prune_from: None,
            improving: None,
            singular: false,
        };
        self.quiesce_moves(
            pos,
            &mut moves,
            &node,
            (original_alpha, alpha, beta),
            best,
            depth,
        )
    }

    /// The moves quiescence tries (the table's first, then by the game's hint), each answered
    /// by quiescence, from `best` (the stand-pat value, or none when in danger) within the
    /// window `alpha..beta` narrowed from `original_alpha`; the result goes to the table.
    fn quiesce_moves(
        &mut self,
        pos: &G,
        moves: &mut MoveList<G::Move>,
        node: &Node<G::Move>,
        (original_alpha, mut alpha, beta): (i32, i32, i32),
        mut best: i32,
        depth: u32,
    ) -> i32 {
        let (key, ply, tt_move) = (node.key, node.ply, node.tt_move);
        let mut keys = std::mem::take(&mut self.keys[ply]);
        keys.clear();
        keys.extend(moves.iter().map(|&mv| {
            if Some(mv) == tt_move {
                i64::MAX
            } else {
                i64::from(pos.order_hint(mv))
            }
        }));
        let mut best_move = None;
        for i in 0..moves.len() {
            bring_best_forward(moves, &mut keys, i);
            let mut child = pos.clone();
            child.play(moves[i]);
            self.ab.table.prefetch(child.hash());
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, depth + 1);
            if self.aborted {
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(moves[i]);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.keys[ply] = keys;
        self.store_result(key, best_move, best, (original_alpha, beta), 0, ply);
        best
    }
}

/// The moves quiescence tries: every move when in `danger`, else the captures that do not lose
/// material. False when in danger with no move at all (lost); a side without any move out of
/// danger has lost by every game's `status`, asked before.
fn quiescence_moves<G: Evaluate>(pos: &G, danger: bool, moves: &mut MoveList<G::Move>) -> bool {
    if danger {
        pos.legal_moves(moves);
        !moves.is_empty()
    } else {
        pos.capture_moves(moves);
        moves.retain(|&mv| !pos.losing_capture(mv));
        true
    }
}
