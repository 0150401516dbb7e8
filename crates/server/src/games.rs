//! A room's game, whatever game it is: settings from READY, judging a MOVE's two square names
//! with the course's reasons, ends and records. Every rule is the game crate's (through
//! [`Rules`]); the server only keeps the clock and the move list.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, GameDef, MoveReason, Options, Rules, Side};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::web_api::{self, AiMove, AnalysisView, GameRequest, StateView};

/// What the server knows of the games it hosts: their definitions and, for each, how to start
/// one and answer the page's questions. Built once from a catalogue.
pub struct Registry {
    pub games: Vec<&'static GameDef>,
    new_game: fn(&Options) -> Option<Box<dyn LiveGame>>,
    pub state: fn(&GameRequest) -> Result<StateView, String>,
    pub ai: fn(&GameRequest, &AtomicBool) -> Result<AiMove, String>,
    pub analyze: fn(&GameRequest, &AtomicBool) -> Result<AnalysisView, String>,
}

impl Registry {
    pub fn of<C: Catalogue>() -> Arc<Registry> {
        Arc::new(Registry {
            games: registry::games::<C>(),
            new_game: new_game::<C>,
            state: web_api::state::<C>,
            ai: web_api::ai::<C>,
            analyze: web_api::analyze_request::<C>,
        })
    }

    /// The game called `id`; the error lists the games there are.
    pub fn find(&self, id: &str) -> Result<&'static GameDef, String> {
        self.games
            .iter()
            .copied()
            .find(|d| d.id == id)
            .ok_or_else(|| {
                let ids: Vec<&str> = self.games.iter().map(|d| d.id).collect();
                format!(
                    "unknown game `{}` (games: {})",
                    arbiter_core::text::shorten(id),
                    ids.join(", ")
                )
            })
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
/// "max_no_capture_round":40,"timeout_ms":3000}`: every option of the game by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSettings {
    pub options: Options,
    pub timeout_ms: u64,
}

/// The clock's bounds, in milliseconds.
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 100..=3_600_000;

impl GameSettings {
    pub fn game(&self) -> &'static GameDef {
        self.options.def()
    }

    /// The protocol's colour word for a side: `BLACK`/`WHITE`, `RED`/`BLUE`.
    pub fn colour_word(&self, side: Side) -> &'static str {
        self.game().side(side).word
    }

    pub fn check_timeout(timeout_ms: u64) -> Result<u64, String> {
        if TIMEOUT_RANGE.contains(&timeout_ms) {
            Ok(timeout_ms)
        } else {
            Err(format!(
                "timeout_ms must be from {} to {}, not {timeout_ms}",
                TIMEOUT_RANGE.start(),
                TIMEOUT_RANGE.end()
            ))
        }
    }

    /// `surakarta (size 6, max_no_capture_round 40)`.
    pub fn describe(&self) -> String {
        let pairs: Vec<String> = self
            .options
            .pairs()
            .map(|(name, value)| format!("{name} {value}"))
            .collect();
        if pairs.is_empty() {
            self.game().id.to_string()
        } else {
            format!("{} ({})", self.game().id, pairs.join(", "))
        }
    }
}

impl Serialize for GameSettings {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("game", self.game().id)?;
        for (name, value) in self.options.pairs() {
            map.serialize_entry(name, &value)?;
        }
        map.serialize_entry("timeout_ms", &self.timeout_ms)?;
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
        let mut verdict = self.state.judge(from, to, player);
        if !verdict.reason.is_legal() {
            verdict.end = Some((EndReason::IlligalMove, Some(player.opponent())));
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
        assert_eq!(v.end, Some((EndReason::IlligalMove, Some(Side::Second))));
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
            MoveReason::IlligalNonCaptureMove
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
    }
}
