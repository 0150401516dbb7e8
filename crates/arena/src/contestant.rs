//! The two kinds of contestant: arbiter's own players and outside engine processes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use arbiter_ai::{FullGame, Limits, Player};

/// Why a contestant lost a game without the rules deciding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forfeit {
    Crashed(String),
    TimedOut,
    Illegal(String),
}

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Forfeit::Crashed(why) => write!(f, "engine failed: {why}"),
            Forfeit::TimedOut => write!(f, "engine did not answer in time"),
            Forfeit::Illegal(why) => write!(f, "illegal move: {why}"),
        }
    }
}

/// A participant in one game.
pub trait Contestant<G: FullGame>: Send {
    /// Chooses a move in `current`, reached from `start` by `history` (moves in notation).
    fn choose(&mut self, start: &G, history: &[String], current: &G) -> Result<G::Move, Forfeit>;
}

/// One of arbiter's players.
pub struct Internal<G: FullGame> {
    pub player: Box<dyn Player<G>>,
    pub limits: Limits,
}

impl<G: FullGame> Contestant<G> for Internal<G> {
    fn choose(&mut self, _: &G, _: &[String], current: &G) -> Result<G::Move, Forfeit> {
        let stop = AtomicBool::new(false);
        self.player
            .choose(current, &self.limits, &stop, &mut |_| {})
            .ok_or_else(|| Forfeit::Illegal("the player found no move".into()))
    }
}

/// How long an outside engine may take to start and to answer `isready`.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// What an outside engine gets beyond its move time before it forfeits.
pub const GRACE: Duration = Duration::from_millis(1000);

/// An outside program speaking the engine protocol, one process per game.
pub struct External {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    move_time: Duration,
}

impl External {
    /// Starts `command` with `sh -c` and sets it up for the game `game_line`.
    pub fn start(command: &str, game_line: &str, move_time: Duration) -> Result<External, Forfeit> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Forfeit::Crashed(format!("cannot start `{command}`: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = External {
            child,
            stdin,
            lines,
            move_time,
        };
        engine.send("arbiter")?;
        engine.expect("arbiterok", HANDSHAKE)?;
        engine.send(game_line)?;
        engine.send("newgame")?;
        engine.send("isready")?;
        engine.expect("readyok", HANDSHAKE)?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| Forfeit::Crashed(format!("cannot write to it: {e}")))
    }

    /// Waits for a line starting with `prefix`, skipping others; returns it.
    fn expect(&mut self, prefix: &str, within: Duration) -> Result<String, Forfeit> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return Ok(line),
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => return Err(Forfeit::TimedOut),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    return Err(Forfeit::Crashed(match status {
                        Some(s) => format!("it exited ({s}) while arbiter waited for `{prefix}`"),
                        None => format!("it closed its output while arbiter waited for `{prefix}`"),
                    }));
                }
            }
        }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl<G: FullGame> Contestant<G> for External {
    fn choose(&mut self, _: &G, history: &[String], current: &G) -> Result<G::Move, Forfeit> {
        let position = if history.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", history.join(" "))
        };
        self.send(&position)?;
        self.send(&format!("go movetime {}", self.move_time.as_millis()))?;
        let line = self.expect("bestmove", self.move_time + GRACE)?;
        let text = line.trim_start_matches("bestmove").trim();
        current
            .parse_move(text)
            .map_err(|e| Forfeit::Illegal(e.to_string()))
    }
}
