//! Static exchange evaluation: what a capture wins once both sides have recaptured on its
//! point for as long as it pays, each with its cheapest piece. Played out on a copy of the
//! position, so a recapture that opens a line (a car behind the capturer, a horse's leg freed)
//! brings the piece behind it into the exchange.

use arbiter_duck::{Move, PieceKind, Position, Square};

/// What taking a captain is worth here: more than any exchange of the other pieces.
pub(super) const CAPTAIN: i32 = 100_000;

/// The most captures one exchange can hold (every piece of both sides).
const LONGEST: usize = 34;

/// The material `mv` (a capture) wins for the side to move, with `value` pricing each kind
/// (the captain at [`CAPTAIN`]).
pub(super) fn exchange(pos: &Position, mv: Move, value: &dyn Fn(PieceKind) -> i32) -> i32 {
    let cheapest_first = cheapest_first(value);
    exchange_with(pos, mv, value, &|board, target| {
        cheapest_attacker(board, target, &cheapest_first)
    })
}

/// The exchange with `attacker` choosing each recapture (the search's scan, or a test's).
pub(super) fn exchange_with(
    pos: &Position,
    mv: Move,
    value: &dyn Fn(PieceKind) -> i32,
    attacker: &dyn Fn(&Position, Square) -> Option<Square>,
) -> i32 {
    let worth = |sq: Square, board: &Position| board.piece_at(sq).map_or(0, |p| value(p.kind));
    let mut gains = [0i32; LONGEST];
    gains[0] = worth(mv.to, pos);
    let mut board = pos.clone();
    let mut on_target = worth(mv.from, pos);
    board.play(mv);
    let mut depth = 0;
    while depth + 1 < LONGEST && !board.is_over() {
        let Some(from) = attacker(&board, mv.to) else {
            break;
        };
        depth += 1;
        gains[depth] = on_target - gains[depth - 1];
        on_target = worth(from, &board);
        board.play(Move::new(from, mv.to));
    }
    // Each side stops the exchange where going on would lose it more.
    while depth > 0 {
        gains[depth - 1] = -(-gains[depth - 1]).max(gains[depth]);
        depth -= 1;
    }
    gains[0]
}

/// Whether the side to move wins material by taking the piece on `target` (its cheapest
/// attacker first, then the exchange played out).
pub(super) fn takes_at_profit(
    board: &Position,
    target: Square,
    value: &dyn Fn(PieceKind) -> i32,
) -> bool {
    cheapest_attacker(board, target, &cheapest_first(value))
        .is_some_and(|from| exchange(board, Move::new(from, target), value) > 0)
}

/// Every kind, the cheapest by `value` first: the order recaptures are tried in.
fn cheapest_first(value: &dyn Fn(PieceKind) -> i32) -> [PieceKind; PieceKind::ALL.len()] {
    let mut kinds = PieceKind::ALL;
    kinds.sort_by_key(|&k| value(k));
    kinds
}

/// The first piece of the side to move, in `kinds` order (the lowest point among one kind's),
/// that can capture on `target`.
fn cheapest_attacker(board: &Position, target: Square, kinds: &[PieceKind]) -> Option<Square> {
    let side = board.side_to_move();
    if !board.attacks(side, target) {
        return None;
    }
    let own = board.side_set(side);
    kinds.iter().find_map(|&kind| {
        let mut pieces = board.kind_set(kind) & own;
        while pieces != 0 {
            let sq = Square::from_index(pieces.trailing_zeros() as usize).expect("a square");
            pieces &= pieces - 1;
            if board.reach(sq, kind) >> target.index() & 1 != 0 {
                return Some(sq);
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::duck::exchange_price;
    use arbiter_core::{MoveList, Side};
    use arbiter_duck::Piece;
    use rand::{Rng, SeedableRng};

    fn square(name: &str) -> Square {
        Square::parse(name).expect("a square")
    }

    /// Captains in their corners, then `pieces` (`"red car a0"`), red to move.
    fn board(pieces: &[(Side, PieceKind, &str)]) -> Position {
        let mut pos = Position::empty();
        pos.put(
            square("e0"),
            Some(Piece::new(Side::First, PieceKind::Captain)),
        );
        pos.put(
            square("e9"),
            Some(Piece::new(Side::Second, PieceKind::Captain)),
        );
        for &(side, kind, at) in pieces {
            pos.put(square(at), Some(Piece::new(side, kind)));
        }
        pos
    }

    fn see(pos: &Position, mv: &str) -> i32 {
        exchange(pos, Move::parse(mv).unwrap(), &exchange_price())
    }

    #[test]
    fn a_car_that_takes_a_soldier_defended_by_a_soldier_loses_the_difference() {
        use PieceKind::*;
        use Side::*;
        let pos = board(&[
            (First, Car, "a0"),
            (Second, Soldier, "a5"),
            (Second, Soldier, "b6"),
        ]);
        let price = exchange_price();
        assert_eq!(see(&pos, "a0-a5"), price(Soldier) - price(Car));
    }

    #[test]
    fn a_second_attacker_makes_the_recapture_too_dear() {
        use PieceKind::*;
        use Side::*;
        // The horse takes the guard; the car that defends it would be taken by the other horse.
        let pos = board(&[
            (First, Horse, "c3"),
            (First, Horse, "c7"),
            (Second, Guard, "d5"),
            (Second, Car, "h5"),
        ]);
        let price = exchange_price();
        assert_eq!(see(&pos, "c3-d5"), price(Guard));
    }

    #[test]
    fn a_car_behind_the_capturer_joins_the_exchange() {
        use PieceKind::*;
        use Side::*;
        // Red's second car stands behind the first on the a column: once the first has taken
        // and been retaken by the car on a8, the second retakes.
        let pos = board(&[
            (First, Car, "a1"),
            (First, Car, "a0"),
            (Second, Horse, "a5"),
            (Second, Car, "a8"),
        ]);
        let price = exchange_price();
        assert_eq!(see(&pos, "a1-a5"), price(Horse) - price(Car) + price(Car));
    }

    /// `pieces` as [`board`] puts them, with blue to move: the side that answers red's move.
    fn blue_to_move(pieces: &[(Side, PieceKind, &str)]) -> Position {
        let mut pos = board(pieces);
        pos.set_side_to_move(Side::Second);
        pos
    }

    #[test]
    fn an_undefended_piece_is_taken_at_a_profit_and_a_defended_soldier_is_not() {
        use PieceKind::*;
        use Side::*;
        let price = exchange_price();
        let hanging = blue_to_move(&[(First, Soldier, "b5"), (Second, Car, "b9")]);
        assert!(takes_at_profit(&hanging, square("b5"), &price));
        let defended = blue_to_move(&[
            (First, Soldier, "b5"),
            (First, Soldier, "b4"),
            (Second, Car, "b9"),
        ]);
        assert!(!takes_at_profit(&defended, square("b5"), &price));
        let cheaper_attacker = blue_to_move(&[
            (First, Horse, "b5"),
            (First, Soldier, "b4"),
            (Second, Elephant, "d7"),
        ]);
        assert!(takes_at_profit(&cheaper_attacker, square("b5"), &price));
        let unattacked = blue_to_move(&[(First, Horse, "b5"), (Second, Car, "c9")]);
        assert!(!takes_at_profit(&unattacked, square("b5"), &price));
    }

    /// The attacker the legal moves give: the cheapest capture on `target`, then the kinds'
    /// order, then the lowest point.
    fn legal_cheapest(board: &Position, target: Square) -> Option<Square> {
        let price = exchange_price();
        let mut moves = MoveList::new();
        board.legal_moves(&mut moves);
        moves
            .iter()
            .filter(|m| m.to == target)
            .map(|m| m.from)
            .min_by_key(|&from| {
                let kind = board.piece_at(from).expect("a mover").kind;
                (price(kind), kind as usize, from.index())
            })
    }

    #[test]
    fn the_scan_finds_the_attacker_the_legal_moves_give_and_the_value_stays_in_bounds() {
        let price = exchange_price();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(31);
        let mut checked = 0;
        for _ in 0..300 {
            let mut pos = Position::initial();
            let mut moves = MoveList::new();
            for _ in 0..rng.gen_range(0..120) {
                moves.clear();
                pos.capture_moves(&mut moves);
                for &mv in moves.iter() {
                    let value = exchange(&pos, mv, &price);
                    let slow = exchange_with(&pos, mv, &price, &legal_cheapest);
                    assert_eq!(value, slow, "{mv:?} in {}", pos.to_fen());
                    let (victim, attacker) = (pos.piece_at(mv.to), pos.piece_at(mv.from));
                    let [victim, attacker] = [victim, attacker].map(|p| price(p.unwrap().kind));
                    assert!((victim - attacker..=victim).contains(&value));
                    checked += 1;
                }
                moves.clear();
                pos.legal_moves(&mut moves);
                if moves.is_empty() || pos.is_over() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
            }
        }
        assert!(checked > 2000, "only {checked} captures checked");
    }
}
