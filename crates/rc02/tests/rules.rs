//! The rules on hand-made positions: count patterns, touching blocks, both lines, the end.

use arbiter_core::{Game, MoveList, Side, Status};
use arbiter_rc02::{Cell, IllegalMove, Move, Position};

const RED: Side = Side::First;
const BLUE: Side = Side::Second;

fn pos(picture: &str, side: Side) -> Position {
    Position::from_picture(picture, side).expect("a valid picture")
}

/// Plays `from → to` (0-based `(row, col)`) and returns the captured cells, sorted.
fn play(p: &mut Position, from: (u8, u8), to: (u8, u8)) -> Vec<(u8, u8)> {
    let mv = Move::new(Cell::new(from.0, from.1), Cell::new(to.0, to.1));
    assert_eq!(p.check(mv), Ok(()), "{mv} in {p:?}");
    let mut captured: Vec<(u8, u8)> = p.play(mv).into_iter().map(|c| (c.row, c.col)).collect();
    captured.sort();
    captured
}

#[test]
fn four_by_four_patterns() {
    // (3, 2, 1): red completes "hhl." in row 2 and takes the blue piece.
    let mut p = pos("h... .hl. h... ...l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![(1, 2)]);
    // (3, 1, 2) captures only when N > 4.
    let mut p = pos("h... .ll. h..l ...l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![]);
    // (2, 1, 1) captures only when N > 4: blue makes ".hl." in row 3.
    let mut p = pos("h..l ..l. h... ...l", RED);
    assert_eq!(play(&mut p, (2, 0), (2, 1)), vec![]);
    assert_eq!(play(&mut p, (1, 2), (2, 2)), vec![]);
}

#[test]
fn six_by_six_patterns() {
    // (5, 4, 1)
    let mut p = pos("h..... .hhhl. h..... ...... ...... .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![(1, 4)]);
    // (5, 3, 2)
    let mut p = pos("h..... .hhll. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![(1, 3), (1, 4)]);
    // (4, 3, 1)
    let mut p = pos("h..... .hhl.. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![(1, 3)]);
    // (4, 2, 2) and (5, 2, 3) do not capture.
    let mut p = pos("h..... .hll.. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![]);
    let mut p = pos("h..... .hlll. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![]);
    // Blue captures the same way.
    let mut p = pos("h....l .hll.. h....l ...... ...l.. h....l", BLUE);
    assert_eq!(play(&mut p, (0, 5), (0, 4)), vec![]);
    assert_eq!(play(&mut p, (2, 0), (3, 0)), vec![]);
    assert_eq!(play(&mut p, (0, 4), (1, 4)), vec![(1, 1)]);
}

#[test]
fn blocks_must_touch_and_be_unbroken() {
    // Counts (4, 3, 1) but a gap between the blocks: no capture.
    let mut p = pos("h..... .hh.l. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![]);
    // A gap inside red's block: no capture.
    let mut p = pos("h..... .h.hl. h..... ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![]);
    // The blocks touch with empty cells only at the ends: capture.
    let mut p = pos("...... .lhh.. ....h. ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 4), (1, 4)), vec![(1, 1)]);
    // Blue on both sides of red's block: the colour changes twice, no capture.
    let mut p = pos("...... lhh.l. ...h.. ...... ...l.. .....l", RED);
    assert_eq!(play(&mut p, (2, 3), (1, 3)), vec![]);
}

#[test]
fn row_and_column_at_once() {
    // Red steps up from (4,3) to (3,3): row 4 becomes ".hhhl." and column 4 "lhhh..", each (4, 3, 1).
    let mut p = pos("...l.l ...h.. ...h.. .hh.l. ...h.l ....ll", RED);
    assert_eq!(play(&mut p, (4, 3), (3, 3)), vec![(0, 3), (3, 4)]);
    assert_eq!(p.count(BLUE), 4);
    assert_eq!(p.winner(), None);
}

#[test]
fn win_by_count() {
    // Blue has 3 pieces on 4x4 (N/2 = 2): taking one wins.
    let mut p = pos("h... .hl. h..l ...l", RED);
    assert_eq!(play(&mut p, (2, 0), (1, 0)), vec![(1, 2)]);
    assert_eq!(p.winner(), Some(RED));
    assert_eq!(Game::status(&p), Status::Won(RED));
    let mut none = MoveList::new();
    p.legal_moves(&mut none);
    assert!(none.is_empty());
    assert_eq!(
        p.check(Move::new(Cell::new(3, 3), Cell::new(3, 2))),
        Err(IllegalMove::GameOver)
    );
}

#[test]
fn win_by_leaving_the_other_side_without_a_move() {
    // Blue's three pieces in the top-right corner; red closes the last exit at (1, 2).
    let mut p = pos(".hll .h.l ...h h...", RED);
    assert!(p.has_move(BLUE));
    assert_eq!(play(&mut p, (1, 1), (1, 2)), vec![]);
    assert!(!p.has_move(BLUE));
    assert_eq!(p.count(BLUE), 3);
    assert_eq!(p.winner(), Some(RED));
}

#[test]
fn illegal_moves_of_every_kind() {
    let p = Position::initial(4).unwrap();
    assert_eq!(
        p.check_judge_move(0, 1, 1, 1),
        Err(IllegalMove::SourceOffBoard)
    );
    assert_eq!(
        p.check_judge_move(5, 1, 5, 2),
        Err(IllegalMove::SourceOffBoard)
    );
    assert_eq!(
        p.check_judge_move(2, 2, 2, 3),
        Err(IllegalMove::NotOwnPiece)
    );
    assert_eq!(
        p.check_judge_move(4, 2, 3, 2),
        Err(IllegalMove::NotOwnPiece)
    );
    assert_eq!(
        p.check_judge_move(1, 2, 0, 2),
        Err(IllegalMove::TargetOffBoard)
    );
    assert_eq!(
        p.check_judge_move(1, 1, 2, 1),
        Err(IllegalMove::TargetOccupied)
    );
    assert_eq!(p.check_judge_move(1, 2, 2, 3), Err(IllegalMove::NotOneStep));
    assert_eq!(p.check_judge_move(1, 2, 3, 2), Err(IllegalMove::NotOneStep));
    assert_eq!(
        p.check_judge_move(1, 2, 1, 2),
        Err(IllegalMove::TargetOccupied)
    );
    assert!(p.check_judge_move(1, 2, 2, 2).is_ok());
}
