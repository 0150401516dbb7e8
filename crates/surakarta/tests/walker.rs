//! Property test: the fast capture generator (and the reference's list, as a set) against a slow,
//! obvious track walker that steps point by point and turns round the arcs by the rules page's
//! definitions, on random positions of every size.

use std::collections::BTreeSet;

use arbiter_core::{Game, MoveList, Side};
use arbiter_surakarta::{reference, Board, Point, Position};
use proptest::prelude::*;

/// A move as its two points.
type Point2 = (Point, Point);

/// The circuit a row or column line belongs to (`k = 1 ..= n/2-1`), if any.
fn circuit_of_line(i: i64, n: i64) -> Option<i64> {
    let k = i.min(n - 1 - i);
    (k >= 1).then_some(k)
}

/// Where the track continues after leaving the board at `(x, y)` moving `(dx, dy)`: the arcs of
/// the rules page, written out case by case.
fn round_the_arc(x: i64, y: i64, dx: i64, dy: i64, n: i64) -> (i64, i64, i64, i64) {
    let m = n - 1;
    if dx == 0 {
        let k = circuit_of_line(x, n).unwrap();
        let row = if dy < 0 { k } else { m - k };
        if x == k {
            (0, row, 1, 0)
        } else {
            (m, row, -1, 0)
        }
    } else {
        let k = circuit_of_line(y, n).unwrap();
        let col = if dx < 0 { k } else { m - k };
        if y == k {
            (col, 0, 0, 1)
        } else {
            (col, m, 0, -1)
        }
    }
}

fn slow_captures(board: &Board, side: Side) -> BTreeSet<(Point, Point)> {
    let n = board.size() as i64;
    let mut out = BTreeSet::new();
    for from in board.pieces(side).collect::<Vec<_>>() {
        let (fx, fy) = (from.x as i64, from.y as i64);
        let mut directions = vec![];
        if circuit_of_line(fy, n).is_some() {
            directions.extend([(1, 0), (-1, 0)]);
        }
        if circuit_of_line(fx, n).is_some() {
            directions.extend([(0, 1), (0, -1)]);
        }
        for (mut dx, mut dy) in directions {
            let (mut x, mut y, mut arcs) = (fx, fy, 0);
            for _ in 0..(4 * n * 2) {
                let (nx, ny) = (x + dx, y + dy);
                if nx < 0 || ny < 0 || nx >= n || ny >= n {
                    (x, y, dx, dy) = round_the_arc(x, y, dx, dy, n);
                    arcs += 1;
                } else {
                    (x, y) = (nx, ny);
                }
                let here = Point::new(x as u8, y as u8);
                if here == from {
                    continue;
                }
                if let Some(owner) = board.get(here) {
                    if owner != side && arcs > 0 {
                        out.insert((from, here));
                    }
                    break;
                }
            }
        }
    }
    out
}

fn random_board(n: u8, density: f64, seed: u64) -> Board {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut board = Board::empty(n).unwrap();
    let mut counts = [0usize; 2];
    for y in 0..n {
        for x in 0..n {
            if rng.gen_bool(density) {
                let side = if rng.gen_bool(0.5) {
                    Side::First
                } else {
                    Side::Second
                };
                if counts[side.index()] < 2 * n as usize {
                    counts[side.index()] += 1;
                    board.set(Point::new(x, y), Some(side));
                }
            }
        }
    }
    board
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn fast_captures_agree_with_the_track_walker(
        size in prop::sample::select(vec![6u8, 8, 10, 12]),
        density in 0.05f64..0.7,
        seed in any::<u64>(),
    ) {
        let board = random_board(size, density, seed);
        for side in Side::BOTH {
            let slow = slow_captures(&board, side);
            let mut moves = MoveList::new();
            board.moves(side, &mut moves);
            let fast_list: Vec<(Point, Point)> = moves
                .iter()
                .filter(|m| board.get(m.to()).is_some())
                .map(|m| (m.from(), m.to()))
                .collect();
            let fast: BTreeSet<(Point, Point)> = fast_list.iter().copied().collect();
            prop_assert_eq!(fast_list.len(), fast.len(), "duplicate captures in the move list");
            prop_assert_eq!(&fast, &slow, "board:\n{:?}", board);
            for &(from, to) in &slow {
                prop_assert!(board.capture_path(from, to).is_some());
            }
            let mut state = Position::new(size, 40).unwrap();
            state.board = board.clone();
            state.current_player = side;
            let listed: BTreeSet<(Point, Point)> = reference::capture_list(&state, side)
                .iter()
                .map(|m| (m.from(), m.to()))
                .collect();
            prop_assert_eq!(&listed, &slow);
            // Quiescence search asks the game for its captures alone: the same moves, in order.
            let mut captures = MoveList::new();
            Game::capture_moves(&state, &mut captures);
            let captures: Vec<(Point, Point)> =
                captures.iter().map(|m| (m.from(), m.to())).collect();
            prop_assert_eq!(&captures, &fast_list);
        }
    }

    /// The quick counts (the evaluation's capture summaries of both sides included) and the
    /// "any move" test agree with the move list, on boards so full that many sides have no
    /// step at all.
    #[test]
    fn counts_and_any_move_agree_with_the_list(
        size in prop::sample::select(vec![6u8, 8, 10, 12]),
        density in 0.3f64..1.0,
        seed in any::<u64>(),
    ) {
        let board = random_board(size, density, seed);
        for side in Side::BOTH {
            let mut moves = MoveList::new();
            board.moves(side, &mut moves);
            prop_assert_eq!(board.count_moves(side), moves.len() as u64);
            prop_assert_eq!(board.has_move(side), !moves.is_empty(), "board:\n{:?}", board);
            let steps = moves.iter().filter(|m| board.get(m.to()).is_none()).count();
            prop_assert_eq!(board.step_count(side), steps as u32);
            prop_assert_eq!(board.step_counts()[side.index()], steps as u32);
            let victims: BTreeSet<Point> = moves
                .iter()
                .filter(|m| board.get(m.to()).is_some())
                .map(|m| m.to())
                .collect();
            let summary = ((moves.len() - steps) as u32, victims.len() as u32);
            prop_assert_eq!(board.capture_summary(side), summary, "board:\n{:?}", board);
        }
    }

    /// `choose_move` (random playouts) picks each move of the list with the same chance: every
    /// first draw gives a move of the list or is drawn again, and each move is given by exactly
    /// one first draw, on boards empty and crowded.
    #[test]
    fn choose_move_gives_every_move_the_same_chance(
        size in prop::sample::select(vec![6u8, 8, 10, 12]),
        density in 0.05f64..1.0,
        seed in any::<u64>(),
    ) {
        let board = random_board(size, density, seed);
        for side in Side::BOTH {
            let mut moves = MoveList::new();
            board.moves(side, &mut moves);
            let listed: BTreeSet<Point2> = moves.iter().map(|m| (m.from(), m.to())).collect();
            let mut total = None;
            let first = board.choose_move(side, |count| {
                total.get_or_insert(count);
                0
            });
            let total = total.unwrap_or(0);
            prop_assert_eq!(first.is_none(), moves.is_empty());
            // For each move: the first draws that give it (a draw again answers 0, which is
            // always kept).
            let mut draws: std::collections::BTreeMap<Point2, u32> = Default::default();
            for index in 0..total {
                let mut counts = vec![];
                let mv = board.choose_move(side, |count| {
                    counts.push(count);
                    if counts.len() == 1 { index } else { 0 }
                });
                let calls = counts.len();
                prop_assert!(calls <= 2 && counts.iter().all(|&c| c == total));
                let mv = mv.expect("a side with moves gets one");
                if calls == 1 {
                    *draws.entry((mv.from(), mv.to())).or_insert(0) += 1;
                }
            }
            let picked: BTreeSet<Point2> = draws.keys().copied().collect();
            prop_assert_eq!(&picked, &listed, "board:\n{:?}", board);
            for (mv, count) in draws {
                prop_assert_eq!(count, 1, "{:?} on\n{:?}", mv, board);
            }
        }
    }
}
