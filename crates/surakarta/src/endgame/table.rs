//! One material's table: every position's values for each count of quiet moves left, stored as
//! a number per position into a dictionary of the distinct value sequences.

use super::index::{binomial, rank, rank_among, sort_small, transform, Classes, POINTS};
use super::{classes, LAYERS};

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<Wdl> {
        match code {
            0 => Some(Wdl::Loss),
            1 => Some(Wdl::Draw),
            2 => Some(Wdl::Win),
            _ => None,
        }
    }
}

/// The values of the positions where the side to move has `mover` pieces and the other side
/// `other`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub(crate) mover: usize,
    pub(crate) other: usize,
    /// Per position (see [`Table::locate`]), the number of its sequence in `patterns`.
    pub(crate) ids: Vec<u32>,
    /// Value sequences: bits `2r, 2r+1` hold the [`Wdl`] code with `r` quiet moves left.
    pub(crate) patterns: Vec<u128>,
}

impl Table {
    /// How many positions a table of this material numbers.
    pub fn positions(mover: usize, other: usize) -> usize {
        classes(mover).count() * binomial(POINTS - mover, other)
    }

    /// The position number of the mover's points `ours` and the opponent's `theirs` (any
    /// order, distinct, `0..36` as `y * 6 + x`).
    pub fn locate(ours: &[u8], theirs: &[u8]) -> usize {
        let mut sorted = [0u8; 4];
        sorted[..ours.len()].copy_from_slice(ours);
        sort_small(&mut sorted[..ours.len()]);
        let c: &Classes = classes(ours.len());
        let (class, s) = c.of(rank(&sorted[..ours.len()]));
        let mut moved = [0u8; 4];
        for (m, &p) in moved.iter_mut().zip(theirs) {
            *m = transform(s, p);
        }
        class * binomial(POINTS - ours.len(), theirs.len())
            + rank_among(c.rep(class), &moved[..theirs.len()])
    }

    /// The value of position `index` with `left` quiet moves before the no-capture rule ends
    /// the game (`left < 40`).
    pub fn value(&self, index: usize, left: usize) -> Wdl {
        let pattern = self.patterns[self.ids[index] as usize];
        Wdl::from_code((pattern >> (2 * left) & 3) as u8).unwrap_or(Wdl::Draw)
    }

    /// Bytes of memory the values take.
    pub fn bytes(&self) -> usize {
        self.ids.len() * 4 + self.patterns.len() * 16
    }

    /// Builds the dictionary form from one sequence per position.
    pub(crate) fn from_sequences(mover: usize, other: usize, sequences: &[u128]) -> Table {
        let mut numbers = std::collections::HashMap::new();
        let mut patterns = Vec::new();
        let ids = sequences
            .iter()
            .map(|&s| {
                *numbers.entry(s).or_insert_with(|| {
                    patterns.push(s);
                    patterns.len() as u32 - 1
                })
            })
            .collect();
        Table {
            mover,
            other,
            ids,
            patterns,
        }
    }

    /// Whether every sequence holds only valid codes in the table's layers.
    pub(crate) fn patterns_valid(&self) -> bool {
        self.patterns.iter().all(|&p| {
            p >> (2 * LAYERS) == 0 && (0..LAYERS).all(|r| (p >> (2 * r) & 3) != 3)
        })
    }
}
