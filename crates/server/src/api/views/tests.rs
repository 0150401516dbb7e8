//! The views the page asks for, checked on real games.
use arbiter_ai::Standard;

use super::*;

fn request(game: &str, moves: &[&str]) -> GameRequest {
    GameRequest {
        game: game.into(),
        moves: moves.iter().map(|s| s.to_string()).collect(),
        level: Some("easy".into()),
        seed: None,
        options: BTreeMap::new(),
    }
}

fn state(request: &GameRequest) -> Result<StateView, ViewError> {
    super::state::<Standard>(request)
}

fn ai(request: &GameRequest) -> Result<AiMove, ViewError> {
    super::ai::<Standard>(request, &AtomicBool::new(false))
}

#[test]
fn states_of_every_game() {
    let s = state(&request("surakarta", &["A2-A3"])).unwrap();
    assert_eq!((s.cols, s.rows, s.squares.len()), (6, 6, 36));
    assert_eq!(s.to_move, "WHITE");
    assert_eq!(s.last.unwrap().text, "A2-A3");
    assert_eq!(s.legal.len(), 16);
    let d = state(&request("duck", &[])).unwrap();
    assert_eq!(d.legal.len(), 43);
    let red_captain = d.squares.iter().find(|q| q.name == "e0").unwrap();
    assert_eq!((red_captain.col, red_captain.row), (4, 9));
    assert_eq!(red_captain.piece.as_ref().unwrap().kind, Some("captain"));
    let r = state(&request("rc02", &["a3-b3", "bogus"])).unwrap();
    assert_eq!(r.ply, 1);
    assert_eq!(r.rejected.unwrap().index, 1);
    let e = state(&request("chess", &[])).unwrap_err().to_string();
    assert_eq!(e, "unknown game `chess` (games: duck, surakarta, rc02)");
    let mut sized = request("rc02", &[]);
    sized.options.insert("size".into(), 8);
    assert_eq!(state(&sized).unwrap().cols, 8);
    sized.options.insert("size".into(), 7);
    assert_eq!(
        state(&sized).unwrap_err().to_string(),
        "rc02: size must be 4, 6, 8 or 10, not 7"
    );
}

#[test]
fn the_last_move_says_what_it_took() {
    let mut r = request("rc02", &["b1-b2", "c1-b1", "b4-b3"]);
    r.options.insert("size".into(), 4);
    let last = state(&r).unwrap().last.unwrap();
    assert!(last.capture);
    let taken: Vec<(&str, &str)> = last
        .captured
        .iter()
        .map(|q| (q.name.as_str(), q.piece.as_ref().unwrap().colour))
        .collect();
    assert_eq!(taken, [("b1", "BLUE")]);
    r.moves.pop();
    assert!(state(&r).unwrap().last.unwrap().captured.is_empty());
}

#[test]
fn the_moves_since_the_last_capture_are_counted_to_the_limit() {
    // Duck Chess drawn after four quiet moves: the count reaches the limit with the end.
    let mut duck = request("duck", &["a0-a1", "a9-a8", "a1-a0"]);
    duck.options.insert("max_no_capture_round".into(), 4);
    let s = state(&duck).unwrap();
    assert_eq!((s.quiet_plies, s.status), (3, "ongoing"));
    duck.moves.push("a8-a9".into());
    let s = state(&duck).unwrap();
    assert_eq!((s.quiet_plies, s.status), (4, "drawn"));
    // Surakarta's limit, by the course's rule: three quiet moves of three end the game.
    let mut sura = request("surakarta", &["A2-A3", "A5-A4"]);
    sura.options.insert("max_no_capture_round".into(), 3);
    assert_eq!(state(&sura).unwrap().quiet_plies, 2);
    sura.moves.push("B2-B3".into());
    let s = state(&sura).unwrap();
    // Equal pieces: drawn.
    assert_eq!((s.quiet_plies, s.status), (3, "drawn"));
    // A capture starts the count again.
    let mut rc = request("rc02", &["b1-b2", "c1-b1", "b4-b3"]);
    rc.options.insert("size".into(), 4);
    assert_eq!(state(&rc).unwrap().quiet_plies, 0);
    rc.moves.pop();
    assert_eq!(state(&rc).unwrap().quiet_plies, 2);
    assert_eq!(state(&request("duck", &[])).unwrap().quiet_plies, 0);
}

#[test]
fn capture_paths_for_the_page() {
    // Black on A2 takes white on B1 round the bottom-left arc (with C2 closing the other way).
    let mut start = arbiter_surakarta::Position::new(6, 40).unwrap();
    start.board = arbiter_surakarta::Board::empty(6).unwrap();
    for (x, y, side) in [
        (0, 1, Side::First),
        (2, 1, Side::First),
        (1, 0, Side::Second),
        (5, 5, Side::Second),
    ] {
        start
            .board
            .set(arbiter_surakarta::Point::new(x, y), Some(side));
    }
    let view = describe(start, &[]);
    let capture = view
        .legal
        .iter()
        .find(|m| m.text == "A2-B1")
        .expect("the capture is legal");
    let path = capture.path.as_ref().unwrap();
    assert!(
        path.iter().any(|p| matches!(
            p,
            PathView::Arc {
                radius: 1,
                col: 0,
                row: 5
            }
        )),
        "{path:?}"
    );
}

#[test]
fn the_ai_answers_and_analysis_warns() {
    let m = ai(&request("rc02", &[])).unwrap();
    assert!(m.text.is_some());
    for spec in ["alphabeta:hash=4096", "command:/bin/sh", ""] {
        let mut r = request("duck", &[]);
        r.level = Some(spec.into());
        let e = ai(&r).unwrap_err();
        assert!(matches!(e, ViewError::Level(_)), "{e}");
        assert!(e.to_string().contains("easy, medium or hard"), "{e}");
    }
    let limits = EvalLimits {
        depth: 3,
        time: std::time::Duration::from_millis(1000),
    };
    let stop = AtomicBool::new(false);
    let a = analyze_request::<Standard>(&request("surakarta", &[]), limits, &stop).unwrap();
    assert!(a.best.is_some());
    assert_eq!(a.pv.first(), a.best.as_ref());
    assert!(
        a.depth >= 1 && a.eval.win > 0.0 && a.eval.win < 1.0,
        "{a:?}"
    );
}

/// The analysis board's numbers are the first player's: a side a car down stands worse
/// whoever is to move, and a game over is scored by its end.
#[test]
fn evaluations_are_from_the_first_players_side() {
    let limits = EvalLimits {
        depth: 2,
        time: std::time::Duration::from_millis(500),
    };
    let stop = AtomicBool::new(false);
    let eval =
        |moves: &[&str]| evaluate_request::<Standard>(&request("rc02", moves), limits, &stop);
    let start = eval(&[]).unwrap();
    assert_eq!(start.pv.first(), start.best.as_ref());
    assert!(start.depth >= 1);
    // RC-02 4×4: red takes a blue piece; both after red's move and after blue's reply red is
    // ahead, so the first player's number is positive either way.
    let mut r = request("rc02", &["b1-b2", "c1-b1", "b4-b3"]);
    r.options.insert("size".into(), 4);
    let after = evaluate_request::<Standard>(&r, limits, &stop).unwrap();
    assert!(after.eval.win > 0.5, "{after:?}");
    let e = eval(&["a3-b3", "bogus"]).unwrap_err().to_string();
    assert!(e.starts_with("move 2 `bogus`"), "{e}");
}
