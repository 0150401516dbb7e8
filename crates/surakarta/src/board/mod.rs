//! The board: each side's pieces kept as bit rows, circuit tracks and lists, with hashing.
//! Move generation is in [`moves`], on the tables of [`steps`] and [`tracks`].

mod moves;
mod steps;
mod tracks;

use arbiter_core::{zobrist, MoveList, Side};
use arrayvec::ArrayVec;

use crate::geometry::{geometry, Geometry, MAX_CIRCUITS, MAX_SIZE};
pub use crate::point::{Move, PathNode, Point};
use steps::*;
use tracks::*;
pub(crate) use tracks::{LINE_PAIR_ENTRIES, NEXT_LINE, TRACK_PLACES};

const PIECE_KEYS: [u64; 2 * MAX_SIZE * MAX_SIZE] = zobrist::keys(0x5A4A_CA47_0000_0001);

/// [`PIECE_KEYS`] by side and point code ([`code`]), so a lookup needs no bounds check.
const KEYS_BY_CODE: [[u64; 256]; 2] = {
    let mut table = [[0; 256]; 2];
    let mut s = 0;
    while s < 2 {
        let mut i = 0;
        while i < MAX_SIZE * MAX_SIZE {
            let (x, y) = (i % MAX_SIZE, i / MAX_SIZE);
            table[s][y << 4 | x] = PIECE_KEYS[s * MAX_SIZE * MAX_SIZE + i];
            i += 1;
        }
        s += 1;
    }
    table
};

/// Slots of [`Board`]'s `tracks` per side: the circuits, the spare, and room to index by a
/// masked circuit number without a bounds check.
const TRACK_SLOTS: usize = 8;

/// The most pieces a side may have: the `2n` it starts with on the largest board.
pub const MAX_PIECES: usize = 2 * MAX_SIZE;

/// A point as one byte, `y * 16 + x`, for the piece lists.
#[inline(always)]
fn code(p: Point) -> u8 {
    p.y << 4 | p.x
}

/// The `wanted` sides of the capture scans (indexed by [`Side::index`]): `side` alone.
#[inline(always)]
fn only(side: Side) -> [bool; 2] {
    let mut wanted = [false; 2];
    wanted[side.index()] = true;
    wanted
}

/// The pieces on an `n × n` board (`First` = black, `Second` = white).
///
/// Each side's pieces are kept three ways: as bit rows, four 16-bit rows to a word, where one
/// shift moves every piece a step; as the occupancy of each circuit's track (`4n <= 48` points
/// in one `u64`, bit `t` for track index `t`, kept up to date by every change) where the next
/// piece along a track is a bit scan; and as a list, so generating steps visits each piece
/// without scanning rows. A side has at most `2n` pieces.
#[derive(Clone)]
pub struct Board {
    n: u8,
    geometry: &'static Geometry,
    /// This size's [`TRACK_PLACES`].
    track_places: &'static [[(u8, u8); 2]; 256],
    /// `words[side]`: bit `16 y + x` (the point's code) of these 192 bits is set for a piece on
    /// `(x, y)`.
    words: [[u64; PACKED_WORDS]; 2],
    /// `tracks[side][c]`: circuit `c`'s track occupancy; the last entry is the spare.
    tracks: [[u64; TRACK_SLOTS]; 2],
    hash: u64,
    pieces: [[u8; MAX_PIECES]; 2],
    counts: [u8; 2],
    /// Where each occupied point's code stands in its side's list.
    slots: [u8; 16 * MAX_SIZE],
}

impl PartialEq for Board {
    /// Boards are equal when the same pieces stand on the same points (list order aside).
    fn eq(&self, other: &Board) -> bool {
        self.n == other.n && self.words == other.words
    }
}

impl Eq for Board {}

impl std::hash::Hash for Board {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.n.hash(state);
        self.words.hash(state);
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Board {}x{}", self.n, self.n)?;
        for y in 0..self.n {
            for x in 0..self.n {
                let c = match self.get(Point::new(x, y)) {
                    Some(Side::First) => 'B',
                    Some(Side::Second) => 'W',
                    None => '.',
                };
                write!(f, "{c} ")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl Board {
    /// An empty board; `n` must be a supported size (6, 8, 10 or 12).
    pub fn empty(n: u8) -> Option<Board> {
        Some(Board {
            n,
            geometry: geometry(n)?,
            track_places: &TRACK_PLACES[n as usize / 2 - 3],
            words: [[0; PACKED_WORDS]; 2],
            tracks: [[0; TRACK_SLOTS]; 2],
            hash: 0,
            pieces: [[0; MAX_PIECES]; 2],
            counts: [0; 2],
            slots: [0; 16 * MAX_SIZE],
        })
    }

    /// The start: black on rows 0 and 1, white on rows `n-2` and `n-1`.
    pub fn initial(n: u8) -> Option<Board> {
        let mut board = Board::empty(n)?;
        for x in 0..n {
            for (y, side) in [
                (0, Side::First),
                (1, Side::First),
                (n - 2, Side::Second),
                (n - 1, Side::Second),
            ] {
                board.set(Point::new(x, y), Some(side));
            }
        }
        Some(board)
    }

    pub fn size(&self) -> u8 {
        self.n
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub(crate) fn geometry(&self) -> &'static Geometry {
        self.geometry
    }

    pub fn contains(&self, x: i64, y: i64) -> Option<Point> {
        Point::on_board(x, y, self.n)
    }

    #[inline]
    pub fn get(&self, p: Point) -> Option<Side> {
        let (word, bit) = (code(p) as usize / 64, code(p) % 64);
        if self.words[0][word] >> bit & 1 != 0 {
            Some(Side::First)
        } else if self.words[1][word] >> bit & 1 != 0 {
            Some(Side::Second)
        } else {
            None
        }
    }

    /// Puts `piece` on `p` (or empties it).
    ///
    /// # Panics
    /// When a side would have more than `2n` pieces: no game has more, and move lists are sized
    /// for it. Position readers check this first and report it as bad input.
    pub fn set(&mut self, p: Point, piece: Option<Side>) {
        debug_assert!(p.x < self.n && p.y < self.n);
        let old = self.get(p);
        if old == piece {
            return;
        }
        if let Some(side) = old {
            self.remove(side, p);
        }
        if let Some(side) = piece {
            let s = side.index();
            assert!(
                (self.counts[s] as usize) < 2 * self.n as usize,
                "a side has at most {} pieces on a {}x{} board",
                2 * self.n,
                self.n,
                self.n
            );
            self.toggle(side, p);
            self.pieces[s][self.counts[s] as usize] = code(p);
            self.slots[code(p) as usize] = self.counts[s];
            self.counts[s] += 1;
        }
    }

    /// Puts `side`'s piece on the empty point `p` (a board built piece by piece from known
    /// positions: no checks but in debug builds).
    #[inline]
    pub(crate) fn place(&mut self, side: Side, p: Point) {
        debug_assert!(self.get(p).is_none() && (self.counts[side.index()] as usize) < MAX_PIECES);
        let s = side.index();
        self.toggle(side, p);
        self.pieces[s][self.counts[s] as usize % MAX_PIECES] = code(p);
        self.slots[code(p) as usize] = self.counts[s];
        self.counts[s] += 1;
    }

    /// Takes `side`'s piece off `p`: its bits, and its entry in the list (the last entry fills
    /// the gap).
    #[inline(always)]
    fn remove(&mut self, side: Side, p: Point) {
        self.toggle(side, p);
        let s = side.index();
        let slot = self.slots[code(p) as usize] as usize;
        let last = self.counts[s] as usize - 1;
        let moved = self.pieces[s][last];
        self.pieces[s][slot] = moved;
        self.slots[moved as usize] = slot as u8;
        self.counts[s] -= 1;
    }

    /// Flips `side`'s bit at `p` in its row, the tracks through `p`, and the hash; branch-free
    /// (a point off every circuit flips a spare track nobody reads).
    #[inline(always)]
    fn toggle(&mut self, side: Side, p: Point) {
        let s = side.index();
        self.words[s][code(p) as usize / 64] ^= 1 << (code(p) % 64);
        let places = &self.track_places[code(p) as usize];
        for &(circuit, bit) in places {
            self.tracks[s][circuit as usize % TRACK_SLOTS] ^= 1 << bit;
        }
        self.hash ^= KEYS_BY_CODE[s][code(p) as usize];
    }

    /// Moves the piece on `from` to `to`, removing what was on `to`. `from` must hold a piece.
    pub fn relocate(&mut self, from: Point, to: Point) {
        let Some(side) = self.get(from) else {
            debug_assert!(false, "relocate from an empty point");
            return;
        };
        if from == to {
            return;
        }
        if let Some(victim) = self.get(to) {
            self.remove(victim, to);
        }
        self.shift(side, from, to);
    }

    /// [`Board::relocate`] for a move known to be `side`'s: a step or a capture of an enemy
    /// piece. Whether the move captures is read once, from the enemy's bits alone.
    #[inline(always)]
    pub(crate) fn move_piece(&mut self, side: Side, from: Point, to: Point) {
        debug_assert_eq!(self.get(from), Some(side));
        debug_assert_ne!(self.get(to), Some(side));
        let enemy = side.opponent();
        if self.words[enemy.index()][code(to) as usize / 64] >> (code(to) % 64) & 1 != 0 {
            self.remove(enemy, to);
        }
        self.shift(side, from, to);
    }

    /// Moves `side`'s piece from `from` to the empty point `to`: its bits and its list entry.
    #[inline(always)]
    fn shift(&mut self, side: Side, from: Point, to: Point) {
        self.toggle(side, from);
        self.toggle(side, to);
        let slot = self.slots[code(from) as usize];
        self.pieces[side.index()][slot as usize] = code(to);
        self.slots[code(to) as usize] = slot;
    }

    pub fn count(&self, side: Side) -> u32 {
        self.counts[side.index()] as u32
    }

    /// The points of row `y` holding pieces of `side`, bit `x` for column `x`.
    pub fn row_bits(&self, side: Side, y: u8) -> u16 {
        self.row(side.index(), y as usize)
    }

    /// How many captures `side` has (distinct moves) and how many distinct enemy pieces they
    /// threaten: the evaluation's "pieces under threat", without building a move list.
    pub fn capture_summary(&self, side: Side) -> (u32, u32) {
        self.capture_summaries_of(only(side))[side.index()]
    }

    /// [`Board::capture_summary`] of both sides (indexed by [`Side::index`]) in one pass over
    /// the circuits.
    pub fn capture_summaries(&self) -> [(u32, u32); 2] {
        self.capture_summaries_of([true, true])
    }

    /// The summaries of the sides marked in `wanted`; `(0, 0)` for the others.
    #[inline(always)]
    fn capture_summaries_of(&self, wanted: [bool; 2]) -> [(u32, u32); 2] {
        let mut captures = [0; 2];
        let mut victims = [[0u64; 3]; 2];
        self.for_each_capture_of(wanted, |s, _, to| {
            captures[s] += 1;
            let c = code(to) as usize;
            victims[s][c / 64] |= 1 << (c % 64);
        });
        [0, 1].map(|s| {
            let hit: u32 = victims[s].iter().map(|v| v.count_ones()).sum();
            (captures[s], hit)
        })
    }

    /// The number of steps `side` has (moves to empty neighbours).
    pub fn step_count(&self, side: Side) -> u32 {
        self.count_steps(side) as u32
    }

    /// Every point holding a piece of `side`, row by row.
    pub fn pieces(&self, side: Side) -> impl Iterator<Item = Point> + '_ {
        let s = side.index();
        (0..self.n).flat_map(move |y| {
            (0..self.n)
                .filter(move |&x| self.row(s, y as usize) >> x & 1 != 0)
                .map(move |x| Point::new(x, y))
        })
    }

    #[inline]
    fn occupied_row(&self, y: usize) -> u16 {
        self.row(0, y) | self.row(1, y)
    }

    /// Row `y` of side `s`, bit `x` for column `x`.
    #[inline(always)]
    fn row(&self, s: usize, y: usize) -> u16 {
        (self.words[s][y / 4] >> (16 * (y % 4))) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crossing_next_to_each_arc_is_one_point_on_both_lines() {
        for n in crate::SIZES {
            let g = geometry(n).unwrap();
            let n = n as usize;
            for c in 0..g.circuits() {
                let (end, start) = crossing_indices(n, c);
                for i in 0..4 {
                    let (a, b) = (i * n + end, (i + 1) % 4 * n + start);
                    assert_eq!(g.twins[c][a] as usize, b, "size {n} circuit {c} arc {i}");
                }
            }
        }
    }

    #[test]
    fn initial_boards() {
        for (n, moves) in [(6, 16), (8, 22), (10, 28), (12, 34)] {
            let b = Board::initial(n).unwrap();
            assert_eq!(b.count(Side::First), 2 * n as u32);
            assert_eq!(b.count_moves(Side::First), moves);
            let mut list = MoveList::new();
            b.moves(Side::Second, &mut list);
            assert_eq!(list.len() as u64, moves);
        }
        assert!(Board::initial(7).is_none());
        assert!(Board::initial(14).is_none());
    }

    #[test]
    fn set_keeps_rows_columns_and_hash_in_step() {
        let mut b = Board::empty(6).unwrap();
        let p = Point::new(2, 3);
        b.set(p, Some(Side::Second));
        assert_eq!(b.get(p), Some(Side::Second));
        assert_eq!(b.row_bits(Side::Second, 3), 1 << 2);
        let h = b.hash();
        b.set(p, Some(Side::First));
        b.set(p, None);
        assert_eq!(b.hash(), 0);
        assert_ne!(h, 0);
    }
}
