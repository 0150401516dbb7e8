//! Every piece's moves on hand-made positions: open board, each blocked leg, own and enemy
//! targets, and the board's edges.

use arbiter_core::Side;
use arbiter_duck::{Move, Piece, PieceKind, Position, Square};

const RED: Side = Side::First;
const BLUE: Side = Side::Second;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
}

fn with(pieces: &[(&str, Side, PieceKind)]) -> Position {
    let mut pos = Position::empty();
    for &(name, side, kind) in pieces {
        pos.put(sq(name), Some(Piece::new(side, kind)));
    }
    pos
}

fn targets(pos: &Position, from: &str) -> Vec<String> {
    let mut names: Vec<String> = pos
        .targets(sq(from))
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.sort();
    names
}

fn names(list: &str) -> Vec<String> {
    let mut v: Vec<String> = list.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn captain_moves_one_point_orthogonally() {
    let pos = with(&[("e4", RED, PieceKind::Captain)]);
    assert_eq!(targets(&pos, "e4"), names("e3 e5 d4 f4"));
    let corner = with(&[("a0", RED, PieceKind::Captain)]);
    assert_eq!(targets(&corner, "a0"), names("a1 b0"));
}

#[test]
fn guard_moves_one_point_diagonally() {
    let pos = with(&[("e4", BLUE, PieceKind::Guard)]);
    assert_eq!(targets(&pos, "e4"), names("d3 d5 f3 f5"));
    let edge = with(&[("i9", BLUE, PieceKind::Guard)]);
    assert_eq!(targets(&edge, "i9"), names("h8"));
}

#[test]
fn elephant_and_its_eye() {
    let open = with(&[("e4", RED, PieceKind::Elephant)]);
    assert_eq!(targets(&open, "e4"), names("c2 c6 g2 g6"));
    // (x+1, y-1) = d5 blocks c6, whichever side stands there.
    for side in [RED, BLUE] {
        let blocked = with(&[
            ("e4", RED, PieceKind::Elephant),
            ("d5", side, PieceKind::Soldier),
        ]);
        assert_eq!(targets(&blocked, "e4"), names("c2 g2 g6"));
    }
    let corner = with(&[("a0", RED, PieceKind::Elephant)]);
    assert_eq!(targets(&corner, "a0"), names("c2"));
}

#[test]
fn horse_and_both_kinds_of_leg() {
    let open = with(&[("e4", RED, PieceKind::Horse)]);
    assert_eq!(targets(&open, "e4"), names("d2 f2 d6 f6 c3 c5 g3 g5"));
    // (x+1, y) = e5 blocks the two long moves upward: d6 and f6.
    let up = with(&[
        ("e4", RED, PieceKind::Horse),
        ("e5", BLUE, PieceKind::Soldier),
    ]);
    assert_eq!(targets(&up, "e4"), names("d2 f2 c3 c5 g3 g5"));
    // (x, y+1) = f4 blocks the two long moves rightward: g3 and g5.
    let right = with(&[
        ("e4", RED, PieceKind::Horse),
        ("f4", RED, PieceKind::Soldier),
    ]);
    assert_eq!(targets(&right, "e4"), names("d2 f2 d6 f6 c3 c5"));
    // A diagonal neighbour does not block.
    let diagonal = with(&[
        ("e4", RED, PieceKind::Horse),
        ("f5", BLUE, PieceKind::Soldier),
    ]);
    assert_eq!(targets(&diagonal, "e4").len(), 8);
    let corner = with(&[("a0", RED, PieceKind::Horse)]);
    assert_eq!(targets(&corner, "a0"), names("b2 c1"));
}

#[test]
fn duck_and_its_two_legs() {
    let open = with(&[("e4", RED, PieceKind::Duck)]);
    assert_eq!(targets(&open, "e4"), names("g7 c7 g1 c1 h6 b6 h2 b2"));
    // (x+3, y+2) = g7 is blocked by (x+1, y) = e5 and by (x+2, y+1) = f6.
    let first_leg = with(&[("e4", RED, PieceKind::Duck), ("e5", BLUE, PieceKind::Car)]);
    assert_eq!(targets(&first_leg, "e4"), names("g1 c1 h6 b6 h2 b2"));
    let second_leg = with(&[("e4", RED, PieceKind::Duck), ("f6", RED, PieceKind::Car)]);
    assert_eq!(targets(&second_leg, "e4"), names("c7 g1 c1 h6 b6 h2 b2"));
    // (x+2, y+3) = h6 is blocked by (x, y+1) = f4 and by (x+1, y+2) = g5.
    let third_leg = with(&[("e4", RED, PieceKind::Duck), ("f4", BLUE, PieceKind::Car)]);
    assert_eq!(targets(&third_leg, "e4"), names("g7 c7 g1 c1 b6 b2"));
    let fourth_leg = with(&[("e4", RED, PieceKind::Duck), ("g5", BLUE, PieceKind::Car)]);
    assert_eq!(targets(&fourth_leg, "e4"), names("g7 c7 g1 c1 b6 b2 h2"));
    let corner = with(&[("a0", RED, PieceKind::Duck)]);
    assert_eq!(targets(&corner, "a0"), names("c3 d2"));
}

#[test]
fn car_slides_until_blocked() {
    let open = with(&[("e4", RED, PieceKind::Car)]);
    assert_eq!(targets(&open, "e4").len(), 17);
    let pos = with(&[
        ("e4", RED, PieceKind::Car),
        ("e6", RED, PieceKind::Soldier), // own piece: stops before it
        ("c4", BLUE, PieceKind::Soldier), // enemy: captured, nothing beyond
        ("e1", BLUE, PieceKind::Horse),
    ]);
    assert_eq!(targets(&pos, "e4"), names("e5 d4 c4 f4 g4 h4 i4 e3 e2 e1"));
}

#[test]
fn soldier_moves_to_all_eight_neighbours() {
    let pos = with(&[("e4", BLUE, PieceKind::Soldier)]);
    assert_eq!(targets(&pos, "e4"), names("d3 d4 d5 e3 e5 f3 f4 f5"));
    let corner = with(&[("i0", RED, PieceKind::Soldier)]);
    assert_eq!(targets(&corner, "i0"), names("h0 h1 i1"));
}

#[test]
fn own_pieces_are_never_targets_enemy_pieces_are_captured() {
    let pos = with(&[
        ("e4", RED, PieceKind::Soldier),
        ("e5", RED, PieceKind::Guard),
        ("d5", BLUE, PieceKind::Guard),
    ]);
    let t = targets(&pos, "e4");
    assert!(!t.contains(&"e5".to_string()));
    assert!(t.contains(&"d5".to_string()));
    let mut game = pos.clone();
    let captured = game.play(Move::new(sq("e4"), sq("d5")));
    assert_eq!(captured, Some(Piece::new(BLUE, PieceKind::Guard)));
    assert_eq!(game.piece_at(sq("e4")), None);
    assert_eq!(game.side_to_move(), BLUE);
}

#[test]
fn only_the_side_to_move_may_move() {
    let pos = Position::initial();
    assert!(pos.is_legal(Move::new(sq("a0"), sq("a1"))));
    assert!(!pos.is_legal(Move::new(sq("a9"), sq("a8"))));
    assert!(!pos.is_legal(Move::new(sq("b1"), sq("b2"))));
}
