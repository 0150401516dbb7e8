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
    pub(crate) ids: Ids,
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
        let pattern = self.patterns[self.ids.get(index)];
        Wdl::from_code((pattern >> (2 * left) & 3) as u8).unwrap_or(Wdl::Draw)
    }

    /// Bytes of memory the values take.
    pub fn bytes(&self) -> usize {
        self.ids.len() * self.ids.width() + self.patterns.len() * 16
    }

    /// Builds the dictionary form from one sequence per position.
    pub(crate) fn from_sequences(mover: usize, other: usize, sequences: &[u128]) -> Table {
        let mut numbers = std::collections::HashMap::new();
        let mut patterns = Vec::new();
        let numbers: Vec<u32> = sequences
            .iter()
            .map(|&s| {
                *numbers.entry(s).or_insert_with(|| {
                    patterns.push(s);
                    patterns.len() as u32 - 1
                })
            })
            .collect();
        let ids = Ids::new(numbers, patterns.len());
        Table {
            mover,
            other,
            ids,
            patterns,
        }
    }

    /// Whether every sequence holds only valid codes in the table's layers.
    pub(crate) fn patterns_valid(&self) -> bool {
        self.patterns
            .iter()
            .all(|&p| p >> (2 * LAYERS) == 0 && (0..LAYERS).all(|r| (p >> (2 * r) & 3) != 3))
    }
}

/// The positions' sequence numbers, each in as few bytes as the dictionary allows (one byte
/// for every table up to 4 against 3: they have at most a few dozen sequences).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ids {
    One(Vec<u8>),
    Two(Vec<u16>),
    Four(Vec<u32>),
}

impl Ids {
    pub(crate) fn new(numbers: Vec<u32>, distinct: usize) -> Ids {
        match Ids::width_for(distinct) {
            1 => Ids::One(numbers.iter().map(|&n| n as u8).collect()),
            2 => Ids::Two(numbers.iter().map(|&n| n as u16).collect()),
            _ => Ids::Four(numbers),
        }
    }

    /// Bytes a number needs when there are `distinct` sequences.
    pub(crate) fn width_for(distinct: usize) -> usize {
        if distinct <= 1 << 8 {
            1
        } else if distinct <= 1 << 16 {
            2
        } else {
            4
        }
    }

    pub(crate) fn width(&self) -> usize {
        match self {
            Ids::One(_) => 1,
            Ids::Two(_) => 2,
            Ids::Four(_) => 4,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Ids::One(v) => v.len(),
            Ids::Two(v) => v.len(),
            Ids::Four(v) => v.len(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> usize {
        match self {
            Ids::One(v) => v[i] as usize,
            Ids::Two(v) => v[i] as usize,
            Ids::Four(v) => v[i] as usize,
        }
    }
}
