//! The engine protocol (`arbiter engine`): a UCI-like line protocol on standard input and
//! output, documented in `docs/engine-protocol.md`.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use arbiter_core::MoveList;

use arbiter_core::Options;

use crate::alphabeta::format_line;
use crate::analysis::analyze;
use crate::eval::EvalWeights;
use crate::player::{Limits, Player, SearchInfo};
use crate::registry::{self, Catalogue, FullGame, GameVisitor};
use crate::spec::PlayerSpec;

mod clock;
mod error;
use clock::GoClock;
pub use clock::{clock_budget, clock_limits, white_side};
pub use error::EngineError;

/// The `game …` line that sets up `options`' game for an engine: `game surakarta size 8
/// max_no_capture_round 40`.
pub fn game_line(options: &Options) -> String {
    let mut line = format!("game {}", options.def().id);
    for (name, value) in options.pairs() {
        line.push_str(&format!(" {name} {value}"));
    }
    line
}

/// The position a `position` command's words (after `position`) describe: `startpos` or one of
/// the game's setup forms (`fen …`, `file PATH`) with `start`'s options, then `moves …` played.
pub fn position<G: arbiter_core::Rules>(start: &G, words: &[&str]) -> Result<G, EngineError> {
    let (kind, rest) = words.split_first().ok_or(EngineError::PositionNeedsKind)?;
    let moves_at = rest.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let mut pos = match *kind {
        "startpos" if setup.is_empty() => start.clone(),
        "startpos" => return Err(EngineError::AfterStartpos(setup.join(" "))),
        other => G::setup(other, &setup.join(" "), &start.options()).map_err(EngineError::Setup)?,
    };
    for (i, text) in moves.iter().enumerate() {
        let mv = pos.parse_move(text).map_err(|e| EngineError::BadMove {
            index: i + 1,
            reason: e,
        })?;
        pos.play(mv);
    }
    Ok(pos)
}

/// The options a `game` command's words (after `game`) name, among the games `defs`: `surakarta
/// size 8`, each option checked.
pub fn game_options(
    defs: &[&'static arbiter_core::GameDef],
    words: &[&str],
) -> Result<Options, EngineError> {
    let ids = || defs.iter().map(|d| d.id).collect::<Vec<_>>().join(", ");
    let Some((name, rest)) = words.split_first() else {
        return Err(EngineError::GameNeedsName(ids()));
    };
    if rest.len() % 2 != 0 {
        return Err(EngineError::OddOptions);
    }
    let pairs =
        rest.chunks(2)
            .map(|pair| {
                pair[1].parse::<u64>().map(|v| (pair[0], v)).map_err(|_| {
                    EngineError::OptionNotNumber {
                        name: pair[0].to_string(),
                        found: pair[1].to_string(),
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
    // Any case, and the games' aliases (`p5380`), as everywhere a game is named.
    let def = registry::definition_in(defs, name).map_err(|_| EngineError::UnknownGame {
        name: arbiter_core::text::shorten(name),
        games: ids(),
    })?;
    Ok(def.options_from(pairs)?)
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
    fn set_position(&mut self, words: &[&str]) -> Result<(), EngineError>;
    fn set_player(&mut self, spec: &PlayerSpec, seed: u64) -> Result<(), EngineError>;
    fn go(&mut self, limits: Limits, stop: Arc<AtomicBool>, out: Output)
        -> Result<(), EngineError>;
    /// Analyses in the background, like `go`.
    fn analyze(&mut self, limits: Limits, losing_depth: u32, stop: Arc<AtomicBool>, out: Output);
    /// Waits for a running search to end.
    fn wait(&mut self);
    fn searching(&self) -> bool;
    fn new_game(&mut self);
    fn show(&self) -> String;
    /// The evaluation weights `setoption` may set for this game.
    fn weight_names(&self) -> &'static [&'static str];
    /// Whether the side to move is the one `go wtime` gives the time of.
    fn white_to_move(&self) -> bool;
}

struct GameSession<G: FullGame> {
    start: G,
    current: G,
    player: Option<Box<dyn Player<G>>>,
    running: Option<JoinHandle<Box<dyn Player<G>>>>,
    analysing: Option<JoinHandle<()>>,
}

impl<G: FullGame> GameSession<G> {
    fn new(start: G, spec: &PlayerSpec, seed: u64) -> Result<Self, EngineError> {
        Ok(GameSession {
            current: start.clone(),
            start,
            player: Some(spec.build::<G>(seed)?),
            running: None,
            analysing: None,
        })
    }
}

impl<G: FullGame> Session for GameSession<G> {
    fn set_position(&mut self, words: &[&str]) -> Result<(), EngineError> {
        self.current = position(&self.start, words)?;
        Ok(())
    }

    fn set_player(&mut self, spec: &PlayerSpec, seed: u64) -> Result<(), EngineError> {
        self.player = Some(spec.build::<G>(seed)?);
        Ok(())
    }

    fn go(
        &mut self,
        limits: Limits,
        stop: Arc<AtomicBool>,
        out: Output,
    ) -> Result<(), EngineError> {
        let mut player = self.player.take().ok_or(EngineError::Searching)?;
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

    fn analyze(&mut self, limits: Limits, losing_depth: u32, stop: Arc<AtomicBool>, out: Output) {
        let position = self.current.clone();
        self.analysing = Some(std::thread::spawn(move || {
            let found = analyze(
                &position,
                &G::Weights::default(),
                &limits,
                losing_depth,
                &stop,
            );
            for line in analysis_lines(&position, &found) {
                say(&out, &line);
            }
        }));
    }

    fn wait(&mut self) {
        if let Some(handle) = self.running.take() {
            match handle.join() {
                Ok(player) => self.player = Some(player),
                Err(_) => self.player = None,
            }
        }
        if let Some(handle) = self.analysing.take() {
            let _ = handle.join();
        }
    }

    fn searching(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
            || self.analysing.as_ref().is_some_and(|h| !h.is_finished())
    }

    fn new_game(&mut self) {
        self.current = self.start.clone();
        if let Some(player) = self.player.as_mut() {
            player.new_game();
        }
    }

    fn weight_names(&self) -> &'static [&'static str] {
        <G::Weights as EvalWeights>::names()
    }

    fn white_to_move(&self) -> bool {
        self.current.side_to_move() == white_side(G::definition())
    }

    fn show(&self) -> String {
        let pos = &self.current;
        if let Some(end) = pos.end() {
            let result = match end.winner {
                Some(w) => format!("{} won", G::definition().side(w).name),
                None => "a draw".to_string(),
            };
            return format!("info string game over: {result} ({})", end.text);
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let list: Vec<String> = moves.iter().map(|&mv| pos.format_move(mv)).collect();
        format!(
            "info string {} to move, {} legal moves: {}",
            G::definition().side(pos.side_to_move()).name,
            list.len(),
            list.join(" ")
        )
    }
}

/// The answer to `analyze`: the line, the losing moves (and those left unchecked), the best move.
fn analysis_lines<G: FullGame>(pos: &G, found: &crate::Analysis<G::Move>) -> Vec<String> {
    let words = |moves: &[G::Move]| -> Vec<String> {
        moves.iter().map(|&mv| pos.format_move(mv)).collect()
    };
    let mut lines = vec![format!(
        "info depth {} score {} pv {}",
        found.depth,
        found.score,
        format_line(pos, &found.pv).join(" ")
    )];
    if !found.unchecked.is_empty() {
        lines.push(format!(
            "info string the time ran out before these moves were checked: {}",
            words(&found.unchecked).join(" ")
        ));
    }
    let losing = words(&found.losing_moves);
    lines.push(if losing.is_empty() {
        "losing (none)".to_string()
    } else {
        format!("losing {}", losing.join(" "))
    });
    let best = found
        .best
        .map_or("(none)".to_string(), |mv| pos.format_move(mv));
    lines.push(format!("bestmove {best}"));
    lines
}

/// Builds a session for a game of the catalogue.
struct NewSession<'a> {
    spec: &'a PlayerSpec,
    seed: u64,
}

impl GameVisitor for NewSession<'_> {
    type Output = Result<Box<dyn Session>, EngineError>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        Ok(Box::new(GameSession::new(start, self.spec, self.seed)?))
    }
}

type SessionMaker = fn(&Options, &PlayerSpec, u64) -> Result<Box<dyn Session>, EngineError>;

fn make_session<C: Catalogue>(
    options: &Options,
    spec: &PlayerSpec,
    seed: u64,
) -> Result<Box<dyn Session>, EngineError> {
    registry::with_game::<C, _>(options, NewSession { spec, seed })?
}

/// Runs the engine protocol for the games of catalogue `C` until `quit` or the end of the input.
///
/// `go` searches in the background so `stop` and `isready` are answered at once; any other
/// command waits for a finite search to end first (so a script can send `go` then `position`),
/// and is refused during `go infinite`.
pub fn run<C: Catalogue>(input: impl BufRead, output: impl Write + Send + 'static) {
    let out: Output = Arc::new(Mutex::new(Box::new(output)));
    let mut engine = Engine {
        options: None,
        make_session: make_session::<C>,
        game_ids: registry::game_ids::<C>(),
        games: registry::games::<C>(),
        out: out.clone(),
        session: None,
        spec: "alphabeta".parse().expect("valid spec"),
        seed: 1,
        stop: Arc::new(AtomicBool::new(false)),
        infinite: false,
    };
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match arbiter_core::text::read_line_capped(&mut input, &mut buf, MAX_LINE_BYTES) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                say(
                    &out,
                    &format!(
                        "error {}; the engine stops",
                        arbiter_core::text::line_error(&e)
                    ),
                );
                break;
            }
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
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
    /// The options of the game chosen by `game`.
    options: Option<Options>,
    make_session: SessionMaker,
    game_ids: String,
    games: Vec<&'static arbiter_core::GameDef>,
    out: Output,
    session: Option<Box<dyn Session>>,
    spec: PlayerSpec,
    seed: u64,
    stop: Arc<AtomicBool>,
    /// The running search has no limit: other commands must not wait for it.
    infinite: bool,
}

const DEFAULT_MOVETIME_MS: u64 = 1000;

/// An `analyze` without `movetime` stops after this long anyway (or at `stop`).
const ANALYZE_CAP_MS: u64 = 10_000;
use arbiter_core::text::MAX_LINE_BYTES;

impl Engine {
    fn error(&self, message: &str) {
        say(&self.out, &format!("error {message}"));
    }

    /// At `quit` or the end of the input: a limited search or analysis ends and answers, as
    /// before any other command; only `go infinite` is stopped.
    fn finish(&mut self) {
        if self.infinite {
            self.stop.store(true, Ordering::Relaxed);
        }
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
                say(
                    &self.out,
                    &format!("id name arbiter {}", env!("CARGO_PKG_VERSION")),
                );
                say(&self.out, "id author the arbiter project");
                say(
                    &self.out,
                    "option name player type string default alphabeta",
                );
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
                Err(EngineError::Busy(verb.to_string()))
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
            "d" | "show" => self
                .with_session(|s| Ok(s.show()))
                .map(|text| say(&self.out, &text)),
            other => Err(EngineError::UnknownCommand(arbiter_core::text::shorten(
                other,
            ))),
        };
        if let Err(error) = result {
            self.error(&error.to_string());
        }
        true
    }

    fn with_session<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Session) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        let Some(session) = self.session.as_mut() else {
            return Err(EngineError::NoGame(self.game_ids.clone()));
        };
        session.wait();
        f(session.as_mut())
    }

    fn game(&mut self, args: &[&str]) -> Result<(), EngineError> {
        let options = game_options(&self.games, args)?;
        let session = (self.make_session)(&options, &self.spec, self.seed)?;
        if let Some(old) = self.session.as_mut() {
            old.wait();
        }
        self.session = Some(session);
        self.options = Some(options);
        Ok(())
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), EngineError> {
        let text = args.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or(EngineError::SetoptionSyntax)?;
        let (name, value) = rest
            .split_once(" value ")
            .ok_or(EngineError::SetoptionSyntax)?;
        let (name, value) = (name.trim(), value.trim());
        let (mut spec, mut seed) = (self.spec.clone(), self.seed);
        match name {
            "player" => {
                spec = value.parse::<PlayerSpec>()?;
                if let crate::spec::PlayerKind::Command(_) = spec.kind {
                    return Err(EngineError::EngineAsPlayer);
                }
            }
            "seed" => {
                seed = value
                    .parse()
                    .map_err(|_| EngineError::SeedNotNumber(value.to_string()))?
            }
            weight => {
                if let Some(names) = self.session.as_ref().map(|s| s.weight_names()) {
                    if !names.contains(&weight) {
                        return Err(EngineError::UnknownOption {
                            name: arbiter_core::text::shorten(weight),
                            weights: names.join(", "),
                        });
                    }
                }
                let number: i32 = value.parse().map_err(|_| EngineError::WeightNotInteger {
                    name: weight.to_string(),
                    found: value.to_string(),
                })?;
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

    fn parse_limits(args: &[&str]) -> Result<(Limits, bool, u32, GoClock), EngineError> {
        let mut limits = Limits::default();
        let mut clock = GoClock::default();
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
            let value = args
                .get(i + 1)
                .ok_or_else(|| EngineError::LimitNeedsNumber(key.to_string()))?;
            let n: u64 = value.parse().map_err(|_| EngineError::LimitNotNumber {
                key: key.to_string(),
                found: value.to_string(),
            })?;
            match key {
                "depth" => limits.depth = Some(n.clamp(1, 100) as u32),
                "nodes" => limits.nodes = Some(n),
                "movetime" => limits.time = Some(Duration::from_millis(n)),
                "iterations" => limits.iterations = Some(n),
                "losing" => losing = n.clamp(1, 8) as u32,
                "wtime" => clock.time[0] = Some(Duration::from_millis(n)),
                "btime" => clock.time[1] = Some(Duration::from_millis(n)),
                "winc" => clock.increment[0] = Duration::from_millis(n),
                "binc" => clock.increment[1] = Duration::from_millis(n),
                "movestogo" => clock.moves_to_go = Some(n),
                other => return Err(EngineError::UnknownLimit(other.to_string())),
            }
            i += 2;
        }
        Ok((limits, infinite, losing, clock))
    }

    fn go(&mut self, args: &[&str]) -> Result<(), EngineError> {
        let (mut limits, infinite, _, clock) = Self::parse_limits(args)?;
        if limits == Limits::default() && !infinite {
            let white = self.with_session(|s| Ok(s.white_to_move()))?;
            limits = match clock.limits(white) {
                Some(limits) => limits,
                None => self.spec.limits(Some(DEFAULT_MOVETIME_MS)),
            };
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

    fn analyze(&mut self, args: &[&str]) -> Result<(), EngineError> {
        let (mut limits, _, losing, _) = Self::parse_limits(args)?;
        if limits == Limits::default() {
            limits = Limits::time(DEFAULT_MOVETIME_MS);
        }
        limits.time = limits.time.or(Some(Duration::from_millis(ANALYZE_CAP_MS)));
        self.stop = Arc::new(AtomicBool::new(false));
        let (stop, out) = (self.stop.clone(), self.out.clone());
        self.with_session(|s| {
            s.analyze(limits, losing, stop, out);
            Ok(())
        })?;
        self.infinite = false;
        Ok(())
    }
}
