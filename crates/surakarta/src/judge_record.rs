//! `arbiter judge surakarta --record FILE`: a finished game's record, as the course's programs
//! and the server's `--records-dir` write it (moves, then the end mark: `A2-A3 F5-E4 … C#`),
//! judged move by move from the start, and its end mark checked against the rules.

use std::io::Write;

use arbiter_core::{InputError, JudgeError, Options};

use crate::notation::Record;
use crate::rules::{player_letter, EndReason, Position};

/// Writes `N FROM-TO REASON END WINNER` for each move, then whether the record's end mark is
/// what the rules say after its moves. `Ok(false)` when it is not (or a move follows the end).
pub fn judge_record(
    options: &Options,
    text: &str,
    output: &mut dyn Write,
) -> Result<bool, JudgeError> {
    let n = options.get("size").unwrap_or(6) as u8;
    let limit = options.get("max_no_capture_round").unwrap_or(40);
    let record = Record::parse(text, n).map_err(|e| InputError::new(1, e.to_string()))?;
    let mut game = Position::new(n, limit).ok_or_else(|| {
        InputError::new(1, format!("the board size must be 6, 8, 10 or 12, not {n}"))
    })?;
    let mut ended_at = None;
    for (i, mv) in record.moves.iter().enumerate() {
        if game.is_over() {
            writeln!(
                output,
                "move {} {mv} comes after the end of the game (move {}): the record is wrong",
                i + 1,
                ended_at.unwrap_or(i)
            )?;
            return Ok(false);
        }
        let (from, to) = (mv.from(), mv.to());
        let player = game.current_player;
        let step = game.step(
            (from.x.into(), from.y.into()),
            (to.x.into(), to.y.into()),
            player,
        );
        writeln!(
            output,
            "{} {mv} {} {} {}",
            i + 1,
            step.reason,
            step.end,
            player_letter(step.winner)
        )?;
        if game.is_over() {
            ended_at = Some(i + 1);
        }
    }
    let (rules_end, winner) = (game.end_reason, game.winner);
    let agrees = end_agrees(record.end, rules_end);
    let mark = record
        .end
        .and_then(EndReason::letter)
        .map_or("no end mark".to_string(), |c| format!("{c}#"));
    let verdict = if agrees { "agrees" } else { "disagrees" };
    writeln!(
        output,
        "end {rules_end} {}: the record's {mark} {verdict}{}",
        player_letter(winner),
        if agrees { "" } else { explain(rules_end) }
    )?;
    output.flush()?;
    Ok(agrees)
}

/// Whether a record's end mark fits the end the rules reached after its moves: an end by
/// the rules must be marked as that end; a game the rules did not end must be marked with an
/// end from outside them (a resignation, a clock, …) or not at all.
fn end_agrees(mark: Option<EndReason>, rules: EndReason) -> bool {
    match (mark, rules) {
        (None, EndReason::None) => true,
        (Some(mark), EndReason::None) => outside_the_rules(mark),
        (Some(mark), rules) => mark == rules,
        (None, _) => false,
    }
}

/// Ends a record may carry that the moves themselves do not bring.
fn outside_the_rules(end: EndReason) -> bool {
    matches!(
        end,
        EndReason::Resign
            | EndReason::Timeout
            | EndReason::Interrupted
            | EndReason::Agreed
            | EndReason::Aborted
    )
}

fn explain(rules: EndReason) -> &'static str {
    if rules == EndReason::None {
        " (the rules did not end the game after these moves)"
    } else {
        " (the rules ended the game otherwise)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &str) -> (String, bool) {
        let mut out = Vec::new();
        let agrees = judge_record(&crate::DEFINITION.defaults(), text, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), agrees)
    }

    #[test]
    fn a_resigned_game_agrees_and_a_false_checkmate_does_not() {
        let (out, agrees) = judged("A2-A3 F5-E4 R#");
        assert!(agrees, "{out}");
        assert_eq!(out.lines().count(), 3, "{out}");
        assert!(
            out.starts_with("1 A2-A3 LEGAL_NON_CAPTURE_MOVE NONE .\n"),
            "{out}"
        );
        let (out, agrees) = judged("A2-A3 F5-E4 C#");
        assert!(!agrees, "{out}");
        assert!(out.contains("the record's C# disagrees"), "{out}");
        let (out, agrees) = judged("A2-A4 I#");
        assert!(agrees, "{out}");
    }
}
