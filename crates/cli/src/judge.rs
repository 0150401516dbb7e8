//! `arbiter judge`: a game's official judge on a file or standard input, as a contest's
//! checker runs: `--strict` input, `--expect` an answer file, `--record` a game record.
//!
//! Exit status: 0 when judged (and, with `--expect` or `--record`, as expected); 1 when the
//! output differs from the answer file or the record's end mark from the rules (or the
//! output cannot be written); 2 when an input cannot be read or is malformed.

use std::io::{self, BufRead, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arbiter_ai::registry::{self, Catalogue};
use arbiter_core::{JudgeDef, JudgeError};
use clap::Args;

use crate::EXIT_BAD_INPUT;

#[derive(Args)]
pub struct JudgeArgs {
    /// The game whose judge to run (in any case, or an alias: `p5380` is Duck Chess).
    game: String,
    /// Read the input from this file; `-` or none: standard input.
    file: Option<PathBuf>,
    /// Read the input as strictly as a contest's validator: each record (a count, an
    /// operation) alone on its line, nothing after the last.
    #[arg(long)]
    strict: bool,
    /// Compare the output with this answer file instead of printing it: `ok` and exit 0 when
    /// they are the same, else the first line that differs and exit 1.
    #[arg(long, value_name = "FILE")]
    expect: Option<PathBuf>,
    /// Judge a finished game's record file (moves then the end mark, as the course's
    /// programs and `serve --records-dir` write it; arena headers are skipped): each move's
    /// verdict, then whether the end mark is what the rules say (exit 1 when not).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "strict", "expect"])]
    record: Option<PathBuf>,
    /// With --record: the board size of the game.
    #[arg(long, value_name = "N", requires = "record")]
    size: Option<u64>,
    /// With --record: the game's max_no_capture_round.
    #[arg(long, value_name = "M", requires = "record")]
    max_no_capture_round: Option<u64>,
}

/// A file problem: said once, with the one exit status of unreadable input.
fn unreadable(path: &Path, why: impl std::fmt::Display) -> ExitCode {
    eprintln!("arbiter judge: cannot read {}: {why}", path.display());
    ExitCode::from(EXIT_BAD_INPUT)
}

/// Opens `path` for reading; a folder is refused like a missing file.
fn open(path: &Path) -> Result<io::BufReader<std::fs::File>, ExitCode> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(unreadable(path, "it is a directory")),
        Err(e) => return Err(unreadable(path, e)),
        Ok(_) => {}
    }
    let file = std::fs::File::open(path).map_err(|e| unreadable(path, e))?;
    Ok(io::BufReader::with_capacity(1 << 16, file))
}

pub fn run<C: Catalogue>(args: JudgeArgs) -> anyhow::Result<ExitCode> {
    let def = registry::definition::<C>(&args.game)?;
    let Some(judge) = def.judge else {
        anyhow::bail!("{} has no judge", def.id);
    };
    if let Some(path) = &args.record {
        return record::<C>(&args, judge, path);
    }
    let run = if args.strict { judge.strict } else { judge.run };
    let file = args.file.as_deref().filter(|p| p.as_os_str() != "-");
    let mut input: Box<dyn BufRead> = match file {
        Some(path) => match open(path) {
            Ok(reader) => Box::new(reader),
            Err(code) => return Ok(code),
        },
        None => Box::new(io::stdin().lock()),
    };
    let Some(answer) = &args.expect else {
        let mut stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
        return Ok(exit_of(run(&mut input, &mut stdout)));
    };
    let expected = match std::fs::read(answer) {
        Ok(bytes) => bytes,
        Err(e) => return Ok(unreadable(answer, e)),
    };
    let mut output = Vec::new();
    let result = run(&mut input, &mut output);
    if !matches!(result, Ok(())) {
        return Ok(exit_of(result));
    }
    Ok(compare(&output, &expected, answer))
}

/// The exit status of a judge's run, its error said on standard error.
fn exit_of(result: Result<(), JudgeError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(JudgeError::Input(message)) => {
            eprintln!("arbiter judge: malformed input: {message}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(JudgeError::Output(message)) => {
            eprintln!("arbiter judge: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `--expect`: `ok` when the output is the answer file byte for byte, else the first line
/// where they part (exit 1).
fn compare(output: &[u8], expected: &[u8], answer: &Path) -> ExitCode {
    if output == expected {
        let lines = output.split(|&b| b == b'\n').count().saturating_sub(1);
        println!("ok: the output is {} ({lines} lines)", answer.display());
        return ExitCode::SUCCESS;
    }
    let ours: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    let theirs: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
    let shown = |line: Option<&&[u8]>| match line {
        Some(bytes) => format!("`{}`", String::from_utf8_lossy(bytes)),
        None => "nothing (it ended)".to_string(),
    };
    let n = at.unwrap_or(ours.len().min(theirs.len()) - 1);
    let what = if at.is_none() {
        "the last line's newline"
    } else {
        "line"
    };
    println!(
        "wrong: {what} {} differs: the judge wrote {}, {} has {}",
        n + 1,
        shown(ours.get(n)),
        answer.display(),
        shown(theirs.get(n))
    );
    ExitCode::FAILURE
}

/// `--record FILE`: the game's record judged move by move, its end mark checked.
fn record<C: Catalogue>(
    args: &JudgeArgs,
    judge: JudgeDef,
    path: &Path,
) -> anyhow::Result<ExitCode> {
    let Some(check) = judge.record else {
        anyhow::bail!("the {} judge does not read game records", args.game);
    };
    let mut given = Vec::new();
    given.extend(args.size.map(|v| ("size", v)));
    given.extend(
        args.max_no_capture_round
            .map(|v| ("max_no_capture_round", v)),
    );
    let options = registry::options::<C>(&args.game, given)?;
    let text = match open(path) {
        Ok(mut reader) => {
            let mut text = String::new();
            match io::Read::read_to_string(&mut reader, &mut text) {
                Ok(_) => text,
                Err(e) => return Ok(unreadable(path, e)),
            }
        }
        Err(code) => return Ok(code),
    };
    let mut stdout = BufWriter::new(io::stdout().lock());
    Ok(match check(&options, &text, &mut stdout) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => exit_of(Err(error)),
    })
}
