//! The P5380 judge: operations in, one verdict line per operation out, streaming.

use std::io::{self, BufRead, Write};

use arbiter_core::text::Tokens;
#[cfg(test)]
use arbiter_core::InputError;
use arbiter_core::JudgeError;

use crate::board::{side_name, Piece};
use crate::position::{Move, Position};

/// Reads `Q` and then `Q` operations `xs ys xt yt`, writing one line per operation as soon as it
/// is judged. Output already written stays written when a later operation is malformed.
///
/// Tokens may be spread over lines in any way (the contest's data puts one operation per line);
/// anything after the `Q`-th operation is ignored.
pub fn judge(input: impl BufRead, output: impl Write) -> Result<(), JudgeError> {
    judge_traced(Tokens::new(input), output, |_, _| {})
}

/// [`judge`] reading strictly (`judge --strict`): `Q` alone on the first line, each operation
/// alone on its own line, nothing after the last.
pub fn judge_strict(input: impl BufRead, output: impl Write) -> Result<(), JudgeError> {
    judge_traced(Tokens::new(input).strict(true), output, |_, _| {})
}

/// The judge, calling `observe(line, position)` after each operation with the input line it
/// ended on: the visualiser's trace is this very loop.
pub fn judge_traced<R: BufRead>(
    mut tokens: Tokens<R>,
    mut output: impl Write,
    mut observe: impl FnMut(usize, &Position),
) -> Result<(), JudgeError> {
    let count = tokens.expect_in_range(
        "the number of operations Q",
        0..=i64::MAX,
        "0 to 9223372036854775807 (Q must not be negative)",
    )?;
    tokens.end_record("Q")?;
    let mut pos = Position::initial();
    for op in 1..=count {
        let mut c = [0i64; 4];
        for (value, name) in c.iter_mut().zip(["xs", "ys", "xt", "yt"]) {
            *value = tokens.expect_int(format_args!("{name} of operation {op} of {count}"))?;
        }
        tokens.end_record(format_args!("operation {op}"))?;
        let mv = Move::from_judge(c[0], c[1], c[2], c[3]).filter(|&mv| pos.is_legal(mv));
        match mv {
            None => output.write_all(b"Invalid command\n")?,
            Some(mv) => {
                let effect = pos.play_and_describe(mv);
                write_piece(&mut output, effect.moved)?;
                output.write_all(b";")?;
                match effect.captured {
                    Some(piece) => write_piece(&mut output, piece)?,
                    None => output.write_all(b"NA")?,
                }
                output.write_all(if effect.check { b";yes;" } else { b";no;" })?;
                output.write_all(if effect.game_over { b"yes\n" } else { b"no\n" })?;
            }
        }
        observe(tokens.line(), &pos);
    }
    output.flush()?;
    tokens.end_input()?;
    Ok(())
}

/// `red horse`: the judge's name of a piece, written without allocating.
fn write_piece(output: &mut impl Write, piece: Piece) -> io::Result<()> {
    output.write_all(side_name(piece.side).as_bytes())?;
    output.write_all(b" ")?;
    output.write_all(piece.kind.name().as_bytes())
}

/// Judges a whole input held in memory (for tests and the library's users).
pub fn judge_str(input: &str) -> Result<String, JudgeError> {
    arbiter_core::judge_to_string(input, |i, o| judge(i, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_game() {
        let out = judge_str("3\n0 0 1 0\n0 0 1 0\n9 0 8 0\n").unwrap();
        assert_eq!(
            out,
            "red car;NA;no;no\nInvalid command\nblue car;NA;no;no\n"
        );
    }

    #[test]
    fn out_of_range_is_invalid_not_an_error() {
        let out =
            judge_str("4\n-1 0 1 0\n0 0 10 0\n0 9 0 0\n99999999999999999999999 0 0 0\n").unwrap();
        assert_eq!(out, "Invalid command\n".repeat(4));
    }

    #[test]
    fn zero_operations() {
        assert_eq!(judge_str("0\n").unwrap(), "");
    }

    fn error_of(input: &str) -> InputError {
        match judge_str(input) {
            Err(JudgeError::Input(e)) => e,
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn malformed_input_names_the_line() {
        let e = error_of("2\n0 0 1 0\n0 x 1 0\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("ys of operation 2"), "{e}");
        let e = error_of("3\n0 0 1 0\n");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("ended"), "{e}");
        let e = error_of("-2\n");
        assert_eq!(e.line, 1);
        assert!(e.message.contains("negative"), "{e}");
        let e = error_of("");
        assert_eq!(e.line, 1);
        let e = error_of("1.5\n");
        assert!(e.message.contains("`1.5`"), "{e}");
    }
}
