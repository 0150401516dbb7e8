//! The three games behind one interface for the server: settings from READY, judging a MOVE's
//! two square names with the course's reasons, ends, and records.

use arbiter_core::{Game, Side, Status};
use arbiter_surakarta::{EndReason, GameState, MoveReason, Point};
use serde::Serialize;

/// Which game a room plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    Surakarta,
    Duck,
    Rc02,
}

impl GameKind {
    pub fn parse(name: &str) -> Option<GameKind> {
        match name {
            "surakarta" => Some(GameKind::Surakarta),
            "duck" => Some(GameKind::Duck),
            "rc02" => Some(GameKind::Rc02),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GameKind::Surakarta => "surakarta",
            GameKind::Duck => "duck",
            GameKind::Rc02 => "rc02",
        }
    }

    /// The protocol's word for a side: BLACK/WHITE for Surakarta, RED/BLUE for the others.
    pub fn colour_word(self, side: Side) -> &'static str {
        match (self, side) {
            (GameKind::Surakarta, Side::First) => "BLACK",
            (GameKind::Surakarta, Side::Second) => "WHITE",
            (_, Side::First) => "RED",
            (_, Side::Second) => "BLUE",
        }
    }

    /// Reads a colour word; either pair of words is accepted for any game.
    pub fn parse_colour(word: &str) -> Option<Side> {
        match word {
            "BLACK" | "RED" => Some(Side::First),
            "WHITE" | "BLUE" => Some(Side::Second),
            _ => None,
        }
    }
}

/// How a room's games are played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameSettings {
    pub game: GameKind,
    /// Board size (Surakarta 6-12, RC-02 4-10; 9 columns for Duck Chess, fixed).
    pub size: u8,
    pub timeout_ms: u64,
    pub max_no_capture_round: u32,
}

impl GameSettings {
    /// Checks the numbers against the game.
    pub fn validate(&self) -> Result<(), String> {
        match self.game {
            GameKind::Surakarta if !arbiter_surakarta::SIZES.contains(&self.size) => Err(format!(
                "surakarta size must be 6, 8, 10 or 12, not {}",
                self.size
            )),
            GameKind::Rc02 if !(4..=10).contains(&self.size) || self.size % 2 != 0 => Err(format!(
                "rc02 size must be an even number from 4 to 10, not {}",
                self.size
            )),
            _ if !(100..=3_600_000).contains(&self.timeout_ms) => Err(format!(
                "timeout_ms must be from 100 to 3600000, not {}",
                self.timeout_ms
            )),
            _ => Ok(()),
        }
    }
}

enum State {
    Surakarta(Box<GameState>),
    Duck(arbiter_duck::Position),
    Rc02(arbiter_rc02::Position),
}

/// A game in progress in a room.
pub struct Match {
    pub settings: GameSettings,
    state: State,
    /// Every move received, legal or not, as `FROM-TO`.
    pub moves: Vec<String>,
    pub end: Option<(EndReason, Option<Side>)>,
    /// Legal plies since the last capture. Duck Chess and the RC-02 game have no end of their own
    /// for a game that goes nowhere (two bots can repeat a cycle forever), so the server applies
    /// `max_no_capture_round` to them too and calls it a draw.
    quiet_plies: u32,
}

/// What the server decided about one MOVE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub reason: MoveReason,
    /// Set when the move ended the game: how, and who won (`None`: nobody).
    pub end: Option<(EndReason, Option<Side>)>,
}

fn legal_reason(captured: bool) -> MoveReason {
    if captured {
        MoveReason::LegalCaptureMove
    } else {
        MoveReason::LegalNonCaptureMove
    }
}

impl Match {
    pub fn new(settings: GameSettings) -> Match {
        let state = match settings.game {
            GameKind::Surakarta => State::Surakarta(Box::new(
                GameState::new(settings.size, settings.max_no_capture_round)
                    .expect("validated settings"),
            )),
            GameKind::Duck => State::Duck(arbiter_duck::Position::initial()),
            GameKind::Rc02 => State::Rc02(
                arbiter_rc02::Position::initial(settings.size).expect("validated settings"),
            ),
        };
        Match {
            settings,
            state,
            moves: Vec::new(),
            end: None,
            quiet_plies: 0,
        }
    }

    pub fn to_move(&self) -> Side {
        match &self.state {
            State::Surakarta(s) => s.current_player,
            State::Duck(p) => p.side_to_move(),
            State::Rc02(p) => p.side_to_move(),
        }
    }

    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Judges `from → to` sent by `player` and plays it when legal. An illegal move ends the
    /// game and its sender always loses (also when it moved out of turn).
    pub fn play(&mut self, from: &str, to: &str, player: Side) -> Verdict {
        self.moves.push(format!("{from}-{to}"));
        let mut verdict = match &mut self.state {
            State::Surakarta(state) => {
                let n = state.size();
                let coords = |text: &str| {
                    Point::parse(text, n).map_or((-1, -1), |p| (p.x as i64, p.y as i64))
                };
                let result = state.step(coords(from), coords(to), player);
                let end = (result.end != EndReason::None).then_some((result.end, result.winner));
                Verdict {
                    reason: result.reason,
                    end,
                }
            }
            State::Duck(pos) => judge_duck(pos, from, to, player),
            State::Rc02(pos) => judge_rc02(pos, from, to, player),
        };
        if !verdict.reason.is_legal() {
            verdict.end = Some((EndReason::IlligalMove, Some(player.opponent())));
        } else if !matches!(self.state, State::Surakarta(_)) && verdict.end.is_none() {
            // Surakarta counts its own rounds (and decides the winner by the course's rule).
            self.quiet_plies = match verdict.reason {
                MoveReason::LegalCaptureMove => 0,
                _ => self.quiet_plies + 1,
            };
            if self.quiet_plies >= self.settings.max_no_capture_round.saturating_mul(2) {
                verdict.end = Some((EndReason::Stalemate, None));
            }
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
        let mut text = self.moves.join(" ");
        if let Some(letter) = self
            .end
            .and_then(|(reason, _)| arbiter_surakarta::notation::end_letter(reason))
        {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push(letter);
            text.push('#');
        }
        text
    }

    /// The position's status under the Game trait (for bots).
    pub fn status(&self) -> Status {
        match &self.state {
            State::Surakarta(s) => s.status(),
            State::Duck(p) => p.status(),
            State::Rc02(p) => p.status(),
        }
    }
}

fn judge_duck(pos: &mut arbiter_duck::Position, from: &str, to: &str, player: Side) -> Verdict {
    use arbiter_duck::{Move, Square};
    let none = |reason| Verdict { reason, end: None };
    if player != pos.side_to_move() {
        return none(MoveReason::NotPlayerTurn);
    }
    let (Some(f), Some(t)) = (Square::parse(from), Square::parse(to)) else {
        return none(MoveReason::OutOfBoard);
    };
    match pos.piece_at(f) {
        None => return none(MoveReason::NotPiece),
        Some(p) if p.side != player => return none(MoveReason::NotPlayerPiece),
        _ => {}
    }
    let target_enemy = pos.piece_at(t).is_some_and(|p| p.side != player);
    let mv = Move::new(f, t);
    if !pos.is_legal(mv) {
        return none(if target_enemy {
            MoveReason::IlligalCaptureMove
        } else {
            MoveReason::IlligalNonCaptureMove
        });
    }
    let captured = pos.play(mv).is_some();
    let end = pos.winner().map(|w| (EndReason::Checkmate, Some(w)));
    Verdict {
        reason: legal_reason(captured),
        end,
    }
}

fn judge_rc02(pos: &mut arbiter_rc02::Position, from: &str, to: &str, player: Side) -> Verdict {
    use arbiter_rc02::{Cell, Move};
    let none = |reason| Verdict { reason, end: None };
    if player != pos.side_to_move() {
        return none(MoveReason::NotPlayerTurn);
    }
    let n = pos.size();
    let (Some(f), Some(t)) = (Cell::parse(from, n), Cell::parse(to, n)) else {
        return none(MoveReason::OutOfBoard);
    };
    match pos.get(f) {
        None => return none(MoveReason::NotPiece),
        Some(side) if side != player => return none(MoveReason::NotPlayerPiece),
        _ => {}
    }
    let mv = Move::new(f, t);
    if pos.check(mv).is_err() {
        let target_enemy = pos.get(t).is_some_and(|s| s != player);
        return none(if target_enemy {
            MoveReason::IlligalCaptureMove
        } else {
            MoveReason::IlligalNonCaptureMove
        });
    }
    let captured = !pos.play(mv).is_empty();
    let end = pos.winner().map(|w| {
        let by_count = pos.count(w.opponent()) <= n as u32 / 2;
        (
            if by_count {
                EndReason::Checkmate
            } else {
                EndReason::Trapped
            },
            Some(w),
        )
    });
    Verdict {
        reason: legal_reason(captured),
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(game: GameKind, size: u8) -> GameSettings {
        GameSettings {
            game,
            size,
            timeout_ms: 3000,
            max_no_capture_round: 40,
        }
    }

    #[test]
    fn surakarta_moves_and_the_rule_breaker_loses() {
        let mut m = Match::new(settings(GameKind::Surakarta, 6));
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
        let mut m = Match::new(settings(GameKind::Surakarta, 6));
        assert_eq!(
            m.play("Z9", "A3", Side::First).reason,
            MoveReason::OutOfBoard
        );
    }

    #[test]
    fn a_duck_game_without_captures_ends_in_a_draw_at_the_round_limit() {
        let mut d = Match::new(GameSettings {
            max_no_capture_round: 2,
            ..settings(GameKind::Duck, 9)
        });
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
    fn a_capture_restarts_the_round_count() {
        let mut d = Match::new(GameSettings {
            max_no_capture_round: 2,
            ..settings(GameKind::Duck, 9)
        });
        let plies = [
            ("a3", "a4"),
            ("a6", "a5"),
            ("a4", "a5"), // red's soldier takes blue's
            ("i6", "i5"),
            ("i3", "i4"),
            ("i9", "i8"),
        ];
        for (ply, (from, to)) in plies.iter().enumerate() {
            let v = d.play(from, to, Side::from_index(ply % 2));
            assert!(v.reason.is_legal(), "ply {ply}: {:?}", v.reason);
            assert_eq!(v.end, None, "ply {ply}");
        }
        let v = d.play("i0", "i1", Side::First);
        assert_eq!(v.end, Some((EndReason::Stalemate, None)));
    }

    #[test]
    fn duck_and_rc02_reasons() {
        let mut d = Match::new(settings(GameKind::Duck, 9));
        assert_eq!(
            d.play("a0", "a1", Side::First).reason,
            MoveReason::LegalNonCaptureMove
        );
        assert_eq!(
            d.play("b1", "b2", Side::Second).reason,
            MoveReason::NotPiece
        );
        let mut d = Match::new(settings(GameKind::Duck, 9));
        assert_eq!(
            d.play("a9", "a8", Side::First).reason,
            MoveReason::NotPlayerPiece
        );
        let mut r = Match::new(settings(GameKind::Rc02, 4));
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
    fn settings_are_checked() {
        assert!(settings(GameKind::Surakarta, 7).validate().is_err());
        assert!(settings(GameKind::Rc02, 12).validate().is_err());
        assert!(settings(GameKind::Duck, 9).validate().is_ok());
    }
}
