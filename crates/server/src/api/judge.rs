//! The judge visualiser's data: a judge's run over an input, operation by operation, with the
//! board after each and what the judge's output says of it (refused, ended) (`POST
//! /api/judge/{game}`).

use arbiter_core::{GameDef, JudgeDef, JudgeStep, Side};
use serde::Serialize;

use super::views::ViewError;

/// A judge's run for the visualiser: its whole output, and each operation with what the judge
/// printed for it and the board after it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceView {
    pub game: &'static str,
    pub output: String,
    /// Whether the judge prints as it goes (else each step's output is its answer so far).
    pub streams: bool,
    pub steps: Vec<TraceStep>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceStep {
    pub line: usize,
    pub input: String,
    pub output: String,
    /// The board's points, when they differ from the previous step's (the first step, a new size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geometry: Option<Geometry>,
    /// `[cell index, "first"|"second", kind or null]` of every piece.
    pub pieces: Vec<(usize, &'static str, Option<&'static str>)>,
    pub checked: Vec<String>,
    /// The judge refused the operation.
    pub invalid: bool,
    /// The game ended with it.
    pub ended: bool,
    pub vacated: Vec<String>,
    pub arrived: Vec<String>,
    pub captured: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Geometry {
    pub cols: u8,
    pub rows: u8,
    pub cells: Vec<(String, u8, u8)>,
}

/// The most operations the visualiser steps through (`arbiter judge` takes any number).
pub const MAX_TRACE_STEPS: usize = 20_000;

/// Runs game `def`'s judge over `input`, step by step (the judge's own code).
pub fn judge_trace(def: &GameDef, input: &str) -> Result<TraceView, ViewError> {
    let judge = def.judge.ok_or(ViewError::NoJudge(def.id))?;
    let too_many = |operations: usize| ViewError::TooManyOperations {
        operations,
        game: def.id,
    };
    // Every operation takes a line (a Surakarta position a dozen): refuse the huge at once.
    let lines = input.lines().count();
    if lines > 2 * MAX_TRACE_STEPS {
        return Err(too_many(lines));
    }
    let steps = (judge.trace)(input)?;
    if steps.len() > MAX_TRACE_STEPS + 1 {
        return Err(too_many(steps.len() - 1));
    }
    let mut out = Vec::new();
    (judge.run)(&mut input.as_bytes(), &mut out)?;
    let mut previous: Option<(u8, u8)> = None;
    let steps = steps
        .into_iter()
        .map(|step| trace_step(&judge, step, &mut previous))
        .collect();
    Ok(TraceView {
        game: def.id,
        output: String::from_utf8_lossy(&out).into_owned(),
        streams: judge.streams,
        steps,
    })
}

/// One operation of the trace; the board's geometry only when it differs from the `previous`
/// step's (the page keeps it), to keep long traces small.
fn trace_step(judge: &JudgeDef, step: JudgeStep, previous: &mut Option<(u8, u8)>) -> TraceStep {
    let b = &step.board;
    let geometry = (*previous != Some((b.cols, b.rows))).then(|| Geometry {
        cols: b.cols,
        rows: b.rows,
        cells: b
            .cells
            .iter()
            .map(|c| (c.name.clone(), c.col, c.row))
            .collect(),
    });
    *previous = Some((b.cols, b.rows));
    let pieces = b
        .cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            c.piece.map(|p| {
                let side = if p.side == Side::First {
                    "first"
                } else {
                    "second"
                };
                (i, side, p.kind)
            })
        })
        .collect();
    let flags = (judge.flags)(&step.output);
    TraceStep {
        invalid: flags.invalid,
        ended: flags.ended,
        line: step.line,
        input: step.input,
        output: step.output,
        geometry,
        pieces,
        checked: b.checked.clone(),
        vacated: step.changes.vacated,
        arrived: step.changes.arrived,
        captured: step.changes.captured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_steps_say_which_operations_were_refused_and_which_ended_the_game() {
        let duck = &arbiter_duck::DEFINITION;
        let trace = judge_trace(duck, duck.judge.unwrap().example).unwrap();
        let refused = |s: &&TraceStep| s.invalid;
        let steps = trace.steps.iter();
        let inputs: Vec<&str> = steps.filter(refused).map(|s| s.input.as_str()).collect();
        assert_eq!(inputs, ["9 9 9 9", "5 0 6 0"]);
        assert!(trace
            .steps
            .iter()
            .all(|s| s.invalid == (s.output.trim() == "Invalid command")));
        let rc02 = judge_trace(&arbiter_rc02::DEFINITION, "4 1\n1 1 1 2\n").unwrap();
        assert!(rc02.steps.iter().all(|s| !s.ended));
    }

    #[test]
    fn the_visualiser_tells_the_judges_verdicts_on_the_official_data() {
        let cases = [
            (&arbiter_duck::DEFINITION, "duck/official"),
            (&arbiter_surakarta::DEFINITION, "surakarta/reference"),
            (&arbiter_rc02::DEFINITION, "rc02"),
        ];
        for (def, sub) in cases {
            let dir =
                arbiter_core::shared_data::locate(env!("CARGO_MANIFEST_DIR"), sub, "visualiser");
            for (input, answer) in arbiter_core::shared_data::cases(&dir) {
                let text = std::fs::read_to_string(&input).unwrap();
                let expected = std::fs::read_to_string(&answer).unwrap();
                let trace = match judge_trace(def, &text) {
                    Ok(trace) => trace,
                    Err(ViewError::TooManyOperations { .. }) => continue,
                    Err(e) => panic!("{}: {e}", input.display()),
                };
                assert_eq!(trace.output, expected, "{}", input.display());
                let told: String = if trace.streams {
                    trace.steps.iter().map(|s| s.output.as_str()).collect()
                } else {
                    trace.steps.last().unwrap().output.clone()
                };
                assert_eq!(told, expected, "{}", input.display());
            }
        }
    }
}
