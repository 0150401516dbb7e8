//! A room's game, whatever game it is: settings from READY, judging a MOVE's two square names
//! with the course's reasons, ends and records. Every rule is the game crate's (through
//! [`Rules`]); the server only keeps the clock and the move list.

use std::sync::Arc;

use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, GameDef, MoveReason, OptionError, Options, Rules, Side};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// What the server knows of the games it hosts: their definitions and, for each, how to start
/// one. Built once from a catalogue.
pub struct Registry {
    pub games: Vec<&'static GameDef>,
    new_game: fn(&Options) -> Option<Box<dyn LiveGame>>,
}

impl Registry {
    pub fn of<C: Catalogue>() -> Arc<Registry> {
        Arc::new(Registry {
            games: registry::games::<C>(),
            new_game: new_game::<C>,
        })
    }

    /// The definition of the hosted game called `id`; the error lists the games there are.
    pub fn definition(&self, id: &str) -> Result<&'static GameDef, UnknownGame> {
        registry::definition_in(&self.games, id)
    }

    /// The colour word's side in any hosted game (`BLACK`/`RED` first, `WHITE`/`BLUE` second).
    pub fn parse_colour(&self, word: &str) -> Option<Side> {
        self.games.iter().find_map(|d| d.side_by_word(word))
    }

    /// A new game with `settings`.
    pub fn start(&self, settings: &GameSettings) -> Match {
        let state = (self.new_game)(&settings.options)
            .expect("settings are made from this registry's games");
        Match {
            settings: settings.clone(),
            state,
            moves: Vec::new(),
            sent: Vec::new(),
            end: None,
        }
    }
}

struct NewLive;

impl GameVisitor for NewLive {
    type Output = Box<dyn LiveGame>;
    fn visit<G: FullGame>(self, start: G) -> Box<dyn LiveGame> {
        Box::new(Live { state: start })
    }
}

fn new_game<C: Catalogue>(options: &Options) -> Option<Box<dyn LiveGame>> {
    registry::with_game::<C, _>(options, NewLive).ok()
}

/// How a room's games are played. Serialised as `{"game":"surakarta","size":6,
/// "max_no_capture_round":40,"timeout_ms":3000}`: every option of the game by name, plus
/// `clock_ms` and `increment_ms` for a game clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSettings {
    pub options: Options,
    /// The time for each move, when there is no game clock.
    pub timeout_ms: u64,
    pub clock: Option<GameClock>,
    /// A training room: both players asked for it, and their pages warn before a move the AI
    /// sees losing (a live game has no engine's help otherwise).
    pub training: bool,
    /// A rated room: both players asked for it and hold their names; its games count for their
    /// ratings.
    pub rated: bool,
}

/// A clock per player for the whole game: `initial_ms` each, `increment_ms` added after every
/// move. With it, a move may take whatever is left on the mover's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// The per-move clock's bounds, in milliseconds.
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 100..=3_600_000;
/// A game clock's bounds: from one second to three hours, increments up to a minute.
pub const CLOCK_RANGE: std::ops::RangeInclusive<u64> = 1_000..=10_800_000;
pub const INCREMENT_RANGE: std::ops::RangeInclusive<u64> = 0..=60_000;

/// A game the server does not host; the text lists those it does.
pub use arbiter_ai::registry::UnknownGame;

/// Why a READY's settings cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error("the room is set up for {0}")]
    RoomSetUpFor(String),
    #[error(
        "timeout_ms must be from {} to {}, not {given}",
        TIMEOUT_RANGE.start(),
        TIMEOUT_RANGE.end()
    )]
    Timeout { given: u64 },
}

/// What a READY asks for: the game, and whichever settings it names. A room's first player
/// gets the server's defaults for the rest; a player who joins takes the room's.
#[derive(Clone, Debug)]
pub struct Requested {
    pub game: &'static GameDef,
    pub options: Vec<(&'static str, u32)>,
    pub timeout_ms: Option<u64>,
    pub clock: Option<GameClock>,
    /// The move time of a room this request opens without naming one: a page's person gets
    /// longer than the course's bots (None: the server's default).
    pub opening_timeout_ms: Option<u64>,
    /// The READY asked for a training room (the extension key `training`).
    pub training: bool,
    /// The READY asked for a rated room (the extension key `rated`).
    pub rated: bool,
}

/// The server's defaults for a room's first player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingsDefaults {
    pub timeout_ms: u64,
    /// Overrides each game's own no-capture limit.
    pub max_no_capture_round: Option<u32>,
}

impl Requested {
    /// The settings of a room opened by this request.
    pub fn fresh(&self, defaults: &SettingsDefaults) -> Result<GameSettings, SettingsError> {
        let mut options = self.game.defaults();
        if let Some(limit) = defaults.max_no_capture_round {
            if self.game.option("max_no_capture_round").is_some() {
                options.set("max_no_capture_round", limit.into())?;
            }
        }
        for &(name, value) in &self.options {
            options.set(name, value.into())?;
        }
        Ok(GameSettings {
            options,
            timeout_ms: self
                .timeout_ms
                .or(self.opening_timeout_ms)
                .unwrap_or(defaults.timeout_ms),
            clock: self.clock,
            training: self.training,
            rated: self.rated,
        })
    }

    /// Joins a room set up as `room`: what the request names must agree with it.
    pub fn join(&self, room: &GameSettings) -> Result<GameSettings, SettingsError> {
        let refuse = || SettingsError::RoomSetUpFor(room.describe());
        if self.game.id != room.game().id {
            return Err(refuse());
        }
        let differs = self
            .options
            .iter()
            .any(|&(name, value)| room.options.get(name) != Some(value));
        let timeout_differs = self.timeout_ms.is_some_and(|t| t != room.timeout_ms);
        let clock_differs = self.clock.is_some() && self.clock != room.clock;
        // Training needs both players' word: a joiner that did not ask for it is refused.
        let training_differs = self.training != room.training || self.rated != room.rated;
        if differs || timeout_differs || clock_differs || training_differs {
            return Err(refuse());
        }
        Ok(room.clone())
    }
}

impl GameSettings {
    pub fn game(&self) -> &'static GameDef {
        self.options.def()
    }

    /// The protocol's colour word for a side: `BLACK`/`WHITE`, `RED`/`BLUE`.
    pub fn colour_word(&self, side: Side) -> &'static str {
        self.game().side(side).word
    }

    pub fn check_timeout(timeout_ms: u64) -> Result<u64, SettingsError> {
        if TIMEOUT_RANGE.contains(&timeout_ms) {
            Ok(timeout_ms)
        } else {
            Err(SettingsError::Timeout { given: timeout_ms })
        }
    }

    /// `surakarta (size 6, max_no_capture_round 40, 3 s a move)`.
    pub fn describe(&self) -> String {
        let mut pairs: Vec<String> = self
            .options
            .pairs()
            .map(|(name, value)| format!("{name} {value}"))
            .collect();
        pairs.push(self.time_control());
        if self.training {
            pairs.push("training".into());
        }
        if self.rated {
            pairs.push("rated".into());
        }
        if pairs.is_empty() {
            self.game().id.to_string()
        } else {
            format!("{} ({})", self.game().id, pairs.join(", "))
        }
    }
}

impl GameSettings {
    /// The class a rated game's ratings are kept under: the game and how long a game lasts,
    /// counted as lichess does (the clock plus 40 increments; 40 moves' time with a clock per
    /// move): `surakarta/blitz`.
    pub fn rating_class(&self) -> String {
        let ms = match self.clock {
            Some(c) => c.initial_ms + 40 * c.increment_ms,
            None => 40 * self.timeout_ms,
        };
        let class = match ms / 1000 {
            0..180 => "bullet",
            180..480 => "blitz",
            480..1500 => "rapid",
            _ => "classical",
        };
        format!("{}/{class}", self.game().id)
    }

    /// `3 s a move`, `5 min + 3 s`.
    pub fn time_control(&self) -> String {
        let seconds = |ms: u64| {
            if ms.is_multiple_of(1000) {
                format!("{} s", ms / 1000)
            } else {
                format!("{:.1} s", ms as f64 / 1000.0)
            }
        };
        match self.clock {
            None => format!("{} a move", seconds(self.timeout_ms)),
            Some(c) if c.initial_ms.is_multiple_of(60_000) => {
                format!(
                    "{} min + {}",
                    c.initial_ms / 60_000,
                    seconds(c.increment_ms)
                )
            }
            Some(c) => format!("{} + {}", seconds(c.initial_ms), seconds(c.increment_ms)),
        }
    }
}

impl GameSettings {
    /// Settings as they were stored (their JSON, see [`Serialize`] below).
    pub fn from_stored(
        registry: &Registry,
        json: &str,
    ) -> Result<GameSettings, StoredSettingsError> {
        let value: serde_json::Value = serde_json::from_str(json)?;
        let map = value.as_object().ok_or(StoredSettingsError::NotAnObject)?;
        let number = |key: &str| map.get(key).and_then(serde_json::Value::as_u64);
        let name = map.get("game").and_then(|g| g.as_str());
        let game = registry.definition(name.ok_or(StoredSettingsError::NoGame)?)?;
        let mut options = Vec::new();
        for option in game.options {
            if let Some(value) = number(option.name) {
                let value =
                    u32::try_from(value).map_err(|_| StoredSettingsError::TooLarge(option.name))?;
                options.push((option.name, value));
            }
        }
        let clock = number("clock_ms").map(|initial_ms| GameClock {
            initial_ms,
            increment_ms: number("increment_ms").unwrap_or(0),
        });
        let timeout_ms = number("timeout_ms").ok_or(StoredSettingsError::NoTimeout)?;
        let requested = Requested {
            game,
            options,
            timeout_ms: Some(timeout_ms),
            clock,
            opening_timeout_ms: None,
            training: number("training") == Some(1),
            rated: number("rated") == Some(1),
        };
        let defaults = SettingsDefaults {
            timeout_ms,
            max_no_capture_round: None,
        };
        Ok(requested.fresh(&defaults)?)
    }
}

/// Why stored settings cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum StoredSettingsError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not an object")]
    NotAnObject,
    #[error("no game")]
    NoGame,
    #[error("no timeout_ms")]
    NoTimeout,
    #[error("{0} too large")]
    TooLarge(&'static str),
    #[error(transparent)]
    Game(#[from] UnknownGame),
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

impl Serialize for GameSettings {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("game", self.game().id)?;
        for (name, value) in self.options.pairs() {
            map.serialize_entry(name, &value)?;
        }
        map.serialize_entry("timeout_ms", &self.timeout_ms)?;
        if let Some(clock) = self.clock {
            map.serialize_entry("clock_ms", &clock.initial_ms)?;
            map.serialize_entry("increment_ms", &clock.increment_ms)?;
        }
        if self.training {
            map.serialize_entry("training", &1)?;
        }
        if self.rated {
            map.serialize_entry("rated", &1)?;
        }
        map.end()
    }
}

/// One game of any registered kind.
pub trait LiveGame: Send + Sync {
    fn to_move(&self) -> Side;
    /// Judges `from → to` sent by `player` and plays it when legal.
    fn judge(&mut self, from: &str, to: &str, player: Side) -> Verdict;
}

struct Live<G: Rules> {
    state: G,
}

impl<G: Rules> LiveGame for Live<G> {
    fn to_move(&self) -> Side {
        self.state.side_to_move()
    }

    fn judge(&mut self, from: &str, to: &str, player: Side) -> Verdict {
        match self.state.judge_move(from, to, player) {
            Ok(mv) => {
                let (reason, end) = arbiter_core::rules::play_judged(&mut self.state, mv);
                Verdict {
                    reason,
                    end: end.map(|e| (e.reason, e.winner)),
                }
            }
            Err(reason) => Verdict { reason, end: None },
        }
    }
}

/// A game in progress in a room.
pub struct Match {
    pub settings: GameSettings,
    state: Box<dyn LiveGame>,
    /// Every move received, legal or not, as `FROM-TO`.
    pub moves: Vec<String>,
    /// The same moves as they were sent, to replay them (a takeback).
    sent: Vec<(String, String, Side)>,
    pub end: Option<(EndReason, Option<Side>)>,
}

/// What the server decided about one MOVE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub reason: MoveReason,
    /// Set when the move ended the game: how, and who won (`None`: nobody).
    pub end: Option<(EndReason, Option<Side>)>,
}

impl Match {
    pub fn to_move(&self) -> Side {
        self.state.to_move()
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Judges `from → to` sent by `player` and plays it when legal. An illegal move ends the
    /// game and its sender always loses (also when it moved out of turn).
    pub fn play(&mut self, from: &str, to: &str, player: Side) -> Verdict {
        self.moves.push(format!("{from}-{to}"));
        self.sent.push((from.to_string(), to.to_string(), player));
        let mut verdict = self.state.judge(from, to, player);
        if !verdict.reason.is_legal() {
            verdict.end = Some((EndReason::IllegalMove, Some(player.opponent())));
        }
        if verdict.end.is_some() {
            self.end = verdict.end;
        }
        verdict
    }

    /// Ends the game from outside the rules (resignation, timeout, a player leaving).
    pub fn finish(&mut self, reason: EndReason, winner: Option<Side>) {
        if self.end.is_none() {
            self.end = Some((reason, winner));
        }
    }

    /// The same game with only its first `keep` moves (a takeback both players agreed to),
    /// replayed from the start so no game needs to undo a move itself.
    pub fn truncated(&self, registry: &Registry, keep: usize) -> Match {
        let mut replayed = registry.start(&self.settings);
        for (from, to, player) in self.sent.iter().take(keep) {
            replayed.play(from, to, *player);
        }
        replayed
    }

    /// The moves `side` made from ply `ply` on (0-based), as they were sent.
    pub fn moves_since(&self, ply: usize, side: Side) -> impl Iterator<Item = (&str, &str)> {
        self.sent
            .iter()
            .skip(ply)
            .filter(move |(_, _, by)| *by == side)
            .map(|(from, to, _)| (from.as_str(), to.as_str()))
    }

    /// Drops the last move, which the store refused (it never happened for anyone).
    pub fn forget_last(&mut self) {
        self.moves.pop();
        self.sent.pop();
    }

    /// The course's record notation: moves, then the end letter and `#`.
    pub fn record(&self) -> String {
        record_with_end(&self.moves, self.end.map_or(EndReason::None, |(r, _)| r))
    }
}

#[cfg(test)]
mod tests {
    use arbiter_ai::Standard;

    use super::*;

    fn settings(game: &str, options: &[(&str, u64)]) -> GameSettings {
        GameSettings {
            options: registry::options::<Standard>(game, options.iter().copied()).unwrap(),
            timeout_ms: 3000,
            clock: None,
            training: false,
            rated: false,
        }
    }

    fn start(game: &str, options: &[(&str, u64)]) -> Match {
        Registry::of::<Standard>().start(&settings(game, options))
    }

    #[test]
    fn surakarta_moves_and_the_rule_breaker_loses() {
        let mut m = start("surakarta", &[]);
        let v = m.play("A2", "A3", Side::First);
        assert_eq!(
            v,
            Verdict {
                reason: MoveReason::LegalNonCaptureMove,
                end: None
            }
        );
        // White's turn; Black moves again: Black broke the rule and loses.
        let v = m.play("B2", "B3", Side::First);
        assert_eq!(v.reason, MoveReason::NotPlayerTurn);
        assert_eq!(v.end, Some((EndReason::IllegalMove, Some(Side::Second))));
        assert_eq!(m.record(), "A2-A3 B2-B3 I#");
        let mut m = start("surakarta", &[]);
        assert_eq!(
            m.play("Z9", "A3", Side::First).reason,
            MoveReason::OutOfBoard
        );
    }

    #[test]
    fn a_duck_game_without_captures_ends_in_a_draw_at_the_limit() {
        let mut d = start("duck", &[("max_no_capture_round", 4)]);
        let cycle = [("a0", "a1"), ("a9", "a8"), ("a1", "a0")];
        for (ply, (from, to)) in cycle.iter().enumerate() {
            let v = d.play(from, to, Side::from_index(ply % 2));
            assert_eq!(v.reason, MoveReason::LegalNonCaptureMove);
            assert_eq!(v.end, None, "ply {ply}");
        }
        let v = d.play("a8", "a9", Side::Second);
        assert_eq!(v.end, Some((EndReason::Stalemate, None)));
        assert_eq!(d.record(), "a0-a1 a9-a8 a1-a0 a8-a9 S#");
    }

    #[test]
    fn duck_and_rc02_reasons() {
        let mut d = start("duck", &[]);
        assert_eq!(
            d.play("a0", "a1", Side::First).reason,
            MoveReason::LegalNonCaptureMove
        );
        assert_eq!(
            d.play("b1", "b2", Side::Second).reason,
            MoveReason::NotPiece
        );
        let mut d = start("duck", &[]);
        assert_eq!(
            d.play("a9", "a8", Side::First).reason,
            MoveReason::NotPlayerPiece
        );
        let mut r = start("rc02", &[("size", 4)]);
        assert_eq!(
            r.play("a3", "b3", Side::First).reason,
            MoveReason::LegalNonCaptureMove
        );
        assert_eq!(
            r.play("d3", "d2", Side::Second).reason,
            MoveReason::IllegalNonCaptureMove
        );
        assert!(r.is_over());
    }

    #[test]
    fn settings_serialise_with_every_option() {
        let s = settings("surakarta", &[("size", 8)]);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"game":"surakarta","size":8,"max_no_capture_round":40,"timeout_ms":3000}"#
        );
        assert_eq!(s.colour_word(Side::Second), "WHITE");
        assert!(GameSettings::check_timeout(50).is_err());
        let training = GameSettings {
            training: true,
            ..s
        };
        assert!(serde_json::to_string(&training)
            .unwrap()
            .ends_with(r#""timeout_ms":3000,"training":1}"#));
        assert_eq!(
            training.describe(),
            "surakarta (size 8, max_no_capture_round 40, 3 s a move, training)"
        );
    }
}
