//! The problem's judge: `N K`, then `K` moves; `0`, or `1` and the board, or `2`, the winner and
//! the board.

use std::io::{BufRead, Write};

use arbiter_core::text::Tokens;
use arbiter_core::{InputError, JudgeError, Side};

use crate::position::Position;

/// Reads the game and writes the verdict as soon as it is known: at the first illegal move or
/// at the end of the game, whatever follows; else after the last move.
///
/// Moves after the answer are read (they must be integers) but not judged.
pub fn judge(input: impl BufRead, output: impl Write) -> Result<(), JudgeError> {
    judge_streaming(Tokens::new(input), output)
}

/// [`judge`] reading strictly (`judge --strict`): `N K` alone on the first line, each move
/// alone on its own line, nothing after the last.
pub fn judge_strict(input: impl BufRead, output: impl Write) -> Result<(), JudgeError> {
    judge_streaming(Tokens::new(input).strict(true), output)
}

fn judge_streaming<R: BufRead>(
    tokens: Tokens<R>,
    mut output: impl Write,
) -> Result<(), JudgeError> {
    let mut answered: Option<std::io::Result<()>> = None;
    let (last, illegal) = judge_traced(tokens, |_, pos, illegal| {
        if answered.is_none() && (illegal || pos.is_over()) {
            let text = answer(pos, illegal);
            answered = Some(
                output
                    .write_all(text.as_bytes())
                    .and_then(|_| output.flush()),
            );
        }
    })?;
    match answered {
        Some(written) => written?,
        None => output.write_all(answer(&last, illegal).as_bytes())?,
    }
    output.flush()?;
    Ok(())
}

/// What the judge answers for a game that stopped at `pos`: `0` after an illegal move, `1`
/// and the board when nobody has won, `2`, the winner and the board after a win.
pub fn answer(pos: &Position, illegal: bool) -> String {
    if illegal {
        return "0\n".into();
    }
    match pos.winner() {
        None => format!("1\n{}", pos.render()),
        Some(side) => {
            let name = if side == Side::First { "red" } else { "blue" };
            format!("2\n{name}\n{}", pos.render())
        }
    }
}

/// Reads the game, calling `observe(line, position, illegal)` once the header is read and after
/// each move (the judge answers for the last call): the visualiser's trace is this very loop.
/// Returns the last position and whether an illegal move stopped the game.
pub fn judge_traced<R: BufRead>(
    mut tokens: Tokens<R>,
    mut observe: impl FnMut(usize, &Position, bool),
) -> Result<(Position, bool), JudgeError> {
    let even = "an even number from 4 to 10";
    let n = tokens.expect_in_range("the board size N", 0..=i64::MAX, even)?;
    let n_line = tokens.line();
    let k = tokens.expect_in_range(
        "the number of moves K",
        0..=i64::MAX,
        "0 to 9223372036854775807 (K must not be negative)",
    )?;
    let k_line = tokens.line();
    let mut pos = u8::try_from(n)
        .ok()
        .and_then(Position::initial)
        .ok_or_else(|| InputError::new(n_line, format!("N must be {even}, found {n}")))?;
    tokens.end_record("N K")?;
    let mut illegal = false;
    observe(k_line, &pos, illegal);
    for i in 1..=k {
        let mut v = [0i64; 4];
        for (value, name) in v.iter_mut().zip(["x1", "y1", "x2", "y2"]) {
            *value = tokens.expect_int(format_args!("{name} of move {i} of {k}"))?;
        }
        tokens.end_record(format_args!("move {i}"))?;
        if !pos.is_over() && !illegal {
            match pos.check_judge_move(v[0], v[1], v[2], v[3]) {
                Ok(mv) => {
                    pos.play(mv);
                }
                Err(_) => illegal = true,
            }
        }
        observe(tokens.line(), &pos, illegal);
    }
    tokens.end_input()?;
    Ok((pos, illegal))
}

/// Judges an input held in memory.
pub fn judge_str(input: &str) -> Result<String, JudgeError> {
    arbiter_core::judge_to_string(input, |i, o| judge(i, o))
}
