//! A game's official judge as the layers above see it: the function that runs it (leniently
//! or strictly), its record check, its trace for the visualiser and its help texts.

use std::fmt;
use std::io::{BufRead, Write};

use crate::rules::{End, JudgeStep, Options};
use crate::JudgeError;

/// Judges a game record for a game of these options, writing its verdicts; `Ok(false)` when
/// the record's end mark is not what the rules say (see [`JudgeDef::record`]).
pub type RecordJudge = fn(&Options, &str, &mut dyn Write) -> Result<bool, JudgeError>;

/// A game's official judge: text in, verdicts out (`arbiter judge ID`).
#[derive(Clone, Copy)]
pub struct JudgeDef {
    pub run: fn(&mut dyn BufRead, &mut dyn Write) -> Result<(), JudgeError>,
    /// The same judge reading its input strictly (`judge --strict`, as a contest's validator
    /// does): each record alone on its line, nothing after the last.
    pub strict: fn(&mut dyn BufRead, &mut dyn Write) -> Result<(), JudgeError>,
    /// Judges a finished game's record (`judge --record FILE`) for a game of these options:
    /// each move's verdict, then whether the record's end mark is what the rules say. `Ok(false)`
    /// when the end mark disagrees.
    pub record: Option<RecordJudge>,
    /// The same judge, step by step, for the visualiser: what it printed after each operation
    /// and the board then.
    pub trace: fn(&str) -> Result<Vec<JudgeStep>, JudgeError>,
    /// A short input to try it with.
    pub example: &'static str,
    /// Whether the judge prints as it goes (each step's output is what it printed then, and
    /// the outputs add up to the judge's); otherwise it answers once at the end, and each
    /// step's output is the answer it would give if the input ended there.
    pub streams: bool,
    /// The input format in one line, for `--help`.
    pub input: &'static str,
    /// A judge input that plays `moves` (in the game's notation) from the start of `options`.
    pub script: fn(&Options, &[String]) -> String,
    /// Checks the judge's output for such a script of a legal game that ended with `end`
    /// (`None`: still going): every move judged legal, the end reported as the judge reports it.
    pub verdict: fn(&str, Option<&End>) -> Result<(), crate::WrongVerdict>,
    /// What one step's output says, for the visualiser's marks and sounds.
    pub flags: fn(&str) -> StepFlags,
}

/// What a judge's output for one operation says, typed: the operation was refused, the game
/// ended with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepFlags {
    pub invalid: bool,
    pub ended: bool,
}

impl fmt::Debug for JudgeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JudgeDef")
            .field("input", &self.input)
            .finish()
    }
}
