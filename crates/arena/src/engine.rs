//! An outside engine's process, as fastchess and cutechess-cli run one.
//!
//! `sh -c COMMAND` is started as the leader of a process group of its own: whatever the
//! command starts (a wrapper script's engine, a hung engine's helpers) is in that group, and
//! ending the engine ends the whole group, not just the shell. A group is ended when its slot
//! is done with it, when the engine failed a game, and — through [`end_all_engines`] — when the
//! arena is interrupted. On Linux the shell also dies with the arena's thread that started it
//! (`PR_SET_PDEATHSIG`), so even an arena killed outright leaves no engine of a simple command.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, LineWriter, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::contestant::Forfeit;

/// How long an outside engine may take to start and to answer `isready`.
pub const HANDSHAKE: Duration = Duration::from_secs(10);
/// The most lines of standard error kept for one game (an engine that floods its stderr
/// must not fill the arena's memory).
const STDERR_LINES_KEPT: usize = 10_000;

/// The process groups of the engines running now, to end them all when the arena is stopped.
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Ends every outside engine's process group at once (Ctrl-C): each game waiting for one sees
/// it die and stops.
pub fn end_all_engines() {
    let groups = LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &group in groups.iter() {
        kill_group(group);
    }
}

fn kill_group(group: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group; it touches no memory.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Everything sent to and received from the engines, one line each with the time since the
/// log was opened, the engine's name and process id, and `>` (sent), `<` (its output) or `!`
/// (its standard error): `--engine-log FILE`.
pub struct EngineLog {
    file: Mutex<LineWriter<File>>,
    opened: Instant,
}

impl EngineLog {
    /// Opens the log, adding to what is there (a resumed match logs after its first part).
    pub fn create(path: &Path) -> std::io::Result<EngineLog> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(EngineLog {
            file: Mutex::new(LineWriter::new(file)),
            opened: Instant::now(),
        })
    }

    fn line(&self, who: &str, direction: char, text: &str) {
        let seconds = self.opened.elapsed().as_secs_f64();
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(file, "{seconds:10.3} {who} {direction} {text}");
    }
}

/// How an outside engine is started and set up before its first game.
#[derive(Clone)]
pub(crate) struct EngineSetup {
    /// The entrant's name, for the log and messages.
    pub name: String,
    pub command: String,
    /// `game duck max_no_capture_round 80`.
    pub game_line: String,
    /// `setoption name NAME value VALUE` for each, after the handshake.
    pub options: Vec<(String, String)>,
    pub log: Option<Arc<EngineLog>>,
}

/// A running engine process speaking the engine protocol.
pub struct External {
    /// `name(pid)`, as the log names it.
    who: String,
    child: Child,
    group: i32,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// What it wrote on standard error since the last [`External::take_stderr`].
    stderr: Arc<Mutex<Vec<String>>>,
    log: Option<Arc<EngineLog>>,
}

impl External {
    /// Starts the engine and shakes hands: `arbiter` answered by `arbiterok`, then its options
    /// and the game.
    pub(crate) fn start(setup: &EngineSetup) -> Result<External, Forfeit> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&setup.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        die_with_the_arena(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| Forfeit::Crashed(format!("cannot start `{}`: {e}", setup.command)))?;
        let group = child.id() as i32;
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(group);
        let who = format!("{}({})", setup.name, child.id());
        let log = setup.log.clone();
        let stdin = child.stdin.take().expect("piped");
        let lines = forward_lines(child.stdout.take().expect("piped"), &who, &log);
        let stderr = keep_lines(child.stderr.take().expect("piped"), &who, &log);
        let mut engine = External {
            who,
            child,
            group,
            stdin,
            lines,
            stderr,
            log,
        };
        engine.send("arbiter")?;
        engine.expect("arbiterok", HANDSHAKE)?;
        for (name, value) in &setup.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.send(&setup.game_line)?;
        Ok(engine)
    }

    /// Starts a game: `newgame`, then `isready` answered by `readyok`. Returns the `error`
    /// lines the engine wrote since its start or its last game (a refused option shows there).
    pub(crate) fn new_game(&mut self) -> Result<Vec<String>, Forfeit> {
        self.send("newgame")?;
        self.send("isready")?;
        let mut errors = Vec::new();
        self.expect_reading("readyok", HANDSHAKE, |line| {
            if line.starts_with("error") {
                errors.push(line.to_string());
            }
        })?;
        Ok(errors)
    }

    /// The lines the engine wrote on standard error since the last call.
    pub(crate) fn take_stderr(&mut self) -> Vec<String> {
        std::mem::take(&mut *self.stderr.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        if let Some(log) = &self.log {
            log.line(&self.who, '>', line);
        }
        let sent = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        sent.map_err(|_| {
            let word = line.split_whitespace().next().unwrap_or("");
            self.died(&format!("sent `{word}`"))
        })
    }

    /// Waits for a line starting with `prefix`, skipping others; returns it.
    fn expect(&mut self, prefix: &str, within: Duration) -> Result<String, Forfeit> {
        self.expect_reading(prefix, within, |_| {})
    }

    /// [`Self::expect`], handing every line skipped on the way to `skipped`.
    pub(crate) fn expect_reading(
        &mut self,
        prefix: &str,
        within: Duration,
        mut skipped: impl FnMut(&str),
    ) -> Result<String, Forfeit> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Ok(line),
                Ok(line) => skipped(&line),
                Err(RecvTimeoutError::Timeout) => return Err(Forfeit::TimedOut),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.died(&format!("waited for `{prefix}`")))
                }
            }
        }
    }

    /// Why the engine's output ended: its exit status and its last words on stderr (where the
    /// shell says `not found` or `Permission denied` for a command it cannot run).
    fn died(&mut self, doing: &str) -> Forfeit {
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut status = None;
        while status.is_none() && Instant::now() < deadline {
            status = self.child.try_wait().ok().flatten();
            std::thread::sleep(Duration::from_millis(5));
        }
        // The reader of its stderr may still be passing on the last lines.
        std::thread::sleep(Duration::from_millis(50));
        let said = {
            let kept = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            kept[kept.len().saturating_sub(3)..].join(" / ")
        };
        let mut why = match status {
            Some(s) if s.code() == Some(127) => format!("the command was not found ({s})"),
            Some(s) if s.code() == Some(126) => format!("the command cannot be run ({s})"),
            Some(s) => format!("it exited ({s}) as arbiter {doing}"),
            None => format!("it closed its output as arbiter {doing}"),
        };
        if !said.is_empty() {
            why.push_str(&format!("; it said: {said}"));
        }
        Forfeit::Crashed(why)
    }
}

impl Drop for External {
    /// Asks the engine to quit, gives it a moment, then ends its whole process group.
    fn drop(&mut self) {
        if let Some(log) = &self.log {
            log.line(&self.who, '>', "quit");
        }
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_millis(100);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // The leader is not reaped yet, so its id (the group's) cannot have been reused.
        kill_group(self.group);
        let _ = self.child.wait();
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.group);
    }
}

/// On Linux: the shell is killed when the thread that started it ends, so an arena killed
/// outright does not leave it running.
fn die_with_the_arena(command: &mut Command) {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and the closure allocates nothing.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// A thread that forwards each line `from` writes (and logs it as `<`), until it closes.
fn forward_lines(
    from: impl std::io::Read + Send + 'static,
    who: &str,
    log: &Option<Arc<EngineLog>>,
) -> Receiver<String> {
    let (tx, lines) = mpsc::channel();
    let (who, log) = (who.to_string(), log.clone());
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if let Some(log) = &log {
                log.line(&who, '<', &line);
            }
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// A thread that keeps each line `from` writes (and logs it as `!`), until it closes.
fn keep_lines(
    from: impl std::io::Read + Send + 'static,
    who: &str,
    log: &Option<Arc<EngineLog>>,
) -> Arc<Mutex<Vec<String>>> {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let (into, who, log) = (kept.clone(), who.to_string(), log.clone());
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if let Some(log) = &log {
                log.line(&who, '!', &line);
            }
            let mut kept = into.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() < STDERR_LINES_KEPT {
                kept.push(line);
            }
        }
    });
    kept
}
