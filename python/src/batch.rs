//! `VectorGame`: many games of one kind stepped together in Rust, with flat arrays in and out
//! and no Python object per move. A game that ends is started again at once, so every slot
//! always holds a game in progress.

use std::sync::Arc;

use arbiter_ai::registry::{FullGame, GameVisitor};
use arbiter_core::Status;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::codec::{Codec, Layout};
use crate::session::{AnyGame, Session};

/// What Python may ask of a batch, whatever game it holds.
pub trait AnyBatch: Send + Sync {
    fn layout(&self) -> Layout;
    fn len(&self) -> usize;
    /// Every game back to the start.
    fn reset(&mut self);
    /// Plays `actions[i]` in game `i` (one action a game), after checking that every one is legal (nothing is
    /// played otherwise). A game that ends gets the mover's reward (+1 won, -1 lost, 0 drawn)
    /// and `done`, and starts again.
    fn step(
        &mut self,
        actions: &[i64],
        rewards: &mut [f32],
        done: &mut [bool],
    ) -> Result<(), String>;
    /// Each game's legal actions as a row of `actions` flags.
    fn masks(&self, out: &mut [bool]);
    /// Each game's planes seen by its side to move.
    fn observations(&self, out: &mut [f32]);
    fn to_move(&self, out: &mut [i8]);
    /// A legal action of each game, uniformly at random (from the batch's own seed).
    fn random_actions(&mut self) -> Vec<i64>;
    /// Game `i` as a `Game` of its own (a copy).
    fn game(&self, i: usize) -> Option<Box<dyn AnyGame>>;
}

struct Batch<G: FullGame> {
    start: G,
    games: Vec<G>,
    /// The moves of each game since its start (for `game(i)`).
    moves: Vec<Vec<G::Move>>,
    /// The legal moves of each game with their actions, listed once a ply.
    legal: Vec<Vec<(u32, G::Move)>>,
    codec: Arc<Codec<G>>,
    rng: SmallRng,
}

impl<G: FullGame> Batch<G> {
    fn list_legal(&mut self, i: usize) {
        self.legal[i].clear();
        self.codec.legal(&self.games[i], &mut self.legal[i]);
    }

    /// The legal move of game `i` with `action`, or why there is none.
    fn find(&self, i: usize, action: i64) -> Result<G::Move, String> {
        if let Some(&(_, mv)) = self.legal[i].iter().find(|&&(a, _)| i64::from(a) == action) {
            return Ok(mv);
        }
        let text = self.codec.text_of_action(action);
        let why = match &text {
            Err(e) => e.clone(),
            Ok(text) => match self.games[i].parse_move(text) {
                Err(e) => format!("action {action} ({text}): {}", e.reason),
                Ok(_) => format!("action {action} ({text}) is not among the legal moves"),
            },
        };
        Err(format!("game {i}: {why}"))
    }
}

impl<G: FullGame> AnyBatch for Batch<G> {
    fn layout(&self) -> Layout {
        self.codec.layout()
    }

    fn len(&self) -> usize {
        self.games.len()
    }

    fn reset(&mut self) {
        for i in 0..self.games.len() {
            self.games[i] = self.start.clone();
            self.moves[i].clear();
            self.list_legal(i);
        }
    }

    fn step(
        &mut self,
        actions: &[i64],
        rewards: &mut [f32],
        done: &mut [bool],
    ) -> Result<(), String> {
        let moves = (actions.iter().enumerate())
            .map(|(i, &action)| self.find(i, action))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, mv) in moves.into_iter().enumerate() {
            let mover = self.games[i].side_to_move();
            self.games[i].play(mv);
            self.moves[i].push(mv);
            let status = self.games[i].status();
            if status.is_over() {
                rewards[i] = match status {
                    Status::Won(side) if side == mover => 1.0,
                    Status::Won(_) => -1.0,
                    _ => 0.0,
                };
                done[i] = true;
                self.games[i] = self.start.clone();
                self.moves[i].clear();
            }
            self.list_legal(i);
        }
        Ok(())
    }

    fn masks(&self, out: &mut [bool]) {
        let actions = self.codec.layout().actions;
        for (legal, row) in self.legal.iter().zip(out.chunks_mut(actions)) {
            for &(a, _) in legal {
                if let Some(flag) = row.get_mut(a as usize) {
                    *flag = true;
                }
            }
        }
    }

    fn observations(&self, out: &mut [f32]) {
        let len = self.codec.layout().observation_len();
        for (game, planes) in self.games.iter().zip(out.chunks_mut(len)) {
            self.codec.observe(game, game.side_to_move(), planes);
        }
    }

    fn to_move(&self, out: &mut [i8]) {
        for (game, side) in self.games.iter().zip(out) {
            *side = game.side_to_move().index() as i8;
        }
    }

    fn random_actions(&mut self) -> Vec<i64> {
        let rng = &mut self.rng;
        self.legal
            .iter()
            .map(|legal| match legal.len() {
                0 => -1,
                n => i64::from(legal[rng.gen_range(0..n)].0),
            })
            .collect()
    }

    fn game(&self, i: usize) -> Option<Box<dyn AnyGame>> {
        let moves = self.moves.get(i)?.clone();
        let session = Session::replayed(self.start.clone(), moves, Arc::clone(&self.codec));
        Some(Box::new(session))
    }
}

/// A batch of `count` games at the start of the game `options` are for.
pub struct NewBatch {
    pub count: usize,
    pub seed: u64,
}

impl GameVisitor for NewBatch {
    type Output = Box<dyn AnyBatch>;
    fn visit<G: FullGame>(self, start: G) -> Box<dyn AnyBatch> {
        let mut batch = Batch {
            games: vec![start.clone(); self.count],
            moves: vec![Vec::new(); self.count],
            legal: vec![Vec::new(); self.count],
            codec: Arc::new(Codec::new(&start)),
            start,
            rng: SmallRng::seed_from_u64(self.seed),
        };
        batch.reset();
        Box::new(batch)
    }
}
