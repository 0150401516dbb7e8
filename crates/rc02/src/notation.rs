//! Notation.
//!
//! * The judge's form: `x1 y1 x2 y2`, 1-based, **column first**: the piece at column `x1`, row
//!   `y1` moves to column `x2`, row `y2`. Row 1 is the top.
//! * The human (and network) form: a cell is its column letter (`a` = column 1) and its row
//!   number (`1` = the top row), so `a1` is the top-left cell; a move is `a3-b3`. Letters are
//!   read in either case.

use arbiter_core::ParseMoveError;

use crate::position::{Cell, Move, Position};

impl Cell {
    /// `a1`-style name (column letter, row number from the top).
    pub fn name(self) -> String {
        format!("{}{}", (b'a' + self.col) as char, self.row as u32 + 1)
    }

    /// Reads an `a1`-style name for an `n × n` board.
    pub fn parse(text: &str, n: u8) -> Option<Cell> {
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty()
            || digits.len() > 2
            || digits.starts_with('0')
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let row: u8 = digits.parse().ok()?;
        let col = letter as u8 - b'a';
        (row >= 1 && row <= n && col < n).then(|| Cell::new(row - 1, col))
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", (b'a' + self.col) as char, self.row as u32 + 1)
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

impl Move {
    /// Reads `a3-b3` for an `n × n` board, without checking legality.
    pub fn parse(text: &str, n: u8) -> Option<Move> {
        let (a, b) = text.trim().split_once('-')?;
        Some(Move::new(Cell::parse(a, n)?, Cell::parse(b, n)?))
    }

    /// The judge's form `x1 y1 x2 y2` (1-based, column first).
    pub fn to_judge(self) -> String {
        format!(
            "{} {} {} {}",
            self.from.col + 1,
            self.from.row + 1,
            self.to.col + 1,
            self.to.row + 1
        )
    }
}

impl Position {
    /// Reads a move (`a3-b3`, or the judge's four integers) and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        let numbers: Vec<&str> = text.split_whitespace().collect();
        if numbers.len() == 4 {
            let v: Vec<i64> = numbers
                .iter()
                .map(|s| s.parse::<i64>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    ParseMoveError::new(text, "expected four integers `x1 y1 x2 y2` (column first)")
                })?;
            return self
                .check_judge_move(v[0], v[1], v[2], v[3])
                .map_err(|e| ParseMoveError::new(text, e.to_string()));
        }
        let n = self.size();
        let mv = Move::parse(text, n).ok_or_else(|| {
            ParseMoveError::new(
                text,
                format!(
                    "expected a move like a3-b3 (column letter a-{}, row 1-{n} from the top)",
                    (b'a' + n - 1) as char
                ),
            )
        })?;
        self.check(mv)
            .map_err(|e| ParseMoveError::new(text, e.to_string()))?;
        Ok(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_moves() {
        assert_eq!(Cell::new(0, 0).name(), "a1");
        assert_eq!(Cell::parse("J10", 10), Some(Cell::new(9, 9)));
        for bad in ["e1", "a5", "a0", "a01", "1a", "", "a"] {
            assert_eq!(Cell::parse(bad, 4), None, "{bad}");
        }
        let pos = Position::initial(4).unwrap();
        let mv = pos.parse_move("a3-b3").unwrap();
        assert_eq!(mv.to_string(), "a3-b3");
        assert_eq!(mv.to_judge(), "1 3 2 3");
        assert_eq!(pos.parse_move("1 3 2 3").unwrap(), mv);
        assert!(pos
            .parse_move("a4-a3")
            .unwrap_err()
            .reason
            .contains("occupied"));
        assert!(pos
            .parse_move("d1-d2")
            .unwrap_err()
            .reason
            .contains("side to move"));
        assert!(pos
            .parse_move("a3-c3")
            .unwrap_err()
            .reason
            .contains("one cell"));
        assert!(pos.parse_move("1 3 x 3").is_err());
        assert!(pos.parse_move("a3b3").is_err());
    }
}
