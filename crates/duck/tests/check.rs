//! The judge's check flag: attacks by every kind of piece, in both directions, never after the end.

use arbiter_core::Side;
use arbiter_duck::{Move, Piece, PieceKind, Position, Square};

const RED: Side = Side::First;
const BLUE: Side = Side::Second;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// Red captain on e0, blue captain on e9, plus `extra`; `mover` then plays `mv` and the flag is read.
fn check_after(extra: &[(&str, Side, PieceKind)], mover: Side, mv: (&str, &str)) -> bool {
    let mut pos = Position::empty();
    pos.put(sq("e0"), Some(Piece::new(RED, PieceKind::Captain)));
    pos.put(sq("e9"), Some(Piece::new(BLUE, PieceKind::Captain)));
    for &(name, side, kind) in extra {
        pos.put(sq(name), Some(Piece::new(side, kind)));
    }
    pos.set_side_to_move(mover);
    let mv = Move::new(sq(mv.0), sq(mv.1));
    assert!(pos.is_legal(mv), "{mv} should be legal in {pos:?}");
    let effect = pos.play_and_describe(mv);
    effect.check
}

#[test]
fn each_kind_gives_check_to_blue() {
    use PieceKind::*;
    // A red piece moves to a point from which it attacks e9.
    assert!(check_after(&[("a8", RED, Car)], RED, ("a8", "a9")));
    assert!(check_after(&[("c5", RED, Horse)], RED, ("c5", "d7")));
    assert!(check_after(&[("a5", RED, Elephant)], RED, ("a5", "c7")));
    assert!(check_after(&[("g7", RED, Guard)], RED, ("g7", "f8")));
    assert!(check_after(&[("d7", RED, Soldier)], RED, ("d7", "d8")));
    assert!(check_after(&[("a3", RED, Duck)], RED, ("a3", "c6")));
    assert!(check_after(&[("e7", RED, Captain)], RED, ("e7", "e8")));
}

#[test]
fn each_kind_gives_check_to_red() {
    use PieceKind::*;
    assert!(check_after(&[("a1", BLUE, Car)], BLUE, ("a1", "a0")));
    assert!(check_after(&[("e4", BLUE, Horse)], BLUE, ("e4", "d2")));
    assert!(check_after(&[("a4", BLUE, Elephant)], BLUE, ("a4", "c2")));
    assert!(check_after(&[("g2", BLUE, Guard)], BLUE, ("g2", "f1")));
    assert!(check_after(&[("f2", BLUE, Soldier)], BLUE, ("f2", "f1")));
    assert!(check_after(&[("a6", BLUE, Duck)], BLUE, ("a6", "c3")));
}

#[test]
fn blocked_attackers_give_no_check() {
    use PieceKind::*;
    // The car's file is blocked by a piece of either side.
    assert!(!check_after(
        &[("a8", RED, Car), ("c9", BLUE, Guard)],
        RED,
        ("a8", "a9")
    ));
    assert!(!check_after(
        &[("a8", RED, Car), ("c9", RED, Guard)],
        RED,
        ("a8", "a9")
    ));
    // The horse at d7 attacks e9 through its leg d8: blocked.
    assert!(!check_after(
        &[("c5", RED, Horse), ("d8", BLUE, Soldier)],
        RED,
        ("c5", "d7")
    ));
    // The elephant at c7 attacks e9 through d8: blocked.
    assert!(!check_after(
        &[("a5", RED, Elephant), ("d8", BLUE, Elephant)],
        RED,
        ("a5", "c7")
    ));
    // The duck at c6 = (6,2) reaches e9 = (9,4) through c7 = (7,2) and d8 = (8,3).
    assert!(!check_after(
        &[("a3", RED, Duck), ("c7", BLUE, Soldier)],
        RED,
        ("a3", "c6")
    ));
    assert!(!check_after(
        &[("a3", RED, Duck), ("d8", BLUE, Elephant)],
        RED,
        ("a3", "c6")
    ));
    // A guard straight below the captain does not attack it.
    assert!(!check_after(&[("f7", RED, Guard)], RED, ("f7", "e8")));
}

#[test]
fn walking_into_attack_is_also_a_check() {
    use PieceKind::*;
    // Red moves its own captain next to a blue soldier: both directions count.
    assert!(check_after(&[("d2", BLUE, Soldier)], RED, ("e0", "e1")));
    // Blue moves a piece away and uncovers an attack on itself.
    assert!(check_after(
        &[("e4", RED, Car), ("e7", BLUE, Horse)],
        BLUE,
        ("e7", "c8")
    ));
    // Facing captains alone are no check: there are no flying captains.
    assert!(!check_after(&[], RED, ("e0", "d0")));
}

#[test]
fn captains_attack_each_other() {
    use PieceKind::*;
    let mut pos = Position::empty();
    pos.put(sq("e4"), Some(Piece::new(RED, Captain)));
    pos.put(sq("e6"), Some(Piece::new(BLUE, Captain)));
    let effect = pos.play_and_describe(Move::new(sq("e4"), sq("e5")));
    assert!(effect.check);
}

#[test]
fn no_check_once_the_game_is_over() {
    use PieceKind::*;
    let mut pos = Position::empty();
    pos.put(sq("e0"), Some(Piece::new(RED, Captain)));
    pos.put(sq("e9"), Some(Piece::new(BLUE, Captain)));
    pos.put(sq("e8"), Some(Piece::new(RED, Car)));
    pos.put(sq("e1"), Some(Piece::new(BLUE, Car)));
    // Red takes the captain while red's own captain stands attacked by the blue car.
    let effect = pos.play_and_describe(Move::new(sq("e8"), sq("e9")));
    assert_eq!(effect.captured, Some(Piece::new(BLUE, Captain)));
    assert!(effect.game_over);
    assert!(!effect.check);
    assert!(pos.attacks(BLUE, sq("e0")));
    assert!(!pos.is_legal(Move::new(sq("e1"), sq("e0"))));
}
