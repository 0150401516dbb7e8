//! What the engine answers `error` to.

/// A command the engine refuses; it answers `error ` and this text.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("unknown command `{0}` (commands: arbiter, isready, game, setoption, newgame, position, go, stop, analyze, show, quit)")]
    UnknownCommand(String),
    /// Any command but `stop`, `isready` and `quit` while `go infinite` runs.
    #[error("`{0}` during `go infinite`; send stop first")]
    Busy(String),
    /// A command that needs a game before `game`; the games' names.
    #[error("no game chosen yet: send `game NAME` first ({0})")]
    NoGame(String),
    #[error("`game` needs a name: {0}")]
    GameNeedsName(String),
    #[error("game options come in pairs: `size 8`")]
    OddOptions,
    #[error("option {name} must be a number, found `{found}`")]
    OptionNotNumber { name: String, found: String },
    #[error("unknown game `{name}` (games: {games})")]
    UnknownGame { name: String, games: String },
    #[error(transparent)]
    Options(#[from] arbiter_core::OptionError),
    #[error(transparent)]
    Catalogue(#[from] crate::registry::CatalogueError),
    #[error(transparent)]
    Player(#[from] crate::spec::SpecError),
    #[error("the engine cannot run another engine as its player")]
    EngineAsPlayer,
    #[error("expected `setoption name NAME value VALUE`")]
    SetoptionSyntax,
    #[error("seed must be a number, found `{0}`")]
    SeedNotNumber(String),
    /// A `setoption` name that is no option of the current game; its weights, listed.
    #[error("unknown option `{name}`: the options are player, seed and the evaluation weights {weights}")]
    UnknownOption { name: String, weights: String },
    #[error("{name} must be an integer, found `{found}`")]
    WeightNotInteger { name: String, found: String },
    #[error("`{0}` needs a number")]
    LimitNeedsNumber(String),
    #[error("`{key}` needs a number, found `{found}`")]
    LimitNotNumber { key: String, found: String },
    #[error("unknown limit `{0}` (depth, nodes, movetime, wtime, btime, winc, binc, movestogo, iterations, infinite)")]
    UnknownLimit(String),
    #[error("`position` needs startpos, fen or file")]
    PositionNeedsKind,
    #[error("unexpected `{0}` after startpos")]
    AfterStartpos(String),
    /// The game's own setup refused the position.
    #[error(transparent)]
    Setup(#[from] arbiter_core::SetupError),
    /// Move `index` (from 1) of `position … moves` is not legal.
    #[error("move {index} of the list: {reason}")]
    BadMove {
        index: usize,
        #[source]
        reason: arbiter_core::ParseMoveError,
    },
    #[error("a search is already running")]
    Searching,
}
