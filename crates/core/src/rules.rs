//! One definition per game: what the layers above the game crates (engine protocol, arena,
//! server, page, CLI) need to know of a game, written once in the game's own crate.
//!
//! A game crate exports a `static` [`GameDef`] — its id, title, side names, options with their
//! defaults and allowed values, notation, recorded perft counts and judge — and implements
//! [`Rules`] for its position type: how to start from options, how a finished game is told in
//! the shared words of [`crate::outcome`], how a network MOVE is judged, and the board as the
//! page draws it. The registry (`arbiter_ai::registry`) lists the games; nothing above it
//! matches on game names.

use std::fmt;
use std::io::Write;

use thiserror::Error;

use crate::look::Look;
use crate::outcome::{EndReason, MoveReason};
use crate::{Game, MoveList, Side};

pub use crate::judge_def::{JudgeDef, RecordJudge, StepFlags};

/// How a game names one side: `red` in text, `RED` on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideDef {
    pub name: &'static str,
    /// The protocol's colour word (READY, the page's labels).
    pub word: &'static str,
}

/// The values an option may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowed {
    OneOf(&'static [u32]),
    Range { min: u32, max: u32 },
}

impl Allowed {
    pub fn contains(self, value: u64) -> bool {
        match self {
            Allowed::OneOf(values) => values.iter().any(|&v| u64::from(v) == value),
            Allowed::Range { min, max } => (u64::from(min)..=u64::from(max)).contains(&value),
        }
    }

    /// In words, for error messages: `6, 8, 10 or 12`, `from 1 to 100000`.
    pub fn describe(self) -> String {
        match self {
            Allowed::OneOf(values) => {
                let words: Vec<String> = values.iter().map(u32::to_string).collect();
                match words.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => words.join(""),
                }
            }
            Allowed::Range { min, max } => format!("from {min} to {max}"),
        }
    }
}

/// One option of a game, with its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionDef {
    /// The name on the command line (`--size`), in READY and in the API: `size`.
    pub name: &'static str,
    /// Other names accepted on input (the engine protocol's `maxnocapture`).
    pub aliases: &'static [&'static str],
    pub help: &'static str,
    pub default: u32,
    pub allowed: Allowed,
}

/// Perft counts of the start position for one set of options, from depth 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftRecord {
    pub options: &'static [(&'static str, u32)],
    pub leaves: &'static [u64],
}

/// One operation of a judge's input, as the judge saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeStep {
    /// The 1-based input line the operation ended on, and that line.
    pub line: usize,
    pub input: String,
    /// What the judge printed for it, exactly (possibly nothing, possibly several lines).
    pub output: String,
    /// The board after it.
    pub board: BoardView,
    /// What changed on the board, for the animation.
    pub changes: Changes,
}

/// The difference between two boards of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Squares a piece left, and squares a piece came to (or changed on).
    pub vacated: Vec<String>,
    pub arrived: Vec<String>,
    /// Squares that lost a piece of the side that did not move (taken).
    pub captured: Vec<String>,
}

impl BoardView {
    /// What changed from `self` to `after` (of the same size), `mover` being the side that moved.
    pub fn changes(&self, after: &BoardView, mover: Option<Side>) -> Changes {
        let mut changes = Changes::default();
        for (b, a) in self.cells.iter().zip(&after.cells) {
            if b.piece == a.piece {
                continue;
            }
            match (b.piece, a.piece) {
                (Some(_), None) => changes.vacated.push(b.name.clone()),
                (_, Some(_)) => changes.arrived.push(a.name.clone()),
                _ => {}
            }
            let taken = b.piece.is_some_and(|p| Some(p.side.opponent()) == mover)
                && a.piece.is_none_or(|p| Some(p.side) == mover);
            if taken {
                changes.captured.push(b.name.clone());
            }
        }
        changes
    }
}

/// A writer the judge writes into while a tracer reads what each operation added.
#[derive(Clone, Default)]
pub struct SharedOutput(std::rc::Rc<std::cell::RefCell<(Vec<u8>, usize)>>);

impl SharedOutput {
    /// The text written since the last call.
    pub fn take_new(&self) -> String {
        let mut inner = self.0.borrow_mut();
        let (bytes, read) = &mut *inner;
        let text = String::from_utf8_lossy(&bytes[*read..]).into_owned();
        *read = bytes.len();
        text
    }
}

impl Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether a trace tells the same as the judge's `output` for its input.
pub fn trace_agrees(judge: &JudgeDef, steps: &[JudgeStep], output: &str) -> bool {
    if judge.streams {
        steps.iter().map(|s| s.output.as_str()).collect::<String>() == output
    } else {
        steps.last().is_some_and(|s| s.output == output)
    }
}

/// The lines of a judge's input, to name each trace step's line.
pub struct InputLines<'a>(Vec<&'a str>);

impl<'a> InputLines<'a> {
    pub fn new(input: &'a str) -> InputLines<'a> {
        InputLines(input.lines().collect())
    }

    /// Line `line` (1-based), trimmed; empty for 0.
    pub fn get(&self, line: usize) -> String {
        line.checked_sub(1)
            .and_then(|i| self.0.get(i))
            .map_or(String::new(), |l| l.trim().to_string())
    }
}

/// Everything the layers above know of a game without a position at hand.
#[derive(Debug)]
pub struct GameDef {
    /// The game's name on the command line, the network and in stored games: `duck`.
    pub id: &'static str,
    /// Other names it is found by (in any case, like the id): `p5380` for Duck Chess.
    pub aliases: &'static [&'static str],
    pub title: &'static str,
    /// First (moves first), then second.
    pub sides: [SideDef; 2],
    pub options: &'static [OptionDef],
    /// How a move is written (`a0-a1: …`), for help texts; always `FROM-TO`.
    pub notation: &'static str,
    /// The engine protocol's `position` forms besides `startpos`, for help texts.
    pub setups: &'static str,
    pub perft: &'static [PerftRecord],
    pub judge: Option<JudgeDef>,
    /// How the page draws and explains it.
    pub look: Look,
}

/// An option that was not given right.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{game}: {message}")]
pub struct OptionError {
    pub game: &'static str,
    pub message: String,
}

impl GameDef {
    pub fn side(&self, side: Side) -> &SideDef {
        &self.sides[side.index()]
    }

    /// The side a colour word (`RED`, `black`, …) names, in any case.
    pub fn side_by_word(&self, word: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|&s| {
            let def = self.side(s);
            def.word.eq_ignore_ascii_case(word) || def.name.eq_ignore_ascii_case(word)
        })
    }

    /// The option called `name` (or one of its aliases).
    pub fn option(&self, name: &str) -> Option<&'static OptionDef> {
        self.options
            .iter()
            .find(|o| o.name == name || o.aliases.contains(&name))
    }

    /// The board sizes a player may choose (empty for a game with one board).
    pub fn sizes(&self) -> Vec<u32> {
        match self.option("size").map(|o| o.allowed) {
            Some(Allowed::OneOf(values)) => values.to_vec(),
            Some(Allowed::Range { min, max }) => (min..=max).collect(),
            None => Vec::new(),
        }
    }

    /// Every option at its default.
    pub fn defaults(&'static self) -> Options {
        Options {
            def: self,
            values: self.options.iter().map(|o| o.default).collect(),
        }
    }

    /// The defaults with the `given` options set, each checked; unknown names are refused with
    /// the list of the game's options.
    pub fn options_from<'a>(
        &'static self,
        given: impl IntoIterator<Item = (&'a str, u64)>,
    ) -> Result<Options, OptionError> {
        let mut options = self.defaults();
        for (name, value) in given {
            options.set(name, value)?;
        }
        Ok(options)
    }

    fn error(&self, message: String) -> OptionError {
        OptionError {
            game: self.id,
            message,
        }
    }

    /// `size, max_no_capture_round`, or `no options`.
    pub fn option_names(&self) -> String {
        if self.options.is_empty() {
            "no options".into()
        } else {
            let names: Vec<&str> = self.options.iter().map(|o| o.name).collect();
            names.join(", ")
        }
    }
}

/// A game's options, every one set and checked against its [`GameDef`].
#[derive(Clone)]
pub struct Options {
    def: &'static GameDef,
    values: Vec<u32>,
}

impl PartialEq for Options {
    fn eq(&self, other: &Options) -> bool {
        self.def.id == other.def.id && self.values == other.values
    }
}

impl Eq for Options {}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {{", self.def.id)?;
        for (name, value) in self.pairs() {
            write!(f, " {name}={value}")?;
        }
        write!(f, " }}")
    }
}

impl Options {
    pub fn def(&self) -> &'static GameDef {
        self.def
    }

    /// The value of option `name` (`None` when the game has no such option).
    pub fn get(&self, name: &str) -> Option<u32> {
        let i = self
            .def
            .options
            .iter()
            .position(|o| o.name == name || o.aliases.contains(&name))?;
        Some(self.values[i])
    }

    /// Sets option `name` after checking the value.
    pub fn set(&mut self, name: &str, value: u64) -> Result<(), OptionError> {
        let def = self.def;
        let Some(i) = def
            .options
            .iter()
            .position(|o| o.name == name || o.aliases.contains(&name))
        else {
            return Err(def.error(format!(
                "there is no option `{}` ({} takes {})",
                crate::text::shorten(name),
                def.id,
                def.option_names()
            )));
        };
        let option = &def.options[i];
        if !option.allowed.contains(value) {
            return Err(def.error(format!(
                "{} must be {}, not {value}",
                option.name,
                option.allowed.describe()
            )));
        }
        self.values[i] = value as u32;
        Ok(())
    }

    /// Every option with its value, in the definition's order.
    pub fn pairs(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        self.def
            .options
            .iter()
            .zip(&self.values)
            .map(|(o, &v)| (o.name, v))
    }
}

/// How a finished game ended: the shared words, the winner, and the game's own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    pub reason: EndReason,
    /// `None` for a draw.
    pub winner: Option<Side>,
    /// What happened, as the game says it: `red captured blue's captain`.
    pub text: String,
}

/// One point of a board as the page draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellView {
    /// The square's name in the game's notation.
    pub name: String,
    /// Drawing column from the left and row from the top, the first player at the bottom.
    pub col: u8,
    pub row: u8,
    pub piece: Option<PieceView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceView {
    pub side: Side,
    /// The kind in games with several (`captain`, `car`, …).
    pub kind: Option<&'static str>,
}

/// A position as the page draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    pub cols: u8,
    pub rows: u8,
    pub cells: Vec<CellView>,
    /// Squares of pieces in danger the rules make a point of (a Duck Chess captain in check).
    pub checked: Vec<String>,
}

/// One stop of a move's route (a Surakarta capture round its arcs), in drawing coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteStep {
    Point { col: u8, row: u8 },
    Arc { col: u8, row: u8, radius: u8 },
}

/// What every layer needs of a game besides playing it: its definition, how to start it from
/// options, how it ended, how a network MOVE is judged, and how it looks.
pub trait Rules: Game {
    fn definition() -> &'static GameDef;

    /// The start position for options checked against [`Rules::definition`].
    fn start(options: &Options) -> Self;

    /// The options this game is played with: `Self::start(&g.options())` starts the same game.
    fn options(&self) -> Options;

    /// A position in one of the game's setup forms (`fen …`, `file PATH`; see
    /// [`GameDef::setups`]) played with `options`.
    fn setup(form: &str, text: &str, options: &Options) -> Result<Self, crate::SetupError> {
        let _ = (text, options);
        Err(crate::SetupError::UnknownForm {
            game: Self::definition().id,
            offered: "`startpos` only",
            form: crate::text::shorten(form),
        })
    }

    /// How the game ended; `None` exactly while [`Game::status`] is `Ongoing`.
    fn end(&self) -> Option<End>;

    /// Judges `from → to` (square names) sent by `player` as the course protocol does: the move
    /// when it is legal for the side to move, else the reason it is not.
    fn judge_move(&self, from: &str, to: &str, player: Side) -> Result<Self::Move, MoveReason>;

    /// Everything that decides the future of the game, as text: two states with equal text
    /// play the same from here on, and [`Game::hash`] covers all of it.
    fn state_text(&self) -> String;

    fn board(&self) -> BoardView;

    /// Calls `out` with each piece's drawing column and row and the piece, as [`Rules::board`]
    /// shows them, without square names or marks: encodings for learning programs read every
    /// position they see. Read off `board()` by default; a game lists its pieces more cheaply.
    fn pieces(&self, out: &mut dyn FnMut(u8, u8, PieceView)) {
        for cell in self.board().cells {
            if let Some(piece) = cell.piece {
                out(cell.col, cell.row, piece);
            }
        }
    }

    /// The route of a move when it is not a straight hop (Surakarta captures).
    fn route(&self, _mv: Self::Move) -> Option<Vec<RouteStep>> {
        None
    }

    /// Leaves of the legal-move tree `depth` plies deep (games may count faster).
    fn perft(&self, depth: u32) -> u64 {
        perft(self, depth)
    }
}

/// Leaves of the legal-move tree, by generating and playing every move.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play(mv);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft below each first move, sorted by the move's notation (a move-generator debugging aid).
pub fn divide<G: Rules>(pos: &G, depth: u32) -> Vec<(String, u64)> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut parts: Vec<(String, u64)> = moves
        .iter()
        .map(|&mv| {
            let mut child = pos.clone();
            child.play(mv);
            (pos.format_move(mv), child.perft(depth.saturating_sub(1)))
        })
        .collect();
    parts.sort();
    parts
}

/// The `FROM` and `TO` of a move written `FROM-TO`, as the network sends them.
pub fn split_move(text: &str) -> (&str, &str) {
    text.split_once('-').unwrap_or((text, ""))
}

/// A MOVE's verdict for a legal move: the course's reason and how the game ended, if it did.
pub fn play_judged<G: Rules>(state: &mut G, mv: G::Move) -> (MoveReason, Option<End>) {
    let captured = state.is_capture(mv);
    state.play(mv);
    (MoveReason::legal(captured), state.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    static SIZE: OptionDef = OptionDef {
        name: "size",
        aliases: &[],
        help: "board size",
        default: 6,
        allowed: Allowed::OneOf(&[6, 8, 10, 12]),
    };
    static LIMIT: OptionDef = OptionDef {
        name: "max_no_capture_round",
        aliases: &["maxnocapture"],
        help: "plies",
        default: 40,
        allowed: Allowed::Range { min: 1, max: 1000 },
    };
    static OPTIONS: [OptionDef; 2] = [SIZE, LIMIT];
    static DEF: GameDef = GameDef {
        aliases: &[],
        id: "toy",
        title: "Toy",
        sides: [
            SideDef {
                name: "black",
                word: "BLACK",
            },
            SideDef {
                name: "white",
                word: "WHITE",
            },
        ],
        options: &OPTIONS,
        notation: "A1-B2",
        setups: "",
        perft: &[],
        judge: None,
        look: Look::PLAIN,
    };

    #[test]
    fn options_are_checked_in_one_place() {
        let o = DEF
            .options_from([("size", 8), ("maxnocapture", 12)])
            .unwrap();
        assert_eq!(o.get("size"), Some(8));
        assert_eq!(o.get("max_no_capture_round"), Some(12));
        let e = DEF.options_from([("size", 7)]).unwrap_err();
        assert_eq!(e.to_string(), "toy: size must be 6, 8, 10 or 12, not 7");
        let e = DEF.options_from([("colour", 1)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "toy: there is no option `colour` (toy takes size, max_no_capture_round)"
        );
        let e = DEF.options_from([("max_no_capture_round", 0)]).unwrap_err();
        assert!(e.to_string().contains("from 1 to 1000"), "{e}");
        assert_eq!(DEF.sizes(), vec![6, 8, 10, 12]);
        assert_eq!(DEF.side_by_word("white"), Some(Side::Second));
        assert_eq!(DEF.side_by_word("RED"), None);
    }
}
