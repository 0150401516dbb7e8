//! Points and moves of a Surakarta board, shared by the geometry and the board.

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
pub struct Move(pub(crate) u32);

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
