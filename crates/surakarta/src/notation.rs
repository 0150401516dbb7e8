//! Square names, moves, the course's position file and its game record notation.
//!
//! * A square is its column letter then its row number: `A1` is `(0, 0)`, `F6` is `(5, 5)`,
//!   `L12` the far corner of a 12×12 board. Letters are read in either case, written upper case.
//! * A move is `FROM-TO`: `A2-B3`.
//! * A record is the moves separated by single spaces; a finished game ends with a space, the
//!   end letter (`S` stalemate, `C` checkmate, `R` resign, `T` timeout, `I` illegal move) and `#`.

use std::fmt;

use arbiter_core::{InputError, Side};
use thiserror::Error;

use crate::board::{Board, Move, Point};
use crate::rules::{parse_player, player_letter, EndReason, Position};

impl Point {
    /// `A1`-style name.
    pub fn name(self) -> String {
        format!("{}{}", (b'A' + self.x) as char, self.y as u32 + 1)
    }

    /// Reads an `A1`-style name for an `n × n` board.
    pub fn parse(text: &str, n: u8) -> Option<Point> {
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty()
            || digits.len() > 2
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.starts_with('0')
        {
            return None;
        }
        let row: i64 = digits.parse().ok()?;
        Point::on_board(letter as i64 - 'A' as i64, row - 1, n)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.x) as char, self.y as u32 + 1)
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from(), self.to())
    }
}

impl Move {
    /// Reads `FROM-TO` for an `n × n` board (without checking legality).
    pub fn parse(text: &str, n: u8) -> Option<Move> {
        let (a, b) = text.split_once('-')?;
        Some(Move::new(Point::parse(a, n)?, Point::parse(b, n)?))
    }
}

/// The end letter of the record notation (see [`EndReason::letter`]).
pub fn end_letter(reason: EndReason) -> Option<char> {
    reason.letter()
}

/// A game in the course's record notation.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Record {
    pub moves: Vec<Move>,
    /// How the game ended, when it did.
    pub end: Option<EndReason>,
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for mv in &self.moves {
            if !first {
                f.write_str(" ")?;
            }
            write!(f, "{mv}")?;
            first = false;
        }
        if let Some(letter) = self.end.and_then(end_letter) {
            if !first {
                f.write_str(" ")?;
            }
            write!(f, "{letter}#")?;
        }
        Ok(())
    }
}

/// A record token that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("record token {index} `{token}`: {reason}")]
pub struct RecordError {
    /// 1-based position of the token in the record.
    pub index: usize,
    pub token: String,
    pub reason: String,
}

impl Record {
    /// Reads a record for an `n × n` board. Moves are read, not judged (an illegal last move is
    /// part of an `I#` record). Header lines (`[Name "value"]`, as the arena writes them
    /// before the moves) are skipped.
    pub fn parse(text: &str, n: u8) -> Result<Record, RecordError> {
        let tokens: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim_start().starts_with('['))
            .flat_map(str::split_whitespace)
            .collect();
        let mut record = Record::default();
        for (i, token) in tokens.iter().enumerate() {
            let error = |reason: String| RecordError {
                index: i + 1,
                token: arbiter_core::text::shorten(token),
                reason,
            };
            if let Some(letter) = token.strip_suffix('#') {
                let mut chars = letter.chars();
                let end = match (chars.next(), chars.next()) {
                    (Some(c), None) => EndReason::from_letter(c),
                    _ => None,
                }
                .ok_or_else(|| error("an end mark is one of S# C# R# T# I#".into()))?;
                if i + 1 != tokens.len() {
                    return Err(error("the end mark must be the last token".into()));
                }
                record.end = Some(end);
            } else {
                let mv = Move::parse(token, n).ok_or_else(|| {
                    error(format!(
                        "expected a move like A2-B3 with squares of a {n}x{n} board, or an end mark like C#"
                    ))
                })?;
                record.moves.push(mv);
            }
        }
        Ok(record)
    }
}

fn end_reason_name(reason: EndReason) -> &'static str {
    reason.name()
}

impl Position {
    /// The course's position file: the rows, then the six counters.
    pub fn to_position_file(&self) -> String {
        let n = self.size();
        let mut out = String::new();
        for y in 0..n {
            for x in 0..n {
                out.push(player_letter(self.board.get(Point::new(x, y))));
                out.push(' ');
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "current_player: {}\nnum_round: {}\nlast_captured_round: {}\nend_reason: {}\nwinner: {}\nmax_no_capture_round: {}\n",
            player_letter(Some(self.current_player)),
            self.num_round,
            self.last_captured_round,
            end_reason_name(self.end_reason),
            player_letter(self.winner),
            self.max_no_capture_round,
        ));
        out
    }

    /// Reads a position file from its lines; `first_line` is the line number of `lines[0]` for
    /// error messages. The size is the number of tokens on the first row.
    pub fn from_position_lines(lines: &[&str], first_line: usize) -> Result<Position, InputError> {
        let size = position_size(lines, first_line)?;
        let n = size as usize;
        let mut state = Position {
            board: position_rows(&lines[..n], size, first_line)?,
            current_player: Side::First,
            num_round: 1,
            last_captured_round: 0,
            end_reason: EndReason::None,
            winner: None,
            max_no_capture_round: 40,
        };
        for (offset, key) in COUNTER_KEYS.iter().enumerate() {
            read_counter(&mut state, key, lines[n + offset], first_line + n + offset)?;
        }
        Ok(state)
    }

    /// Reads a whole position file.
    pub fn from_position_file(text: &str) -> Result<Position, InputError> {
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        Position::from_position_lines(&lines, 1)
    }
}

/// The lines after a position file's rows, in order.
const COUNTER_KEYS: [&str; 6] = [
    "current_player",
    "num_round",
    "last_captured_round",
    "end_reason",
    "winner",
    "max_no_capture_round",
];

/// The board size of a position file (the tokens on its first row), checked to be supported
/// and to have all its lines.
fn position_size(lines: &[&str], first_line: usize) -> Result<u8, InputError> {
    let first = lines
        .first()
        .ok_or_else(|| InputError::new(first_line, "the position file is empty"))?;
    let n = first.split_whitespace().count();
    let size = u8::try_from(n)
        .ok()
        .filter(|&n| crate::geometry::SIZES.contains(&n))
        .ok_or_else(|| {
            InputError::new(
                first_line,
                format!("a row has {n} points; boards are 6, 8, 10 or 12 wide"),
            )
        })?;
    if lines.len() < n + 6 {
        return Err(InputError::new(
            first_line + lines.len(),
            format!("the position file ended early: expected {n} rows and 6 counter lines"),
        ));
    }
    Ok(size)
}

/// The board of a position file's `rows`, with no side above the `2n` pieces it starts with.
fn position_rows(rows: &[&str], size: u8, first_line: usize) -> Result<Board, InputError> {
    let n = size as usize;
    let mut board = Board::empty(size).expect("supported size");
    let mut counts = [0usize; 2];
    for (y, line) in rows.iter().enumerate() {
        let error = |message: String| InputError::new(first_line + y, message);
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.len() != n {
            return Err(error(format!(
                "expected {n} points on this row, found {}",
                tokens.len()
            )));
        }
        for (x, token) in tokens.iter().enumerate() {
            let piece = match *token {
                "." => None,
                other => Some(parse_player(other).ok_or_else(|| {
                    error(format!(
                        "`{}` is not B, W or .",
                        arbiter_core::text::shorten(other)
                    ))
                })?),
            };
            if let Some(side) = piece {
                counts[side.index()] += 1;
                if counts[side.index()] > 2 * n {
                    return Err(error(format!(
                        "{} has more than {} pieces, the most a {n}x{n} game starts with",
                        player_letter(Some(side)),
                        2 * n
                    )));
                }
            }
            board.set(Point::new(x as u8, y as u8), piece);
        }
    }
    Ok(board)
}

/// Reads the counter line `key: value` (line number `line_no`) into `state`.
fn read_counter(
    state: &mut Position,
    key: &str,
    line: &str,
    line_no: usize,
) -> Result<(), InputError> {
    let value = line
        .split_once(':')
        .filter(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
        .ok_or_else(|| {
            InputError::new(
                line_no,
                format!(
                    "expected `{key}: …`, found `{}`",
                    arbiter_core::text::shorten(line.trim())
                ),
            )
        })?;
    let bad = |what: &str| {
        InputError::new(
            line_no,
            format!(
                "{key}: `{}` is not {what}",
                arbiter_core::text::shorten(value)
            ),
        )
    };
    let number = || {
        value
            .parse::<u32>()
            .map_err(|_| bad("a non-negative integer"))
    };
    match key {
        "current_player" => {
            state.current_player = parse_player(value).ok_or_else(|| bad("B or W"))?
        }
        "num_round" => state.num_round = number()?,
        "last_captured_round" => state.last_captured_round = number()?,
        "end_reason" => {
            state.end_reason = value
                .parse()
                .map_err(|e: String| InputError::new(line_no, e))?
        }
        "winner" => {
            state.winner = match value {
                "." => None,
                other => Some(parse_player(other).ok_or_else(|| bad("B, W or ."))?),
            }
        }
        _ => state.max_no_capture_round = number()?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names() {
        assert_eq!(Point::new(0, 0).name(), "A1");
        assert_eq!(Point::new(5, 5).to_string(), "F6");
        assert_eq!(Point::parse("L12", 12), Some(Point::new(11, 11)));
        assert_eq!(Point::parse("f6", 6), Some(Point::new(5, 5)));
        for bad in ["G1", "A7", "A0", "A01", "1A", "", "A", "AA", "A-1", "Ä1"] {
            assert_eq!(Point::parse(bad, 6), None, "{bad}");
        }
    }

    #[test]
    fn records_round_trip_and_name_bad_tokens() {
        let text = "A2-A3 F5-E4 B2-C3 C#";
        let record = Record::parse(text, 6).unwrap();
        assert_eq!(record.moves.len(), 3);
        assert_eq!(record.end, Some(EndReason::Checkmate));
        assert_eq!(record.to_string(), text);
        assert_eq!(Record::parse("R#", 6).unwrap().to_string(), "R#");
        assert_eq!(Record::parse("", 6).unwrap(), Record::default());
        let err = Record::parse("A2-A3 A2-Z9 C#", 6).unwrap_err();
        assert_eq!((err.index, err.token.as_str()), (2, "A2-Z9"));
        let err = Record::parse("A2-A3 X# B2-B3", 6).unwrap_err();
        assert_eq!(err.index, 2);
        let err = Record::parse("A2-A3 C# B2-B3", 6).unwrap_err();
        assert!(err.reason.contains("last"));
    }

    #[test]
    fn position_file_round_trip_and_errors() {
        let state = Position::new(8, 40).unwrap();
        let text = state.to_position_file();
        assert_eq!(Position::from_position_file(&text).unwrap(), state);
        let bad = text.replacen("B", "Q", 1);
        let err = Position::from_position_file(&bad).unwrap_err();
        assert_eq!(err.line, 1);
        let bad = text.replace("num_round: 1", "num_round: x");
        assert_eq!(Position::from_position_file(&bad).unwrap_err().line, 10);
        let short: String = text.lines().take(9).map(|l| format!("{l}\n")).collect();
        assert!(Position::from_position_file(&short).is_err());
        let crowded = text.replace(". . . . . . . . \n", "B B B B B B B B \n");
        assert!(Position::from_position_file(&crowded)
            .unwrap_err()
            .message
            .contains("more than 16"));
        let seven = ". . . . . . .\n".repeat(7);
        assert!(Position::from_position_file(&seven)
            .unwrap_err()
            .message
            .contains("6, 8, 10 or 12"));
    }
}
