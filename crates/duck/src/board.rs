//! Squares and pieces.

use std::fmt;

use arbiter_core::Side;

/// Rows `x` of the board (`0..=9`; red's back rank is 0).
pub const ROWS: u8 = 10;
/// Columns `y` of the board (`0..=8`).
pub const COLUMNS: u8 = 9;
/// Points on the board.
pub const SQUARES: usize = 90;

/// A point of the board, `x * 9 + y`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The point `(x, y)`: `x` the row `0..=9`, `y` the column `0..=8`; `None` off the board.
    pub fn new(x: i64, y: i64) -> Option<Square> {
        if (0..ROWS as i64).contains(&x) && (0..COLUMNS as i64).contains(&y) {
            Some(Square((x * COLUMNS as i64 + y) as u8))
        } else {
            None
        }
    }

    /// The square with index `0..90`.
    pub fn from_index(index: usize) -> Option<Square> {
        (index < SQUARES).then_some(Square(index as u8))
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The row, `0..=9`.
    #[inline]
    pub fn x(self) -> u8 {
        self.0 / COLUMNS
    }

    /// The column, `0..=8`.
    #[inline]
    pub fn y(self) -> u8 {
        self.0 % COLUMNS
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }
}

impl fmt::Display for Square {
    /// The human notation: column letter `a`–`i`, then row digit `0`–`9` (`e0` is red's captain).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.y()) as char, self.x())
    }
}

/// The seven kinds of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Captain = 0,
    Guard = 1,
    Elephant = 2,
    Horse = 3,
    Car = 4,
    Duck = 5,
    Soldier = 6,
}

impl PieceKind {
    pub const ALL: [PieceKind; 7] = [
        PieceKind::Captain,
        PieceKind::Guard,
        PieceKind::Elephant,
        PieceKind::Horse,
        PieceKind::Car,
        PieceKind::Duck,
        PieceKind::Soldier,
    ];

    /// The name the judge prints (`captain`, `car`, …).
    pub fn name(self) -> &'static str {
        match self {
            PieceKind::Captain => "captain",
            PieceKind::Guard => "guard",
            PieceKind::Elephant => "elephant",
            PieceKind::Horse => "horse",
            PieceKind::Car => "car",
            PieceKind::Duck => "duck",
            PieceKind::Soldier => "soldier",
        }
    }

    /// Upper-case letter for red, as in FEN-like position strings and the ASCII board.
    pub fn letter(self) -> char {
        match self {
            PieceKind::Captain => 'K',
            PieceKind::Guard => 'A',
            PieceKind::Elephant => 'E',
            PieceKind::Horse => 'H',
            PieceKind::Car => 'R',
            PieceKind::Duck => 'D',
            PieceKind::Soldier => 'P',
        }
    }

    pub fn from_letter(letter: char) -> Option<PieceKind> {
        PieceKind::ALL
            .into_iter()
            .find(|k| k.letter() == letter.to_ascii_uppercase())
    }

    /// The Chinese character (`王士象马车鸭兵`).
    pub fn chinese(self) -> char {
        match self {
            PieceKind::Captain => '王',
            PieceKind::Guard => '士',
            PieceKind::Elephant => '象',
            PieceKind::Horse => '马',
            PieceKind::Car => '车',
            PieceKind::Duck => '鸭',
            PieceKind::Soldier => '兵',
        }
    }
}

/// A piece: its side (`First` = red, `Second` = blue) and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: PieceKind,
}

impl Piece {
    pub fn new(side: Side, kind: PieceKind) -> Piece {
        Piece { side, kind }
    }

    /// The board code: 0 is empty, 1..=7 red, 8..=14 blue.
    #[inline]
    pub(crate) fn code(self) -> u8 {
        1 + self.kind as u8 + 7 * self.side as u8
    }

    #[inline]
    pub(crate) fn from_code(code: u8) -> Option<Piece> {
        if code == 0 || code > 14 {
            return None;
        }
        let c = code - 1;
        Some(Piece {
            side: Side::from_index((c / 7) as usize),
            kind: PieceKind::ALL[(c % 7) as usize],
        })
    }

    /// `red horse`, `blue car`: the judge's wording.
    pub fn judge_name(self) -> String {
        format!("{} {}", side_name(self.side), self.kind.name())
    }
}

/// `red` or `blue`.
pub fn side_name(side: Side) -> &'static str {
    crate::definition::DEFINITION.side(side).name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::new(sq.x() as i64, sq.y() as i64), Some(sq));
        }
        assert_eq!(Square::new(10, 0), None);
        assert_eq!(Square::new(0, 9), None);
        assert_eq!(Square::new(-1, 0), None);
        assert_eq!(Square::new(0, 0).unwrap().to_string(), "a0");
        assert_eq!(Square::new(9, 8).unwrap().to_string(), "i9");
    }

    #[test]
    fn piece_codes_round_trip() {
        for side in Side::BOTH {
            for kind in PieceKind::ALL {
                let p = Piece::new(side, kind);
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(PieceKind::from_letter(kind.letter()), Some(kind));
            }
        }
        assert_eq!(Piece::from_code(0), None);
    }
}
