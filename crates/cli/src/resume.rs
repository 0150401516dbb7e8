//! Stopping a match with Ctrl-C and finishing it later: `arena --resume DIR` runs the
//! arguments the match was started with (kept in `DIR/arena-args`) and plays the games its
//! `games.tsv` does not list yet.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::{bail, Context};
use arbiter_arena::Report;

/// The file in a match's folder that keeps its arguments, one a line.
const ARGUMENTS_FILE: &str = "arena-args";
/// The exit status of a run stopped by a signal, as a shell reports one stopped by SIGINT.
const EXIT_INTERRUPTED: u8 = 130;

/// The command line as given, for [`save_arguments`].
static COMMAND_LINE: OnceLock<Vec<OsString>> = OnceLock::new();

/// Remembers the command line (before `--resume` is spelled out).
pub fn remember(args: &[OsString]) {
    let _ = COMMAND_LINE.set(args.to_vec());
}

/// `arena … --resume DIR …` with the arguments kept in `DIR` put first (the arguments given
/// now come after them, so `--concurrency` or `--json` may be given again).
pub fn expand(args: Vec<OsString>) -> anyhow::Result<Vec<OsString>> {
    if args.get(1).and_then(|a| a.to_str()) != Some("arena") {
        return Ok(args);
    }
    let Some(dir) = resume_dir(&args) else {
        return Ok(args);
    };
    let path = dir.join(ARGUMENTS_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "--resume: cannot read {} (written by `arena --out {}`)",
            path.display(),
            dir.display()
        )
    })?;
    let mut expanded: Vec<OsString> = args[..2].to_vec();
    expanded.extend(text.lines().map(OsString::from));
    expanded.extend([OsString::from("--out"), dir.into_os_string()]);
    expanded.extend(args[2..].iter().cloned());
    Ok(expanded)
}

/// The folder of `--resume DIR` (or `--resume=DIR`).
fn resume_dir(args: &[OsString]) -> Option<PathBuf> {
    args.iter().enumerate().skip(2).find_map(|(i, a)| {
        let a = a.to_str()?;
        if a == "--resume" {
            args.get(i + 1).map(PathBuf::from)
        } else {
            a.strip_prefix("--resume=").map(PathBuf::from)
        }
    })
}

/// Writes the match's arguments (all but `--out`) into its folder, for `--resume`.
pub fn save_arguments(dir: &Path) -> anyhow::Result<()> {
    let Some(args) = COMMAND_LINE.get() else {
        return Ok(());
    };
    let mut kept = Vec::new();
    let mut words = args.iter().skip(2);
    while let Some(word) = words.next() {
        let text = word
            .to_str()
            .context("--out: the arguments must be UTF-8 to be kept for --resume")?;
        if text == "--out" {
            words.next();
            continue;
        }
        if text.starts_with("--out=") {
            continue;
        }
        if text.contains('\n') {
            bail!("an argument with a line break cannot be kept for --resume: {text:?}");
        }
        kept.push(format!("{text}\n"));
    }
    let path = dir.join(ARGUMENTS_FILE);
    std::fs::write(&path, kept.concat()).with_context(|| format!("cannot write {}", path.display()))
}

/// A flag set at the first SIGINT or SIGTERM: the arena stops its games, ends its engines and
/// reports what it finished. A second signal ends the engines and exits at once.
pub fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let (ready, listening) = std::sync::mpsc::channel();
    let set = flag.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let Ok(runtime) = runtime else {
            let _ = ready.send(false);
            return;
        };
        runtime.block_on(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                let _ = ready.send(false);
                return;
            };
            let _ = ready.send(true);
            loop {
                tokio::select! {
                    _ = int.recv() => {},
                    _ = term.recv() => {},
                }
                if set.swap(true, Ordering::Relaxed) {
                    arbiter_arena::end_all_engines();
                    std::process::exit(EXIT_INTERRUPTED.into());
                }
                eprintln!("arbiter arena: stopping (the games being played are dropped; again to quit at once)");
            }
        });
    });
    match listening.recv() {
        Ok(true) => Ok(flag),
        _ => bail!("cannot listen for Ctrl-C"),
    }
}

/// After a match stopped by a signal: how to finish it, and the exit status.
pub fn interrupted(report: &Report, dir: Option<&Path>) -> ExitCode {
    let played = format!("{} of {} games played", report.games, report.planned);
    match dir {
        Some(dir) => eprintln!(
            "arbiter arena: interrupted, {played}; `arbiter arena --resume {}` plays the rest",
            dir.display()
        ),
        None => eprintln!(
            "arbiter arena: interrupted, {played} (a match with --out DIR can be finished with --resume DIR)"
        ),
    }
    ExitCode::from(EXIT_INTERRUPTED)
}
