//! One game: its opening, its players (arbiter's own built afresh, outside engines kept by the
//! slot that plays it), its clock, its end and its outcome with the record.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_ai::engine::{game_line, white_side};
use arbiter_ai::{FullGame, Limits, PlayerKind};
use arbiter_core::{MoveList, Side};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::adjudication::{Adjudicator, Verdict};
use crate::clock::Clock;
use crate::contestant::{
    default_limits, Choice, ClockView, Contestant, EngineLimit, Internal, Seat,
};
use crate::engine::{EngineLog, EngineSetup, External};
use crate::openings::seeded_order;
use crate::record::{record_text, result_text, Header};
use crate::tournament::Job;
use crate::{ArenaConfig, ArenaError, Ending, Entrant, Forfeit, GameOutcome};

/// Where each game's opening comes from.
pub(crate) enum Openings<G> {
    /// This many random plies, from a seed for each opening.
    Random(u32),
    /// A suite's openings played out, in the seeded order; used again from the first when the
    /// schedule needs more.
    Suite(Vec<(G, Vec<String>)>),
}

impl<G: FullGame> Openings<G> {
    pub(crate) fn new(start: &G, config: &ArenaConfig) -> Result<Openings<G>, ArenaError> {
        let Some(suite) = &config.suite else {
            return Ok(Openings::Random(config.opening_plies));
        };
        let mut positions: Vec<Option<(G, Vec<String>)>> =
            suite.positions(start)?.into_iter().map(Some).collect();
        let order = seeded_order(positions.len(), config.seed);
        let ordered = order.iter().filter_map(|&i| positions[i].take()).collect();
        Ok(Openings::Suite(ordered))
    }

    /// The position after opening number `n` of the schedule, and its moves.
    fn get(&self, start: &G, seed: u64, n: usize) -> (G, Vec<String>) {
        match self {
            Openings::Random(plies) => {
                opening(start, *plies, seed.wrapping_mul(31).wrapping_add(n as u64))
            }
            Openings::Suite(lines) => lines[n % lines.len()].clone(),
        }
    }
}

/// A random opening: `plies` random moves from `start` that do not end the game.
fn opening<G: FullGame>(start: &G, plies: u32, seed: u64) -> (G, Vec<String>) {
    for attempt in 0..100u64 {
        let mut rng = SmallRng::seed_from_u64(seed.wrapping_add(attempt.wrapping_mul(0x9E37_79B9)));
        let mut pos = start.clone();
        let mut moves = Vec::new();
        let mut ok = true;
        for _ in 0..plies {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                ok = false;
                break;
            }
            let mv = list[rng.gen_range(0..list.len())];
            moves.push(pos.format_move(mv));
            pos.play(mv);
            if pos.status().is_over() {
                ok = false;
                break;
            }
        }
        if ok {
            return (pos, moves);
        }
    }
    (start.clone(), Vec::new())
}

/// Plays one game from `from` (reached from the start by `opening_moves`); the first
/// contestant moves first. `None` when the arena was interrupted during it.
fn play_game<G: FullGame>(
    ctx: &RunContext<G>,
    opening_moves: &[String],
    from: &G,
    contestants: &mut [&mut dyn Contestant<G>; 2],
) -> Option<(Ending, Vec<String>)> {
    let mut pos = from.clone();
    let mut history: Vec<String> = opening_moves.to_vec();
    let first_side = ctx.start.side_to_move();
    let mut adjudicator = Adjudicator::new(ctx.config.adjudication);
    let mut clock = ctx.config.time_control.map(Clock::new);
    // The adjudicator's verdict on the last move, which the rules' own ending overrides.
    let mut verdict = None;
    loop {
        if ctx.interrupted() {
            return None;
        }
        if let Some(end) = pos.end() {
            let ending = Ending::Rules {
                winner: end.winner,
                reason: end.reason,
                text: end.text,
            };
            return Some((ending, history));
        }
        if let Some(Verdict { winner, why }) = verdict {
            return Some((Ending::Adjudicated { winner, why }, history));
        }
        if history.len() as u32 >= ctx.max_plies {
            let why = format!("draw by the {}-ply limit", ctx.max_plies);
            return Some((Ending::Adjudicated { winner: None, why }, history));
        }
        let side = pos.side_to_move();
        let who = usize::from(side != first_side);
        let chosen = timed_choice(&mut *contestants[who], &history, &pos, clock.as_mut());
        let forfeit = |forfeit| {
            let ending = Ending::Forfeit {
                loser: side,
                forfeit,
            };
            Some((ending, history.clone()))
        };
        let choice = match chosen {
            Ok(choice) => choice,
            Err(error) => return forfeit(error),
        };
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        if !legal.contains(&choice.mv) {
            let why = format!("{} is not legal here", pos.format_move(choice.mv));
            return forfeit(Forfeit::Illegal(why));
        }
        history.push(pos.format_move(choice.mv));
        pos.play(choice.mv);
        verdict = adjudicator.after_move(side, choice.score, history.len() as u32);
    }
}

/// The mover's choice, charged to its clock when the game has one.
fn timed_choice<G: FullGame>(
    contestant: &mut dyn Contestant<G>,
    history: &[String],
    pos: &G,
    clock: Option<&mut Clock>,
) -> Result<Choice<G::Move>, Forfeit> {
    let white = white_side(G::definition());
    let began = Instant::now();
    match clock {
        Some(clock) => {
            let view = Some(ClockView { clock, white });
            let chosen = contestant.choose(history, pos, view);
            on_the_clock(clock, pos.side_to_move(), began.elapsed(), chosen)
        }
        None => contestant.choose(history, pos, None),
    }
}

/// A move made on the clock: charged to `side`, lost on time when it took longer than the
/// time left (an engine that did not answer by then too).
fn on_the_clock<M>(
    clock: &mut Clock,
    side: Side,
    used: Duration,
    chosen: Result<M, Forfeit>,
) -> Result<M, Forfeit> {
    let had = clock.left[side.index()];
    match (chosen, clock.charge(side, used)) {
        (Err(Forfeit::TimedOut), _) | (Ok(_), Err(_)) => Err(Forfeit::OutOfTime { used, had }),
        (chosen, _) => chosen,
    }
}

/// What every game of a run shares.
pub(crate) struct RunContext<'a, G> {
    pub(crate) start: &'a G,
    pub(crate) entrants: &'a [Entrant],
    pub(crate) config: &'a ArenaConfig,
    pub(crate) openings: Openings<G>,
    pub(crate) max_plies: u32,
    /// How each outside engine is started (`None` for arbiter's own players).
    pub(crate) setups: Vec<Option<EngineSetup>>,
    /// Set by Ctrl-C: games stop, players stop searching, engines are ended.
    pub(crate) stop: Arc<AtomicBool>,
}

impl<'a, G: FullGame> RunContext<'a, G> {
    pub(crate) fn new(
        start: &'a G,
        entrants: &'a [Entrant],
        config: &'a ArenaConfig,
    ) -> Result<RunContext<'a, G>, ArenaError> {
        let log = match &config.engine_log {
            Some(path) => Some(Arc::new(EngineLog::create(path).map_err(|error| {
                ArenaError::EngineLog {
                    path: path.clone(),
                    error,
                }
            })?)),
            None => None,
        };
        let setups = entrants
            .iter()
            .map(|e| match &e.spec.kind {
                PlayerKind::Command(command) => Some(EngineSetup {
                    name: e.name.clone(),
                    command: command.clone(),
                    game_line: game_line(&start.options()),
                    options: e.options.clone(),
                    log: log.clone(),
                }),
                _ => None,
            })
            .collect();
        Ok(RunContext {
            start,
            entrants,
            config,
            openings: Openings::new(start, config)?,
            max_plies: config.max_plies.unwrap_or_else(|| start.max_plies()),
            setups,
            stop: config.interrupt.clone().unwrap_or_default(),
        })
    }

    pub(crate) fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The outside engines one slot (a game played at a time) keeps between its games: one
/// process for each engine entrant, told `newgame` before each game, started again only
/// after it failed a game.
pub(crate) struct Slot {
    engines: Vec<Option<External>>,
}

impl Slot {
    pub(crate) fn new(entrants: usize) -> Slot {
        Slot {
            engines: (0..entrants).map(|_| None).collect(),
        }
    }

    /// Entrant `i`'s engine, ready for a new game: the slot's own, or a fresh one when it has
    /// none or the one it had no longer answers.
    fn ready(&mut self, setup: &EngineSetup, i: usize) -> Result<External, Forfeit> {
        if let Some(mut engine) = self.engines[i].take() {
            if engine.new_game().is_ok() {
                return Ok(engine);
            }
        }
        let mut engine = External::start(setup)?;
        engine.new_game()?;
        Ok(engine)
    }
}

/// Starts an outside engine once, shakes hands and starts a game with it, so that a command
/// that is not there, does not speak the protocol or refuses an option stops the tournament
/// before it begins.
pub(crate) fn check_engine(setup: &EngineSetup) -> Result<(), ArenaError> {
    let failed = |why: String| ArenaError::Engine {
        name: setup.name.clone(),
        why,
    };
    let mut engine = External::start(setup).map_err(|forfeit| match forfeit {
        Forfeit::Crashed(why) => failed(why),
        other => failed(other.to_string()),
    })?;
    let errors = engine.new_game().map_err(|f| failed(f.to_string()))?;
    if !errors.is_empty() {
        return Err(failed(format!("it answered {}", errors.join(" / "))));
    }
    Ok(())
}

/// Entrant `entrant`'s player for one game, built afresh with its seed.
fn internal<G: FullGame>(
    ctx: &RunContext<G>,
    entrant: usize,
    seed: u64,
) -> Result<Internal<G>, Forfeit> {
    let spec = &ctx.entrants[entrant].spec;
    let player = spec
        .build::<G>(seed)
        .map_err(|e| Forfeit::Crashed(e.to_string()))?;
    let own = spec.resolve(G::definition().id).limits(None);
    Ok(Internal {
        player,
        own_limits: (own != Limits::default()).then_some(own),
        arena_limits: default_limits(ctx.config),
        stop: ctx.stop.clone(),
    })
}

/// One entrant's side of a game: its player, or the slot's engine (entrant, engine, limit).
enum Taken<G: FullGame> {
    Internal(Internal<G>),
    External(usize, External, EngineLimit),
}

impl<G: FullGame> Contestant<G> for Taken<G> {
    fn choose(
        &mut self,
        history: &[String],
        current: &G,
        clock: Option<ClockView>,
    ) -> Result<crate::contestant::Choice<G::Move>, Forfeit> {
        match self {
            Taken::Internal(player) => player.choose(history, current, clock),
            Taken::External(_, engine, limit) => {
                let mut seat = Seat {
                    engine,
                    limit: limit.clone(),
                };
                seat.choose(history, current, clock)
            }
        }
    }
}

impl<G: FullGame> Taken<G> {
    fn get(
        ctx: &RunContext<G>,
        slot: &mut Slot,
        entrant: usize,
        seed: u64,
    ) -> Result<Self, Forfeit> {
        match &ctx.setups[entrant] {
            Some(setup) => {
                let engine = slot.ready(setup, entrant)?;
                Ok(Taken::External(
                    entrant,
                    engine,
                    EngineLimit::of(ctx.config),
                ))
            }
            None => Ok(Taken::Internal(internal(ctx, entrant, seed)?)),
        }
    }

    /// Gives an engine back to the slot (unless it failed the game), with what it wrote on
    /// stderr during the game.
    fn give_back(
        self,
        slot: &mut Slot,
        ctx: &RunContext<G>,
        failed: bool,
        stderr: &mut Vec<String>,
    ) {
        if let Taken::External(entrant, mut engine, _) = self {
            let name = &ctx.entrants[entrant].name;
            stderr.extend(
                engine
                    .take_stderr()
                    .into_iter()
                    .map(|l| format!("{name}: {l}")),
            );
            if !failed && !ctx.interrupted() {
                slot.engines[entrant] = Some(engine);
            }
        }
    }
}

/// Plays game `job` with the slot's engines; `None` when the arena was interrupted.
pub(crate) fn run_job<G: FullGame>(
    ctx: &RunContext<G>,
    slot: &mut Slot,
    job: &Job,
) -> Option<GameOutcome> {
    let start = ctx.start;
    let (from, opening_moves) = ctx.openings.get(start, ctx.config.seed, job.opening);
    let game_seed = ctx.config.seed ^ (job.index as u64).wrapping_mul(0x2545_F491_4F6C_DD1D);
    let first = Taken::get(ctx, slot, job.first, game_seed ^ 1);
    let second = Taken::get(ctx, slot, job.second, game_seed ^ 2);
    let first_side = start.side_to_move();
    let (ending, moves, taken) = match (first, second) {
        (Ok(a), Ok(b)) => {
            let mut taken = [a, b];
            let played = {
                let [a, b] = &mut taken;
                let mut pair: [&mut dyn Contestant<G>; 2] = [a, b];
                play_game(ctx, &opening_moves, &from, &mut pair)
            };
            let (ending, moves) = played?;
            (ending, moves, taken.into_iter().collect::<Vec<_>>())
        }
        (Err(forfeit), other) => {
            let loser = first_side;
            let ending = Ending::Forfeit { loser, forfeit };
            (ending, opening_moves.clone(), other.into_iter().collect())
        }
        (ok, Err(forfeit)) => {
            let loser = first_side.opponent();
            let ending = Ending::Forfeit { loser, forfeit };
            (ending, opening_moves.clone(), ok.into_iter().collect())
        }
    };
    let failed_side = match &ending {
        Ending::Forfeit { loser, .. } => Some(*loser),
        _ => None,
    };
    let mut stderr = Vec::new();
    for t in taken {
        let side = match &t {
            Taken::External(e, ..) if *e == job.first => first_side,
            _ => first_side.opponent(),
        };
        t.give_back(slot, ctx, failed_side == Some(side), &mut stderr);
    }
    if ctx.interrupted() {
        return None;
    }
    let mut outcome = game_outcome(ctx, job, &opening_moves, ending, moves);
    outcome.stderr = stderr;
    Some(outcome)
}

/// The header of `job`'s record: won by `winner` (a side), ended for `reason`.
fn header<'a, G: FullGame>(
    ctx: &'a RunContext<G>,
    job: &Job,
    opening: &'a [String],
    winner: Option<Side>,
    reason: &'a str,
) -> Header<'a> {
    let def = G::definition();
    let first_side = ctx.start.side_to_move();
    let name = |i: usize| ctx.entrants[i].name.as_str();
    let options: Vec<String> = ctx
        .start
        .options()
        .pairs()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let result = match winner {
        Some(w) if w == first_side => Some(Side::First),
        Some(_) => Some(Side::Second),
        None => None,
    };
    Header {
        game: def.id,
        options: options.join(" "),
        sides: [
            (def.side(first_side).name, name(job.first)),
            (def.side(first_side.opponent()).name, name(job.second)),
        ],
        round: job.index + 1,
        opening,
        time_control: ctx.config.time_control.map(|tc| tc.to_string()),
        result: result_text(result),
        termination: reason,
    }
}

/// The outcome of `job`'s game, which ended as `ending` after `moves`.
fn game_outcome<G: FullGame>(
    ctx: &RunContext<G>,
    job: &Job,
    opening: &[String],
    ending: Ending,
    moves: Vec<String>,
) -> GameOutcome {
    let first_side = ctx.start.side_to_move();
    let entrant_of = |side: Side| {
        if side == first_side {
            job.first
        } else {
            job.second
        }
    };
    let (winner_side, reason) = match &ending {
        Ending::Rules { winner, text, .. } => (*winner, text.clone()),
        Ending::Adjudicated { winner, why } => (*winner, why.clone()),
        Ending::Forfeit { loser, forfeit } => (Some(loser.opponent()), forfeit.to_string()),
    };
    let header = header(ctx, job, opening, winner_side, &reason);
    let record = record_text(&header, &moves, &ending);
    GameOutcome {
        index: job.index,
        opening: job.opening,
        first: job.first,
        second: job.second,
        winner: winner_side.map(entrant_of),
        reason,
        plies: moves.len(),
        moves,
        record,
        record_file: None,
        stderr: Vec::new(),
    }
}
