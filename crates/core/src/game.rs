use std::fmt::Debug;
use std::hash::Hash;

use crate::{MoveList, ParseMoveError};

/// One of the two players. Each game names them (red/blue, black/white); `First` moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    First = 0,
    Second = 1,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for `First`, 1 for `Second`: for indexing per-side arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub fn from_index(index: usize) -> Side {
        if index == 0 {
            Side::First
        } else {
            Side::Second
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Won(Side),
    Drawn,
}

impl Status {
    pub fn is_over(self) -> bool {
        self != Status::Ongoing
    }
}

/// What players, the arena and the server need of a game.
///
/// A value is a whole position (plus whatever history the rules need), cheap to clone, so
/// searches may copy-make. Game-specific judging (Surakarta's reasons, Duck Chess's check flag)
/// stays on the game's own types.
pub trait Game: Clone + Send + Sync + Debug + 'static {
    type Move: Copy + Default + Eq + Hash + Debug + Send + Sync + 'static;

    /// The side whose turn it is. After a move that ends the game, the side that did not make
    /// it (searches score finished games from this side's point of view).
    fn side_to_move(&self) -> Side;

    /// Appends every legal move; an ended game has none.
    fn legal_moves(&self, out: &mut MoveList<Self::Move>);

    /// Appends the legal captures only (quiescence search asks for nothing else). This lists
    /// every move and keeps the captures; a game that finds captures on their own overrides it.
    fn capture_moves(&self, out: &mut MoveList<Self::Move>) {
        self.legal_moves(out);
        out.retain(|&mv| self.is_capture(mv));
    }

    /// A legal move chosen uniformly at random, `None` when there is none (random playouts).
    /// This lists the moves into `scratch`; a game whose moves can be counted more cheaply than
    /// listed picks one without the list.
    fn random_move<R: rand::Rng>(
        &self,
        rng: &mut R,
        scratch: &mut MoveList<Self::Move>,
    ) -> Option<Self::Move> {
        scratch.clear();
        self.legal_moves(scratch);
        (!scratch.is_empty()).then(|| scratch[rng.gen_range(0..scratch.len())])
    }

    /// Plays uniformly random legal moves until the game has no legal move or `max_plies` were
    /// played, and returns how many were. By default move by move ([`play_random_moves`]); a
    /// game with a leaner form of a whole random game overrides it, and must play exactly the
    /// games the default plays for the same random numbers.
    fn random_playout<R: rand::Rng>(
        &mut self,
        rng: &mut R,
        max_plies: u64,
        scratch: &mut MoveList<Self::Move>,
    ) -> u64 {
        play_random_moves(self, rng, max_plies, scratch)
    }

    /// Plays a move that `legal_moves` produced. Anything else is a logic error of the caller.
    fn play(&mut self, mv: Self::Move);

    fn status(&self) -> Status;

    /// A Zobrist hash of everything that decides the future of the game.
    fn hash(&self) -> u64;

    /// Whether the move removes an opponent piece (for move ordering and quiescence search).
    fn is_capture(&self, mv: Self::Move) -> bool;

    /// Parses a move in the game's human notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, ParseMoveError>;

    /// Formats a move in the game's human notation; `parse_move` reads it back.
    fn format_move(&self, mv: Self::Move) -> String;

    /// Plies played since the start (for draw adjudication and records).
    fn ply(&self) -> u32;
}

/// [`Game::random_playout`] move by move: [`Game::random_move`], then [`Game::play`]. The
/// reference a game's own playout is checked against.
pub fn play_random_moves<G: Game, R: rand::Rng>(
    game: &mut G,
    rng: &mut R,
    max_plies: u64,
    scratch: &mut MoveList<G::Move>,
) -> u64 {
    let mut plies = 0;
    while plies < max_plies {
        let Some(mv) = game.random_move(rng, scratch) else {
            break;
        };
        game.play(mv);
        plies += 1;
    }
    plies
}
