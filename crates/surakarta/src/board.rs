//! Points, the board, and move generation.

use arbiter_core::{zobrist, MoveList, Side};
use arrayvec::ArrayVec;

use crate::geometry::{geometry, Geometry, MAX_CIRCUITS, MAX_SIZE};

/// A point `(x, y)`: `x` the column, `y` the row, both `0..n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    pub x: u8,
    pub y: u8,
}

impl Point {
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }

    /// The point `(x, y)` if it lies on an `n × n` board.
    pub fn on_board(x: i64, y: i64, n: u8) -> Option<Point> {
        let range = 0..n as i64;
        (range.contains(&x) && range.contains(&y)).then(|| Point::new(x as u8, y as u8))
    }

    /// Row-major index on an `n × n` board.
    #[inline]
    pub fn index(self, n: u8) -> usize {
        self.y as usize * n as usize + self.x as usize
    }
}

/// A move from one point to another: a step or a capture, as the board decides.
///
/// Packed in one `u32` (bytes, lowest first: `from.x, from.y, to.x, to.y`) so the step generator
/// makes eight moves with one vector add.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Move(u32);

impl Move {
    #[inline(always)]
    pub const fn new(from: Point, to: Point) -> Move {
        Move(from.x as u32 | (from.y as u32) << 8 | (to.x as u32) << 16 | (to.y as u32) << 24)
    }

    #[inline(always)]
    pub const fn from(self) -> Point {
        Point::new(self.0 as u8, (self.0 >> 8) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Point {
        Point::new((self.0 >> 16) as u8, (self.0 >> 24) as u8)
    }
}

impl Ord for Move {
    /// By source, then target, each by `(x, y)`.
    fn cmp(&self, other: &Move) -> std::cmp::Ordering {
        (self.from(), self.to()).cmp(&(other.from(), other.to()))
    }
}

impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Move) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Move({}-{})", self.from(), self.to())
    }
}

/// One stop of a capture's journey, for a screen to animate the piece along the track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathNode {
    /// The piece passes (or starts or stops on) this point.
    Point(Point),
    /// The piece goes round the arc of circuit `circuit` (1-based) at `corner`.
    Arc { circuit: u8, corner: Point },
}

/// The eight neighbours in the bit order of [`STEP_TABLE`]'s index: the row below, the two
/// sides, the row above.
const NEIGHBOURS: [(i8, i8); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// For each set of empty neighbours (bit `i` for `NEIGHBOURS[i]`), how many there are and the
/// offsets to add to a packed move `from → from` (see [`Move`]) to reach them, those
/// first. Adding wraps, which is exact whenever the target is on the board.
#[derive(Clone, Copy)]
struct StepEntry {
    count: u8,
    offsets: [u32; 8],
}

const STEP_TABLE: [StepEntry; 256] = {
    let mut table = [StepEntry {
        count: 0,
        offsets: [0; 8],
    }; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut i = 0;
        while i < 8 {
            if mask >> i & 1 != 0 {
                let entry = &mut table[mask];
                let (dx, dy) = NEIGHBOURS[i];
                entry.offsets[entry.count as usize] =
                    (((dx as i32) << 16) + ((dy as i32) << 24)) as u32;
                entry.count += 1;
            }
            i += 1;
        }
        mask += 1;
    }
    table
};

/// `NEXT_LINE[non_empty][i]`: the first line after `i` (cyclically, possibly `i` itself) whose
/// bit is set in the 4-bit set `non_empty`.
pub(crate) const NEXT_LINE: [[u8; 4]; 16] = {
    let mut table = [[0u8; 4]; 16];
    let mut set = 1;
    while set < 16 {
        let mut i = 0;
        while i < 4 {
            let mut j = (i + 1) % 4;
            while set >> j & 1 == 0 {
                j = (j + 1) % 4;
            }
            table[set][i] = j as u8;
            i += 1;
        }
        set += 1;
    }
    table
};

/// `TRACK_PLACES[n/2 - 3][code(p)]`: the two places `(circuit, track index)` of point
/// `p` on an `n × n` board, `(MAX_CIRCUITS, 0)` (the spare track) where there are fewer.
///
/// Row `y` is line 0 of circuit `y` (from the left) or line 2 of circuit `n-1-y` (from the
/// right); column `x` is line 1 of circuit `n-1-x` (upwards) or line 3 of circuit `x`
/// (downwards), circuits counted from 1 (see [`crate::geometry`]). Edge lines lie on no circuit.
pub(crate) const TRACK_PLACES: [[[(u8, u8); 2]; 256]; 4] = {
    let spare = (MAX_CIRCUITS as u8, 0);
    let mut table = [[[spare; 2]; 256]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let (half, m) = (n / 2, n - 1);
        let mut y = 0;
        while y < n {
            let mut x = 0;
            while x < n {
                let entry = &mut table[size][y << 4 | x];
                if y >= 1 && y < half {
                    entry[0] = ((y - 1) as u8, x as u8);
                } else if y >= half && y < m {
                    entry[0] = ((m - 1 - y) as u8, (2 * n + m - x) as u8);
                }
                if x >= half && x < m {
                    entry[1] = ((m - 1 - x) as u8, (n + y) as u8);
                } else if x >= 1 && x < half {
                    entry[1] = ((x - 1) as u8, (3 * n + m - y) as u8);
                }
                x += 1;
            }
            y += 1;
        }
        size += 1;
    }
    table
};

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

/// Words of [`Board::packed`] rows: four 16-bit rows each, `MAX_SIZE` rows.
const PACKED_WORDS: usize = MAX_SIZE / 4;

/// `BOARD_WORDS[n / 2 - 3]`: the points of an `n × n` board, packed like [`Board::packed`].
const BOARD_WORDS: [[u64; PACKED_WORDS]; 4] = {
    let mut table = [[0; PACKED_WORDS]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let mut y = 0;
        while y < n {
            table[size][y / 4] |= ((1u64 << n) - 1) << (16 * (y % 4));
            y += 1;
        }
        size += 1;
    }
    table
};

/// The eight step directions `(dx, dy)` in the order of [`step_sets`].
const STEP_DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// Where the steps of the `own` pieces land in word `k` of the `empty` points (both packed like
/// [`Board::packed`]), one set per direction of [`STEP_DIRECTIONS`]: the pieces shifted one
/// point that way. Shifts across a row's end land on bits no board point uses.
#[inline(always)]
fn step_sets(own: &[u64; PACKED_WORDS], empty: &[u64; PACKED_WORDS], k: usize) -> [u64; 8] {
    let (below, above) = neighbour_words(own, k);
    let up = own[k] << 16 | below >> 48;
    let down = own[k] >> 16 | above << 48;
    [
        own[k] << 1,
        own[k] >> 1,
        up >> 1,
        up,
        up << 1,
        down >> 1,
        down,
        down << 1,
    ]
    .map(|set| set & empty[k])
}

/// The words before and after word `k` of a packed board, empty beyond its ends.
#[inline(always)]
fn neighbour_words(words: &[u64; PACKED_WORDS], k: usize) -> (u64, u64) {
    let below = if k > 0 { words[k - 1] } else { 0 };
    let above = if k + 1 < PACKED_WORDS {
        words[k + 1]
    } else {
        0
    };
    (below, above)
}

/// The number of steps of the `own` pieces onto `empty` points on an `n × n` board.
#[inline(always)]
fn count_steps_packed(own: &[u64; PACKED_WORDS], empty: &[u64; PACKED_WORDS], n: u8) -> u32 {
    (0..(n as usize).div_ceil(4))
        .map(|k| {
            step_sets(own, empty, k)
                .iter()
                .map(|set| set.count_ones())
                .sum::<u32>()
        })
        .sum()
}

/// The step with number `index` (below [`count_steps_packed`]), counting the landing points
/// direction by direction, and within a direction point by point (row by row).
#[inline(always)]
fn nth_step_packed(
    own: &[u64; PACKED_WORDS],
    empty: &[u64; PACKED_WORDS],
    n: u8,
    index: u32,
) -> Option<Move> {
    let words = (n as usize).div_ceil(4);
    let sets: [[u64; 8]; PACKED_WORDS] = std::array::from_fn(|k| {
        if k < words {
            step_sets(own, empty, k)
        } else {
            [0; 8]
        }
    });
    let mut rest = index;
    for (d, &(dx, dy)) in STEP_DIRECTIONS.iter().enumerate() {
        for (k, word_sets) in sets.iter().enumerate().take(words) {
            let mut set = word_sets[d];
            let count = set.count_ones();
            if rest >= count {
                rest -= count;
                continue;
            }
            for _ in 0..rest {
                set &= set - 1;
            }
            // A packed bit's index counted over all words is the point's code, `16 y + x`.
            let to = 64 * k as i32 + set.trailing_zeros() as i32;
            let from = to - dx - 16 * dy;
            let point = |code: i32| Point::new((code & 15) as u8, (code >> 4) as u8);
            return Some(Move::new(point(from), point(to)));
        }
    }
    None
}

/// The steps of the piece with code `piece`: its entry in [`STEP_TABLE`] and the packed move
/// `piece → piece` its offsets are added to. `padded` is [`Board::padded_empty_rows`].
#[inline(always)]
fn piece_steps(padded: &[u16; 16 + 2], piece: u8) -> (&'static StepEntry, u32) {
    let (x, y) = ((piece & 15) as usize, (piece >> 4) as usize);
    let below = (padded[y] >> x) & 7;
    let middle = (padded[y + 1] >> x) & 7;
    let above = (padded[y + 2] >> x) & 7;
    let mask = (below | (middle & 1) << 3 | (middle >> 2) << 4 | above << 5) as u8;
    let from = x as u32 | (y as u32) << 8;
    (&STEP_TABLE[mask as usize], from | from << 16)
}

/// When one piece is both the last of line `i` (at bit `last`) and the first of line `j` of a
/// circuit (it stands on their crossing), its travel passes over itself: the track indices
/// of the pieces it meets then, onwards along line `j` and backwards along line `i`.
#[inline(always)]
fn pieces_past_crossing(
    lines: &[u64; 4],
    i: usize,
    j: usize,
    last: usize,
    n: usize,
) -> [Option<usize>; 2] {
    let onwards = lines[j] & (lines[j] - 1);
    let backwards = lines[i] & !(1u64 << last);
    [
        (onwards != 0).then(|| j * n + onwards.trailing_zeros() as usize),
        (backwards != 0).then(|| i * n + 63 - backwards.leading_zeros() as usize),
    ]
}

/// `LINE_PAIR_ENTRIES[summary]`: how many pairs of a circuit have owners that differ, where
/// `summary` has three bits for each line `i` of the circuit: bit `3i` when the line holds a
/// piece, bit `3i + 1` when its first piece is black and bit `3i + 2` when its last piece is
/// black. Each non-empty line's last piece is paired with the first piece of the next non-empty
/// line (itself when it is alone).
pub(crate) const LINE_PAIR_ENTRIES: [u8; 1 << 12] = {
    let mut table = [0u8; 1 << 12];
    let mut summary = 0;
    while summary < 1 << 12 {
        let mut non_empty = 0;
        let mut i = 0;
        while i < 4 {
            non_empty |= (summary >> (3 * i) & 1) << i;
            i += 1;
        }
        let mut i = 0;
        while i < 4 {
            if non_empty >> i & 1 != 0 {
                let j = NEXT_LINE[non_empty][i] as usize;
                let last_black = summary >> (3 * i + 2) & 1;
                let first_black = summary >> (3 * j + 1) & 1;
                table[summary] += (last_black != first_black) as u8;
            }
            i += 1;
        }
        summary += 1;
    }
    table
};

/// A circuit's track occupancy (bit `t` for track index `t`, lines of `N` points) with line
/// `i` moved to bits `16 i ..`, so one subtraction works on all four lines at once.
#[inline(always)]
fn line_lanes<const N: usize>(track: u64) -> u64 {
    let line = (1u64 << N) - 1;
    (track & line)
        | (track >> N & line) << 16
        | (track >> (2 * N) & line) << 32
        | (track >> (3 * N) & line) << 48
}

/// The [`LINE_PAIR_ENTRIES`] summary of a circuit from its sides' [`line_lanes`]. Of two
/// disjoint bit sets the larger holds the highest bit, so a line's last piece is black exactly
/// when its black lane is at least its white lane (and the line is not empty); its first piece
/// is the lowest bit, `x & !(x - 1)`. With a spare top bit in each lane, no subtraction borrows
/// from the next lane.
#[inline(always)]
fn line_summary(black: u64, white: u64) -> usize {
    const ONES: u64 = 0x0001_0001_0001_0001;
    const TOPS: u64 = 0x8000_8000_8000_8000;
    let occupied = black | white;
    let non_empty = ((occupied | TOPS) - ONES) & TOPS;
    let last_black = ((black | TOPS) - white) & non_empty;
    let lowest = occupied & !((occupied | TOPS) - ONES);
    let first_black = (((black & lowest) | TOPS) - ONES) & TOPS;
    // Lane i's three flags sit at bits 16i, 16i + 1, 16i + 2; the multiply moves them all to
    // bits 39 + 3i (each product term lands on its own bit, so nothing carries).
    let flags = non_empty >> 15 | first_black >> 14 | last_black >> 13;
    let gather: u64 = 1 | 1 << 13 | 1 << 26 | 1 << 39;
    (flags.wrapping_mul(gather) >> 39) as usize & 0xFFF
}

/// The track indices, within their lines, of circuit `c`'s crossing next to each arc: the
/// crossing is point `n-1-k` of line `i` and point `k` of line `i + 1`, where `k = c + 1`
/// (see [`crate::geometry`]; the same for all four arcs by symmetry).
#[inline(always)]
const fn crossing_indices(n: usize, c: usize) -> (usize, usize) {
    (n - 2 - c, c + 1)
}

/// Where a line's last piece and the next non-empty line's first piece are one piece on a
/// crossing, so the pair the capture list makes there is a piece and itself: bit `i` when the
/// crossing next to arc `i` (between lines `i` and `i + 1`) is line `i`'s last piece and line
/// `i + 1`'s first (the short way, over one arc), bit `4 + i` when it is line `i + 1`'s last
/// piece and, with the two lines beyond empty, line `i`'s first (the long way round, over
/// three arcs).
#[inline(always)]
fn lone_crossings<const N: usize>(c: usize, occupied: u64) -> u32 {
    let masks = &LONE_CROSSING_MASKS[N / 2 - 3][c];
    let mut lone = 0;
    for (k, &(window, crossing)) in masks.iter().enumerate() {
        lone |= u32::from(occupied & window == crossing) << k;
    }
    lone
}

/// `LONE_CROSSING_MASKS[n/2 - 3][c][k]`: for bit `k` of [`lone_crossings`] on circuit `c` of
/// an `n × n` board, the track bits that must hold exactly the crossing's bit, and that bit.
const LONE_CROSSING_MASKS: [[[(u64, u64); 8]; MAX_CIRCUITS]; 4] = {
    let mut table = [[[(0, 0); 8]; MAX_CIRCUITS]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let line = (1u64 << n) - 1;
        let mut c = 0;
        while c < n / 2 - 1 {
            let (end, start) = crossing_indices(n, c);
            let mut i = 0;
            while i < 4 {
                let (here, next) = (i * n, (i + 1) % 4 * n);
                let crossing = 1u64 << (here + end);
                let after_end = line & !((1u64 << end) - 1);
                let before_start = (1u64 << start) - 1;
                let short = after_end << here | before_start << next;
                let beyond = line << ((i + 2) % 4 * n) | line << ((i + 3) % 4 * n);
                let after_start = line & !((2u64 << start) - 1);
                let before_end = crossing - (1 << here);
                let long = after_start << next | beyond | before_end | crossing;
                table[size][c][i] = (short, crossing);
                table[size][c][4 + i] = (long, crossing);
                i += 1;
            }
            c += 1;
        }
        size += 1;
    }
    table
};

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

    /// Appends every step of `side` (a move to an empty neighbour).
    ///
    /// Branch-free per piece: all eight candidate moves of [`piece_steps`] are written
    /// and the list keeps as many as are real.
    #[inline(always)]
    fn push_steps(&self, side: Side, out: &mut MoveList<Move>) {
        let padded = self.padded_empty_rows();
        let s = side.index();
        for &piece in &self.pieces[s][..self.counts[s] as usize] {
            let (entry, base) = piece_steps(&padded, piece);
            let block = entry.offsets.map(|offset| Move(base.wrapping_add(offset)));
            out.push_block(&block, entry.count as usize);
        }
    }

    /// `padded[y + 1]` has bit `x + 1` set when `(x, y)` is on the board and empty; sized for
    /// any 4-bit row code so the lookups of [`piece_steps`] need no bounds checks.
    #[inline(always)]
    fn padded_empty_rows(&self) -> [u16; 16 + 2] {
        let n = self.n as usize;
        let full: u16 = ((1u32 << n) - 1) as u16;
        let mut padded = [0u16; 16 + 2];
        for y in 0..n {
            padded[y + 1] = (!self.occupied_row(y) & full) << 1;
        }
        padded
    }

    /// A move of `side` chosen uniformly at random, `None` when `side` has no move.
    /// `choose(count)` must return a uniformly random index below `count`.
    ///
    /// No move list is built. The steps are counted by popcount and the entries of the capture
    /// list (a capture found by two routes is listed twice) by [`Board::listed_capture_count_sized`];
    /// an index into both picks a step or a listed capture, and a capture is kept only when
    /// drawn through its first entry (otherwise the draw is repeated), so every distinct move is
    /// equally likely.
    pub fn choose_move(&self, side: Side, choose: impl FnMut(u32) -> u32) -> Option<Move> {
        match self.n {
            6 => self.choose_move_sized::<6>(side, choose),
            8 => self.choose_move_sized::<8>(side, choose),
            10 => self.choose_move_sized::<10>(side, choose),
            _ => self.choose_move_sized::<12>(side, choose),
        }
    }

    /// [`Board::choose_move`] for an `N × N` board: with the size a constant, the loops over
    /// rows, lines and circuits unroll (playouts run 1.4× faster).
    #[inline(always)]
    fn choose_move_sized<const N: usize>(
        &self,
        side: Side,
        mut choose: impl FnMut(u32) -> u32,
    ) -> Option<Move> {
        let (own, empty) = (self.packed(side), self.packed_empty());
        let listed = self.listed_capture_count_sized::<N>(side);
        let total = listed + count_steps_packed(&own, &empty, N as u8);
        if total == 0 {
            return None;
        }
        loop {
            let index = choose(total);
            debug_assert!(index < total);
            if index >= listed {
                return nth_step_packed(&own, &empty, N as u8, index - listed);
            }
            if let Some(capture) = self.drawn_capture(side, index) {
                return Some(capture);
            }
        }
    }

    /// The capture drawn by entry `index` of `side`'s capture list; `None` (draw again) when an
    /// earlier entry lists the same capture, so that each capture is drawn through one entry.
    fn drawn_capture(&self, side: Side, index: u32) -> Option<Move> {
        let mut listed = ArrayVec::<Move, { 8 * MAX_CIRCUITS }>::new();
        self.for_each_listed_capture(side, |from, to| listed.push(Move::new(from, to)));
        let chosen = listed[index as usize];
        (!listed[..index as usize].contains(&chosen)).then_some(chosen)
    }

    /// How many entries `side`'s capture list has, repeats included: the pairs that
    /// [`Board::for_each_listed_capture_of`] visits.
    ///
    /// Each non-empty line's last piece is paired with the first piece of the next non-empty
    /// line, and the pair is one entry (for either side) when their owners differ: each line
    /// gives three bits (non-empty, first black, last black; [`line_summary`] finds all twelve
    /// of a circuit at once, without a bit scan) and [`LINE_PAIR_ENTRIES`] counts the pairs.
    /// A pair whose two ends are one piece on a crossing counts 0 there and is counted apart
    /// ([`lone_crossings`]).
    #[inline(always)]
    fn listed_capture_count_sized<const N: usize>(&self, side: Side) -> u32 {
        let mut count = 0;
        for c in 0..N / 2 - 1 {
            let (black, white) = (self.tracks[0][c], self.tracks[1][c]);
            let summary = line_summary(line_lanes::<N>(black), line_lanes::<N>(white));
            count += LINE_PAIR_ENTRIES[summary] as u32;
            let lone = lone_crossings::<N>(c, black | white);
            if lone != 0 {
                count += self.entries_past_crossings::<N>(c, side, lone);
            }
        }
        count
    }

    /// The capture-list entries of `side` on circuit `c` from pieces that pass over themselves
    /// ([`lone_crossings`]): such a piece, last of one line and first of another, meets the
    /// piece after it on the line it is first of and the piece before it on the line it is last
    /// of, and each is an entry when it is an enemy.
    ///
    /// Out of line: about one circuit in four needs it, and inlined it was no faster.
    #[inline(never)]
    fn entries_past_crossings<const N: usize>(&self, c: usize, side: Side, mut lone: u32) -> u32 {
        let own = self.tracks[side.index()][c];
        let enemy = self.tracks[side.opponent().index()][c];
        let line = (1u64 << N) - 1;
        let (end, start) = crossing_indices(N, c);
        let mut count = 0;
        while lone != 0 {
            let bit = lone.trailing_zeros() as usize;
            lone &= lone - 1;
            let i = bit % 4;
            let (on_line, on_next) = (i * N + end, (i + 1) % 4 * N + start);
            let (last_at, first_at) = if bit < 4 {
                (on_line, on_next)
            } else {
                (on_next, on_line)
            };
            if own >> last_at & 1 == 0 {
                continue;
            }
            let first_line = line << (first_at / N * N);
            let after = !((2u64 << first_at) - 1) & first_line;
            let (own_after, enemy_after) = (own & after, enemy & after);
            let next_is_enemy = enemy_after & (own_after | enemy_after).wrapping_neg() != 0;
            let last_line = line << (last_at / N * N);
            let before = ((1u64 << last_at) - 1) & last_line;
            let previous_is_enemy = enemy & before > own & before;
            count += u32::from(next_is_enemy) + u32::from(previous_is_enemy);
        }
        count
    }

    /// The number of steps of `side`, by popcount.
    #[inline(always)]
    fn count_steps(&self, side: Side) -> u64 {
        count_steps_packed(&self.packed(side), &self.packed_empty(), self.n) as u64
    }

    /// `side`'s rows four to a word, 16 bits a row: bit `16 * (y % 4) + x` of word `y / 4`.
    /// One shift of a word moves all its pieces one step.
    #[inline(always)]
    fn packed(&self, side: Side) -> [u64; PACKED_WORDS] {
        self.words[side.index()]
    }

    /// The empty points on the board, packed like [`Board::packed`].
    #[inline(always)]
    fn packed_empty(&self) -> [u64; PACKED_WORDS] {
        let [black, white] = &self.words;
        let board = &BOARD_WORDS[self.n as usize / 2 - 3];
        [0, 1, 2].map(|k| board[k] & !(black[k] | white[k]))
    }

    /// [`Board::step_count`] of both sides, indexed by [`Side::index`].
    pub fn step_counts(&self) -> [u32; 2] {
        let empty = self.packed_empty();
        Side::BOTH.map(|side| count_steps_packed(&self.packed(side), &empty, self.n))
    }

    /// Whether some piece of `side` has an empty neighbour.
    #[inline]
    fn has_step(&self, side: Side) -> bool {
        let (own, empty) = (self.packed(side), self.packed_empty());
        (0..(self.n as usize).div_ceil(4)).any(|k| {
            step_sets(&own, &empty, k)
                .iter()
                .any(|&landing| landing != 0)
        })
    }

    /// Calls `visit(from, to)` for each entry of the course reference's capture list for `side`
    /// (see [`crate::reference`]): a capture can appear twice, once per route.
    #[inline(always)]
    fn for_each_listed_capture(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        self.for_each_listed_capture_of(only(side), |_, from, to| visit(from, to));
    }

    /// Calls `visit(side, from, to)` (`side` as an index) for each entry of the capture lists of
    /// the sides marked in `wanted`, each side's in the course reference's order: the
    /// evaluation asks for both sides in one pass.
    ///
    /// On each circuit a capture can only join the last piece of a line to the first piece of the
    /// next non-empty line (the travel between them crosses an arc and meets nothing, and either
    /// piece may take the other), so at most four pairs per circuit are looked at, found by bit
    /// scans of the track occupancy. When both ends are one piece on a crossing, it passes over
    /// itself and meets the next piece beyond, on either side. As a set this is exactly the
    /// track-walking rule (a property test checks it).
    #[inline(always)]
    fn for_each_listed_capture_of(
        &self,
        wanted: [bool; 2],
        mut visit: impl FnMut(usize, Point, Point),
    ) {
        let g = self.geometry();
        let n = self.n as usize;
        let full = (1u64 << n) - 1;
        for c in 0..g.circuits() {
            let black = self.tracks[0][c];
            let white = self.tracks[1][c];
            if black == 0 || white == 0 {
                continue;
            }
            let occupied = black | white;
            let owner = |t: usize| usize::from(black >> t & 1 == 0);
            let track = &g.flat_tracks[c];
            let twin = &g.twins[c];
            let lines = [0, 1, 2, 3].map(|l| (occupied >> (l * n)) & full);
            let non_empty = lines
                .iter()
                .enumerate()
                .fold(0, |acc, (l, &b)| acc | usize::from(b != 0) << l);
            let mut remaining = non_empty;
            while remaining != 0 {
                let i = remaining.trailing_zeros() as usize;
                remaining &= remaining - 1;
                let j = NEXT_LINE[non_empty][i] as usize;
                let last = 63 - lines[i].leading_zeros() as usize;
                let a = i * n + last;
                let b = j * n + lines[j].trailing_zeros() as usize;
                let (side_a, side_b) = (owner(a), owner(b));
                if twin[b] as usize != a {
                    if side_a != side_b {
                        let (from, to) = if side_a == 0 { (a, b) } else { (b, a) };
                        for (s, (f, t)) in [(0, (from, to)), (1, (to, from))] {
                            if wanted[s] {
                                visit(s, track[f], track[t]);
                            }
                        }
                    }
                } else if wanted[side_a] {
                    for v in pieces_past_crossing(&lines, i, j, last, n)
                        .into_iter()
                        .flatten()
                    {
                        if owner(v) != side_a {
                            visit(side_a, track[a], track[v]);
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit(from, to)` once for each distinct capture of `side`.
    #[inline(always)]
    fn for_each_capture(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        self.for_each_capture_of(only(side), |_, from, to| visit(from, to));
    }

    /// Calls `visit(side, from, to)` once for each distinct capture of the sides marked in
    /// `wanted`, in the order first listed.
    #[inline(always)]
    fn for_each_capture_of(&self, wanted: [bool; 2], mut visit: impl FnMut(usize, Point, Point)) {
        let mut seen = [(); 2].map(|_| ArrayVec::<Move, { 8 * MAX_CIRCUITS }>::new());
        self.for_each_listed_capture_of(wanted, |s, from, to| {
            let mv = Move::new(from, to);
            if !seen[s].contains(&mv) {
                seen[s].push(mv);
                visit(s, from, to);
            }
        });
    }

    /// The course reference's capture list for `side`, duplicates included.
    pub(crate) fn listed_captures(&self, side: Side) -> Vec<Move> {
        let mut out = Vec::new();
        self.for_each_listed_capture(side, |from, to| out.push(Move::new(from, to)));
        out
    }

    /// Appends every move of `side`, captures first, ignoring whose turn it is and the game's end.
    pub fn moves(&self, side: Side, out: &mut MoveList<Move>) {
        self.captures(side, out);
        self.push_steps(side, out);
    }

    /// Appends the captures of `side` (each distinct move once, as in [`Board::moves`]).
    pub fn captures(&self, side: Side, out: &mut MoveList<Move>) {
        self.for_each_capture(side, |from, to| out.push(Move::new(from, to)));
    }

    /// The number of moves of `side` (for perft's last ply), without building them.
    pub fn count_moves(&self, side: Side) -> u64 {
        let mut count = self.count_steps(side);
        self.for_each_capture(side, |_, _| count += 1);
        count
    }

    /// Whether `side` has any move at all (a side without one is trapped).
    /// Searches call it at every node (a trapped side has lost), so it stops at the first row
    /// with a step instead of counting them all.
    pub fn has_move(&self, side: Side) -> bool {
        let mut any = self.has_step(side);
        if !any {
            self.for_each_capture(side, |_, _| any = true);
        }
        any
    }

    /// The distinct points a capture from `from` reaches (for the piece standing there), sorted.
    pub fn capture_targets(&self, from: Point) -> Vec<Point> {
        let Some(side) = self.get(from) else {
            return vec![];
        };
        let mut out = Vec::new();
        self.for_each_capture(side, |f, to| {
            if f == from {
                out.push(to);
            }
        });
        out.sort();
        out
    }

    /// Whether the piece on `from` can capture on `to`.
    pub fn can_capture(&self, from: Point, to: Point) -> bool {
        let Some(side) = self.get(from) else {
            return false;
        };
        let mut found = false;
        self.for_each_listed_capture(side, |f, t| found |= f == from && t == to);
        found
    }

    /// The empty neighbours of `from`, sorted.
    pub fn step_targets(&self, from: Point) -> Vec<Point> {
        let mut out = Vec::new();
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if let Some(p) = self.contains(from.x as i64 + dx, from.y as i64 + dy) {
                    if self.get(p).is_none() {
                        out.push(p);
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The route of the capture `from → to`: every point from the start to the target, with the
    /// arcs it goes round; the shortest when several routes reach the target. `None` when no
    /// capture from `from` reaches `to`.
    pub fn capture_path(&self, from: Point, to: Point) -> Option<Vec<PathNode>> {
        let side = self.get(from)?;
        if self.get(to) != Some(side.opponent()) {
            return None;
        }
        let g = self.geometry();
        let n = self.n as usize;
        let mut best: Option<Vec<PathNode>> = None;
        for occ in &g.occurrences[from.index(self.n)] {
            let track = &g.tracks[occ.circuit as usize];
            let len = track.len();
            for forward in [true, false] {
                let mut path = vec![PathNode::Point(from)];
                let mut arcs = 0;
                let mut i = occ.index as usize;
                for _ in 0..len {
                    let next = if forward {
                        (i + 1) % len
                    } else {
                        (i + len - 1) % len
                    };
                    let boundary = if forward {
                        next.is_multiple_of(n)
                    } else {
                        i.is_multiple_of(n)
                    };
                    if boundary {
                        let segment = if forward { i / n } else { next / n };
                        path.push(PathNode::Arc {
                            circuit: occ.circuit + 1,
                            corner: g.arc_corner(segment),
                        });
                        arcs += 1;
                    }
                    i = next;
                    let p = track[i];
                    path.push(PathNode::Point(p));
                    if p == from {
                        continue;
                    }
                    if self.get(p).is_some() {
                        if p == to && arcs > 0 && best.as_ref().is_none_or(|b| path.len() < b.len())
                        {
                            best = Some(path);
                        }
                        break;
                    }
                }
            }
        }
        best
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
