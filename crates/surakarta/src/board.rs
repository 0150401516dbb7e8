//! Points, the board, and move generation.

use arbiter_core::{zobrist, MoveList, Side};
use arrayvec::ArrayVec;

use crate::geometry::{geometry, Geometry, MAX_CIRCUITS, MAX_SIZE};

/// A point `(x, y)`: `x` the column, `y` the row, both `0..n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Point,
    pub to: Point,
}

impl Move {
    pub const fn new(from: Point, to: Point) -> Move {
        Move { from, to }
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

const PIECE_KEYS: [u64; 2 * MAX_SIZE * MAX_SIZE] = zobrist::keys(0x5A4A_CA47_0000_0001);

/// The pieces on an `n × n` board (`First` = black, `Second` = white).
///
/// Each side's pieces are kept twice, as a bit row per `y` and a bit column per `x`, so the
/// occupancy of a whole circuit line is one load (columns and reversed lines too), and a track
/// of `4n <= 48` points fits in one `u64` where the next piece along it is a bit scan.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    n: u8,
    rows: [[u16; MAX_SIZE]; 2],
    cols: [[u16; MAX_SIZE]; 2],
    hash: u64,
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

/// A piece's distinct capture targets: at most one per direction along its (at most two) lines.
type Targets = ArrayVec<Point, 8>;

impl Board {
    /// An empty board; `n` must be a supported size (6, 8, 10 or 12).
    pub fn empty(n: u8) -> Option<Board> {
        geometry(n)?;
        Some(Board {
            n,
            rows: [[0; MAX_SIZE]; 2],
            cols: [[0; MAX_SIZE]; 2],
            hash: 0,
        })
    }

    /// The start: black on rows 0 and 1, white on rows `n-2` and `n-1`.
    pub fn initial(n: u8) -> Option<Board> {
        let mut board = Board::empty(n)?;
        for x in 0..n {
            for (y, side) in [(0, Side::First), (1, Side::First), (n - 2, Side::Second), (n - 1, Side::Second)] {
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
        geometry(self.n).expect("boards are only made for supported sizes")
    }

    pub fn contains(&self, x: i64, y: i64) -> Option<Point> {
        Point::on_board(x, y, self.n)
    }

    #[inline]
    pub fn get(&self, p: Point) -> Option<Side> {
        if self.rows[0][p.y as usize] >> p.x & 1 != 0 {
            Some(Side::First)
        } else if self.rows[1][p.y as usize] >> p.x & 1 != 0 {
            Some(Side::Second)
        } else {
            None
        }
    }

    pub fn set(&mut self, p: Point, piece: Option<Side>) {
        debug_assert!(p.x < self.n && p.y < self.n);
        for side in Side::BOTH {
            let s = side.index();
            let had = self.rows[s][p.y as usize] >> p.x & 1 != 0;
            let has = piece == Some(side);
            if had != has {
                self.rows[s][p.y as usize] ^= 1 << p.x;
                self.cols[s][p.x as usize] ^= 1 << p.y;
                self.hash ^= PIECE_KEYS[s * MAX_SIZE * MAX_SIZE + p.y as usize * MAX_SIZE + p.x as usize];
            }
        }
    }

    /// Moves whatever stands on `from` to `to`, removing what was on `to`.
    pub fn relocate(&mut self, from: Point, to: Point) {
        let piece = self.get(from);
        self.set(to, piece);
        self.set(from, None);
    }

    pub fn count(&self, side: Side) -> u32 {
        self.rows[side.index()][..self.n as usize]
            .iter()
            .map(|r| r.count_ones())
            .sum()
    }

    /// Every point holding a piece of `side`, row by row.
    pub fn pieces(&self, side: Side) -> impl Iterator<Item = Point> + '_ {
        let rows = &self.rows[side.index()];
        (0..self.n).flat_map(move |y| {
            (0..self.n)
                .filter(move |&x| rows[y as usize] >> x & 1 != 0)
                .map(move |x| Point::new(x, y))
        })
    }

    #[inline]
    fn occupied_row(&self, y: usize) -> u16 {
        self.rows[0][y] | self.rows[1][y]
    }

    #[inline]
    fn occupied_col(&self, x: usize) -> u16 {
        self.cols[0][x] | self.cols[1][x]
    }

    /// The occupancy of every circuit's track, bit `t` for track index `t`.
    #[inline]
    fn track_occupancy(&self) -> [u64; MAX_CIRCUITS] {
        let n = self.n as usize;
        let m = n - 1;
        let reverse = |v: u16| (v.reverse_bits() >> (16 - n)) as u64;
        let mut out = [0u64; MAX_CIRCUITS];
        for (c, slot) in out.iter_mut().enumerate().take(n / 2 - 1) {
            let k = c + 1;
            *slot = self.occupied_row(k) as u64
                | (self.occupied_col(m - k) as u64) << n
                | reverse(self.occupied_row(m - k)) << (2 * n)
                | reverse(self.occupied_col(k)) << (3 * n);
        }
        out
    }

    /// Calls `visit(from, to)` for each empty neighbour of each piece of `side`.
    #[inline(always)]
    fn for_each_step(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        let n = self.n as usize;
        let full: u16 = ((1u32 << n) - 1) as u16;
        for y in 0..n {
            let mut bits = self.rows[side.index()][y];
            while bits != 0 {
                let x = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let window = ((0b111u32 << x) >> 1) as u16 & full;
                for yy in y.saturating_sub(1)..=(y + 1).min(n - 1) {
                    let mut empty = !self.occupied_row(yy) & window;
                    while empty != 0 {
                        let xx = empty.trailing_zeros() as u8;
                        empty &= empty - 1;
                        visit(Point::new(x as u8, y as u8), Point::new(xx, yy as u8));
                    }
                }
            }
        }
    }

    /// Calls `visit(to)` for every route by which the piece on `from` (of `side`) captures:
    /// each line through the point, each direction. A target reached by two routes is visited
    /// twice, as the reference's capture list holds it twice.
    #[inline(always)]
    fn for_each_capture_route(
        &self,
        g: &Geometry,
        occupancy: &[u64; MAX_CIRCUITS],
        from: Point,
        side: Side,
        mut visit: impl FnMut(Point),
    ) {
        let n = self.n as usize;
        let enemy = &self.rows[side.opponent().index()];
        for occ in &g.occurrences[from.index(self.n)] {
            let c = occ.circuit as usize;
            let others = occupancy[c] & !(1u64 << occ.index) & !(1u64 << occ.twin);
            if others == 0 {
                continue;
            }
            let i = occ.index as usize;
            let segment = i / n;
            let ahead = others & (!0u64 << (i + 1));
            let forward = if ahead != 0 {
                let j = ahead.trailing_zeros() as usize;
                (j, j / n != segment)
            } else {
                (others.trailing_zeros() as usize, true)
            };
            let behind = others & ((1u64 << i) - 1);
            let backward = if behind != 0 {
                let j = 63 - behind.leading_zeros() as usize;
                (j, j / n != segment)
            } else {
                (63 - others.leading_zeros() as usize, true)
            };
            for (j, through_arc) in [forward, backward] {
                let to = g.tracks[c][j];
                if through_arc && enemy[to.y as usize] >> to.x & 1 != 0 {
                    visit(to);
                }
            }
        }
    }

    /// The distinct capture targets of the piece on `from` (which belongs to `side`).
    #[inline(always)]
    fn captures_from(&self, g: &Geometry, occupancy: &[u64; MAX_CIRCUITS], from: Point, side: Side) -> Targets {
        let mut targets = Targets::new();
        self.for_each_capture_route(g, occupancy, from, side, |to| {
            if !targets.contains(&to) {
                targets.push(to);
            }
        });
        targets
    }

    /// Calls `visit(from, to)` once for each distinct capture of `side`.
    #[inline(always)]
    fn for_each_capture(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        let g = self.geometry();
        let occupancy = self.track_occupancy();
        let n = self.n as usize;
        for y in 0..n {
            let mut bits = self.rows[side.index()][y];
            while bits != 0 {
                let x = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                let from = Point::new(x, y as u8);
                for to in self.captures_from(g, &occupancy, from, side) {
                    visit(from, to);
                }
            }
        }
    }

    /// Appends every move of `side`, captures first, ignoring whose turn it is and the game's end.
    pub fn moves(&self, side: Side, out: &mut MoveList<Move>) {
        self.for_each_capture(side, |from, to| out.push(Move::new(from, to)));
        self.for_each_step(side, |from, to| out.push(Move::new(from, to)));
    }

    /// The number of moves of `side` (for perft's last ply), without building them.
    pub fn count_moves(&self, side: Side) -> u64 {
        let mut count = 0u64;
        self.for_each_step(side, |_, _| count += 1);
        self.for_each_capture(side, |_, _| count += 1);
        count
    }

    /// Whether `side` has any move at all (a side without one is trapped).
    pub fn has_move(&self, side: Side) -> bool {
        let mut any = false;
        self.for_each_step(side, |_, _| any = true);
        if !any {
            self.for_each_capture(side, |_, _| any = true);
        }
        any
    }

    /// The distinct points a capture from `from` reaches (for the piece standing there), sorted.
    pub fn capture_targets(&self, from: Point) -> Vec<Point> {
        let Some(side) = self.get(from) else { return vec![] };
        let mut out = self.captures_from(self.geometry(), &self.track_occupancy(), from, side).to_vec();
        out.sort();
        out
    }

    /// Whether the piece on `from` can capture on `to`.
    pub fn can_capture(&self, from: Point, to: Point) -> bool {
        let Some(side) = self.get(from) else { return false };
        self.captures_from(self.geometry(), &self.track_occupancy(), from, side)
            .contains(&to)
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
    /// arcs it goes round. `None` when no capture from `from` reaches `to`.
    pub fn capture_path(&self, from: Point, to: Point) -> Option<Vec<PathNode>> {
        let side = self.get(from)?;
        if self.get(to) != Some(side.opponent()) {
            return None;
        }
        let g = self.geometry();
        let n = self.n as usize;
        for occ in &g.occurrences[from.index(self.n)] {
            let track = &g.tracks[occ.circuit as usize];
            let len = track.len();
            for forward in [true, false] {
                let mut path = vec![PathNode::Point(from)];
                let mut arcs = 0;
                let mut i = occ.index as usize;
                for _ in 0..len {
                    let next = if forward { (i + 1) % len } else { (i + len - 1) % len };
                    let boundary = if forward { next % n == 0 } else { i % n == 0 };
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
                        if p == to && arcs > 0 {
                            return Some(path);
                        }
                        break;
                    }
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(b.cols[1][2], 1 << 3);
        let h = b.hash();
        b.set(p, Some(Side::First));
        b.set(p, None);
        assert_eq!(b.hash(), 0);
        assert_ne!(h, 0);
    }
}
