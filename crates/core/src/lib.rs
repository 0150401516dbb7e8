//! The shared vocabulary of arbiter's games.
//!
//! Only what two or more games (or the players, arena and server built on them) need lives here:
//! sides and outcomes, the [`Game`] trait, the [`Rules`] every registered game implements with
//! its [`GameDef`], the shared words for outcomes ([`outcome`]), the conformance [`suite`] every
//! game passes, an allocation-free [`MoveList`], Zobrist key tables, and typed errors for text
//! input. Everything game-specific stays in the game's own crate.

mod error;
mod game;
mod judge_def;
pub mod look;
mod movelist;
pub mod outcome;
pub mod playout;
pub mod rules;
pub mod shared_data;
pub mod suite;
pub mod text;
pub mod zobrist;

pub use error::{
    judge_to_string, InputError, JudgeError, ParseMoveError, SetupError, WrongVerdict,
};
pub use game::{play_random_moves, Game, Side, Status};
pub use movelist::{MoveList, MAX_MOVES};
pub use outcome::{EndReason, MoveReason};
pub use rules::{
    Allowed, BoardView, CellView, Changes, End, GameDef, JudgeDef, JudgeStep, OptionDef,
    OptionError, Options, PerftRecord, PieceView, RouteStep, Rules, SharedOutput, SideDef,
    StepFlags,
};
