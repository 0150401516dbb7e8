//! The judge command stream of `docs/rules/surakarta.md`, for `arbiter judge surakarta`.

use std::io::{BufRead, Write};

use arbiter_core::text::{line_error, parse_integer, read_line_capped, shorten, MAX_LINE_BYTES};
use arbiter_core::{InputError, JudgeError};

use crate::board::Point;
use crate::rules::{parse_player, player_letter, MoveReason, Position};

/// Numbered, non-blank, non-comment lines of the input.
struct Lines<R> {
    reader: R,
    number: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    fn next(&mut self) -> Result<Option<(usize, String)>, InputError> {
        loop {
            self.buf.clear();
            let more = read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE_BYTES)
                .map_err(|e| InputError::new(self.number + 1, line_error(&e)))?;
            if !more {
                return Ok(None);
            }
            self.number += 1;
            if self.number == 1 {
                arbiter_core::text::strip_bom(&mut self.buf);
            }
            let line = std::str::from_utf8(&self.buf)
                .map_err(|_| InputError::new(self.number, "the line is not UTF-8 text"))?
                .trim();
            if !line.is_empty() && !line.starts_with('#') {
                return Ok(Some((self.number, line.to_string())));
            }
        }
    }
}

/// Runs the command stream, writing each answer as soon as it is known.
///
/// Before the first `new` or `position` the game is a standard 6×6 one with
/// `max_no_capture_round` 40.
pub fn judge(input: impl BufRead, output: impl Write) -> Result<(), JudgeError> {
    judge_traced(input, output, |_, _| {})
}

/// The judge, calling `observe(line, game)` after each command with the input line it ended
/// on: the visualiser's trace is this very loop.
pub fn judge_traced(
    input: impl BufRead,
    mut output: impl Write,
    mut observe: impl FnMut(usize, &Position),
) -> Result<(), JudgeError> {
    let mut lines = Lines {
        reader: input,
        number: 0,
        buf: Vec::new(),
    };
    let mut game = Position::new(6, 40).expect("6 is supported");
    while let Some((line_no, line)) = lines.next()? {
        let command = Command {
            line_no,
            words: line.split_whitespace().collect(),
        };
        match command.words[0] {
            "new" => game = command.new_game()?,
            "position" => game = command.position(&mut lines)?,
            "probe" | "move" => command.judge_move(&mut game, &mut output)?,
            "end" => {
                command.args(1, "end REASON")?;
                let reason: MoveReason = command.words[1].parse().map_err(|e| command.err(e))?;
                let (end, winner) = game.judge_end(reason);
                writeln!(output, "{end} {}", player_letter(winner))?;
            }
            "targets" => command.targets(&game, &mut output)?,
            "state" => {
                command.args(0, "state")?;
                output.write_all(game.to_position_file().as_bytes())?;
            }
            other => {
                return Err(command
                    .err(format!(
                        "unknown command `{}` (expected new, position, probe, move, end, \
                         targets or state)",
                        shorten(other)
                    ))
                    .into())
            }
        }
        observe(lines.number, &game);
    }
    output.flush()?;
    Ok(())
}

/// One command line: its number and its words (at least one).
struct Command<'a> {
    line_no: usize,
    words: Vec<&'a str>,
}

impl Command<'_> {
    fn err(&self, message: String) -> InputError {
        InputError::new(self.line_no, message)
    }

    /// Checks the command has `count` arguments.
    fn args(&self, count: usize, usage: &str) -> Result<(), InputError> {
        if self.words.len() == count + 1 {
            Ok(())
        } else {
            Err(self.err(format!(
                "`{}` takes {count} arguments: {usage}",
                self.words[0]
            )))
        }
    }

    /// Argument `i` as an integer.
    fn int(&self, i: usize, what: &str) -> Result<i64, InputError> {
        parse_integer(self.words[i]).ok_or_else(|| {
            self.err(format!(
                "{what} must be an integer, found `{}`",
                shorten(self.words[i])
            ))
        })
    }

    /// `new N M`.
    fn new_game(&self) -> Result<Position, InputError> {
        self.args(2, "new N M")?;
        let (n, m) = (
            self.int(1, "the board size N")?,
            self.int(2, "max_no_capture_round M")?,
        );
        let (min, max) = quiet_limit_range();
        let m = u32::try_from(m)
            .ok()
            .filter(|m| (min..=max).contains(m))
            .ok_or_else(|| {
                self.err(format!(
                    "max_no_capture_round must be from {min} to {max}, found {}",
                    shorten(self.words[2])
                ))
            })?;
        u8::try_from(n)
            .ok()
            .and_then(|n| Position::new(n, m))
            .ok_or_else(|| self.err(format!("the board size must be 6, 8, 10 or 12, found {n}")))
    }

    /// `position`, then the lines of a position file (read from `lines`).
    fn position<R: BufRead>(&self, lines: &mut Lines<R>) -> Result<Position, InputError> {
        self.args(0, "position, then the lines of a position file")?;
        let mut block: Vec<(usize, String)> = Vec::new();
        let first = lines
            .next()?
            .ok_or_else(|| self.err("`position` is not followed by a position file".into()))?;
        let n = first.1.split_whitespace().count();
        block.push(first);
        while block.len() < n + 6 {
            match lines.next()? {
                Some(next) => block.push(next),
                None => {
                    return Err(InputError::new(
                        lines.number + 1,
                        format!(
                            "the position file ended early: expected {n} rows and 6 counter lines"
                        ),
                    ))
                }
            }
        }
        // Lines are numbered individually because comments may sit between them.
        let texts: Vec<&str> = block.iter().map(|(_, l)| l.as_str()).collect();
        Position::from_position_lines(&texts, 0).map_err(|e| {
            let line = block.get(e.line).map_or(lines.number, |(no, _)| *no);
            InputError::new(line, e.message)
        })
    }

    /// `probe` or `move fx fy tx ty P`: the verdict, played for `move`.
    fn judge_move(&self, game: &mut Position, output: &mut impl Write) -> Result<(), JudgeError> {
        self.args(5, &format!("{} fx fy tx ty P", self.words[0]))?;
        let from = (self.int(1, "fx")?, self.int(2, "fy")?);
        let to = (self.int(3, "tx")?, self.int(4, "ty")?);
        let player = parse_player(self.words[5]).ok_or_else(|| {
            self.err(format!(
                "the player must be B or W, found `{}`",
                shorten(self.words[5])
            ))
        })?;
        let (reason, end, winner) = if self.words[0] == "probe" {
            let reason = game.judge_move(from, to, player);
            let (end, winner) = game.judge_end(reason);
            (reason, end, winner)
        } else {
            let r = game.step(from, to, player);
            (r.reason, r.end, r.winner)
        };
        writeln!(output, "{reason} {end} {}", player_letter(winner))?;
        Ok(())
    }

    /// `targets x y`: the points the piece there may capture.
    fn targets(&self, game: &Position, output: &mut impl Write) -> Result<(), JudgeError> {
        self.args(2, "targets x y")?;
        let n = game.size();
        let coordinate = |i: usize, what: &str| {
            let value = self.int(i, what)?;
            if (0..i64::from(n)).contains(&value) {
                Ok(value)
            } else {
                Err(self.err(format!(
                    "{what} must be from 0 to {} on a {n}×{n} board, found {}",
                    n - 1,
                    shorten(self.words[i])
                )))
            }
        };
        let (x, y) = (coordinate(1, "x")?, coordinate(2, "y")?);
        let targets = Point::on_board(x, y, n)
            .map(|p| game.reference_targets(p))
            .unwrap_or_default();
        write!(output, "{}", targets.len())?;
        for p in targets {
            write!(output, " {} {}", p.x, p.y)?;
        }
        writeln!(output)?;
        Ok(())
    }
}

/// The `max_no_capture_round` values `arbiter games` lists for Surakarta.
fn quiet_limit_range() -> (u32, u32) {
    match crate::DEFINITION
        .option("max_no_capture_round")
        .map(|o| o.allowed)
    {
        Some(arbiter_core::Allowed::Range { min, max }) => (min, max),
        _ => (1, u32::MAX),
    }
}

/// Runs a whole command stream held in memory.
pub fn judge_str(input: &str) -> Result<String, JudgeError> {
    arbiter_core::judge_to_string(input, |i, o| judge(i, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_line(input: &str) -> usize {
        match judge_str(input) {
            Err(JudgeError::Input(e)) => e.line,
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn commands_and_answers() {
        let out = judge_str("new 6 40\n# a comment\n\nprobe 0 1 0 2 B\nmove 0 1 0 2 W\nend LEGAL_CAPTURE_MOVE\ntargets 2 3\ntargets 0 2\n").unwrap();
        assert_eq!(
            out,
            "LEGAL_NON_CAPTURE_MOVE NONE .\nNOT_PLAYER_TURN ILLIGAL_MOVE W\nNONE .\n0\n0\n"
        );
    }

    #[test]
    fn bad_commands_name_their_line() {
        assert_eq!(error_line("new 6 40\nfly 1 2\n"), 2);
        assert_eq!(error_line("new 7 40\n"), 1);
        assert_eq!(error_line("probe 0 1 0 2 X\n"), 1);
        assert_eq!(error_line("\n\nprobe 0 1 0 two B\n"), 3);
        assert_eq!(error_line("end MAYBE\n"), 1);
        assert_eq!(error_line("targets 1\n"), 1);
        assert_eq!(error_line("position\n. . . . . .\n"), 3);
        let counters = "current_player: B\nnum_round: 1\nlast_captured_round: 0\nend_reason: NONE\nwinner: .\nmax_no_capture_round: 40\n";
        let rows = ". . . . . .\n".repeat(5);
        assert_eq!(
            error_line(&format!("position\n{rows}. . . . Q .\n{counters}")),
            7
        );
        assert_eq!(
            error_line(&format!(
                "position\n{rows}. . . . . .\n{}",
                counters.replace("40", "x")
            )),
            13
        );
        // Comments between the lines of a position keep the line numbers honest.
        assert_eq!(
            error_line(&format!("position\n# rows\n{rows}. . . . Q .\n{counters}")),
            8
        );
    }
}
