//! Text pictures of a position: ASCII letters, or the Chinese characters `车马象士王鸭兵`.
//!
//! Red's back rank (`x = 0`) is drawn at the bottom, as a red player sees the board; columns
//! are labelled with the human notation's letters and rows with their digits.

use arbiter_core::Side;

use crate::board::{Square, COLUMNS, ROWS};
use crate::position::Position;

/// How the Chinese picture tells red from blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colouring {
    /// Terminal colours: red pieces in red, blue in blue.
    Ansi,
    /// Plain text: blue pieces in parentheses, red pieces bare.
    Plain,
}

impl Position {
    /// Letters as in the FEN-like notation: upper case red, lower case blue, `.` empty.
    pub fn render_ascii(&self) -> String {
        let mut out = String::from("  a b c d e f g h i\n");
        for x in (0..ROWS as i64).rev() {
            out.push_str(&format!("{x} "));
            for y in 0..COLUMNS as i64 {
                let c = match self.piece_at(Square::new(x, y).unwrap()) {
                    None => '.',
                    Some(p) if p.side == Side::First => p.kind.letter(),
                    Some(p) => p.kind.letter().to_ascii_lowercase(),
                };
                out.push(c);
                out.push(if y + 1 < COLUMNS as i64 { ' ' } else { '\n' });
            }
        }
        out.push_str(&format!(
            "{} to move\n",
            crate::side_name(self.side_to_move())
        ));
        out
    }

    /// Chinese characters, four columns per point (a character is two columns wide).
    pub fn render_chinese(&self, colouring: Colouring) -> String {
        let mut out = String::from("   a   b   c   d   e   f   g   h   i\n");
        for x in (0..ROWS as i64).rev() {
            out.push_str(&format!("{x} "));
            for y in 0..COLUMNS as i64 {
                let cell = match self.piece_at(Square::new(x, y).unwrap()) {
                    None => " ·  ".to_string(),
                    Some(p) => {
                        let c = p.kind.chinese();
                        match (colouring, p.side) {
                            (Colouring::Ansi, Side::First) => format!(" \x1b[31m{c}\x1b[0m "),
                            (Colouring::Ansi, Side::Second) => format!(" \x1b[34m{c}\x1b[0m "),
                            (Colouring::Plain, Side::First) => format!(" {c} "),
                            (Colouring::Plain, Side::Second) => format!("({c})"),
                        }
                    }
                };
                out.push_str(&cell);
            }
            out.push('\n');
        }
        let mover = match self.side_to_move() {
            Side::First => "红方 (red)",
            Side::Second => "蓝方 (blue)",
        };
        out.push_str(&format!("{mover} to move\n"));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_start() {
        let text = Position::initial().render_ascii();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "  a b c d e f g h i");
        assert_eq!(lines[1], "9 r h e a k a e h r");
        assert_eq!(lines[3], "7 d . . . . . . . d");
        assert_eq!(lines[10], "0 R H E A K A E H R");
        assert_eq!(lines[11], "red to move");
    }

    #[test]
    fn chinese_start() {
        let text = Position::initial().render_chinese(Colouring::Plain);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[10], "0  车  马  象  士  王  士  象  马  车 ");
        assert!(lines[1].starts_with("9 (车)(马)"));
        assert!(Position::initial()
            .render_chinese(Colouring::Ansi)
            .contains("\x1b[34m鸭"));
    }
}
