//! The fixed encodings a learning program sees: a move is an action number, a position is a
//! stack of 0/1 planes. Both are read off what every game already offers — its square names
//! (`Rules::board`), its moves written `FROM-TO`, its kinds of piece (`GameDef::look`) — so a
//! game added to the registry gets them without a line here naming it.
//!
//! Squares are numbered in drawing order: `row * cols + col`, row 0 at the top (the first
//! player's side is at the bottom). A move from square `f` to square `t` is action `f * N + t`
//! for a board of `N` squares; the action space is `N * N` whatever the position.

use std::sync::Mutex;

use arbiter_core::rules::split_move;
use arbiter_core::{GameDef, Rules, Side};
use rustc_hash::FxHashMap;

/// The encodings of one game at one set of options (one board size).
pub struct Codec<G: Rules> {
    pub cols: usize,
    pub rows: usize,
    /// Square names by square number.
    names: Vec<String>,
    /// Square numbers by name in small letters (the games read `A1` and `a1` alike).
    numbers: FxHashMap<String, u32>,
    /// The kinds of piece in plane order (one unnamed kind for games without kinds).
    kinds: Vec<&'static str>,
    /// The action of each move seen so far. A move value of these games is its two squares,
    /// so its notation (and action) does not depend on the position it is played in; the
    /// notation is formatted once per move value rather than once per legal move listed.
    memo: Mutex<FxHashMap<G::Move, u32>>,
}

/// Sizes of the encodings, for the arrays handed to Python.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub planes: usize,
    pub rows: usize,
    pub cols: usize,
    pub actions: usize,
}

impl Layout {
    /// `(planes, rows, cols)` of one observation.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.planes, self.rows, self.cols)
    }

    pub fn observation_len(&self) -> usize {
        self.planes * self.rows * self.cols
    }
}

impl<G: Rules> Codec<G> {
    pub fn new(start: &G) -> Codec<G> {
        let board = start.board();
        let (cols, rows) = (usize::from(board.cols), usize::from(board.rows));
        let mut names = vec![String::new(); cols * rows];
        for cell in board.cells {
            names[usize::from(cell.row) * cols + usize::from(cell.col)] = cell.name;
        }
        let numbers = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.to_ascii_lowercase(), i as u32))
            .collect();
        let pieces = G::definition().look.pieces;
        let kinds = if pieces.is_empty() {
            vec![""]
        } else {
            pieces.iter().map(|p| p.kind).collect()
        };
        Codec {
            cols,
            rows,
            names,
            numbers,
            kinds,
            memo: Mutex::new(FxHashMap::default()),
        }
    }

    pub fn layout(&self) -> Layout {
        Layout {
            planes: 2 * self.kinds.len() + 1,
            rows: self.rows,
            cols: self.cols,
            actions: self.names.len() * self.names.len(),
        }
    }

    pub fn square_names(&self) -> &[String] {
        &self.names
    }

    /// What each plane holds, in words (`own captain`, `opponent`, `first player to move`).
    pub fn plane_names(&self) -> Vec<String> {
        let mut planes = Vec::new();
        for whose in ["own", "opponent"] {
            for kind in &self.kinds {
                planes.push(format!("{whose} {kind}").trim_end().to_string());
            }
        }
        planes.push("observer moves first".to_string());
        planes
    }

    /// The action of a move written `FROM-TO` (legal or not), or why it names no action.
    pub fn action_of_text(&self, text: &str) -> Result<u32, String> {
        let (from, to) = split_move(text.trim());
        let square = |name: &str| {
            let key = name.to_ascii_lowercase();
            self.numbers.get(&key).copied().ok_or_else(|| {
                format!(
                    "move `{}`: `{name}` is not a square of this board",
                    arbiter_core::text::shorten(text)
                )
            })
        };
        Ok(square(from)? * self.names.len() as u32 + square(to)?)
    }

    /// `FROM-TO` of an action, or why there is no such action.
    pub fn text_of_action(&self, action: i64) -> Result<String, String> {
        let n = self.names.len() as i64;
        if !(0..n * n).contains(&action) {
            return Err(format!("action {action} is not in 0..{}", n * n));
        }
        let (from, to) = ((action / n) as usize, (action % n) as usize);
        Ok(format!("{}-{}", self.names[from], self.names[to]))
    }

    /// Appends each legal move of `pos` with its action.
    pub fn legal(&self, pos: &G, out: &mut Vec<(u32, G::Move)>) {
        let mut moves = arbiter_core::MoveList::new();
        pos.legal_moves(&mut moves);
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        for &mv in moves.iter() {
            let action = *memo.entry(mv).or_insert_with(|| {
                // A move `legal_moves` gave formats to two squares of the board.
                self.action_of_text(&pos.format_move(mv))
                    .unwrap_or(u32::MAX)
            });
            out.push((action, mv));
        }
    }

    /// Writes `pos` as planes seen by `observer` into `out` (zeroed, `observation_len` long):
    /// the observer's pieces by kind, the opponent's by kind, then a plane of ones when the
    /// observer is the first player.
    pub fn observe(&self, pos: &G, observer: Side, out: &mut [f32]) {
        let squares = self.names.len();
        let kinds = self.kinds.len();
        pos.pieces(&mut |col, row, piece| {
            let kind = piece
                .kind
                .and_then(|k| self.kinds.iter().position(|&known| known == k))
                .unwrap_or(0);
            let plane = kind + if piece.side == observer { 0 } else { kinds };
            let square = usize::from(row) * self.cols + usize::from(col);
            out[plane * squares + square] = 1.0;
        });
        if observer == Side::First {
            out[2 * kinds * squares..(2 * kinds + 1) * squares].fill(1.0);
        }
    }

    /// The board as text, one row a line from the top: the first player's pieces in capitals,
    /// the second's in small letters (each kind's Latin letter, or the side's initial).
    pub fn render(&self, pos: &G) -> String {
        let def: &GameDef = G::definition();
        let mut grid = vec![vec!['.'; self.cols]; self.rows];
        pos.pieces(&mut |col, row, piece| {
            let letter = piece
                .kind
                .and_then(|k| def.look.pieces.iter().find(|p| p.kind == k))
                .and_then(|p| p.alternative.chars().next().or(p.kind.chars().next()))
                .or(def.side(piece.side).name.chars().next())
                .unwrap_or('?');
            grid[usize::from(row)][usize::from(col)] = match piece.side {
                Side::First => letter.to_ascii_uppercase(),
                Side::Second => letter.to_ascii_lowercase(),
            };
        });
        let mut text: String = grid
            .iter()
            .map(|row| row.iter().collect::<String>() + "\n")
            .collect();
        text.push_str(&match pos.end() {
            Some(end) => format!("game over: {}\n", end.text),
            None => format!("{} to move\n", def.side(pos.side_to_move()).name),
        });
        text
    }
}
