//! The two kinds of contestant: arbiter's own players and outside engine processes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use arbiter_ai::{FullGame, Limits, Player};

use crate::adjudication::{centipawns, score_in_info};
use crate::ArenaConfig;

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

/// A move chosen, with the score the player last gave it (centipawns for the side that moves;
/// `None` when it said none).
pub struct Choice<M> {
    pub mv: M,
    pub score: Option<i32>,
}

/// A participant in one game.
pub trait Contestant<G: FullGame>: Send {
    /// Chooses a move in `current`, reached from `start` by `history` (moves in notation).
    fn choose(
        &mut self,
        start: &G,
        history: &[String],
        current: &G,
    ) -> Result<Choice<G::Move>, Forfeit>;
}

/// One of arbiter's players.
pub struct Internal<G: FullGame> {
    pub player: Box<dyn Player<G>>,
    pub limits: Limits,
}

impl<G: FullGame> Contestant<G> for Internal<G> {
    fn choose(&mut self, _: &G, _: &[String], current: &G) -> Result<Choice<G::Move>, Forfeit> {
        let stop = AtomicBool::new(false);
        let mut score = None;
        let mv = self
            .player
            .choose(current, &self.limits, &stop, &mut |info| {
                score = Some(centipawns(info.score))
            })
            .ok_or_else(|| Forfeit::Illegal("the player found no move".into()))?;
        Ok(Choice { mv, score })
    }
}

/// How long an outside engine may take to start and to answer `isready`.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// What an outside engine gets beyond its move time before it forfeits.
pub const GRACE: Duration = Duration::from_millis(1000);
/// How long an outside engine searching a number of nodes may take before it forfeits: no
/// engine worth measuring needs a minute for the nodes of one move, a hung one is caught.
pub const NODES_ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// The limit of each move when the player's own spec sets none: the arena's nodes a move
/// when it has them, else its time a move.
pub(crate) fn default_limits(config: &ArenaConfig) -> Limits {
    match config.nodes_per_move {
        Some(nodes) => Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
        None => Limits {
            time: Some(config.time_per_move),
            ..Limits::default()
        },
    }
}

/// What an outside engine is told to search for each move, and how long it may take.
#[derive(Clone, Debug)]
pub(crate) struct EngineLimit {
    go: String,
    answer_within: Duration,
}

impl EngineLimit {
    pub(crate) fn of(config: &ArenaConfig) -> EngineLimit {
        match config.nodes_per_move {
            Some(nodes) => EngineLimit {
                go: format!("go nodes {nodes}"),
                answer_within: NODES_ANSWER_WITHIN,
            },
            None => EngineLimit {
                go: format!("go movetime {}", config.time_per_move.as_millis()),
                answer_within: config.time_per_move + GRACE,
            },
        }
    }
}

/// An outside program speaking the engine protocol, one process per game.
pub struct External {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The last lines the engine wrote on stderr: what it (or the shell) said when it failed.
    last_words: Receiver<String>,
    limit: EngineLimit,
}

impl External {
    /// Starts `command` with `sh -c` and sets it up for the game `game_line`.
    pub(crate) fn start(
        command: &str,
        game_line: &str,
        limit: EngineLimit,
    ) -> Result<External, Forfeit> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Forfeit::Crashed(format!("cannot start `{command}`: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let lines = read_lines(child.stdout.take().expect("piped"));
        let last_words = read_lines(child.stderr.take().expect("piped"));
        let mut engine = External {
            child,
            stdin,
            lines,
            last_words,
            limit,
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
    fn expect_reading(
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
}

impl External {
    /// Why the engine's output ended: its exit status and its last words on stderr (where the
    /// shell says `not found` or `Permission denied` for a command it cannot run).
    fn died(&mut self, doing: &str) -> Forfeit {
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut status = None;
        while status.is_none() && Instant::now() < deadline {
            status = self.child.try_wait().ok().flatten();
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut said: Vec<String> = Vec::new();
        while let Ok(line) = self.last_words.recv_timeout(Duration::from_millis(50)) {
            said.push(line);
        }
        let said = said.split_off(said.len().saturating_sub(3)).join(" / ");
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

/// A thread that forwards each line `from` writes, until it closes.
fn read_lines(from: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl<G: FullGame> Contestant<G> for External {
    fn choose(
        &mut self,
        _: &G,
        history: &[String],
        current: &G,
    ) -> Result<Choice<G::Move>, Forfeit> {
        let position = if history.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", history.join(" "))
        };
        self.send(&position)?;
        let go = self.limit.go.clone();
        self.send(&go)?;
        let mut score = None;
        let line = self.expect_reading("bestmove", self.limit.answer_within, |line| {
            score = score_in_info(line).or(score);
        })?;
        let text = line.trim_start_matches("bestmove").trim();
        let mv = current
            .parse_move(text)
            .map_err(|e| Forfeit::Illegal(e.to_string()))?;
        Ok(Choice { mv, score })
    }
}
