//! Hexapawn (Martin Gardner, 1962), generalised to n × n: the example of a game added to
//! arbiter from outside its crates. Everything the game needs is in this file: its rules
//! ([`Game`], [`Rules`] with its [`GameDef`]) and an evaluation for the players
//! ([`Evaluate`]). Registering it is one line in `main.rs`.
//!
//! Rules: white's pawns start on row 1, black's on row n; white moves first. A pawn steps one
//! square straight forward onto an empty square, or one square diagonally forward onto an
//! enemy pawn, capturing it. A side wins when one of its pawns reaches the far row, or when the
//! other side cannot move on its turn. Moves are written `a1-a2` (column letter, row number
//! from white's side).

use arbiter_ai::{Evaluate, NoWeights};
use arbiter_core::look::{self, BoardLook, Look};
use arbiter_core::{
    zobrist, Allowed, BoardView, CellView, End, EndReason, Game, GameDef, MoveList, MoveReason,
    OptionDef, Options, ParseMoveError, PerftRecord, PieceView, Rules, Side, SideDef, Status,
};

const MAX: usize = 5;
const KEYS: [u64; 2 * MAX * MAX] = zobrist::keys(0x4E5A_9A77_0000_0001);
const BLACK_TO_MOVE: u64 = zobrist::keys::<1>(0x4E5A_9A77_0000_0002)[0];

static OPTIONS: [OptionDef; 1] = [OptionDef {
    name: "size",
    aliases: &[],
    help: "board size (n × n)",
    default: 3,
    allowed: Allowed::OneOf(&[3, 4, 5]),
}];

static PERFT: [PerftRecord; 1] = [PerftRecord {
    options: &[("size", 3)],
    leaves: &[3, 10, 28, 56],
}];

/// Hexapawn in the registry.
pub static DEFINITION: GameDef = GameDef {
    id: "hexapawn",
    aliases: &[],
    title: "Hexapawn",
    sides: [
        SideDef {
            name: "white",
            word: "WHITE",
        },
        SideDef {
            name: "black",
            word: "BLACK",
        },
    ],
    options: &OPTIONS,
    notation: "a1-a2: column letter and row number (1 is white's row) of the start, a dash, then of the target",
    setups: "",
    perft: &PERFT,
    judge: None,
    look: Look {
        board: board_look,
        sides: [look::LIGHT, look::DARK],
        pieces: &[],
        example: "a1-a2",
        alternative: None,
    },
};

/// An n × n board of cells, white's row 1 at the bottom.
fn board_look(size: Option<u32>) -> BoardLook {
    let n = size.unwrap_or(3) as u8;
    BoardLook::points(
        n,
        n,
        look::cells(n, n),
        look::letters(n, b'a'),
        look::counted(n, n.into(), -1),
    )
}

/// A move from one square to another (`row * MAX + col`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HexMove {
    from: u8,
    to: u8,
}

/// A Hexapawn position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hexapawn {
    n: u8,
    /// `None` empty; row 0 is white's back row.
    cells: [Option<Side>; MAX * MAX],
    to_move: Side,
    winner: Option<Side>,
    hash: u64,
    ply: u32,
}

impl Hexapawn {
    pub fn new(n: u8) -> Hexapawn {
        let mut pos = Hexapawn {
            n,
            cells: [None; MAX * MAX],
            to_move: Side::First,
            winner: None,
            hash: 0,
            ply: 0,
        };
        for col in 0..n {
            pos.set(0, col, Some(Side::First));
            pos.set(n - 1, col, Some(Side::Second));
        }
        pos
    }

    fn set(&mut self, row: u8, col: u8, piece: Option<Side>) {
        let i = usize::from(row) * MAX + usize::from(col);
        if let Some(old) = self.cells[i] {
            self.hash ^= KEYS[old.index() * MAX * MAX + i];
        }
        self.cells[i] = piece;
        if let Some(new) = piece {
            self.hash ^= KEYS[new.index() * MAX * MAX + i];
        }
    }

    fn at(&self, square: u8) -> Option<Side> {
        self.cells[usize::from(square)]
    }

    fn name(square: u8) -> String {
        let (row, col) = (square / MAX as u8, square % MAX as u8);
        format!("{}{}", (b'a' + col) as char, row + 1)
    }

    fn parse_square(&self, text: &str) -> Option<u8> {
        let mut chars = text.chars();
        let col = (chars.next()?.to_ascii_lowercase() as u8).checked_sub(b'a')?;
        let row = chars.as_str().parse::<u8>().ok()?.checked_sub(1)?;
        (col < self.n && row < self.n).then_some(row * MAX as u8 + col)
    }

    /// The moves `side` could make from here.
    fn moves_of(&self, side: Side, out: &mut MoveList<HexMove>) {
        let forward: i8 = if side == Side::First { 1 } else { -1 };
        for row in 0..self.n {
            for col in 0..self.n {
                let from = row * MAX as u8 + col;
                if self.at(from) != Some(side) {
                    continue;
                }
                let to_row = row as i8 + forward;
                if !(0..self.n as i8).contains(&to_row) {
                    continue;
                }
                for dc in [-1i8, 0, 1] {
                    let to_col = col as i8 + dc;
                    if !(0..self.n as i8).contains(&to_col) {
                        continue;
                    }
                    let to = to_row as u8 * MAX as u8 + to_col as u8;
                    let target = self.at(to);
                    let ok = if dc == 0 {
                        target.is_none()
                    } else {
                        target == Some(side.opponent())
                    };
                    if ok {
                        out.push(HexMove { from, to });
                    }
                }
            }
        }
    }

    fn has_move(&self, side: Side) -> bool {
        let mut moves = MoveList::new();
        self.moves_of(side, &mut moves);
        !moves.is_empty()
    }
}

impl Game for Hexapawn {
    type Move = HexMove;

    fn side_to_move(&self) -> Side {
        self.to_move
    }

    fn legal_moves(&self, out: &mut MoveList<HexMove>) {
        if self.winner.is_none() {
            self.moves_of(self.to_move, out);
        }
    }

    fn play(&mut self, mv: HexMove) {
        let mover = self.to_move;
        let (to_row, to_col) = (mv.to / MAX as u8, mv.to % MAX as u8);
        self.set(mv.from / MAX as u8, mv.from % MAX as u8, None);
        self.set(to_row, to_col, Some(mover));
        self.to_move = mover.opponent();
        self.hash ^= BLACK_TO_MOVE;
        self.ply += 1;
        let far_row = if mover == Side::First { self.n - 1 } else { 0 };
        if to_row == far_row || !self.has_move(self.to_move) {
            self.winner = Some(mover);
        }
    }

    fn status(&self) -> Status {
        self.winner.map_or(Status::Ongoing, Status::Won)
    }

    fn hash(&self) -> u64 {
        self.hash ^ self.winner.map_or(0, |w| KEYS[w.index()].rotate_left(17))
    }

    fn is_capture(&self, mv: HexMove) -> bool {
        self.at(mv.to).is_some()
    }

    fn parse_move(&self, text: &str) -> Result<HexMove, ParseMoveError> {
        let (a, b) = text
            .trim()
            .split_once('-')
            .ok_or_else(|| ParseMoveError::new(text, "expected FROM-TO like a1-a2"))?;
        let (Some(from), Some(to)) = (self.parse_square(a), self.parse_square(b)) else {
            return Err(ParseMoveError::new(text, "a square is off the board"));
        };
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        let mv = HexMove { from, to };
        if moves.contains(&mv) {
            Ok(mv)
        } else {
            Err(ParseMoveError::new(text, "not a legal move here"))
        }
    }

    fn format_move(&self, mv: HexMove) -> String {
        format!("{}-{}", Hexapawn::name(mv.from), Hexapawn::name(mv.to))
    }

    fn ply(&self) -> u32 {
        self.ply
    }
}

impl Rules for Hexapawn {
    fn definition() -> &'static GameDef {
        &DEFINITION
    }

    fn start(options: &Options) -> Hexapawn {
        Hexapawn::new(options.get("size").unwrap_or(3) as u8)
    }

    fn options(&self) -> Options {
        DEFINITION
            .options_from([("size", u64::from(self.n))])
            .expect("a position's own size is valid")
    }

    fn end(&self) -> Option<End> {
        let w = self.winner?;
        let (winner, loser) = (DEFINITION.side(w).name, DEFINITION.side(w.opponent()).name);
        let reached = (0..self.n).any(|col| {
            let row = if w == Side::First { self.n - 1 } else { 0 };
            self.at(row * MAX as u8 + col) == Some(w)
        });
        Some(if reached {
            End {
                reason: EndReason::Checkmate,
                winner: Some(w),
                text: format!("{winner} reached the far row"),
            }
        } else {
            End {
                reason: EndReason::Trapped,
                winner: Some(w),
                text: format!("{loser} cannot move"),
            }
        })
    }

    fn judge_move(&self, from: &str, to: &str, player: Side) -> Result<HexMove, MoveReason> {
        if player != self.to_move {
            return Err(MoveReason::NotPlayerTurn);
        }
        let (Some(f), Some(t)) = (self.parse_square(from), self.parse_square(to)) else {
            return Err(MoveReason::OutOfBoard);
        };
        match self.at(f) {
            None => return Err(MoveReason::NotPiece),
            Some(side) if side != player => return Err(MoveReason::NotPlayerPiece),
            _ => {}
        }
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        let mv = HexMove { from: f, to: t };
        if moves.contains(&mv) {
            Ok(mv)
        } else if self.at(t) == Some(player.opponent()) {
            Err(MoveReason::IllegalCaptureMove)
        } else {
            Err(MoveReason::IllegalNonCaptureMove)
        }
    }

    fn state_text(&self) -> String {
        let mut text = String::new();
        for row in (0..self.n).rev() {
            for col in 0..self.n {
                text.push(match self.at(row * MAX as u8 + col) {
                    Some(Side::First) => 'W',
                    Some(Side::Second) => 'B',
                    None => '.',
                });
            }
            text.push('\n');
        }
        text.push_str(&format!(
            "{:?} to move, winner {:?}",
            self.to_move, self.winner
        ));
        text
    }

    fn board(&self) -> BoardView {
        let mut cells = Vec::new();
        for row in (0..self.n).rev() {
            for col in 0..self.n {
                let square = row * MAX as u8 + col;
                cells.push(CellView {
                    name: Hexapawn::name(square),
                    col,
                    row: self.n - 1 - row,
                    piece: self.at(square).map(|side| PieceView { side, kind: None }),
                });
            }
        }
        BoardView {
            cols: self.n,
            rows: self.n,
            cells,
            checked: Vec::new(),
        }
    }
}

impl Evaluate for Hexapawn {
    type Weights = NoWeights;
    type Tables = ();

    /// Pawns and how far they have come, for the side to move.
    fn evaluate(&self, _: &NoWeights) -> i32 {
        let mut score = 0;
        for row in 0..self.n {
            for col in 0..self.n {
                if let Some(side) = self.at(row * MAX as u8 + col) {
                    let advance = if side == Side::First {
                        row
                    } else {
                        self.n - 1 - row
                    };
                    let value = 100 + 20 * i32::from(advance);
                    score += if side == self.to_move { value } else { -value };
                }
            }
        }
        score
    }
}
