//! Hand-made capture positions: arcs counted, self-passing, blocking, crossings, every size.

use arbiter_core::{Game, MoveList, Side, Status};
use arbiter_surakarta::{Board, Move, PathNode, Point, Position};

const B: Side = Side::First;
const W: Side = Side::Second;

fn board(n: u8, pieces: &[(u8, u8, Side)]) -> Board {
    let mut b = Board::empty(n).unwrap();
    for &(x, y, side) in pieces {
        b.set(Point::new(x, y), Some(side));
    }
    b
}

fn p(x: u8, y: u8) -> Point {
    Point::new(x, y)
}

fn arcs(path: &[PathNode]) -> usize {
    path.iter()
        .filter(|n| matches!(n, PathNode::Arc { .. }))
        .count()
}

/// The capture's route: it must exist, start and end where asked, and go round `arcs` arcs.
fn assert_capture(b: &Board, from: Point, to: Point, expected_arcs: usize) {
    assert!(
        b.can_capture(from, to),
        "{from}x{to} should capture on\n{b:?}"
    );
    let path = b.capture_path(from, to).expect("a capture has a path");
    assert_eq!(path.first(), Some(&PathNode::Point(from)));
    assert_eq!(path.last(), Some(&PathNode::Point(to)));
    assert_eq!(arcs(&path), expected_arcs, "{from}x{to}: {path:?}");
}

#[test]
fn captures_through_one_to_four_arcs() {
    // On 6x6, circuit 1 is rows 1, 4 and columns 1, 4. From (0,1) leftwards the track goes round
    // the corner (0,0) into column 1, up to row 5, round (0,5) into row 4, round (5,5) into
    // column 4 going down, round (5,0) into row 1 from the right. A black piece on (2,1) closes
    // the way round in the other direction.
    assert_capture(
        &board(6, &[(0, 1, B), (2, 1, B), (1, 0, W)]),
        p(0, 1),
        p(1, 0),
        1,
    );
    assert_capture(
        &board(6, &[(0, 1, B), (2, 1, B), (0, 4, W)]),
        p(0, 1),
        p(0, 4),
        2,
    );
    assert_capture(
        &board(6, &[(0, 1, B), (2, 1, B), (4, 5, W)]),
        p(0, 1),
        p(4, 5),
        3,
    );
    assert_capture(
        &board(6, &[(0, 1, B), (2, 1, B), (5, 1, W)]),
        p(0, 1),
        p(5, 1),
        4,
    );
}

#[test]
fn no_capture_without_an_arc() {
    let b = board(6, &[(0, 1, B), (3, 1, W)]);
    // Rightwards along row 1 it meets (3,1) with no arc; leftwards it goes all the way round
    // and meets (3,1) from the other side after four arcs.
    assert_capture(&b, p(0, 1), p(3, 1), 4);
    let b = board(6, &[(0, 1, B), (3, 1, W), (5, 1, B)]);
    assert!(!b.can_capture(p(0, 1), p(3, 1)));
}

#[test]
fn a_piece_passes_over_its_own_start() {
    // (1,1) lies on row 1 and column 1 of circuit 1: down column 1, round (0,0), along row 1
    // through (1,1) itself to (3,1).
    let b = board(6, &[(1, 1, B), (3, 1, W), (1, 4, B), (4, 1, B)]);
    assert_capture(&b, p(1, 1), p(3, 1), 1);
    let path = b.capture_path(p(1, 1), p(3, 1)).unwrap();
    let visits = path
        .iter()
        .filter(|n| **n == PathNode::Point(p(1, 1)))
        .count();
    assert_eq!(visits, 2, "{path:?}");
}

#[test]
fn blocked_by_either_side() {
    // (0,1) reaches (0,4) up column 1 (two arcs) and, the other way, along row 1, up column 4
    // and back along row 4 (two arcs).
    let open = board(6, &[(0, 1, B), (0, 4, W)]);
    assert_capture(&open, p(0, 1), p(0, 4), 2);
    let one_way_blocked = board(6, &[(0, 1, B), (0, 4, W), (1, 3, B)]);
    assert_capture(&one_way_blocked, p(0, 1), p(0, 4), 2);
    let own = board(6, &[(0, 1, B), (0, 4, W), (1, 3, B), (3, 4, B)]);
    assert!(!own.can_capture(p(0, 1), p(0, 4)));
    let theirs = board(6, &[(0, 1, B), (0, 4, W), (1, 3, W), (3, 4, W)]);
    assert!(!theirs.can_capture(p(0, 1), p(0, 4)));
    assert_capture(&theirs, p(0, 1), p(1, 3), 1);
    assert_capture(&theirs, p(0, 1), p(3, 4), 2);
}

#[test]
fn captures_from_a_crossing_of_two_circuits() {
    // (2,1) is on column 2 (circuit 2) and row 1 (circuit 1).
    let b = board(6, &[(2, 1, B), (0, 2, W), (0, 1, W)]);
    // Circuit 2: down column 2, round (0,0), into row 2 from the left: (0,2).
    assert_capture(&b, p(2, 1), p(0, 2), 1);
    // Circuit 1: leftwards along row 1 it meets (0,1) with no arc; rightwards it goes round all
    // four arcs and meets (0,1) from the left.
    assert_capture(&b, p(2, 1), p(0, 1), 4);
    let blocked = board(6, &[(2, 1, B), (0, 2, W), (0, 1, W), (4, 1, B)]);
    assert!(!blocked.can_capture(p(2, 1), p(0, 1)));
    assert_capture(&blocked, p(2, 1), p(0, 2), 1);
}

#[test]
fn larger_boards() {
    // 8x8, circuit 3 (rows/columns 3 and 4): from (0,3) leftwards round (0,0) into column 3.
    assert_capture(&board(8, &[(0, 3, B), (3, 0, W)]), p(0, 3), p(3, 0), 1);
    assert_capture(&board(8, &[(0, 3, B), (0, 4, W)]), p(0, 3), p(0, 4), 2);
    // 12x12, circuit 5: rows/columns 5 and 6; circuit 1 on the outside.
    assert_capture(&board(12, &[(0, 5, B), (5, 0, W)]), p(0, 5), p(5, 0), 1);
    assert_capture(
        &board(12, &[(0, 1, B), (2, 1, B), (10, 11, W)]),
        p(0, 1),
        p(10, 11),
        3,
    );
    assert_capture(&board(12, &[(1, 1, B), (6, 1, W)]), p(1, 1), p(6, 1), 1);
    let blocked = board(12, &[(0, 1, B), (2, 1, B), (10, 11, W), (6, 10, W)]);
    assert!(!blocked.can_capture(p(0, 1), p(10, 11)));
    assert_capture(&blocked, p(0, 1), p(6, 10), 2);
}

#[test]
fn moves_are_distinct_even_when_two_routes_reach_a_target() {
    // Only the two pieces on circuit 1: (1,1) reaches (5,1) the long way round both lines.
    let b = board(6, &[(1, 1, W), (5, 1, B)]);
    let mut moves = MoveList::new();
    b.moves(W, &mut moves);
    let captures: Vec<&Move> = moves.iter().filter(|m| m.to() == p(5, 1)).collect();
    assert_eq!(captures.len(), 1);
}

#[test]
fn a_trapped_side_loses_through_the_game_trait() {
    let mut text = String::new();
    // Black's only piece sits in a corner (on no circuit) walled in by white.
    let rows = [
        "B W . . . .",
        "W W . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
    ];
    for row in rows {
        text.push_str(row);
        text.push_str(" \n");
    }
    text.push_str("current_player: B\nnum_round: 5\nlast_captured_round: 0\nend_reason: NONE\nwinner: .\nmax_no_capture_round: 40\n");
    let state = Position::from_position_file(&text).unwrap();
    let mut moves = MoveList::new();
    state.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(Game::status(&state), Status::Won(W));
}
