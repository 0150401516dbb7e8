//! Players for arbiter's games, generic over [`arbiter_core::Game`]:
//!
//! * [`RandomPlayer`] and [`GreedyPlayer`] (one ply with the game's evaluation);
//! * [`AlphaBeta`]: negamax with iterative deepening and aspiration windows, a Zobrist-keyed
//!   transposition table, ordering by table move, captures, killers and history, null move,
//!   late move reductions, a danger extension and a quiescence search on captures; limits by
//!   depth, nodes and time;
//! * [`Mcts`]: UCT with capture-biased random playouts, limited by iterations and time;
//! * an evaluation per game ([`eval`]), [`analyze`] (best move, score, line and the losing moves),
//!   player specs and levels ([`spec`]), and the engine protocol ([`engine`]);
//! * the [`registry`] of games every layer above reads, and Texel-style weight fitting
//!   ([`tune`]) from the arena's game records.
//!
//! Everything is deterministic for a given seed, except what a time limit cuts short.

pub mod alphabeta;
pub mod analysis;
pub mod bench;
pub mod engine;
pub mod eval;
pub mod mcts;
mod player;
pub mod registry;
pub mod selfplay;
mod simple;
pub mod spec;
mod table;
pub mod tune;

pub use alphabeta::{AlphaBeta, AlphaBetaConfig, SearchResult};
pub use analysis::{analyze, Analysis};
pub use eval::{EvalWeights, Evaluate, Exact, NoWeights, TableSpan, WeightError};
pub use mcts::{Mcts, MctsConfig};
pub use player::{Limits, Player, Score, SearchInfo};
pub use registry::{Catalogue, CatalogueError, FullGame, GameVisitor, Standard};
pub use simple::{GreedyPlayer, RandomPlayer};
pub use spec::{Level, PlayerKind, PlayerSpec, SearchSettings, SpecError, SPEC_HELP};
