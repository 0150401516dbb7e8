//! The engine protocol (`arbiter engine`): a UCI-like line protocol on standard input and
//! output, documented in `docs/engine-protocol.md`.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use arbiter_core::MoveList;

use crate::alphabeta::format_line;
use crate::analysis::analyze;
use crate::eval::Evaluate;
use crate::player::{Limits, Player, SearchInfo};
use crate::spec::{GameName, PlayerSpec};

/// A game the engine can be asked to play: how `game …` options and `position …` forms map
/// onto its positions.
pub trait EngineGame: Evaluate + GameName {
    /// The start position for the options after `game NAME` (`size 8`, `maxnocapture 40`).
    fn start_with(options: &[(String, u64)]) -> Result<Self, String>;
    /// The `game …` line that sets this game up again (for an outside engine).
    fn game_line(&self) -> String;
    /// A position from `position KIND ARG…` other than `startpos`.
    fn position_from(kind: &str, words: &[&str]) -> Result<Self, String>;
}

fn option(options: &[(String, u64)], name: &str) -> Option<u64> {
    options.iter().find(|(k, _)| k == name).map(|&(_, v)| v)
}

fn only_options(options: &[(String, u64)], allowed: &[&str], game: &str) -> Result<(), String> {
    match options.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((k, _)) if allowed.is_empty() => Err(format!("{game} takes no options, found `{k}`")),
        Some((k, _)) => Err(format!(
            "{game} takes the options {}, found `{k}`",
            allowed.join(", ")
        )),
        None => Ok(()),
    }
}

impl EngineGame for arbiter_duck::Position {
    fn start_with(options: &[(String, u64)]) -> Result<Self, String> {
        only_options(options, &[], "duck")?;
        Ok(arbiter_duck::Position::initial())
    }

    fn game_line(&self) -> String {
        "game duck".into()
    }

    fn position_from(kind: &str, words: &[&str]) -> Result<Self, String> {
        match kind {
            "fen" => arbiter_duck::Position::from_fen(&words.join(" "))
                .map_err(|e| format!("bad FEN: {e}")),
            _ => Err(format!(
                "duck positions are `startpos` or `fen …`, not `{kind}`"
            )),
        }
    }
}

impl EngineGame for arbiter_surakarta::GameState {
    fn start_with(options: &[(String, u64)]) -> Result<Self, String> {
        only_options(options, &["size", "maxnocapture"], "surakarta")?;
        let size = option(options, "size").unwrap_or(6);
        let max = option(options, "maxnocapture").unwrap_or(40);
        let max = u32::try_from(max).map_err(|_| format!("maxnocapture is too large: {max}"))?;
        u8::try_from(size)
            .ok()
            .and_then(|n| arbiter_surakarta::GameState::new(n, max))
            .ok_or_else(|| format!("surakarta size must be 6, 8, 10 or 12, not {size}"))
    }

    fn game_line(&self) -> String {
        format!(
            "game surakarta size {} maxnocapture {}",
            self.size(),
            self.max_no_capture_round
        )
    }

    fn position_from(kind: &str, words: &[&str]) -> Result<Self, String> {
        match kind {
            "file" => {
                let path = words.join(" ");
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {path}: {e}"))?;
                arbiter_surakarta::GameState::from_position_file(&text)
                    .map_err(|e| format!("{path}: {e}"))
            }
            _ => Err(format!(
                "surakarta positions are `startpos` or `file PATH`, not `{kind}`"
            )),
        }
    }
}

impl EngineGame for arbiter_rc02::Position {
    fn start_with(options: &[(String, u64)]) -> Result<Self, String> {
        only_options(options, &["size"], "rc02")?;
        let size = option(options, "size").unwrap_or(6);
        u8::try_from(size)
            .ok()
            .and_then(arbiter_rc02::Position::initial)
            .ok_or_else(|| format!("rc02 size must be an even number from 4 to 10, not {size}"))
    }

    fn game_line(&self) -> String {
        format!("game rc02 size {}", self.size())
    }

    fn position_from(kind: &str, _: &[&str]) -> Result<Self, String> {
        Err(format!(
            "rc02 positions are `startpos` (with moves), not `{kind}`"
        ))
    }
}

type Output = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Output, line: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

fn info_line(info: &SearchInfo) -> String {
    format!(
        "info depth {} score {} nodes {} nps {} time {} pv {}",
        info.depth,
        info.score,
        info.nodes,
        info.nodes_per_second(),
        info.time.as_millis(),
        info.pv.join(" ")
    )
}

/// One game's state in the engine.
trait Session: Send {
    fn set_position(&mut self, words: &[&str]) -> Result<(), String>;
    fn set_player(&mut self, spec: &PlayerSpec, seed: u64) -> Result<(), String>;
    fn go(&mut self, limits: Limits, stop: Arc<AtomicBool>, out: Output) -> Result<(), String>;
    fn analyze(&mut self, limits: Limits, losing_depth: u32, out: &Output) -> Result<(), String>;
    /// Waits for a running search to end.
    fn wait(&mut self);
    fn searching(&self) -> bool;
    fn new_game(&mut self);
    fn show(&self) -> String;
}

struct GameSession<G: EngineGame> {
    start: G,
    current: G,
    player: Option<Box<dyn Player<G>>>,
    running: Option<JoinHandle<Box<dyn Player<G>>>>,
}

impl<G: EngineGame> GameSession<G> {
    fn new(start: G, spec: &PlayerSpec, seed: u64) -> Result<Self, String> {
        Ok(GameSession {
            current: start.clone(),
            start,
            player: Some(spec.build::<G>(seed).map_err(|e| e.to_string())?),
            running: None,
        })
    }
}

impl<G: EngineGame> Session for GameSession<G> {
    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        let (kind, rest) = words
            .split_first()
            .ok_or("`position` needs startpos, fen or file")?;
        let moves_at = rest.iter().position(|&w| w == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let mut pos = match *kind {
            "startpos" if setup.is_empty() => self.start.clone(),
            "startpos" => return Err(format!("unexpected `{}` after startpos", setup.join(" "))),
            other => G::position_from(other, setup)?,
        };
        for (i, text) in moves.iter().enumerate() {
            let mv = pos
                .parse_move(text)
                .map_err(|e| format!("move {} of the list: {e}", i + 1))?;
            pos.play(mv);
        }
        self.current = pos;
        Ok(())
    }

    fn set_player(&mut self, spec: &PlayerSpec, seed: u64) -> Result<(), String> {
        self.player = Some(spec.build::<G>(seed).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn go(&mut self, limits: Limits, stop: Arc<AtomicBool>, out: Output) -> Result<(), String> {
        let mut player = self.player.take().ok_or("a search is already running")?;
        let position = self.current.clone();
        self.running = Some(std::thread::spawn(move || {
            let mut report = |info: &SearchInfo| say(&out, &info_line(info));
            let best = player.choose(&position, &limits, &stop, &mut report);
            let text = best.map_or("(none)".to_string(), |mv| position.format_move(mv));
            say(&out, &format!("bestmove {text}"));
            player
        }));
        Ok(())
    }

    fn analyze(&mut self, limits: Limits, losing_depth: u32, out: &Output) -> Result<(), String> {
        let found = analyze(&self.current, &G::Weights::default(), &limits, losing_depth);
        let pv = format_line(&self.current, &found.pv);
        say(
            out,
            &format!(
                "info depth {} score {} pv {}",
                found.depth,
                found.score,
                pv.join(" ")
            ),
        );
        let losing: Vec<String> = found
            .losing_moves
            .iter()
            .map(|&mv| self.current.format_move(mv))
            .collect();
        if losing.is_empty() {
            say(out, "losing (none)");
        } else {
            say(out, &format!("losing {}", losing.join(" ")));
        }
        let best = found
            .best
            .map_or("(none)".to_string(), |mv| self.current.format_move(mv));
        say(out, &format!("bestmove {best}"));
        Ok(())
    }

    fn wait(&mut self) {
        if let Some(handle) = self.running.take() {
            match handle.join() {
                Ok(player) => self.player = Some(player),
                Err(_) => self.player = None,
            }
        }
    }

    fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
    }

    fn new_game(&mut self) {
        self.current = self.start.clone();
        if let Some(player) = self.player.as_mut() {
            player.new_game();
        }
    }

    fn show(&self) -> String {
        let mut moves = MoveList::new();
        self.current.legal_moves(&mut moves);
        let list: Vec<String> = moves
            .iter()
            .map(|&mv| self.current.format_move(mv))
            .collect();
        format!(
            "info string {} to move, status {:?}, {} legal moves: {}",
            self.current.side_name(self.current.side_to_move()),
            self.current.status(),
            list.len(),
            list.join(" ")
        )
    }
}

/// Runs the engine protocol until `quit` or the end of the input.
///
/// `go` searches in the background so `stop` and `isready` are answered at once; any other
/// command waits for a finite search to end first (so a script can send `go` then `position`),
/// and is refused during `go infinite`.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static) {
    let out: Output = Arc::new(Mutex::new(Box::new(output)));
    let mut engine = Engine {
        out: out.clone(),
        session: None,
        spec: "alphabeta".parse().expect("valid spec"),
        seed: 1,
        stop: Arc::new(AtomicBool::new(false)),
        infinite: false,
    };
    for line in input.lines() {
        let Ok(line) = line else {
            say(&out, "error the input is not UTF-8 text; line ignored");
            continue;
        };
        if !engine.command(line.trim()) {
            break;
        }
    }
    engine.finish();
}

struct Engine {
    out: Output,
    session: Option<Box<dyn Session>>,
    spec: PlayerSpec,
    seed: u64,
    stop: Arc<AtomicBool>,
    /// The running search has no limit: other commands must not wait for it.
    infinite: bool,
}

const DEFAULT_MOVETIME_MS: u64 = 1000;

impl Engine {
    fn error(&self, message: &str) {
        say(&self.out, &format!("error {message}"));
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(session) = self.session.as_mut() {
            session.wait();
        }
    }

    /// Handles one line; false to quit.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&verb, args)) = words.split_first() else {
            return true;
        };
        let result = match verb {
            "quit" => return false,
            "arbiter" | "uci" => {
                say(&self.out, &format!("id name arbiter {}", env!("CARGO_PKG_VERSION")));
                say(&self.out, "id author the arbiter project");
                say(&self.out, "option name player type string default alphabeta");
                say(&self.out, "option name seed type spin default 1");
                say(&self.out, if verb == "uci" { "uciok" } else { "arbiterok" });
                Ok(())
            }
            "isready" => {
                say(&self.out, "readyok");
                Ok(())
            }
            "stop" => {
                self.stop.store(true, Ordering::Relaxed);
                if let Some(session) = self.session.as_mut() {
                    session.wait();
                }
                Ok(())
            }
            _ if self.infinite && self.session.as_ref().is_some_and(|s| s.searching()) => {
                Err(format!("`{verb}` during `go infinite`; send stop first"))
            }
            "game" => self.game(args),
            "setoption" => self.set_option(args),
            "newgame" => self.with_session(|s| {
                s.new_game();
                Ok(())
            }),
            "position" => self.with_session(|s| s.set_position(args)),
            "go" => self.go(args),
            "analyze" => self.analyze(args),
            "d" | "show" => self.with_session(|s| Ok(s.show())).map(|text| say(&self.out, &text)),
            other => Err(format!(
                "unknown command `{}` (commands: arbiter, isready, game, setoption, newgame, position, go, stop, analyze, show, quit)",
                arbiter_core::text::shorten(other)
            )),
        };
        if let Err(message) = result {
            self.error(&message);
        }
        true
    }

    fn with_session<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Session) -> Result<T, String>,
    ) -> Result<T, String> {
        let session = self
            .session
            .as_mut()
            .ok_or("no game chosen yet: send `game duck|surakarta|rc02` first")?;
        session.wait();
        f(session.as_mut())
    }

    fn game(&mut self, args: &[&str]) -> Result<(), String> {
        let (name, rest) = args
            .split_first()
            .ok_or("`game` needs a name: duck, surakarta or rc02")?;
        if rest.len() % 2 != 0 {
            return Err("game options come in pairs: `size 8`".into());
        }
        let options = rest
            .chunks(2)
            .map(|pair| {
                pair[1]
                    .parse::<u64>()
                    .map(|v| (pair[0].to_string(), v))
                    .map_err(|_| {
                        format!("option {} must be a number, found `{}`", pair[0], pair[1])
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let session: Box<dyn Session> = match *name {
            "duck" => Box::new(GameSession::new(
                arbiter_duck::Position::start_with(&options)?,
                &self.spec,
                self.seed,
            )?),
            "surakarta" => Box::new(GameSession::new(
                arbiter_surakarta::GameState::start_with(&options)?,
                &self.spec,
                self.seed,
            )?),
            "rc02" => Box::new(GameSession::new(
                arbiter_rc02::Position::start_with(&options)?,
                &self.spec,
                self.seed,
            )?),
            other => return Err(format!("unknown game `{other}` (duck, surakarta, rc02)")),
        };
        if let Some(old) = self.session.as_mut() {
            old.wait();
        }
        self.session = Some(session);
        Ok(())
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        let text = args.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or("expected `setoption name NAME value VALUE`")?;
        let (name, value) = rest
            .split_once(" value ")
            .ok_or("expected `setoption name NAME value VALUE`")?;
        let (name, value) = (name.trim(), value.trim());
        let (mut spec, mut seed) = (self.spec.clone(), self.seed);
        match name {
            "player" => {
                spec = value
                    .parse()
                    .map_err(|e: crate::spec::SpecError| e.to_string())?;
                if let crate::spec::PlayerKind::Command(_) = spec.kind {
                    return Err("the engine cannot run another engine as its player".into());
                }
            }
            "seed" => {
                seed = value
                    .parse()
                    .map_err(|_| format!("seed must be a number, found `{value}`"))?
            }
            weight => {
                let number: i32 = value
                    .parse()
                    .map_err(|_| format!("{weight} must be an integer, found `{value}`"))?;
                spec.weights.retain(|(k, _)| k != weight);
                spec.weights.push((weight.to_string(), number));
            }
        }
        // Only a setting the current game accepts is kept.
        if self.session.is_some() {
            self.with_session(|s| s.set_player(&spec, seed))?;
        }
        self.spec = spec;
        self.seed = seed;
        Ok(())
    }

    fn parse_limits(args: &[&str]) -> Result<(Limits, bool, u32), String> {
        let mut limits = Limits::default();
        let mut infinite = false;
        let mut losing = 3;
        let mut i = 0;
        while i < args.len() {
            let key = args[i];
            if key == "infinite" {
                infinite = true;
                i += 1;
                continue;
            }
            let value = args.get(i + 1).ok_or(format!("`{key}` needs a number"))?;
            let n: u64 = value
                .parse()
                .map_err(|_| format!("`{key}` needs a number, found `{value}`"))?;
            match key {
                "depth" => limits.depth = Some(n.clamp(1, 100) as u32),
                "nodes" => limits.nodes = Some(n),
                "movetime" => limits.time = Some(Duration::from_millis(n)),
                "iterations" => limits.iterations = Some(n),
                "losing" => losing = n.clamp(1, 8) as u32,
                other => {
                    return Err(format!(
                        "unknown limit `{other}` (depth, nodes, movetime, iterations, infinite)"
                    ))
                }
            }
            i += 2;
        }
        Ok((limits, infinite, losing))
    }

    fn go(&mut self, args: &[&str]) -> Result<(), String> {
        let (mut limits, infinite, _) = Self::parse_limits(args)?;
        if limits == Limits::default() && !infinite {
            limits = self.spec.limits(Some(DEFAULT_MOVETIME_MS));
        }
        if infinite {
            limits.iterations = limits.iterations.or(Some(u64::MAX));
        }
        self.stop = Arc::new(AtomicBool::new(false));
        let (stop, out) = (self.stop.clone(), self.out.clone());
        self.with_session(|s| s.go(limits, stop, out))?;
        self.infinite = infinite;
        Ok(())
    }

    fn analyze(&mut self, args: &[&str]) -> Result<(), String> {
        let (mut limits, _, losing) = Self::parse_limits(args)?;
        if limits == Limits::default() {
            limits = Limits::time(DEFAULT_MOVETIME_MS);
        }
        let out = self.out.clone();
        self.with_session(|s| s.analyze(limits, losing, &out))
    }
}
