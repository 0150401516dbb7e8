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

/// The square with index `index`, which is below [`SQUARES`].
#[inline]
fn square(index: usize) -> Square {
    Square::from_index(index).expect("a square index")
}

/// The kind index (`PieceKind as usize`) of a non-empty board code.
#[inline]
fn kind_of(code: u8) -> usize {
    (code as usize - 1) % 7
}

/// A position: the board plus who is to move, whether a captain has fallen, and how long the
/// game has gone without a capture.
///
/// The board is a mailbox of 90 points (plus one always-empty cell that stands for every point
/// off the board) with the pieces also as sets of squares, one per side and one per kind, so a
/// piece's destinations are a few table lookups (see [`Position::reach`]) and an attack test
/// reads the tables backwards. Copying a position is cheap (about 250 bytes), so searches
/// copy-make.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    board: [u8; SQUARES + 1],
    occupied: [u128; 2],
    /// `kinds[k]`: the squares of the pieces of kind `k`, both sides.
    kinds: [u128; 7],
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
            kinds: [0; 7],
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
            self.kinds[kind_of(old)] &= !bit(i);
        }
        let code = piece.map_or(0, Piece::code);
        self.board[i] = code;
        if code != 0 {
            self.hash ^= piece_key(code, i);
            self.occupied[(code as usize - 1) / 7] |= bit(i);
            self.kinds[kind_of(code)] |= bit(i);
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
        let captains = self.kinds[PieceKind::Captain as usize] & self.occupied[side.index()];
        (captains != 0).then(|| Square::from_index(captains.trailing_zeros() as usize))?
    }

    /// The squares holding `side`'s pieces, as a set (bit `x * 9 + y`, see [`Square`]).
    #[inline]
    pub fn side_set(&self, side: Side) -> u128 {
        self.occupied[side.index()]
    }

    /// The squares holding pieces of `kind`, both sides.
    #[inline]
    pub fn kind_set(&self, kind: PieceKind) -> u128 {
        self.kinds[kind as usize]
    }

    /// Every square the piece of `kind` on `from` could move to if nothing of its own stood
    /// there: its moves and the squares of its own side it defends. Blocking points count
    /// whichever side stands on them.
    pub fn reach(&self, from: Square, kind: PieceKind) -> u128 {
        let from = from.index();
        match kind {
            PieceKind::Captain => self.reach_of::<0>(from),
            PieceKind::Guard => self.reach_of::<1>(from),
            PieceKind::Elephant => self.reach_of::<2>(from),
            PieceKind::Horse => self.reach_of::<3>(from),
            PieceKind::Car => self.reach_of::<4>(from),
            PieceKind::Duck => self.reach_of::<5>(from),
            PieceKind::Soldier => self.reach_of::<6>(from),
        }
    }

    /// Calls `visit(kind, square, reach)` for every piece of `side`, kind by kind (each kind's
    /// loop compiled for it), lowest square first.
    #[inline(always)]
    pub fn for_each_reach(&self, side: Side, mut visit: impl FnMut(PieceKind, usize, u128)) {
        self.for_each_reach_of::<0>(side, &mut visit);
        self.for_each_reach_of::<1>(side, &mut visit);
        self.for_each_reach_of::<2>(side, &mut visit);
        self.for_each_reach_of::<3>(side, &mut visit);
        self.for_each_reach_of::<4>(side, &mut visit);
        self.for_each_reach_of::<5>(side, &mut visit);
        self.for_each_reach_of::<6>(side, &mut visit);
    }

    #[inline(always)]
    fn for_each_reach_of<const KIND: usize>(
        &self,
        side: Side,
        visit: &mut impl FnMut(PieceKind, usize, u128),
    ) {
        let mut pieces = self.kinds[KIND] & self.occupied[side.index()];
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            visit(PieceKind::ALL[KIND], from, self.reach_of::<KIND>(from));
        }
    }

    /// The reach of a piece of kind `KIND` (`PieceKind as usize`) on `from`.
    #[inline(always)]
    fn reach_of<const KIND: usize>(&self, from: usize) -> u128 {
        let t = tables();
        let empty = |sq: u8| self.board[sq as usize] == 0;
        let past = |blocks: &[u8; 4], sets: &[u128; 4]| {
            (0..4).fold(0, |acc, d| acc | if empty(blocks[d]) { sets[d] } else { 0 })
        };
        match KIND {
            0 => t.captain[from],
            1 => t.guard[from],
            2 => past(&t.diagonal[from], &t.elephant[from]),
            3 => past(&t.orthogonal[from], &t.horse[from]),
            4 => self.car_reach(from),
            5 => (0..4).fold(0, |acc, d| {
                if !empty(t.orthogonal[from][d]) {
                    return acc;
                }
                t.duck[4 * from + d]
                    .iter()
                    .fold(acc, |acc, &(destination, second)| {
                        acc | if empty(second) { destination } else { 0 }
                    })
            }),
            _ => t.soldier[from],
        }
    }

    /// A car's reach: each ray up to and including its first piece.
    #[inline(always)]
    fn car_reach(&self, from: usize) -> u128 {
        let t = tables();
        let occupied = self.occupied[0] | self.occupied[1];
        let mut reach = 0;
        for (d, &ray) in t.rays[from].iter().enumerate() {
            let blockers = ray & occupied;
            reach |= if blockers == 0 {
                ray
            } else {
                let first = if d % 2 == 0 {
                    blockers.trailing_zeros()
                } else {
                    127 - blockers.leading_zeros()
                };
                ray ^ t.rays[first as usize][d]
            };
        }
        reach
    }

    /// The destinations of the piece on `from` that its side may move to.
    fn targets_of(&self, from: usize) -> u128 {
        let piece = Piece::from_code(self.board[from]).expect("a piece on the square");
        self.reach(square(from), piece.kind) & !self.occupied[piece.side.index()]
    }

    /// Calls `visit(to)` for every legal destination of the piece on `from`, whoever is to move
    /// (nothing for an empty point). The end of the game is not considered here.
    #[inline(always)]
    fn for_each_target(&self, from: usize, mut visit: impl FnMut(usize)) {
        if self.board[from] == 0 {
            return;
        }
        let mut targets = self.targets_of(from);
        while targets != 0 {
            visit(targets.trailing_zeros() as usize);
            targets &= targets - 1;
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
        let own = self.occupied[side.index()];
        self.for_each_reach(side, |_, from, reach| {
            let mut targets = reach & !own;
            while targets != 0 {
                visit(from, targets.trailing_zeros() as usize);
                targets &= targets - 1;
            }
        });
    }

    /// Appends every legal move of the side to move (none once the game is over).
    pub fn legal_moves(&self, out: &mut MoveList<Move>) {
        self.for_each_move(|from, to| out.push(Move::new(square(from), square(to))));
    }

    /// The number of legal moves, without building them (for perft's last ply).
    pub fn count_moves(&self) -> u64 {
        if self.is_over() {
            return 0;
        }
        self.count_moves_of(self.side_to_move)
    }

    /// The number of moves `side` could make if it were to move (for evaluation: mobility).
    pub fn count_moves_of(&self, side: Side) -> u64 {
        let own = self.occupied[side.index()];
        let mut count = 0;
        self.for_each_reach(side, |_, _, reach| {
            count += u64::from((reach & !own).count_ones())
        });
        count
    }

    /// Appends the legal captures of the side to move (none once the game is over).
    pub fn capture_moves(&self, out: &mut MoveList<Move>) {
        if self.is_over() {
            return;
        }
        let enemies = self.occupied[self.side_to_move.opponent().index()];
        self.for_each_reach(self.side_to_move, |_, from, reach| {
            let mut victims = reach & enemies;
            while victims != 0 {
                out.push(Move::new(
                    square(from),
                    square(victims.trailing_zeros() as usize),
                ));
                victims &= victims - 1;
            }
        });
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
        self.kinds[kind_of(code)] ^= bit(from) | bit(to);
        self.hash ^= piece_key(code, from) ^ piece_key(code, to) ^ BLUE_TO_MOVE_KEY;
        if captured != 0 {
            self.occupied[1 - side] &= !bit(to);
            self.kinds[kind_of(captured)] ^= bit(to);
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

    /// Whether a piece of `attacker` could capture on `target` (blocking points respected):
    /// the reach tables read backwards from `target`.
    pub fn attacks(&self, attacker: Side, target: Square) -> bool {
        let t = tables();
        let target = target.index();
        let theirs = self.occupied[attacker.index()];
        let of = |kind: PieceKind| self.kinds[kind as usize] & theirs;
        let near = (t.captain[target] & of(PieceKind::Captain))
            | (t.guard[target] & of(PieceKind::Guard))
            | (t.soldier[target] & of(PieceKind::Soldier));
        if near != 0 {
            return true;
        }
        let empty = |sq: u8| self.board[sq as usize] == 0;
        let (horses, elephants, ducks) = (
            of(PieceKind::Horse),
            of(PieceKind::Elephant),
            of(PieceKind::Duck),
        );
        for d in 0..4 {
            if !empty(t.diagonal[target][d]) {
                continue;
            }
            let leapers =
                (t.horse_from[target][d] & horses) | (t.elephant_from[target][d] & elephants);
            if leapers != 0
                || (empty(t.far_diagonal[target][d]) && t.duck_from[target][d] & ducks != 0)
            {
                return true;
            }
        }
        let cars = of(PieceKind::Car);
        cars != 0 && self.car_reach(target) & cars != 0
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
