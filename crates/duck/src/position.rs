//! A Duck Chess position: board, move generation, playing moves, check detection.

use arbiter_core::{zobrist, MoveList, Side};

use crate::board::{Piece, PieceKind, Square, SQUARES};
use crate::tables::tables;

/// A move from one point to another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

impl Move {
    pub fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

/// What playing a move did, in the judge's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveEffect {
    pub moved: Piece,
    pub captured: Option<Piece>,
    /// Either side could capture the other's captain now (never after the end).
    pub check: bool,
    pub game_over: bool,
}

const PIECE_KEYS: [u64; 15 * SQUARES] = zobrist::keys(0x0D0C_C4E5_5000_0001);
const BLUE_TO_MOVE_KEY: u64 = zobrist::keys::<1>(0x0D0C_C4E5_5000_0002)[0];
const QUIET_SALT: u64 = 0x0D0C_C4E5_5000_0003;

#[inline]
fn piece_key(code: u8, sq: usize) -> u64 {
    PIECE_KEYS[code as usize * SQUARES + sq]
}

#[inline]
fn bit(sq: usize) -> u128 {
    1u128 << sq
}

/// A position: the board plus who is to move, whether a captain has fallen, and how long the
/// game has gone without a capture.
///
/// The board is a mailbox of 90 points (plus one always-empty cell used as the "no blocking
/// point" of pieces that cannot be blocked) with one 90-bit occupancy set per side, so the
/// pieces of a side are found by bit scanning and every move is a table lookup. Copying a
/// position is cheap (about 140 bytes), so searches copy-make.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: [u8; SQUARES + 1],
    occupied: [u128; 2],
    side_to_move: Side,
    winner: Option<Side>,
    hash: u64,
    ply: u32,
    /// Plies since the last capture.
    quiet_plies: u32,
    /// That many quiet plies in a row draw the game; 0 (P5380's game, the judge's) never.
    quiet_limit: u32,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::initial()
    }
}

impl Position {
    /// A board with no pieces, red to move. Build test positions with [`Position::put`].
    pub fn empty() -> Position {
        Position {
            board: [0; SQUARES + 1],
            occupied: [0; 2],
            side_to_move: Side::First,
            winner: None,
            hash: 0,
            ply: 0,
            quiet_plies: 0,
            quiet_limit: 0,
        }
    }

    /// The starting position of the rules page, red to move.
    pub fn initial() -> Position {
        use PieceKind::*;
        let mut pos = Position::empty();
        let back = [
            Car, Horse, Elephant, Guard, Captain, Guard, Elephant, Horse, Car,
        ];
        for (y, kind) in back.into_iter().enumerate() {
            pos.put_both(0, y as i64, kind);
        }
        pos.put_both(2, 0, Duck);
        pos.put_both(2, 8, Duck);
        for y in [0, 2, 4, 6, 8] {
            pos.put_both(3, y, Soldier);
        }
        pos
    }

    fn put_both(&mut self, x: i64, y: i64, kind: PieceKind) {
        let red = Square::new(x, y).expect("on the board");
        let blue = Square::new(9 - x, y).expect("on the board");
        self.put(red, Some(Piece::new(Side::First, kind)));
        self.put(blue, Some(Piece::new(Side::Second, kind)));
    }

    /// Sets or clears a point, keeping the hash and the end of the game consistent: a side
    /// without a captain has lost.
    pub fn put(&mut self, sq: Square, piece: Option<Piece>) {
        let i = sq.index();
        let old = self.board[i];
        if old != 0 {
            self.hash ^= piece_key(old, i);
            self.occupied[(old as usize - 1) / 7] &= !bit(i);
        }
        let code = piece.map_or(0, Piece::code);
        self.board[i] = code;
        if code != 0 {
            self.hash ^= piece_key(code, i);
            self.occupied[(code as usize - 1) / 7] |= bit(i);
        }
        self.update_winner();
    }

    fn update_winner(&mut self) {
        let has_captain = |side: Side| self.captain(side).is_some();
        self.winner = match (has_captain(Side::First), has_captain(Side::Second)) {
            (true, false) => Some(Side::First),
            (false, true) => Some(Side::Second),
            _ => None,
        };
    }

    pub fn set_side_to_move(&mut self, side: Side) {
        if side != self.side_to_move {
            self.hash ^= BLUE_TO_MOVE_KEY;
            self.side_to_move = side;
        }
    }

    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    /// The side that captured the other's captain, if the game is over.
    pub fn winner(&self) -> Option<Side> {
        self.winner
    }

    /// A captain has fallen, or the no-capture limit drew the game.
    pub fn is_over(&self) -> bool {
        self.winner.is_some() || self.is_drawn()
    }

    /// Drawn by `quiet_limit` plies in a row without a capture (never with no limit).
    #[inline]
    pub fn is_drawn(&self) -> bool {
        self.quiet_limit != 0 && self.quiet_plies >= self.quiet_limit && self.winner.is_none()
    }

    /// Sets the draw after `limit` plies without a capture (0: none, as in P5380).
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

    /// Sets the plies since the last capture (for positions set up mid-game).
    pub fn set_quiet_plies(&mut self, plies: u32) {
        self.quiet_plies = plies;
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The board and side to move; with a no-capture limit also the count towards it, which
    /// decides when the game is drawn.
    #[inline]
    pub fn hash(&self) -> u64 {
        if self.quiet_limit == 0 {
            return self.hash;
        }
        let counters =
            u64::from(self.quiet_plies.min(self.quiet_limit)) | u64::from(self.quiet_limit) << 32;
        self.hash ^ zobrist::number_key(QUIET_SALT, counters)
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.index()])
    }

    /// Every piece with its square, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    pub fn captain(&self, side: Side) -> Option<Square> {
        let code = Piece::new(side, PieceKind::Captain).code();
        let mut bits = self.occupied[side.index()];
        while bits != 0 {
            let sq = bits.trailing_zeros() as usize;
            if self.board[sq] == code {
                return Square::from_index(sq);
            }
            bits &= bits - 1;
        }
        None
    }

    /// Calls `visit(to)` for every legal destination of the piece on `from`, whoever is to move
    /// (nothing for an empty point). The end of the game is not considered here.
    #[inline(always)]
    fn for_each_target(&self, from: usize, mut visit: impl FnMut(usize)) {
        let code = self.board[from];
        if code == 0 {
            return;
        }
        let side = (code as usize - 1) / 7;
        let own = self.occupied[side];
        let kind = (code - 1) % 7;
        let t = tables();
        if kind == PieceKind::Car as u8 {
            for ray in &t.rays[from] {
                for &to in ray.squares() {
                    let to = to as usize;
                    if self.board[to] == 0 {
                        visit(to);
                    } else {
                        if own & bit(to) == 0 {
                            visit(to);
                        }
                        break;
                    }
                }
            }
        } else {
            let jumps = &t.jumps[kind as usize][from];
            for (to, [b0, b1]) in jumps.iter() {
                let to = to as usize;
                if own & bit(to) == 0
                    && self.board[b0 as usize] == 0
                    && self.board[b1 as usize] == 0
                {
                    visit(to);
                }
            }
        }
    }

    /// Calls `visit(from, to)` for every legal move of the side to move.
    #[inline(always)]
    fn for_each_move(&self, visit: impl FnMut(usize, usize)) {
        if self.is_over() {
            return;
        }
        self.for_each_move_of(self.side_to_move, visit);
    }

    /// Calls `visit(from, to)` for every move `side` could make if it were to move.
    #[inline(always)]
    fn for_each_move_of(&self, side: Side, mut visit: impl FnMut(usize, usize)) {
        let mut bits = self.occupied[side.index()];
        while bits != 0 {
            let from = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            self.for_each_target(from, |to| visit(from, to));
        }
    }

    /// Appends every legal move of the side to move (none once the game is over).
    pub fn legal_moves(&self, out: &mut MoveList<Move>) {
        self.for_each_move(|from, to| {
            out.push(Move::new(
                Square::from_index(from).unwrap(),
                Square::from_index(to).unwrap(),
            ))
        });
    }

    /// The number of legal moves, without building them (for perft's last ply).
    pub fn count_moves(&self) -> u64 {
        let mut n = 0;
        self.for_each_move(|_, _| n += 1);
        n
    }

    /// The number of moves `side` could make if it were to move (for evaluation: mobility).
    pub fn count_moves_of(&self, side: Side) -> u64 {
        let mut n = 0;
        self.for_each_move_of(side, |_, _| n += 1);
        n
    }

    /// The legal destinations of the piece on `from`, as if its owner were to move.
    pub fn targets(&self, from: Square) -> Vec<Square> {
        let mut out = Vec::new();
        self.for_each_target(from.index(), |to| out.push(Square::from_index(to).unwrap()));
        out.sort();
        out
    }

    /// Whether the side to move may play `mv` now.
    pub fn is_legal(&self, mv: Move) -> bool {
        if self.is_over() {
            return false;
        }
        match self.piece_at(mv.from) {
            Some(p) if p.side == self.side_to_move => {}
            _ => return false,
        }
        let mut found = false;
        self.for_each_target(mv.from.index(), |to| found |= to == mv.to.index());
        found
    }

    /// Plays a legal move (see [`Position::is_legal`]) and returns what it captured.
    pub fn play(&mut self, mv: Move) -> Option<Piece> {
        debug_assert!(self.is_legal(mv), "illegal move {mv:?} in {self:?}");
        let (from, to) = (mv.from.index(), mv.to.index());
        let code = self.board[from];
        let captured = self.board[to];
        let side = self.side_to_move.index();
        self.board[from] = 0;
        self.board[to] = code;
        self.occupied[side] ^= bit(from) | bit(to);
        self.hash ^= piece_key(code, from) ^ piece_key(code, to) ^ BLUE_TO_MOVE_KEY;
        if captured != 0 {
            self.occupied[1 - side] &= !bit(to);
            self.hash ^= piece_key(captured, to);
            self.quiet_plies = 0;
            if (captured - 1) % 7 == PieceKind::Captain as u8 {
                self.winner = Some(self.side_to_move);
            }
        } else {
            self.quiet_plies += 1;
        }
        self.side_to_move = self.side_to_move.opponent();
        self.ply += 1;
        Piece::from_code(captured)
    }

    /// Plays a move and reports it in the judge's terms. The move must be legal.
    pub fn play_and_describe(&mut self, mv: Move) -> MoveEffect {
        let moved = self
            .piece_at(mv.from)
            .expect("a legal move starts on a piece");
        let captured = self.play(mv);
        MoveEffect {
            moved,
            captured,
            check: self.is_check(),
            game_over: self.is_over(),
        }
    }

    /// Whether a piece of `attacker` could capture on `target` (blocking points respected).
    pub fn attacks(&self, attacker: Side, target: Square) -> bool {
        let t = tables();
        let target = target.index();
        for kind in PieceKind::ALL {
            let code = Piece::new(attacker, kind).code();
            if kind == PieceKind::Car {
                for ray in &t.rays[target] {
                    if let Some(&first) =
                        ray.squares().iter().find(|&&s| self.board[s as usize] != 0)
                    {
                        if self.board[first as usize] == code {
                            return true;
                        }
                    }
                }
                continue;
            }
            for (from, [b0, b1]) in t.attackers[kind as usize][target].iter() {
                if self.board[from as usize] == code
                    && self.board[b0 as usize] == 0
                    && self.board[b1 as usize] == 0
                {
                    return true;
                }
            }
        }
        false
    }

    /// The judge's check flag: either side can capture the other's captain. Never after the end.
    pub fn is_check(&self) -> bool {
        if self.winner.is_some() {
            return false;
        }
        Side::BOTH.into_iter().any(|side| {
            self.captain(side.opponent())
                .is_some_and(|captain| self.attacks(side, captain))
        })
    }

    /// Whether the piece code at `sq` is the always-empty padding cell (a test aid).
    #[cfg(test)]
    pub(crate) fn padding_is_empty(&self) -> bool {
        self.board[crate::tables::NO_SQUARE as usize] == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(x: i64, y: i64) -> Square {
        Square::new(x, y).unwrap()
    }

    #[test]
    fn initial_position_has_43_moves() {
        let pos = Position::initial();
        assert_eq!(pos.count_moves(), 43);
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        assert_eq!(list.len(), 43);
        assert!(pos.padding_is_empty());
        assert!(!pos.is_check());
    }

    #[test]
    fn hash_is_incremental() {
        let mut pos = Position::initial();
        pos.play(Move::new(sq(0, 0), sq(1, 0)));
        let mut rebuilt = Position::empty();
        for (s, p) in pos.pieces() {
            rebuilt.put(s, Some(p));
        }
        rebuilt.set_side_to_move(Side::Second);
        assert_eq!(rebuilt.hash(), pos.hash());
        assert_ne!(Position::initial().hash(), pos.hash());
    }
}
