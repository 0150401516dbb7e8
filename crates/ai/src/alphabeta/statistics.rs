//! What cut-offs teach the search about quiet moves, the way Stockfish keeps it: a history of
//! each move by side, origin and destination, and continuation histories of each move (moved
//! piece and destination) as an answer to the move one ply and two plies before. Each score is
//! held within ±[`STAT_MAX`] by gravity (a bonus moves it less the nearer it is to the bound),
//! and a cut-off lowers the scores of the quiet moves searched before the one that cut.

/// The bound of every score.
pub(super) const STAT_MAX: i32 = 16_384;

/// A quiet move's indexes: its history slot and its piece-and-destination slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slots {
    pub history: usize,
    pub piece_to: usize,
}

/// The statistics of one player, kept between its searches of a game.
pub(super) struct Statistics {
    history: Vec<i32>,
    /// `continuation[k][before * piece_to_slots + now]`: how `now` fared `k + 1` plies after
    /// `before`.
    continuation: [Vec<i32>; 2],
    piece_to_slots: usize,
}

impl Statistics {
    /// Tables for moves with history slots below `history_slots` and piece-and-destination
    /// slots below `piece_to_slots` (both 0: no tables, for a game without them).
    pub fn new((history_slots, piece_to_slots): (usize, usize)) -> Statistics {
        let pairs = piece_to_slots * piece_to_slots;
        Statistics {
            history: vec![0; history_slots],
            continuation: [vec![0; pairs], vec![0; pairs]],
            piece_to_slots,
        }
    }

    pub fn clear(&mut self) {
        self.history.iter_mut().for_each(|h| *h = 0);
        for table in &mut self.continuation {
            table.iter_mut().for_each(|h| *h = 0);
        }
    }

    /// The continuation scores of `now` after the moves `before` (one and two plies back;
    /// `None` at the root or after a pass).
    pub fn continuation(&self, now: usize, before: [Option<usize>; 2]) -> [Option<i32>; 2] {
        [0, 1].map(|k| before[k].map(|b| self.continuation[k][b * self.piece_to_slots + now]))
    }

    /// Everything known of a quiet move: its history and both continuation scores.
    pub fn score(&self, slots: Slots, before: [Option<usize>; 2]) -> i32 {
        let [one, two] = self.continuation(slots.piece_to, before);
        self.history[slots.history] + one.unwrap_or(0) + two.unwrap_or(0)
    }

    /// Adds `bonus` (negative: a malus) to each score of the move.
    pub fn update(&mut self, slots: Slots, before: [Option<usize>; 2], bonus: i32) {
        apply(&mut self.history[slots.history], bonus);
        for (k, b) in before.iter().enumerate() {
            if let Some(b) = b {
                let slot = b * self.piece_to_slots + slots.piece_to;
                apply(&mut self.continuation[k][slot], bonus);
            }
        }
    }
}

fn apply(entry: &mut i32, bonus: i32) {
    *entry += bonus - *entry * bonus.abs() / STAT_MAX;
}

/// What a cut-off at remaining `depth` is worth to its move (and costs the moves before it).
pub(super) fn bonus(depth: i32) -> i32 {
    (32 * depth * depth + 64 * depth).min(4_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_stay_within_the_bound_and_a_malus_brings_them_down() {
        let mut stats = Statistics::new((4, 3));
        let slots = Slots {
            history: 1,
            piece_to: 2,
        };
        let before = [Some(0), None];
        for _ in 0..1_000 {
            stats.update(slots, before, bonus(20));
        }
        let high = stats.score(slots, before);
        assert!(high > STAT_MAX && high <= 2 * STAT_MAX, "{high}");
        stats.update(slots, before, -bonus(20));
        assert!(stats.score(slots, before) < high);
        assert_eq!(stats.continuation(2, [None, Some(0)]), [None, Some(0)]);
        stats.clear();
        assert_eq!(stats.score(slots, before), 0);
    }
}
