//! Claims, leases and attempts against a real PostgreSQL (started by the test): a batch is held
//! by one worker at a time, handed out again with the next attempt when its lease runs out, and
//! a result of an older attempt is refused; the SPRT's decision cancels what is left.

use std::time::Duration;

use arbiter_arena::GameOutcome;
use arbiter_pgtest::TestPostgres;
use arbiter_queue::{Player, Queue, QueueError, Reported, TestSpec};

fn spec(games: u32, batch_pairs: u32, sprt: Option<(f64, f64)>) -> TestSpec {
    let player = |name: &str| Player {
        name: name.into(),
        spec: "random".into(),
        engine: None,
    };
    TestSpec {
        game: "surakarta".into(),
        options: Vec::new(),
        players: vec![player("a"), player("b")],
        games,
        time_per_move_ms: 10,
        nodes_per_move: None,
        opening_plies: 4,
        suite: None,
        seed: 1,
        max_plies: None,
        resign: None,
        draw: None,
        sprt,
        batch_pairs,
    }
}

/// A game of pair `pair` won by entrant `winner` (`None`: drawn).
fn game(pair: usize, first: usize, winner: Option<usize>) -> GameOutcome {
    GameOutcome {
        index: 2 * pair + first,
        opening: pair,
        first,
        second: 1 - first,
        winner,
        reason: "test".into(),
        plies: 10,
        moves: Vec::new(),
        record: String::new(),
        record_file: None,
        stderr: Vec::new(),
    }
}

const LONG: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_batch_is_held_by_one_worker_and_its_lapsed_claim_goes_to_the_next_attempt() {
    let (url, _pg) = TestPostgres::start();
    let mut q = Queue::connect(&url).await.unwrap();
    let test = q.submit(&spec(4, 1, None)).await.unwrap();
    let (w1, w2) = (
        q.register_worker("w1", 1).await.unwrap(),
        q.register_worker("w2", 1).await.unwrap(),
    );
    // Two workers claiming at once from their own connections get different batches.
    let (q1, q2) = (
        Queue::connect(&url).await.unwrap(),
        Queue::connect(&url).await.unwrap(),
    );
    let (a, b) = tokio::join!(
        q1.claim(w1, Duration::from_millis(300), &[]),
        q2.claim(w2, LONG, &[])
    );
    let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
    assert_ne!(a.batch, b.batch);
    assert_eq!((a.attempt, b.attempt, a.test), (1, 1, test));
    assert!(q.claim(w2, LONG, &[]).await.unwrap().is_none(), "both held");
    assert!(!q.idle(&[]).await.unwrap());
    // w1 stops renewing; after its lease w2 gets its batch as attempt 2.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let again = q.claim(w2, LONG, &[]).await.unwrap().unwrap();
    assert_eq!((again.batch, again.attempt), (a.batch, 2));
    let pair = a.first_pair as usize;
    let games = [game(pair, 0, Some(0)), game(pair, 1, None)];
    let late = q.report(&a, w1, a.first_pair, &games).await.unwrap();
    assert!(
        matches!(&late, Reported::Refused { why } if why.contains("attempt 2 now")),
        "{late:?}"
    );
    let counted = q
        .report(&again, w2, again.first_pair, &games)
        .await
        .unwrap();
    assert_eq!(
        counted,
        Reported::Counted {
            state: "running".into()
        }
    );
    let status = &q.status(Some(test)).await.unwrap()[0];
    assert_eq!((status.games, status.wins, status.draws), (2, 1, 1));
    assert_eq!(status.pentanomial.counts, [0, 0, 0, 1, 0]);
    // The other batch's pair ends the test; nothing is left to claim.
    let pair = b.first_pair as usize;
    let last = [game(pair, 0, None), game(pair, 1, None)];
    let done = q.report(&b, w2, b.first_pair, &last).await.unwrap();
    assert_eq!(
        done,
        Reported::Counted {
            state: "finished".into()
        }
    );
    assert!(q.claim(w1, LONG, &[]).await.unwrap().is_none());
    assert!(q.idle(&[]).await.unwrap());
}

#[tokio::test]
async fn a_pair_counted_under_an_old_attempt_is_not_counted_again() {
    let (url, _pg) = TestPostgres::start();
    let mut q = Queue::connect(&url).await.unwrap();
    let test = q.submit(&spec(4, 2, None)).await.unwrap();
    let w1 = q.register_worker("w1", 1).await.unwrap();
    let w2 = q.register_worker("w2", 1).await.unwrap();
    let first = q
        .claim(w1, Duration::from_millis(200), &[])
        .await
        .unwrap()
        .unwrap();
    let games = [game(0, 0, Some(1)), game(0, 1, Some(1))];
    q.report(&first, w1, 0, &games).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let second = q.claim(w2, LONG, &[]).await.unwrap().unwrap();
    assert_eq!((second.attempt, second.done.clone()), (2, vec![0]));
    // A worker that plays the counted pair again anyway is told so, and it counts once.
    let again = q.report(&second, w2, 0, &games).await.unwrap();
    assert_eq!(
        again,
        Reported::AlreadyCounted {
            state: "running".into()
        }
    );
    let status = &q.status(Some(test)).await.unwrap()[0];
    assert_eq!((status.games, status.losses), (2, 2));
}

#[tokio::test]
async fn the_sprt_decides_in_the_report_and_cancels_the_batches_left() {
    let (url, pg) = TestPostgres::start();
    let mut q = Queue::connect(&url).await.unwrap();
    let test = q.submit(&spec(200, 1, Some((0.0, 10.0)))).await.unwrap();
    let w = q.register_worker("w", 1).await.unwrap();
    let mut state = String::from("running");
    let mut reports = 0;
    while state == "running" {
        let claim = q.claim(w, LONG, &[]).await.unwrap().expect("a batch left");
        let pair = claim.first_pair as usize;
        // The first player wins every game: H1 is accepted after a few pairs.
        let games = [game(pair, 0, Some(0)), game(pair, 1, Some(0))];
        match q.report(&claim, w, claim.first_pair, &games).await.unwrap() {
            Reported::Counted { state: now } => state = now,
            other => panic!("{other:?}"),
        }
        reports += 1;
    }
    assert_eq!(state, "H1 accepted");
    assert!(reports < 100, "{reports}");
    assert!(q.claim(w, LONG, &[]).await.unwrap().is_none());
    let cancelled = pg.psql(&format!(
        "SELECT count(*) FROM arena_batches WHERE test_id = {test} AND state = 'cancelled'"
    ));
    assert_eq!(cancelled.trim(), (100 - reports).to_string());
    let status = &q.status(Some(test)).await.unwrap()[0];
    assert!(
        status.text().contains("result: H1 accepted after"),
        "{}",
        status.text()
    );
}

#[tokio::test]
async fn a_queue_set_up_by_a_newer_arbiter_is_refused() {
    let (url, pg) = TestPostgres::start();
    // A reader finds no queue and says so without making one.
    let reader = Queue::connect_reader(&url).await.unwrap();
    assert!(reader.status(None).await.unwrap().is_empty());
    assert!(matches!(
        reader.status(Some(3)).await,
        Err(QueueError::NoSuchTest(3))
    ));
    drop(Queue::connect(&url).await.unwrap());
    pg.psql("INSERT INTO arena_schema_version (version, name) VALUES (99, 'future')");
    let e = Queue::connect(&url).await.err().unwrap();
    assert!(
        matches!(e, QueueError::SchemaTooNew { found: 99, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("schema version 99"), "{e}");
    let e = reader.status(None).await.unwrap_err();
    assert!(matches!(e, QueueError::SchemaTooNew { .. }), "{e}");
}
