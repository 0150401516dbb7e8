use thiserror::Error;

/// A move that could not be read, or that is not legal in the position it was read for.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("move `{text}`: {reason}")]
pub struct ParseMoveError {
    /// The text that was given.
    pub text: String,
    /// What is wrong with it, in words a user understands.
    pub reason: String,
}

impl ParseMoveError {
    pub fn new(text: &str, reason: impl Into<String>) -> Self {
        ParseMoveError {
            text: text.to_string(),
            reason: reason.into(),
        }
    }
}

/// A position [`crate::Rules::setup`] cannot give: a setup form the game does not offer, or text
/// in an offered form that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// `offered` names the game's forms in words (`` `startpos` or `fen …` ``).
    #[error("{game} positions are {offered}, not `{form}`")]
    UnknownForm {
        game: &'static str,
        offered: &'static str,
        form: String,
    },
    /// `what`: the text or file at fault (`bad FEN`, `cannot read PATH`); `why`: the reader's words.
    #[error("{what}: {why}")]
    Unreadable { what: String, why: String },
}

/// A judge's output that a legal game's script should not give: where it went wrong, what the
/// judge said there and what the rules expected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{at} judged `{got}`, expected `{expected}`")]
pub struct WrongVerdict {
    /// `move 3`, or `the game` for a judge that answers once.
    pub at: String,
    pub got: String,
    pub expected: String,
}

/// Malformed text input (a judge stream, a position file), naming the line at fault.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct InputError {
    /// 1-based line number; 0 when the input could not be read at all.
    pub line: usize,
    pub message: String,
}

impl InputError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        InputError {
            line,
            message: message.into(),
        }
    }
}

/// Why a judge run stopped before the end of its input: the input was malformed (the CLI exits
/// with status 2), or the output could not be written.
#[derive(Debug, Error)]
pub enum JudgeError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Runs a streaming judge over text held in memory and returns what it wrote (judges write ASCII).
pub fn judge_to_string(
    input: &str,
    judge: impl FnOnce(&[u8], &mut Vec<u8>) -> Result<(), JudgeError>,
) -> Result<String, JudgeError> {
    let mut out = Vec::new();
    judge(input.as_bytes(), &mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
