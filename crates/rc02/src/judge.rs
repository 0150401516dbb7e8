//! The problem's judge: `N K`, then `K` moves; `0`, or `1` and the board, or `2`, the winner and
//! the board.

use std::io::{BufRead, Write};

use arbiter_core::text::Tokens;
use arbiter_core::{InputError, JudgeError, Side};

use crate::position::Position;

/// Reads the whole input (the answer depends on every move), then writes the verdict.
///
/// Moves after the end of the game are read (they must be integers) but not judged.
pub fn judge(input: impl BufRead, mut output: impl Write) -> Result<(), JudgeError> {
    let mut verdict = String::new();
    judge_traced(input, |_, pos, illegal| {
        verdict = answer(pos, illegal);
    })?;
    output.write_all(verdict.as_bytes())?;
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
pub fn judge_traced(
    input: impl BufRead,
    mut observe: impl FnMut(usize, &Position, bool),
) -> Result<(), JudgeError> {
    let mut tokens = Tokens::new(input);
    let n = tokens.expect_int("the board size N")?;
    let n_line = tokens.line();
    let k = tokens.expect_int("the number of moves K")?;
    let k_line = tokens.line();
    let mut pos = u8::try_from(n)
        .ok()
        .and_then(Position::initial)
        .ok_or_else(|| {
            InputError::new(
                n_line,
                format!("N must be an even number from 4 to 10, found {n}"),
            )
        })?;
    if k < 0 {
        return Err(InputError::new(k_line, format!("K must not be negative, found {k}")).into());
    }
    let mut illegal = false;
    observe(k_line, &pos, illegal);
    for i in 1..=k {
        let mut v = [0i64; 4];
        for (value, name) in v.iter_mut().zip(["x1", "y1", "x2", "y2"]) {
            *value = tokens.expect_int(format_args!("{name} of move {i} of {k}"))?;
        }
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
    Ok(())
}

/// Judges an input held in memory.
pub fn judge_str(input: &str) -> Result<String, JudgeError> {
    arbiter_core::judge_to_string(input, |i, o| judge(i, o))
}
