//! One game as Python holds it: a position of any registered game behind one object-safe
//! trait, with the moves that led to it (for `to_text`) and the game's encodings.
//!
//! Everything here converts: the rules are the game crate's (`legal_moves`, `parse_move`,
//! `play`, `status`, `end`), the text forms are the engine protocol's (`game …`, `position …`).

use std::any::Any;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use arbiter_ai::registry::{FullGame, GameVisitor};
use arbiter_ai::{PlayerSpec, Standard};
use arbiter_core::{Game, GameDef, Options, Side, Status};
use pyo3::Python;

use crate::codec::{Codec, Layout};

/// What Python may ask of a game, whatever game it is.
pub trait AnyGame: Send + Sync {
    fn def(&self) -> &'static GameDef;
    fn options(&self) -> Options;
    fn boxed_clone(&self) -> Box<dyn AnyGame>;
    fn layout(&self) -> Layout;
    fn square_names(&self) -> Vec<String>;
    fn plane_names(&self) -> Vec<String>;

    fn legal_moves(&self) -> Vec<String>;
    /// Plays a move in the game's notation; why not, when it is not legal.
    fn play_text(&mut self, text: &str) -> Result<(), String>;
    fn play_action(&mut self, action: i64) -> Result<(), String>;
    fn legal_actions(&self) -> Vec<u32>;
    fn action_of(&self, text: &str) -> Result<u32, String>;
    fn move_of(&self, action: i64) -> Result<String, String>;

    fn status(&self) -> Status;
    fn to_move(&self) -> Side;
    /// How the game ended, in the game's words.
    fn end_text(&self) -> Option<String>;
    fn ply(&self) -> u32;
    fn state_text(&self) -> String;
    fn observe(&self, observer: Side, out: &mut [f32]);
    fn render(&self) -> String;
    /// The engine protocol's `game …` and `position … moves …` lines.
    fn to_text(&self) -> String;

    /// The move `spec`'s player chooses here (searching without the GIL), the player kept in
    /// `slot` between calls while the game type stays the same.
    fn choose(
        &self,
        py: Python<'_>,
        slot: &mut Option<Box<dyn Any + Send>>,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Option<String>, String>;
}

/// A game of type `G` from its setup on.
pub struct Session<G: FullGame> {
    /// The position `moves` are played from, and the words that set it up (`startpos`,
    /// `fen …`).
    start: G,
    setup: Vec<String>,
    moves: Vec<G::Move>,
    current: G,
    codec: Arc<Codec<G>>,
}

impl<G: FullGame> Clone for Session<G> {
    fn clone(&self) -> Self {
        Session {
            start: self.start.clone(),
            setup: self.setup.clone(),
            moves: self.moves.clone(),
            current: self.current.clone(),
            codec: Arc::clone(&self.codec),
        }
    }
}

impl<G: FullGame> Session<G> {
    pub fn new(start: G, setup: Vec<String>, codec: Arc<Codec<G>>) -> Session<G> {
        Session {
            current: start.clone(),
            start,
            setup,
            moves: Vec::new(),
            codec,
        }
    }

    /// A session at `current`, reached from `start` by `moves`.
    pub fn replayed(start: G, moves: Vec<G::Move>, codec: Arc<Codec<G>>) -> Session<G> {
        let mut session = Session::new(start, vec!["startpos".into()], codec);
        for mv in moves {
            session.play(mv);
        }
        session
    }

    fn play(&mut self, mv: G::Move) {
        self.current.play(mv);
        self.moves.push(mv);
    }

    fn legal(&self) -> Vec<(u32, G::Move)> {
        let mut legal = Vec::new();
        self.codec.legal(&self.current, &mut legal);
        legal
    }
}

/// Why a move in the game's notation cannot be played here, in the game's words.
fn refusal<G: Game>(pos: &G, text: &str) -> String {
    match pos.parse_move(text) {
        Err(e) => e.to_string(),
        Ok(_) => format!("move `{text}` is not among the legal moves"),
    }
}

impl<G: FullGame> AnyGame for Session<G> {
    fn def(&self) -> &'static GameDef {
        G::definition()
    }

    fn options(&self) -> Options {
        self.current.options()
    }

    fn boxed_clone(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn layout(&self) -> Layout {
        self.codec.layout()
    }

    fn square_names(&self) -> Vec<String> {
        self.codec.square_names().to_vec()
    }

    fn plane_names(&self) -> Vec<String> {
        self.codec.plane_names()
    }

    fn legal_moves(&self) -> Vec<String> {
        let mut moves = arbiter_core::MoveList::new();
        self.current.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&mv| self.current.format_move(mv))
            .collect()
    }

    fn play_text(&mut self, text: &str) -> Result<(), String> {
        let mv = self.current.parse_move(text).map_err(|e| e.to_string())?;
        self.play(mv);
        Ok(())
    }

    fn play_action(&mut self, action: i64) -> Result<(), String> {
        let text = self.codec.text_of_action(action)?;
        match self
            .legal()
            .into_iter()
            .find(|&(a, _)| i64::from(a) == action)
        {
            Some((_, mv)) => {
                self.play(mv);
                Ok(())
            }
            None => Err(format!(
                "action {action} ({text}): {}",
                refusal(&self.current, &text)
            )),
        }
    }

    fn legal_actions(&self) -> Vec<u32> {
        self.legal().into_iter().map(|(a, _)| a).collect()
    }

    fn action_of(&self, text: &str) -> Result<u32, String> {
        self.codec.action_of_text(text)
    }

    fn move_of(&self, action: i64) -> Result<String, String> {
        self.codec.text_of_action(action)
    }

    fn status(&self) -> Status {
        self.current.status()
    }

    fn to_move(&self) -> Side {
        self.current.side_to_move()
    }

    fn end_text(&self) -> Option<String> {
        self.current.end().map(|end| end.text)
    }

    fn ply(&self) -> u32 {
        self.current.ply()
    }

    fn state_text(&self) -> String {
        self.current.state_text()
    }

    fn observe(&self, observer: Side, out: &mut [f32]) {
        self.codec.observe(&self.current, observer, out);
    }

    fn render(&self) -> String {
        self.codec.render(&self.current)
    }

    fn to_text(&self) -> String {
        let mut pos = self.start.clone();
        let mut line = format!("position {}", self.setup.join(" "));
        if !self.moves.is_empty() {
            line.push_str(" moves");
        }
        for &mv in &self.moves {
            line.push(' ');
            line.push_str(&pos.format_move(mv));
            pos.play(mv);
        }
        let game = arbiter_ai::engine::game_line(&self.current.options());
        format!("{game}\n{line}\n")
    }

    fn choose(
        &self,
        py: Python<'_>,
        slot: &mut Option<Box<dyn Any + Send>>,
        spec: &PlayerSpec,
        seed: u64,
    ) -> Result<Option<String>, String> {
        type Boxed<G> = Box<dyn arbiter_ai::Player<G>>;
        if !slot.as_ref().is_some_and(|p| p.is::<Boxed<G>>()) {
            let player: Boxed<G> = spec.build::<G>(seed).map_err(|e| e.to_string())?;
            *slot = Some(Box::new(player));
        }
        let Some(player) = slot.as_mut().and_then(|p| p.downcast_mut::<Boxed<G>>()) else {
            return Err("the player could not be kept".into());
        };
        // Without limits of its own a player thinks for a second, as the engine's `go` does.
        let limits = spec.limits(Some(1000));
        let pos = &self.current;
        let chosen = py.detach(|| {
            let stop = AtomicBool::new(false);
            player.choose(pos, &limits, &stop, &mut |_| {})
        });
        Ok(chosen.map(|mv| pos.format_move(mv)))
    }
}

/// Starts a session at the start of the game `options` are for.
pub struct NewSession;

impl GameVisitor for NewSession {
    type Output = Box<dyn AnyGame>;
    fn visit<G: FullGame>(self, start: G) -> Box<dyn AnyGame> {
        let codec = Arc::new(Codec::new(&start));
        Box::new(Session::new(start, vec!["startpos".into()], codec))
    }
}

/// A session read from `to_text`'s two lines (the engine protocol's `game` and `position`
/// commands); an error names the line.
pub fn from_text(text: &str) -> Result<Box<dyn AnyGame>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (game_at, game_line) = lines
        .next()
        .ok_or("the text is empty: expected `game NAME …` then `position …`")?;
    let words: Vec<&str> = game_line.split_whitespace().collect();
    let options = match words.split_first() {
        Some((&"game", rest)) => {
            arbiter_ai::engine::game_options(&arbiter_ai::registry::games::<Standard>(), rest)
        }
        _ => return Err(format!("line {game_at}: expected `game NAME …`")),
    }
    .map_err(|e| format!("line {game_at}: {e}"))?;
    let position = lines.next();
    if let Some((at, _)) = lines.next() {
        return Err(format!("line {at}: nothing may follow the position line"));
    }
    let words: Vec<String> = match position {
        None => vec!["startpos".into()],
        Some((at, line)) => match line.split_whitespace().collect::<Vec<_>>().split_first() {
            Some((&"position", rest)) => rest.iter().map(|w| w.to_string()).collect(),
            _ => return Err(format!("line {at}: expected `position …`")),
        },
    };
    let at = position.map_or(2, |(at, _)| at);
    arbiter_ai::registry::with_game::<Standard, _>(&options, FromWords { words })
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("line {at}: {e}"))
}

/// A session at the position a `position` command's words describe.
struct FromWords {
    words: Vec<String>,
}

impl GameVisitor for FromWords {
    type Output = Result<Box<dyn AnyGame>, String>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        let words: Vec<&str> = self.words.iter().map(String::as_str).collect();
        let moves_at = words.iter().position(|&w| w == "moves");
        let setup = &words[..moves_at.unwrap_or(words.len())];
        let setup_pos = arbiter_ai::engine::position(&start, setup).map_err(|e| e.to_string())?;
        let codec = Arc::new(Codec::new(&start));
        let mut session = Session::new(
            setup_pos,
            setup.iter().map(|w| w.to_string()).collect(),
            codec,
        );
        for (i, text) in words[moves_at.map_or(words.len(), |m| m + 1)..]
            .iter()
            .enumerate()
        {
            let mv = session.current.parse_move(text).map_err(|reason| {
                arbiter_ai::engine::EngineError::BadMove {
                    index: i + 1,
                    reason,
                }
                .to_string()
            })?;
            session.play(mv);
        }
        Ok(Box::new(session))
    }
}
