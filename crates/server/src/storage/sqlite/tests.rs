//! The SQLite store's own tests (the contract every store keeps is in `storage/contract.rs`).

use super::*;
use arbiter_pgtest::TestDir;

/// A test's folder (declared before the store, so dropped after it) and its database.
fn temp(name: &str) -> (TestDir, std::path::PathBuf) {
    let dir = TestDir::new(&format!("arbiter-store-{name}-"));
    let path = dir.join("games.sqlite");
    (dir, path)
}

fn duck(room: u32, players: [&str; 2]) -> NewGame {
    NewGame {
        room,
        game: "duck".into(),
        settings: "{}".into(),
        players: players.map(String::from),
        owner: None,
        seat_tokens: [None, None],
        fence: None,
    }
}

fn played(game_id: i64, ply: usize, text: &str, reason: &str) -> PlayedMove {
    PlayedMove {
        game_id,
        ply,
        text: text.into(),
        reason: reason.into(),
        fence: None,
    }
}

#[tokio::test]
async fn a_failing_write_fails_alone_in_its_batch() {
    let (_dir, path) = temp("isolation");
    let store = Store::open(&path, &StoreOptions::default()).unwrap();
    let good = store.start_game(duck(1, ["a", "b"])).await.unwrap();
    // Another room's game whose moves the database refuses.
    let bad = store.start_game(duck(2, ["c", "d"])).await.unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch(&format!(
            "CREATE TRIGGER refuse BEFORE INSERT ON moves WHEN NEW.game_id = {bad}
             BEGIN SELECT RAISE(ABORT, 'refused'); END;"
        ))
        .unwrap();
    let (a, b, c) = tokio::join!(
        store.record_move(played(good, 1, "a0-a1", "LEGAL_NON_CAPTURE_MOVE")),
        store.record_move(played(bad, 1, "a0-a1", "LEGAL_NON_CAPTURE_MOVE")),
        store.record_move(played(good, 2, "a9-a8", "LEGAL_NON_CAPTURE_MOVE")),
    );
    assert!(a.is_ok() && c.is_ok(), "{a:?} {c:?}");
    assert!(b.unwrap_err().to_string().contains("refused"));
    assert_eq!(store.game(good).unwrap().unwrap().moves.len(), 2);
}

/// What made one server refuse moves under load (issue 79): a RESTART checkpoint holds the
/// write lock while it waits for a reader, and a write transaction that had read already
/// was refused at once. The writer now takes the lock as it begins, so it waits instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_waits_for_a_checkpoint_holding_the_write_lock_and_is_not_refused() {
    let (_dir, path) = temp("busy");
    let store = Store::open(&path, &StoreOptions::default()).unwrap();
    let id = store.start_game(duck(1, ["a", "b"])).await.unwrap();
    let move_at = move |ply: usize| played(id, ply, "a0-a1", "LEGAL_NON_CAPTURE_MOVE");
    store.record_move(move_at(1)).await.unwrap();
    // A reader's snapshot before move 2: a RESTART checkpoint must wait for it.
    let reader = Connection::open(&path).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let _: i64 = reader
        .query_row("SELECT count(*) FROM moves", [], |r| r.get(0))
        .unwrap();
    store.record_move(move_at(2)).await.unwrap();
    let checkpoint = std::thread::spawn({
        let path = path.clone();
        move || {
            let conn = Connection::open(&path).unwrap();
            conn.busy_timeout(Duration::from_secs(10)).unwrap();
            conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |r| r.get::<_, i64>(0))
        }
    });
    // The checkpoint takes the write lock and waits for the reader; a move comes meanwhile.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let third = tokio::spawn({
        let store = store.clone();
        async move { store.record_move(move_at(3)).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    reader.execute_batch("COMMIT").unwrap();
    assert_eq!(
        checkpoint.join().unwrap().unwrap(),
        0,
        "the checkpoint completed"
    );
    third.await.unwrap().unwrap();
    assert_eq!(store.game(id).unwrap().unwrap().moves.len(), 3);
    let tally = store.write_tally();
    assert_eq!((tally.writes, tally.refusals, tally.retries), (4, 0, 0));
}

#[tokio::test]
async fn only_the_writer_may_write() {
    let (_dir, path) = temp("readonly");
    let store = Store::open(&path, &StoreOptions::default()).unwrap();
    let e = store
        .readers
        .read(|conn| conn.execute("DELETE FROM games", []))
        .unwrap_err();
    assert!(e.to_string().contains("readonly"), "{e}");
}

/// Under writes that never pause, the writer starts the WAL over once it passes
/// `restart_bytes`, so the file stays within a few times that rather than growing with
/// every move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_starts_over_under_steady_writes() {
    let (_dir, path) = temp("wal");
    let policy = WalPolicy {
        checkpoint_every: Duration::from_millis(10),
        restart_bytes: 256 << 10,
    };
    let store = Store::open_with(&path, &StoreOptions::default(), policy).unwrap();
    let wal = format!("{}-wal", path.display());
    let (games, plies) = (20, 400);
    let mut writers = Vec::new();
    for room in 0..games {
        let store = store.clone();
        writers.push(tokio::spawn(async move {
            let id = store.start_game(duck(room, ["a", "b"])).await.unwrap();
            for ply in 1..=plies {
                store
                    .record_move(played(id, ply, "a0-a1", "LEGAL"))
                    .await
                    .unwrap();
            }
        }));
    }
    let mut largest = 0;
    while writers.iter().any(|w| !w.is_finished()) {
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    for w in writers {
        w.await.unwrap();
    }
    let stored = store.list_games(100, 0, None).unwrap();
    assert_eq!(stored.len(), games as usize);
    let moves: usize = (1..=games as i64)
        .map(|id| store.game(id).unwrap().unwrap().moves.len())
        .sum();
    assert_eq!(moves, (games as usize) * plies);
    // Without restarts these 8,000 moves leave about 24 MiB of WAL.
    assert!(largest < 8 << 20, "the WAL grew to {largest} bytes");
}

#[tokio::test]
async fn a_second_server_is_refused_and_only_the_newest_game_of_a_room_is_kept_running() {
    let (_dir, path) = temp("reopen");
    let id = {
        let store = Store::open(&path, &StoreOptions::default()).unwrap();
        let e = Store::open(&path, &StoreOptions::default()).err().unwrap();
        assert!(matches!(e, StorageError::Locked { .. }), "{e}");
        assert!(e.to_string().contains("another arbiter server"), "{e}");
        let id = store.start_game(duck(1, ["a", "b"])).await.unwrap();
        for (ply, mv) in ["a0-a1", "a9-a8"].iter().enumerate() {
            store
                .record_move(played(id, ply + 1, mv, "LEGAL"))
                .await
                .unwrap();
        }
        // The room's newer game, which the next server carries on.
        store.start_game(duck(1, ["a", "b"])).await.unwrap();
        store.start_game(duck(2, ["c", "d"])).await.unwrap();
        store.flush().await;
        id
    };
    // The first store is gone (its writer may still hold the file a moment).
    let mut reopened = Err(StorageError::ShutDown);
    for _ in 0..50 {
        reopened = Store::open(&path, &StoreOptions::default());
        if reopened.is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let store = reopened.unwrap();
    assert_eq!(store.interrupted_at_open, 1);
    let game = store.game(id).unwrap().unwrap();
    assert_eq!(game.end_reason.as_deref(), Some("INTERRUPTED"));
    assert_eq!(game.record.as_deref(), Some("a0-a1 a9-a8 X#"));
    assert_eq!(game.winner, Some(Winner::Nobody));
    // The newest game of each room is left for the server to restore.
    assert_eq!(store.live_rooms().await.unwrap(), [1, 2]);
    assert_eq!(store.live_game(1).unwrap().unwrap().id, id + 1);
}
