//! The board, moves, captures and the end of the game.

use arbiter_core::{zobrist, MoveList, Side};

/// The largest supported board.
pub const MAX_SIZE: usize = 10;

/// A cell: `row` 0-based from the top, `col` 0-based from the left (the problem counts from 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub row: u8,
    pub col: u8,
}

impl Cell {
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }
}

/// A move of one piece one cell up, down, left or right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Cell,
    pub to: Cell,
}

impl Move {
    pub const fn new(from: Cell, to: Cell) -> Move {
        Move { from, to }
    }
}

/// Why a proposed move is not legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The source cell is off the board.
    SourceOffBoard,
    /// The source cell does not hold a piece of the side to move.
    NotOwnPiece,
    /// The target cell is off the board.
    TargetOffBoard,
    /// The target cell holds a piece.
    TargetOccupied,
    /// The target is not one orthogonal step away.
    NotOneStep,
    /// The game is already over.
    GameOver,
}

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IllegalMove::SourceOffBoard => "the source cell is off the board",
            IllegalMove::NotOwnPiece => "the source cell does not hold a piece of the side to move",
            IllegalMove::TargetOffBoard => "the target cell is off the board",
            IllegalMove::TargetOccupied => "the target cell is occupied",
            IllegalMove::NotOneStep => "a piece moves one cell up, down, left or right",
            IllegalMove::GameOver => "the game is over",
        })
    }
}

const CELL_KEYS: [u64; 2 * MAX_SIZE * MAX_SIZE] = zobrist::keys(0x0C02_0000_0000_0001);
const BLUE_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x0C02_0000_0000_0002)[0];
const QUIET_SALT: u64 = 0x0C02_0000_0000_0003;

/// A position of the game. `First` is red (`h`), `Second` blue (`l`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    n: u8,
    /// 0 empty, 1 red, 2 blue; row-major with stride `MAX_SIZE`.
    cells: [u8; MAX_SIZE * MAX_SIZE],
    counts: [u8; 2],
    side_to_move: Side,
    winner: Option<Side>,
    hash: u64,
    ply: u32,
    /// Plies since the last capture.
    quiet_plies: u32,
    /// That many quiet plies in a row draw the game; 0 (the problem's game, the judge's) never.
    quiet_limit: u32,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position(\n{})", self.render())
    }
}

/// Whether a line's counts `(total, own, enemy)` allow a capture on an `n × n` board:
/// `(n-1, n-2, 1)`, and only when `n > 4` also `(n-1, n-3, 2)` and `(n-2, n-3, 1)`.
fn counts_capture(n: u8, total: u8, own: u8, enemy: u8) -> bool {
    (total, own, enemy) == (n - 1, n - 2, 1)
        || (n > 4
            && ((total, own, enemy) == (n - 1, n - 3, 2)
                || (total, own, enemy) == (n - 2, n - 3, 1)))
}

/// The number of enemy pieces a line captures for the side whose cell code is `own` (1 red,
/// 2 blue): the counts must match a pattern and the pieces must read as one block of each
/// colour, touching, with empty cells only at the ends. 0 when it does not capture.
fn line_captures(codes: &[u8], own: u8) -> u32 {
    let n = codes.len() as u8;
    let mine = codes.iter().filter(|&&c| c == own).count() as u8;
    let theirs = codes.iter().filter(|&&c| c != 0 && c != own).count() as u8;
    if !counts_capture(n, mine + theirs, mine, theirs) {
        return 0;
    }
    let first = codes.iter().position(|&c| c != 0);
    let last = codes.iter().rposition(|&c| c != 0);
    let (Some(first), Some(last)) = (first, last) else {
        return 0;
    };
    let run = &codes[first..=last];
    let unbroken = run.iter().all(|&c| c != 0);
    let changes = run.windows(2).filter(|w| w[0] != w[1]).count();
    if unbroken && changes == 1 {
        theirs as u32
    } else {
        0
    }
}

impl Position {
    /// The start on an `n × n` board (`n` even, 4 to 10): column 1 red, column `n` blue, rows 1
    /// and `n` red on the left half and blue on the right.
    pub fn initial(n: u8) -> Option<Position> {
        if !(4..=MAX_SIZE as u8).contains(&n) || !n.is_multiple_of(2) {
            return None;
        }
        let mut pos = Position {
            n,
            cells: [0; MAX_SIZE * MAX_SIZE],
            counts: [0; 2],
            side_to_move: Side::First,
            winner: None,
            hash: 0,
            ply: 0,
            quiet_plies: 0,
            quiet_limit: 0,
        };
        for i in 0..n {
            pos.put(Cell::new(i, 0), Some(Side::First));
            pos.put(Cell::new(i, n - 1), Some(Side::Second));
        }
        for col in 1..n - 1 {
            let side = if col < n / 2 {
                Side::First
            } else {
                Side::Second
            };
            pos.put(Cell::new(0, col), Some(side));
            pos.put(Cell::new(n - 1, col), Some(side));
        }
        Some(pos)
    }

    pub fn size(&self) -> u8 {
        self.n
    }

    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    pub fn winner(&self) -> Option<Side> {
        self.winner
    }

    /// Won by the rules, or drawn by the no-capture limit.
    pub fn is_over(&self) -> bool {
        self.winner.is_some() || self.is_drawn()
    }

    /// Drawn by `quiet_limit` plies in a row without a capture (never with no limit).
    pub fn is_drawn(&self) -> bool {
        self.quiet_limit != 0 && self.quiet_plies >= self.quiet_limit && self.winner.is_none()
    }

    /// Sets the draw after `limit` plies without a capture (0: none, as in the problem).
    pub fn set_quiet_limit(&mut self, limit: u32) {
        self.quiet_limit = limit;
    }

    pub fn quiet_limit(&self) -> u32 {
        self.quiet_limit
    }

    /// Plies since the last capture.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// The board and side to move; with a no-capture limit also the count towards it.
    pub fn hash(&self) -> u64 {
        if self.quiet_limit == 0 {
            return self.hash;
        }
        let counters =
            u64::from(self.quiet_plies.min(self.quiet_limit)) | u64::from(self.quiet_limit) << 32;
        self.hash ^ zobrist::number_key(QUIET_SALT, counters)
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    pub fn count(&self, side: Side) -> u32 {
        self.counts[side.index()] as u32
    }

    /// The cell at 0-based `(row, col)` if it is on the board.
    pub fn cell(&self, row: i64, col: i64) -> Option<Cell> {
        let range = 0..self.n as i64;
        (range.contains(&row) && range.contains(&col)).then(|| Cell::new(row as u8, col as u8))
    }

    #[inline]
    fn index(cell: Cell) -> usize {
        cell.row as usize * MAX_SIZE + cell.col as usize
    }

    pub fn get(&self, cell: Cell) -> Option<Side> {
        match self.cells[Self::index(cell)] {
            1 => Some(Side::First),
            2 => Some(Side::Second),
            _ => None,
        }
    }

    /// Sets a cell (for building positions); keeps counts and hash right.
    pub fn put(&mut self, cell: Cell, piece: Option<Side>) {
        let i = Self::index(cell);
        if let Some(old) = self.get(cell) {
            self.counts[old.index()] -= 1;
            self.hash ^= CELL_KEYS[old.index() * MAX_SIZE * MAX_SIZE + i];
        }
        self.cells[i] = piece.map_or(0, |s| s.index() as u8 + 1);
        if let Some(new) = piece {
            self.counts[new.index()] += 1;
            self.hash ^= CELL_KEYS[new.index() * MAX_SIZE * MAX_SIZE + i];
        }
    }

    pub fn set_side_to_move(&mut self, side: Side) {
        if side != self.side_to_move {
            self.hash ^= BLUE_TO_MOVE_KEY;
            self.side_to_move = side;
        }
    }

    /// Calls `visit` for every move of `side`, whoever is to move.
    fn for_each_move(&self, side: Side, mut visit: impl FnMut(Move)) {
        let own = side.index() as u8 + 1;
        let n = self.n as i64;
        for row in 0..n {
            for col in 0..n {
                if self.cells[row as usize * MAX_SIZE + col as usize] != own {
                    continue;
                }
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    if let Some(to) = self.cell(row + dr, col + dc) {
                        if self.cells[Self::index(to)] == 0 {
                            visit(Move::new(Cell::new(row as u8, col as u8), to));
                        }
                    }
                }
            }
        }
    }

    /// The number of moves `side` could make if it were its turn.
    pub fn count_moves_of(&self, side: Side) -> u32 {
        let mut n = 0;
        self.for_each_move(side, |_| n += 1);
        n
    }

    /// The moves `side` could make if it were its turn.
    pub fn moves_of(&self, side: Side, out: &mut MoveList<Move>) {
        self.for_each_move(side, |mv| out.push(mv));
    }

    /// Whether `side` could move if it were its turn.
    pub fn has_move(&self, side: Side) -> bool {
        let mut any = false;
        self.for_each_move(side, |_| any = true);
        any
    }

    /// Every legal move of the side to move; none once the game is over.
    pub fn legal_moves(&self, out: &mut MoveList<Move>) {
        if !self.is_over() {
            self.for_each_move(self.side_to_move, |mv| out.push(mv));
        }
    }

    /// Checks a move given in the judge's 1-based `(column, row)` coordinates (any integers).
    pub fn check_judge_move(
        &self,
        x1: i64,
        y1: i64,
        x2: i64,
        y2: i64,
    ) -> Result<Move, IllegalMove> {
        // Saturating: the judge reads any integer, down to i64::MIN.
        let from = self
            .cell(y1.saturating_sub(1), x1.saturating_sub(1))
            .ok_or(IllegalMove::SourceOffBoard)?;
        let to = self
            .cell(y2.saturating_sub(1), x2.saturating_sub(1))
            .ok_or(IllegalMove::TargetOffBoard)?;
        let mv = Move::new(from, to);
        self.check(mv)?;
        Ok(mv)
    }

    /// Why `mv` is not legal for the side to move, if it is not.
    pub fn check(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if mv.from.row >= self.n || mv.from.col >= self.n {
            return Err(IllegalMove::SourceOffBoard);
        }
        if self.get(mv.from) != Some(self.side_to_move) {
            return Err(IllegalMove::NotOwnPiece);
        }
        if mv.to.row >= self.n || mv.to.col >= self.n {
            return Err(IllegalMove::TargetOffBoard);
        }
        if self.get(mv.to).is_some() {
            return Err(IllegalMove::TargetOccupied);
        }
        if mv.from.row.abs_diff(mv.to.row) + mv.from.col.abs_diff(mv.to.col) != 1 {
            return Err(IllegalMove::NotOneStep);
        }
        Ok(())
    }

    /// Plays a legal move: moves the piece, captures in its row and column, checks the end.
    /// Returns the cells whose pieces were captured.
    pub fn play(&mut self, mv: Move) -> Vec<Cell> {
        debug_assert_eq!(self.check(mv), Ok(()));
        let mover = self.side_to_move;
        self.put(mv.from, None);
        self.put(mv.to, Some(mover));
        let mut captured = self.capturable(mv.to, true);
        captured.extend(self.capturable(mv.to, false));
        for &cell in &captured {
            self.put(cell, None);
        }
        self.quiet_plies = if captured.is_empty() {
            self.quiet_plies + 1
        } else {
            0
        };
        self.side_to_move = mover.opponent();
        self.hash ^= BLUE_TO_MOVE_KEY;
        self.ply += 1;
        self.winner = self.judge_end(mover);
        captured
    }

    /// The end checks of the rules page, in order, after a move of `mover`.
    fn judge_end(&self, mover: Side) -> Option<Side> {
        if self.count(mover.opponent()) <= self.n as u32 / 2 {
            Some(mover)
        } else if !self.has_move(Side::First) {
            Some(Side::Second)
        } else if !self.has_move(Side::Second) {
            Some(Side::First)
        } else {
            None
        }
    }

    /// The enemy cells the piece on `at` captures along its row (`row = true`) or column.
    ///
    /// A line captures when its counts match a pattern and, ignoring empty cells at its ends,
    /// it reads as one block of the mover's pieces touching one block of the enemy's.
    pub fn capturable(&self, at: Cell, row: bool) -> Vec<Cell> {
        let Some(mover) = self.get(at) else {
            return vec![];
        };
        let line: Vec<Cell> = (0..self.n)
            .map(|i| {
                if row {
                    Cell::new(at.row, i)
                } else {
                    Cell::new(i, at.col)
                }
            })
            .collect();
        let codes: Vec<u8> = line.iter().map(|&c| self.cells[Self::index(c)]).collect();
        if line_captures(&codes, mover.index() as u8 + 1) == 0 {
            return vec![];
        }
        let enemy = 2 - mover.index() as u8;
        line.into_iter()
            .zip(codes)
            .filter(|&(_, code)| code == enemy)
            .map(|(c, _)| c)
            .collect()
    }

    /// How many enemy pieces `mv` would capture (0 for a non-capture), without playing it.
    pub fn capture_count(&self, mv: Move) -> u32 {
        let Some(mover) = self.get(mv.from) else {
            return 0;
        };
        let own = mover.index() as u8 + 1;
        let n = self.n as usize;
        let code_at = |row: usize, col: usize| {
            if (row, col) == (mv.to.row as usize, mv.to.col as usize) {
                own
            } else if (row, col) == (mv.from.row as usize, mv.from.col as usize) {
                0
            } else {
                self.cells[row * MAX_SIZE + col]
            }
        };
        let mut line = [0u8; MAX_SIZE];
        for (i, slot) in line.iter_mut().enumerate().take(n) {
            *slot = code_at(mv.to.row as usize, i);
        }
        let in_row = line_captures(&line[..n], own);
        for (i, slot) in line.iter_mut().enumerate().take(n) {
            *slot = code_at(i, mv.to.col as usize);
        }
        in_row + line_captures(&line[..n], own)
    }

    /// A position from the judge's picture of a board (`h`, `l`, `.`; one line per row, row 1
    /// first) with `side` to move. `None` when the picture is not a square board of a supported
    /// size or has another character.
    pub fn from_picture(picture: &str, side: Side) -> Option<Position> {
        let rows: Vec<&str> = picture.split_whitespace().collect();
        let n = u8::try_from(rows.len()).ok()?;
        let mut pos = Position::initial(n)?;
        for (r, line) in rows.iter().enumerate() {
            if line.chars().count() != n as usize {
                return None;
            }
            for (c, ch) in line.chars().enumerate() {
                let piece = match ch {
                    'h' => Some(Side::First),
                    'l' => Some(Side::Second),
                    '.' => None,
                    _ => return None,
                };
                pos.put(Cell::new(r as u8, c as u8), piece);
            }
        }
        pos.set_side_to_move(side);
        Some(pos)
    }

    /// The board as the judge prints it: `h` red, `l` blue, `.` empty; row 1 first.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for row in 0..self.n {
            for col in 0..self.n {
                out.push(match self.get(Cell::new(row, col)) {
                    Some(Side::First) => 'h',
                    Some(Side::Second) => 'l',
                    None => '.',
                });
            }
            out.push('\n');
        }
        out
    }
}
