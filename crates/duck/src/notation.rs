//! Move and position notation.
//!
//! * The judge's form: four integers `xs ys xt yt` (row then column, source then target).
//! * The human form: the column as a letter `a`–`i` (`y` = 0..8) and the row as a digit `0`–`9`
//!   (`x`), source and target joined by `-`: `a0-a1` moves red's left car one row forward.
//!   The dash may be left out when reading (`a0a1`).
//! * Positions as a FEN-like line: the rows from `x = 9` (blue's back rank) down to `x = 0`,
//!   separated by `/`, each listing columns `y = 0..8`; a digit counts empty points; letters
//!   `K` captain, `A` guard, `E` elephant, `H` horse, `R` car, `D` duck, `P` soldier, upper case
//!   red, lower case blue; then a space and `r` or `b` for the side to move. The start is
//!   `rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEHR r`.

use arbiter_core::{ParseMoveError, Side};
use thiserror::Error;

use crate::board::{Piece, PieceKind, Square, COLUMNS, ROWS};
use crate::position::{Move, Position};

/// The start position in the FEN-like notation.
pub const INITIAL_FEN: &str = "rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEHR r";

impl Square {
    /// Reads `a0` … `i9` (column letter, row digit).
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let y = bytes[0].to_ascii_lowercase().checked_sub(b'a')?;
        let x = bytes[1].checked_sub(b'0')?;
        Square::new(x as i64, y as i64)
    }
}

impl Move {
    /// The judge's coordinates `xs ys xt yt`; `None` when any is off the board.
    pub fn from_judge(xs: i64, ys: i64, xt: i64, yt: i64) -> Option<Move> {
        Some(Move::new(Square::new(xs, ys)?, Square::new(xt, yt)?))
    }

    /// Reads the human form `a0-a1` (or `a0a1`) without looking at a position.
    pub fn parse(text: &str) -> Result<Move, ParseMoveError> {
        let t = text.trim();
        let (a, b) = match t.split_once('-') {
            Some(pair) => pair,
            None if t.len() == 4 && t.is_ascii() => t.split_at(2),
            None => {
                return Err(ParseMoveError::new(
                    text,
                    "expected two points like `a0-a1` (column letter a-i, row digit 0-9)",
                ))
            }
        };
        let point = |s: &str| {
            Square::parse(s).ok_or_else(|| {
                ParseMoveError::new(
                    text,
                    format!("`{s}` is not a point (column letter a-i, then row digit 0-9)"),
                )
            })
        };
        Ok(Move::new(point(a)?, point(b)?))
    }

    /// The judge's form `xs ys xt yt`.
    pub fn to_judge(self) -> String {
        format!(
            "{} {} {} {}",
            self.from.x(),
            self.from.y(),
            self.to.x(),
            self.to.y()
        )
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

impl Position {
    /// Reads a move (human form, or the judge's four integers) and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let numbers: Vec<&str> = text.split_whitespace().collect();
        let mv = if numbers.len() == 4 {
            let n: Vec<i64> = numbers
                .iter()
                .map(|s| s.parse::<i64>())
                .collect::<Result<_, _>>()
                .map_err(|_| ParseMoveError::new(text, "expected four integers `xs ys xt yt`"))?;
            Move::from_judge(n[0], n[1], n[2], n[3])
                .ok_or_else(|| ParseMoveError::new(text, "a coordinate is off the board"))?
        } else {
            Move::parse(text)?
        };
        if self.is_over() {
            return Err(ParseMoveError::new(text, "the game is over"));
        }
        match self.piece_at(mv.from) {
            None => Err(ParseMoveError::new(
                text,
                format!("there is no piece on {}", mv.from),
            )),
            Some(p) if p.side != self.side_to_move() => Err(ParseMoveError::new(
                text,
                format!(
                    "the piece on {} is not {}'s",
                    mv.from,
                    crate::side_name(self.side_to_move())
                ),
            )),
            Some(p) if !self.is_legal(mv) => Err(ParseMoveError::new(
                text,
                format!(
                    "the {} on {} cannot move to {}",
                    p.kind.name(),
                    mv.from,
                    mv.to
                ),
            )),
            Some(_) => Ok(mv),
        }
    }

    /// The position in the FEN-like notation described in this module.
    pub fn to_fen(&self) -> String {
        let mut out = String::new();
        for x in (0..ROWS as i64).rev() {
            let mut empty = 0;
            for y in 0..COLUMNS as i64 {
                match self.piece_at(Square::new(x, y).unwrap()) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let c = p.kind.letter();
                        out.push(if p.side == Side::First {
                            c
                        } else {
                            c.to_ascii_lowercase()
                        });
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if x > 0 {
                out.push('/');
            }
        }
        out.push_str(if self.side_to_move() == Side::First {
            " r"
        } else {
            " b"
        });
        out
    }

    /// Reads the FEN-like notation. A side without a captain has lost.
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        let mut fields = text.split_whitespace();
        let board = fields.next().ok_or(FenError::Empty)?;
        let side = match fields.next() {
            None | Some("r") | Some("red") => Side::First,
            Some("b") | Some("blue") => Side::Second,
            Some(other) => return Err(FenError::Side(other.to_string())),
        };
        if let Some(extra) = fields.next() {
            return Err(FenError::Trailing(extra.to_string()));
        }
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != ROWS as usize {
            return Err(FenError::RowCount(rows.len()));
        }
        let mut pos = Position::empty();
        for (i, row) in rows.iter().enumerate() {
            let x = ROWS as i64 - 1 - i as i64;
            let mut y = 0i64;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    y += d as i64;
                } else {
                    let kind = PieceKind::from_letter(c).ok_or(FenError::Letter(c))?;
                    let side = if c.is_ascii_uppercase() {
                        Side::First
                    } else {
                        Side::Second
                    };
                    let sq = Square::new(x, y).ok_or(FenError::RowLength(x))?;
                    pos.put(sq, Some(Piece::new(side, kind)));
                    y += 1;
                }
                if y > COLUMNS as i64 {
                    return Err(FenError::RowLength(x));
                }
            }
            if y != COLUMNS as i64 {
                return Err(FenError::RowLength(x));
            }
        }
        if pos.captain(Side::First).is_none() && pos.captain(Side::Second).is_none() {
            return Err(FenError::NoCaptain);
        }
        pos.set_side_to_move(side);
        Ok(pos)
    }
}

/// What is wrong with a FEN-like position string.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    #[error("the position is empty")]
    Empty,
    #[error("expected 10 rows separated by `/`, found {0}")]
    RowCount(usize),
    #[error("row x={0} does not have 9 points")]
    RowLength(i64),
    #[error("`{0}` is not a piece letter (K A E H R D P, upper case red, lower case blue)")]
    Letter(char),
    #[error("the side to move must be `r` or `b`, found `{0}`")]
    Side(String),
    #[error("unexpected `{0}` after the side to move")]
    Trailing(String),
    #[error("neither side has a captain")]
    NoCaptain,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_fen_round_trips() {
        assert_eq!(Position::initial().to_fen(), INITIAL_FEN);
        assert_eq!(
            Position::from_fen(INITIAL_FEN).unwrap(),
            Position::initial()
        );
    }

    #[test]
    fn fen_errors() {
        assert_eq!(Position::from_fen(""), Err(FenError::Empty));
        assert_eq!(Position::from_fen("9/9 r"), Err(FenError::RowCount(2)));
        assert!(matches!(
            Position::from_fen("rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEH r"),
            Err(FenError::RowLength(0))
        ));
        assert!(matches!(
            Position::from_fen("rheakaehr/9/d7d/p1p1p1p1p/9/9/P1P1P1P1P/D7D/9/RHEAKAEHRR r"),
            Err(FenError::RowLength(0))
        ));
        assert_eq!(
            Position::from_fen("9/9/9/9/9/9/9/9/9/9 r"),
            Err(FenError::NoCaptain)
        );
        assert_eq!(
            Position::from_fen(&INITIAL_FEN.replace('k', "x")),
            Err(FenError::Letter('x'))
        );
        assert!(matches!(
            Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w"),
            Err(FenError::Side(_))
        ));
        let over = Position::from_fen("9/9/9/9/9/9/9/9/9/4K4 b").unwrap();
        assert_eq!(over.winner(), Some(Side::First));
    }

    #[test]
    fn moves_in_both_forms() {
        let pos = Position::initial();
        let mv = pos.parse_move("a0-a1").unwrap();
        assert_eq!(mv, Move::from_judge(0, 0, 1, 0).unwrap());
        assert_eq!(mv.to_string(), "a0-a1");
        assert_eq!(mv.to_judge(), "0 0 1 0");
        assert_eq!(pos.parse_move("0 0 1 0").unwrap(), mv);
        assert_eq!(pos.parse_move("A0A1").unwrap(), mv);
        assert_eq!(Move::parse(&mv.to_string()).unwrap(), mv);
        assert!(pos
            .parse_move("a0-a9")
            .unwrap_err()
            .reason
            .contains("cannot move"));
        assert!(pos
            .parse_move("a9-a8")
            .unwrap_err()
            .reason
            .contains("not red's"));
        assert!(pos
            .parse_move("b1-b2")
            .unwrap_err()
            .reason
            .contains("no piece"));
        assert!(pos.parse_move("j0-a1").is_err());
        assert!(pos.parse_move("a0").is_err());
        assert!(pos.parse_move("0 0 10 0").is_err());
        assert!(pos.parse_move("0 0 x 0").is_err());
    }
}
