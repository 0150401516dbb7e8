//! Evaluations: a score for the side to move, in hundredths of a piece ("centipawns").
//!
//! Each game has named weights with defaults chosen by arena matches (see `docs/tuning.md`); a
//! player spec can override any of them (`alphabeta:mobility=6`), which is how the tuning runs
//! compare variants.

mod duck;
mod rc02;
mod surakarta;

pub use duck::DuckWeights;
pub use rc02::Rc02Weights;
pub use surakarta::SurakartaWeights;

use std::path::Path;
use std::sync::Arc;

use arbiter_core::Game;

/// A position's exact value for the side to move, read from tables instead of searched. The
/// number is what is left to win — the losing side's pieces in Surakarta — so the search
/// prefers the win that leaves the loser least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    Win(u32),
    Draw,
    Loss(u32),
}

/// Which endgame tables `arbiter tables` builds: each side at most `max_pieces`, at most
/// `max_total` pieces in all (4 and 7 give Surakarta's 4 against 3 without 4 against 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableSpan {
    pub max_pieces: usize,
    pub max_total: usize,
}

/// A weight that cannot be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WeightError {
    /// No weight has this name; `known` lists the evaluation's weights.
    #[error("unknown weight `{name}` (weights: {})", known.join(", "))]
    Unknown {
        name: String,
        known: &'static [&'static str],
    },
    /// The evaluation has no weights at all.
    #[error("unknown weight `{0}` (this evaluation has no weights)")]
    NoWeights(String),
}

/// Named integer weights of an evaluation.
pub trait EvalWeights: Default + Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Every weight's name, in declaration order.
    fn names() -> &'static [&'static str];
    /// Sets a weight by name.
    fn set(&mut self, name: &str, value: i32) -> Result<(), WeightError>;
    /// A weight by name.
    fn get(&self, name: &str) -> Option<i32>;
}

/// The weights of an evaluation that has none to tune (a new game's first evaluation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoWeights;

impl EvalWeights for NoWeights {
    fn names() -> &'static [&'static str] {
        &[]
    }

    fn set(&mut self, name: &str, _: i32) -> Result<(), WeightError> {
        Err(WeightError::NoWeights(name.to_string()))
    }

    fn get(&self, _: &str) -> Option<i32> {
        None
    }
}

/// A game the searches can evaluate.
pub trait Evaluate: Game {
    type Weights: EvalWeights;
    /// Endgame tables a player may load (`alphabeta:tables=DIR`); `()` for a game without.
    type Tables: Send + Sync + 'static;

    /// The exact value of this position for the side to move when `tables` cover it.
    fn exact_value(&self, _tables: &Self::Tables) -> Option<Exact> {
        None
    }

    /// Reads the tables in `dir`; by default the game has none.
    fn load_tables(dir: &Path) -> Result<Arc<Self::Tables>, String> {
        Err(format!(
            "this game has no endgame tables (asked for {})",
            dir.display()
        ))
    }

    /// Builds the tables `span` names for games like `self` into `dir` (keeping those already
    /// there), telling `progress` how it goes; returns a summary. By default the game has none.
    fn build_tables(
        &self,
        dir: &Path,
        _span: TableSpan,
        _progress: &mut dyn FnMut(&str),
    ) -> Result<String, String> {
        Err(format!(
            "this game has no endgame tables (nothing written to {})",
            dir.display()
        ))
    }

    /// The position's value for the side to move (positive is good for it). Only called on
    /// positions that are not over.
    fn evaluate(&self, weights: &Self::Weights) -> i32;

    /// The active inputs of the game's learnt evaluation, pushed onto `out`; false for a game
    /// without one (what `arbiter tune --selfplay` writes for training).
    fn learnt_inputs(&self, _out: &mut Vec<u16>) -> bool {
        false
    }

    /// A cheap guess of how good a move is, for ordering (captures of valuable pieces first).
    fn order_hint(&self, _mv: Self::Move) -> i32 {
        0
    }

    /// How many history and continuation-history slots [`Self::statistics_slots`] uses: `None`
    /// (the default) keeps the hashed history every game started with.
    const STATISTICS: Option<(usize, usize)> = None;

    /// A quiet move's history slot (side, origin and destination) and its continuation slot
    /// (moved piece and destination), each below its size in [`Self::STATISTICS`]; asked only
    /// where that is set.
    fn statistics_slots(&self, _mv: Self::Move) -> (usize, usize) {
        (0, 0)
    }

    /// Whether a capture probably loses material once the opponent takes back (Duck Chess asks
    /// a static exchange). Quiescence search skips such captures, and the main search tries
    /// them after the killers. By default no capture is.
    fn losing_capture(&self, _mv: Self::Move) -> bool {
        false
    }

    /// Whether `mv` (played from here, leading to `after`) gives its piece away: the search
    /// neither extends nor spares from pruning a threat made by a piece the opponent simply
    /// takes, as Stockfish extends only checks that do not lose material. By default no move
    /// does.
    fn hangs(&self, _mv: Self::Move, _after: &Self) -> bool {
        false
    }

    /// Whether `mv` captures on the point where `previous`, the move just played, landed: a
    /// recapture, which the search extends a ply so a chain of them is seen to its end
    /// (Surakarta's exchanges run along one circuit point). By default no move is.
    fn recaptures(&self, _previous: Self::Move, _mv: Self::Move) -> bool {
        false
    }

    /// The side to move faces a threat that standing still cannot answer (Duck Chess: its
    /// captain is attacked), so quiescence search must look at every move, not just captures.
    fn in_danger(&self) -> bool {
        false
    }

    /// The position with the other side to move and nothing else changed, for null-move
    /// pruning ("even if I passed, I would be doing well"). `None` where that reasoning fails
    /// because having to move can hurt (RC-02 is a game of such zugzwang), the default.
    fn pass(&self) -> Option<Self> {
        None
    }

    /// How selective the search is in this game (late move and reverse futility pruning): kept
    /// per game, as each game's arena runs decide it.
    const PRUNING: Pruning = Pruning::CAUTIOUS;

    /// With a time limit, a new iteration starts while less than this share (per cent) of the
    /// time is spent. One started late is cut short, but still yields a root move that beat the
    /// last choice; kept per game, as each game's arena runs decide it.
    const ITERATION_START_PERCENT: u32 = 60;

    /// A sensible cap on the length of a game for playouts and adjudication, in plies.
    fn max_plies(&self) -> u32 {
        400
    }
}

/// Declares a weights struct with defaults and by-name access.
macro_rules! weights {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident = $default:expr),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: i32,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default,)* }
            }
        }

        impl $crate::eval::EvalWeights for $name {
            fn names() -> &'static [&'static str] {
                &[$(stringify!($field)),*]
            }

            fn set(&mut self, name: &str, value: i32) -> Result<(), $crate::eval::WeightError> {
                match name {
                    $(stringify!($field) => { self.$field = value; Ok(()) })*
                    _ => Err($crate::eval::WeightError::Unknown {
                        name: name.to_string(),
                        known: <Self as $crate::eval::EvalWeights>::names(),
                    }),
                }
            }

            fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $(stringify!($field) => Some(self.$field),)*
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use weights;

/// How far a game lets the search prune; each setting kept for what the game's arena runs
/// measured (docs/tuning.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruning {
    /// Late move pruning up to this remaining depth (0: none): a null-window node searches
    /// `3 + depth²` moves, then only captures and killers.
    pub late_move_depth: i32,
    /// Reverse futility pruning up to this remaining depth (0: none): a null-window node whose
    /// static value beats beta by `reverse_futility_margin` a ply returns that value.
    pub reverse_futility_depth: i32,
    pub reverse_futility_margin: i32,
    /// Futility pruning up to this remaining depth (0: none): in a null-window node whose
    /// static value stays `futility_margin` a ply below alpha, the quiet moves after the first
    /// are skipped, as one quiet move is not expected to win that much back.
    pub futility_depth: i32,
    pub futility_margin: i32,
    /// Late move and futility pruning spare a move that puts the opponent in danger (Duck
    /// Chess: one attacking its captain, whose answer decides the game). Each skipped move is
    /// then played to see, so a game with no danger leaves it off.
    pub spare_threats: bool,
    /// Prune by whether the side to move is improving (Stockfish's `improving`: its static
    /// value above the one two plies before): reverse futility's margin a ply smaller, late
    /// move pruning's count halved and late moves reduced a ply more when it is not.
    pub improving: bool,
    /// The divisor of late move reductions, in hundredths: a late move is reduced
    /// `0.75 + ln(depth) · ln(move number) · 100 / reduction_divisor` plies (at least one).
    pub reduction_divisor: i32,
    /// Singular extensions ([`AlphaBetaConfig::singular`](crate::alphabeta::AlphaBetaConfig)):
    /// a game whose runs showed them to pay at depth.
    pub singular: bool,
}

impl Pruning {
    /// What a game gets unless its runs showed more pays: neither (null moves, where a game can
    /// pass, and late move reductions are the same for every game).
    pub const CAUTIOUS: Pruning = Pruning {
        late_move_depth: 0,
        reverse_futility_depth: 0,
        reverse_futility_margin: 0,
        futility_depth: 0,
        futility_margin: 0,
        spare_threats: false,
        improving: false,
        reduction_divisor: 225,
        singular: false,
    };
}
