//! Endgame tables for Surakarta 6×6: the exact value of every position where each side has
//! between one and `K` pieces (`K` up to 4), under the default no-capture limit of 40.
//!
//! A position's value depends on the side to move and on how many quiet moves are left before
//! a step ends the game as a stalemate; a capture starts the count afresh in a smaller
//! material. So a table keeps, for each position, the value with each of the 40 possible counts
//! left ([`solve`] explains the layers), and stores each position as a number into a dictionary
//! of the distinct 40-value sequences, since few sequences occur.
//!
//! The side to move is always "ours": colours play by the same rules, so black to move and
//! white to move share a table. The board's eight symmetries map circuits to circuits (checked
//! by the tests), so the mover's pieces are reduced to one of about an eighth of the sets.
//!
//! A side with one piece still plays: checkmate is the capture of the *last* piece (the
//! reference judges `count(other) == 1` before the capture), so tables run from 1 piece up.

mod file;
mod index;
mod solve;
mod table;

use std::sync::OnceLock;

pub use file::TableError;
pub use table::{Table, Wdl};

use crate::rules::Position;
use arbiter_core::Side;
use index::Classes;

/// The no-capture limit the tables are solved for (the game's default).
pub const LIMIT: u32 = crate::definition::DEFAULT_MAX_NO_CAPTURE_ROUND;
/// Quiet moves left can be `0 .. LIMIT`.
const LAYERS: usize = LIMIT as usize;
/// The most pieces a side may have in a table this code builds (4 against 4 is 270 million
/// positions, 6.4 GB while it is solved).
pub const MAX_PIECES: usize = 4;

/// The symmetry classes of `k`-point sets, built once.
fn classes(k: usize) -> &'static Classes {
    static CACHE: [OnceLock<Classes>; 5] = [const { OnceLock::new() }; 5];
    CACHE[k].get_or_init(|| Classes::new(k))
}

/// A set of tables: every material with each side at most `max_pieces`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    /// `tables[mover][other]`.
    tables: [[Option<Table>; MAX_PIECES + 1]; MAX_PIECES + 1],
}

impl Tables {
    /// Solves every material with each side between 1 and `max_pieces` (at most
    /// [`MAX_PIECES`]), smallest first; `progress` hears a line per table and layer step.
    pub fn build(max_pieces: usize, progress: &mut dyn FnMut(&str)) -> Tables {
        Tables::build_materials(max_pieces, 2 * max_pieces, progress)
    }

    /// Solves the materials with each side at most `max_pieces` and at most `max_total` pieces
    /// in all: 4 and 7 give 4 against 3 without the half hour 4 against 4 takes, and tests build 3
    /// against 2 without the 11 s 3 against 3 takes.
    pub fn build_materials(
        max_pieces: usize,
        max_total: usize,
        progress: &mut dyn FnMut(&str),
    ) -> Tables {
        Tables::default().extend(max_pieces, max_total, progress)
    }

    /// Solves what [`Tables::build_materials`] would that `self` does not hold yet (tables read
    /// from a directory are not solved again; a material and its colour-swapped twin are solved
    /// together, so both are solved again when one is missing).
    pub fn extend(
        mut self,
        max_pieces: usize,
        max_total: usize,
        progress: &mut dyn FnMut(&str),
    ) -> Tables {
        let wanted: Vec<(usize, usize)> = materials(max_pieces.min(MAX_PIECES))
            .filter(|&(m, o)| m <= o && m + o <= max_total)
            .filter(|&(m, o)| self.table(m, o).is_none() || self.table(o, m).is_none())
            .collect();
        for (mover, other) in wanted {
            let start = std::time::Instant::now();
            solve::solve_pair(&mut self, mover, other, progress);
            let (name, positions) = if mover == other {
                (format!("{mover}v{other}"), Table::positions(mover, other))
            } else {
                let both = Table::positions(mover, other) + Table::positions(other, mover);
                (format!("{mover}v{other} and {other}v{mover}"), both)
            };
            progress(&format!(
                "{name}: {positions} positions in {:.1} s",
                start.elapsed().as_secs_f64()
            ));
        }
        self
    }

    /// The table where the side to move has `mover` pieces and the other side `other`.
    pub fn table(&self, mover: usize, other: usize) -> Option<&Table> {
        self.tables.get(mover)?.get(other)?.as_ref()
    }

    fn insert(&mut self, table: Table) {
        let (m, o) = (table.mover, table.other);
        self.tables[m][o] = Some(table);
    }

    /// The materials `(mover, other)` held.
    pub fn materials(&self) -> Vec<(usize, usize)> {
        self.iter().map(|t| (t.mover, t.other)).collect()
    }

    /// Every table held, by the mover's pieces, then the other side's.
    pub fn iter(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().flatten().flatten()
    }

    /// The most pieces a side has in every table held (0 when empty).
    pub fn max_pieces(&self) -> usize {
        (1..=MAX_PIECES)
            .take_while(|&k| materials(k).all(|(m, o)| self.table(m, o).is_some()))
            .last()
            .unwrap_or(0)
    }

    /// What the tables cover, for messages: `up to 3 against 3, and 4v1 1v4 4v2 2v4`.
    pub fn describe(&self) -> String {
        let k = self.max_pieces();
        let beyond: Vec<String> = materials(MAX_PIECES)
            .filter(|&(m, o)| m.max(o) > k && self.table(m, o).is_some())
            .map(|(m, o)| format!("{m}v{o}"))
            .collect();
        match (k, beyond.is_empty()) {
            (0, _) => beyond.join(" "),
            (_, true) => format!("up to {k} against {k}"),
            (_, false) => format!("up to {k} against {k}, and {}", beyond.join(" ")),
        }
    }

    /// The exact value of `pos` for the side to move, when a table covers it: a 6×6 game with
    /// the default no-capture limit, not over, each side within a table's material.
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        if pos.size() != 6 || pos.max_no_capture_round != LIMIT || pos.is_over() {
            return None;
        }
        let quiet = pos.num_round.checked_sub(pos.last_captured_round)?;
        if quiet == 0 {
            return None;
        }
        let left = LIMIT.saturating_sub(quiet) as usize;
        let us = pos.current_player;
        let (ours, theirs) = (points(pos, us)?, points(pos, us.opponent())?);
        let table = self.table(ours.len(), theirs.len())?;
        Some(table.value(Table::locate(&ours, &theirs), left))
    }
}

/// The points of `side`'s pieces as table numbers, when there are few enough.
fn points(pos: &Position, side: Side) -> Option<arrayvec::ArrayVec<u8, MAX_PIECES>> {
    if pos.board.count(side) as usize > MAX_PIECES {
        return None;
    }
    Some(pos.board.pieces(side).map(|p| p.y * 6 + p.x).collect())
}

/// The materials `(mover, other)` with each side in `1..=k`, by total pieces.
fn materials(k: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut all: Vec<(usize, usize)> = (1..=k).flat_map(|m| (1..=k).map(move |o| (m, o))).collect();
    all.sort_by_key(|&(m, o)| (m + o, m.max(o), m));
    all.into_iter()
}
