//! The shared vocabulary of arbiter's games.
//!
//! Only what two or more games (or the players, arena and server built on them) need lives here:
//! sides and outcomes, the [`Game`] trait, an allocation-free [`MoveList`], Zobrist key tables,
//! and typed errors for text input. Everything game-specific stays in the game's own crate.

mod error;
mod game;
mod movelist;
pub mod playout;
pub mod shared_data;
pub mod text;
pub mod zobrist;

pub use error::{judge_to_string, InputError, JudgeError, ParseMoveError};
pub use game::{Game, Side, Status};
pub use movelist::{MoveList, MAX_MOVES};
