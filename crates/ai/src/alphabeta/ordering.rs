//! Move ordering: the table's move, captures, killers, countermoves and history, and what a
//! cut-off teaches them.

use std::hash::{Hash, Hasher};

use arbiter_core::MoveList;

use super::statistics::{bonus, Slots};
use super::{Context, HISTORY_MAX, HISTORY_SLOTS};
use crate::eval::Evaluate;

/// A fast hash of a move for the history table (FNV-1a over the move's `Hash` bytes).
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

pub(super) fn history_slot<M: Hash>(mv: &M) -> usize {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    mv.hash(&mut h);
    (h.finish() as usize) & (HISTORY_SLOTS - 1)
}

impl<G: Evaluate> Context<'_, G> {
    /// The ordering keys of `moves` (highest first): the table's move, captures, killers, the
    /// answer that last refuted the opponent's move, history.
    pub(super) fn order(
        &self,
        pos: &G,
        moves: &MoveList<G::Move>,
        tt_move: Option<G::Move>,
        ply: usize,
        keys: &mut Vec<i64>,
    ) {
        let killers = self.ab.killers[ply];
        let countermove = self.played[ply].and_then(|m| self.ab.countermoves[history_slot(&m)]);
        keys.clear();
        keys.extend(moves.iter().map(|&mv| {
            if Some(mv) == tt_move {
                1 << 40
            } else if pos.is_capture(mv) {
                let losing = pos.losing_capture(mv);
                (if losing { 1 << 30 } else { 1 << 36 }) + pos.order_hint(mv) as i64
            } else if Some(mv) == killers[0] {
                1 << 32
            } else if Some(mv) == killers[1] {
                (1 << 32) - 1
            } else if Some(mv) == countermove {
                (1 << 32) - 2
            } else {
                self.quiet_score(pos, mv, ply)
            }
        }));
    }

    /// What a quiet move has earned so far: its statistics where the game keeps them, else
    /// its hashed history.
    pub(super) fn quiet_score(&self, pos: &G, mv: G::Move, ply: usize) -> i64 {
        if self.statistics {
            i64::from(self.ab.stats.score(slots(pos, mv), self.before(ply)))
        } else {
            i64::from(self.ab.history[history_slot(&mv)])
        }
    }

    /// The continuation slots of the moves one and two plies before `ply`.
    pub(super) fn before(&self, ply: usize) -> [Option<usize>; 2] {
        [
            self.piece_to[ply],
            ply.checked_sub(1).and_then(|p| self.piece_to[p]),
        ]
    }

    /// `mv` beat alpha at `ply`: the line from here is it and the line found below it.
    pub(super) fn new_best_line(&mut self, mv: G::Move, ply: usize) {
        if ply == 0 {
            self.root_best = Some(mv);
        }
        let rest = std::mem::take(&mut self.pv[ply + 1]);
        let line = &mut self.pv[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&rest);
        self.pv[ply + 1] = rest;
    }

    /// A quiet move that refuted the opponent's is tried early in sibling positions (killers),
    /// after the same opponent move anywhere (countermoves), and anywhere later (history,
    /// growing with the depth it worked at).
    pub(super) fn remember_cutoff(&mut self, pos: &G, mv: G::Move, depth: i32, ply: usize) {
        if pos.is_capture(mv) {
            return;
        }
        let killers = &mut self.ab.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        if self.statistics {
            let before = self.before(ply);
            let bonus = bonus(depth);
            for &tried in self.quiets[ply].iter().filter(|&&m| m != mv) {
                self.ab.stats.update(slots(pos, tried), before, -bonus);
            }
            self.ab.stats.update(slots(pos, mv), before, bonus);
        } else {
            let slot = &mut self.ab.history[history_slot(&mv)];
            *slot = (*slot + depth * depth).min(HISTORY_MAX);
        }
        if let Some(previous) = self.played[ply] {
            self.ab.countermoves[history_slot(&previous)] = Some(mv);
        }
    }

    /// A move late move reductions may shorten: no capture, not a killer.
    pub(super) fn is_quiet(&self, pos: &G, mv: G::Move, ply: usize) -> bool {
        !pos.is_capture(mv) && !self.ab.killers[ply].contains(&Some(mv))
    }
}

pub(super) fn slots<G: Evaluate>(pos: &G, mv: G::Move) -> Slots {
    let (history, piece_to) = pos.statistics_slots(mv);
    Slots { history, piece_to }
}

/// Selection sort one step at a time: swaps the best-keyed move from `i` on into place `i`, so a
/// cut-off saves sorting the rest.
pub(super) fn bring_best_forward<M: Copy, K: Ord + Copy>(
    moves: &mut MoveList<M>,
    keys: &mut [K],
    i: usize,
) {
    let pick = (i..moves.len())
        .max_by_key(|&j| keys[j])
        .expect("i is below the number of moves");
    moves.swap(i, pick);
    keys.swap(i, pick);
}
