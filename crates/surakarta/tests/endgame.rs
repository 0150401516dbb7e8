//! The endgame tables against plain searches of the real game (`Position::play_legal` and
//! `Game::status`, no table code), and the symmetries the tables rely on.

use std::collections::HashMap;

use arbiter_core::{Game, MoveList, Side, Status};
use arbiter_surakarta::endgame::{Table, Tables, Wdl, LIMIT};
use arbiter_surakarta::{Board, Move, Point, Position};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A memo of solved states: the board, the side to move and the quiet moves made.
type Memo = HashMap<(Board, Side, u32), Wdl>;

/// A random 6×6 position with `ours` pieces for the side to move, `theirs` for the other, and
/// `left` quiet moves before the no-capture rule ends the game.
fn random_position(rng: &mut SmallRng, ours: usize, theirs: usize, left: u32) -> Position {
    let mut pos = Position::new(6, LIMIT).unwrap();
    pos.board = Board::empty(6).unwrap();
    pos.current_player = if rng.gen() { Side::First } else { Side::Second };
    for (side, count) in [
        (pos.current_player, ours),
        (pos.current_player.opponent(), theirs),
    ] {
        let mut placed = 0;
        while placed < count {
            let p = Point::new(rng.gen_range(0..6), rng.gen_range(0..6));
            if pos.board.get(p).is_none() {
                pos.board.set(p, Some(side));
                placed += 1;
            }
        }
    }
    pos.num_round = 100;
    pos.last_captured_round = 100 - (LIMIT - left);
    pos
}

/// The value for the side to move of the game after `mv` from `pos`, when it has ended.
fn ended(pos: &Position, child: &Position) -> Option<Wdl> {
    match Game::status(child) {
        Status::Ongoing => None,
        Status::Drawn => Some(Wdl::Draw),
        Status::Won(side) if side == pos.current_player => Some(Wdl::Win),
        Status::Won(_) => Some(Wdl::Loss),
    }
}

/// Plain minimax over the real game with a memo. After a capture, `after_capture` gives the
/// value (for the new side to move) or `None` to keep searching.
fn solve(pos: &Position, memo: &mut Memo, after_capture: &dyn Fn(&Position) -> Option<Wdl>) -> Wdl {
    let key = (pos.board.clone(), pos.current_player, pos.quiet_rounds());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut best = Wdl::Loss;
    for &mv in moves.iter() {
        let mut child = pos.clone();
        child.play_legal(mv);
        let value = match ended(pos, &child) {
            Some(v) => v,
            None if pos.board.get(mv.to()).is_some() => match after_capture(&child) {
                Some(v) => v.flip(),
                None => solve(&child, memo, after_capture).flip(),
            },
            None => solve(&child, memo, after_capture).flip(),
        };
        best = best.max(value);
        if best == Wdl::Win {
            break;
        }
    }
    memo.insert(key, best);
    best
}

/// How many of `count` random positions of the material, `left` drawn from `lefts`, the
/// `probe` values differently from `solve`.
#[allow(clippy::too_many_arguments)]
fn mismatches(
    seed: u64,
    (ours, theirs): (usize, usize),
    lefts: std::ops::RangeInclusive<u32>,
    count: usize,
    memo: &mut Memo,
    probe: &dyn Fn(&Position) -> Option<Wdl>,
    after_capture: &dyn Fn(&Position) -> Option<Wdl>,
) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut wrong = 0;
    for _ in 0..count {
        let left = rng.gen_range(lefts.clone());
        let pos = random_position(&mut rng, ours, theirs, left);
        let expected = solve(&pos, memo, after_capture);
        let got = probe(&pos).expect("the material is covered");
        if got != expected {
            wrong += 1;
            eprintln!(
                "{:?} left {left}: table {got:?}, search {expected:?}",
                pos.board
            );
        }
    }
    wrong
}

fn tables(max_pieces: usize) -> Tables {
    Tables::build(max_pieces, &mut |_| {})
}

#[test]
fn up_to_three_pieces_the_tables_equal_a_full_search_at_every_count() {
    let tables = tables(2);
    let mut memo = Memo::new();
    for (i, material) in [(1, 1), (2, 1), (1, 2)].into_iter().enumerate() {
        let wrong = mismatches(
            10 + i as u64,
            material,
            0..=LIMIT - 1,
            400,
            &mut memo,
            &|p| tables.probe(p),
            &|_| None,
        );
        assert_eq!(wrong, 0, "{material:?}");
    }
}

#[test]
fn two_against_two_equals_a_search_that_reads_smaller_tables_after_captures() {
    let tables = tables(2);
    let mut memo = Memo::new();
    let smaller = |p: &Position| tables.probe(p);
    for (lefts, count) in [(0..=3, 150), (4..=6, 12)] {
        let wrong = mismatches(20, (2, 2), lefts, count, &mut memo, &smaller, &smaller);
        assert_eq!(wrong, 0);
    }
}

#[test]
fn three_against_two_equals_a_search_near_the_limit() {
    let tables = Tables::build_materials(3, 5, &mut |_| {});
    assert!(tables.table(3, 2).is_some() && tables.table(3, 3).is_none());
    let mut memo = Memo::new();
    let smaller = |p: &Position| tables.probe(p);
    for (i, material) in [(3, 2), (2, 3), (3, 1), (1, 3)].into_iter().enumerate() {
        let wrong = mismatches(
            30 + i as u64,
            material,
            0..=2,
            60,
            &mut memo,
            &smaller,
            &smaller,
        );
        assert_eq!(wrong, 0, "{material:?}");
    }
}

/// The table's value of `pos` read with `left` quiet moves left instead of the real count.
fn read_at(tables: &Tables, pos: &Position, left: &dyn Fn(usize) -> usize) -> Option<Wdl> {
    let us = pos.current_player;
    let points = |side| -> Vec<u8> { pos.board.pieces(side).map(|q| q.y * 6 + q.x).collect() };
    let (ours, theirs) = (points(us), points(us.opponent()));
    let table = tables.table(ours.len(), theirs.len())?;
    let real = (LIMIT - pos.quiet_rounds()) as usize;
    Some(table.value(Table::locate(&ours, &theirs), left(real)))
}

#[test]
fn tables_read_at_the_wrong_count_are_caught() {
    let tables = tables(2);
    let one_off = |p: &Position| read_at(&tables, p, &|left| (left + 1).min(LIMIT as usize - 1));
    let smaller = |p: &Position| tables.probe(p);
    let mut memo = Memo::new();
    let wrong = mismatches(40, (2, 2), 0..=3, 150, &mut memo, &one_off, &smaller);
    assert!(wrong > 0, "a table one count off must fail the check");
    let no_count = |p: &Position| read_at(&tables, p, &|_| LIMIT as usize - 1);
    let wrong = mismatches(41, (2, 2), 0..=3, 150, &mut memo, &no_count, &smaller);
    assert!(
        wrong > 0,
        "a table that ignores the count must fail the check"
    );
}

/// The image of `p` under symmetry `s` of the square.
fn image(s: usize, p: Point) -> Point {
    let (x, y, m) = (p.x, p.y, 5);
    let (x, y) = match s {
        0 => (x, y),
        1 => (m - x, y),
        2 => (x, m - y),
        3 => (m - x, m - y),
        4 => (y, x),
        5 => (m - y, x),
        6 => (y, m - x),
        _ => (m - y, m - x),
    };
    Point::new(x, y)
}

fn moves_of(board: &Board, side: Side) -> Vec<Move> {
    let mut list = MoveList::new();
    board.moves(side, &mut list);
    let mut moves: Vec<Move> = list.iter().copied().collect();
    moves.sort();
    moves
}

#[test]
fn the_circuits_are_symmetric_under_the_square_and_the_colours() {
    let mut rng = SmallRng::seed_from_u64(50);
    for _ in 0..2000 {
        let (a, b) = (rng.gen_range(1..=8), rng.gen_range(1..=8));
        let pos = random_position(&mut rng, a, b, 10);
        let side = pos.current_player;
        let moves = moves_of(&pos.board, side);
        for s in 0..8 {
            let mut turned = Board::empty(6).unwrap();
            let mut swapped = Board::empty(6).unwrap();
            for y in 0..6 {
                for x in 0..6 {
                    let p = Point::new(x, y);
                    let piece = pos.board.get(p);
                    turned.set(image(s, p), piece);
                    swapped.set(p, piece.map(|q| q.opponent()));
                }
            }
            let mut expected: Vec<Move> = moves
                .iter()
                .map(|m| Move::new(image(s, m.from()), image(s, m.to())))
                .collect();
            expected.sort();
            assert_eq!(
                moves_of(&turned, side),
                expected,
                "symmetry {s} of {:?}",
                pos.board
            );
            assert_eq!(moves_of(&swapped, side.opponent()), moves);
        }
    }
}

#[test]
fn tables_value_turned_and_recoloured_positions_alike() {
    let tables = tables(2);
    let mut rng = SmallRng::seed_from_u64(60);
    for _ in 0..500 {
        let left = rng.gen_range(0..LIMIT);
        let pos = random_position(&mut rng, 2, 2, left);
        let value = tables.probe(&pos);
        for s in 0..8 {
            let mut other = pos.clone();
            other.board = Board::empty(6).unwrap();
            other.current_player = pos.current_player.opponent();
            for q in pos.board.pieces(Side::First) {
                other.board.set(image(s, q), Some(Side::Second));
            }
            for q in pos.board.pieces(Side::Second) {
                other.board.set(image(s, q), Some(Side::First));
            }
            assert_eq!(tables.probe(&other), value);
        }
    }
}

#[test]
fn probes_refuse_what_the_tables_do_not_cover() {
    let tables = tables(2);
    let mut rng = SmallRng::seed_from_u64(70);
    let pos = random_position(&mut rng, 2, 2, 5);
    assert!(tables.probe(&pos).is_some());
    let mut other_limit = pos.clone();
    other_limit.max_no_capture_round = 30;
    assert_eq!(tables.probe(&other_limit), None);
    assert_eq!(tables.probe(&random_position(&mut rng, 3, 2, 5)), None);
    assert_eq!(tables.probe(&Position::new(6, LIMIT).unwrap()), None);
}

#[test]
fn saved_tables_load_back_and_a_missing_directory_is_named() {
    let dir = std::env::temp_dir().join(format!("arbiter-tables-test-{}", std::process::id()));
    let tables = tables(2);
    tables.save(&dir).unwrap();
    assert_eq!(Tables::load(&dir).unwrap(), tables);
    let e = Tables::load(&dir.join("nowhere")).unwrap_err().to_string();
    assert!(e.contains("nowhere") && e.contains("arbiter tables"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Checks tables built by `arbiter tables surakarta --out DIR` against the search (1000
/// positions of 3 against 3 and 300 of every larger material the directory holds with 0-3 quiet
/// moves left, 20 with 4-5): `ARBITER_TABLES=DIR cargo test -p arbiter-surakarta --test endgame -- --ignored`.
#[test]
#[ignore]
fn built_tables_equal_a_search_near_the_limit() {
    let dir = std::env::var("ARBITER_TABLES").expect("ARBITER_TABLES names the directory");
    let tables = Tables::load(std::path::Path::new(&dir)).unwrap();
    assert!(tables.max_pieces() >= 3, "{}", tables.describe());
    let mut memo = Memo::new();
    let smaller = |p: &Position| tables.probe(p);
    let wrong = mismatches(80, (3, 3), 0..=3, 1000, &mut memo, &smaller, &smaller);
    assert_eq!(wrong, 0);
    let larger = [(4, 1), (1, 4), (4, 2), (2, 4), (4, 3), (3, 4), (4, 4)];
    for (i, material) in larger.into_iter().enumerate() {
        if tables.table(material.0, material.1).is_none() {
            continue;
        }
        for (lefts, count) in [(0..=3, 300), (4..=5, 20)] {
            let seed = 81 + i as u64;
            let wrong = mismatches(seed, material, lefts, count, &mut memo, &smaller, &smaller);
            assert_eq!(wrong, 0, "{material:?}");
        }
        eprintln!("{material:?}: 320 positions agree");
    }
}

#[test]
fn four_against_one_equals_a_search_near_the_limit() {
    let tables = Tables::build_materials(4, 5, &mut |_| {});
    assert!(tables.table(4, 1).is_some() && tables.table(3, 3).is_none());
    let mut memo = Memo::new();
    let smaller = |p: &Position| tables.probe(p);
    for (i, material) in [(4, 1), (1, 4)].into_iter().enumerate() {
        let wrong = mismatches(
            50 + i as u64,
            material,
            0..=3,
            60,
            &mut memo,
            &smaller,
            &smaller,
        );
        assert_eq!(wrong, 0, "{material:?}");
    }
}

#[test]
fn extending_tables_solves_only_what_is_missing_and_equals_a_fresh_build() {
    let mut said = Vec::new();
    let extended =
        Tables::build(2, &mut |_| {}).extend(3, 4, &mut |line| said.push(line.to_string()));
    assert_eq!(extended, Tables::build_materials(3, 4, &mut |_| {}));
    assert!(
        said.iter().any(|l| l.starts_with("1v3 and 3v1:")),
        "{said:?}"
    );
    assert!(!said.iter().any(|l| l.starts_with("2v2:")), "{said:?}");
    assert_eq!(extended.describe(), "up to 2 against 2, and 1v3 3v1");
}

#[test]
fn a_directory_with_some_tables_answers_for_those() {
    let dir = std::env::temp_dir().join(format!("arbiter-tables-part-{}", std::process::id()));
    let tables = Tables::build_materials(4, 5, &mut |_| {});
    tables.save(&dir).unwrap();
    std::fs::remove_file(dir.join("surakarta6-2v2.tbl")).unwrap();
    let read = Tables::load(&dir).unwrap();
    assert!(read.table(2, 2).is_none() && read.table(4, 1).is_some());
    assert_eq!(
        read.describe(),
        "up to 1 against 1, and 1v2 2v1 1v3 3v1 2v3 3v2 1v4 4v1"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn taking_the_second_last_piece_does_not_end_the_game() {
    // Why the tables start at one piece: checkmate is the capture of the last one.
    let mut rng = SmallRng::seed_from_u64(90);
    let (pos, capture) = loop {
        let pos = random_position(&mut rng, 2, 2, 20);
        let mut captures = MoveList::new();
        pos.board.captures(pos.current_player, &mut captures);
        if let Some(&mv) = captures.first() {
            break (pos, mv);
        }
    };
    let mut after = pos.clone();
    after.play_legal(capture);
    assert!(!after.is_over());
    assert_eq!(after.board.count(after.current_player), 1);
}
