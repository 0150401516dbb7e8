//! What every implementation of [`GameStore`] must do, run against each (a new implementation
//! adds its own line to the tests below). Each backend also says how a newer owner claims a
//! room, for the fencing case.

use std::time::Duration;

use super::*;
use crate::storage::leases::Leases;
use arbiter_pgtest::{TestDir, TestPostgres};

mod analyses;
mod players;

/// A newer owner takes room `room`: its epoch.
type Claim<'a> = &'a (dyn Fn(u32) -> BoxFuture<'static, u64> + Sync);

fn new_game(players: [&str; 2], owner: Option<&str>) -> NewGame {
    NewGame {
        room: 3,
        game: "surakarta".into(),
        settings: r#"{"game":"surakarta","size":6}"#.into(),
        players: players.map(String::from),
        owner: owner.map(String::from),
        seat_tokens: [None, None],
        fence: None,
    }
}

fn played(game_id: i64, ply: usize, text: &str) -> PlayedMove {
    PlayedMove {
        game_id,
        ply,
        text: text.into(),
        reason: "LEGAL_NON_CAPTURE_MOVE".into(),
        fence: None,
    }
}

fn ended(game_id: i64, record: &str) -> GameEnd {
    GameEnd {
        game_id,
        end_reason: "RESIGN".into(),
        winner: Winner::Second,
        record: record.into(),
        fence: None,
    }
}

/// Every case, the first on an empty store.
async fn keeps_the_contract(store: &dyn GameStore, claim: Claim<'_>) {
    keeps_games_moves_and_ends(store).await;
    stores_each_ply_once_and_in_order(store).await;
    refuses_a_former_owners_writes(store, claim).await;
    gives_a_rooms_live_game_back(store).await;
    players::keeps_names(store).await;
    players::keeps_ratings(store).await;
    analyses::keeps_analyses(store).await;
}

async fn keeps_games_moves_and_ends(store: &dyn GameStore) {
    let a = store
        .start_game(new_game(["ann", "bob"], None))
        .await
        .unwrap();
    let b = store
        .start_game(new_game(["cid", "ann"], Some("secret")))
        .await
        .unwrap();
    for (ply, text) in [(1, "A2-A3"), (2, "F5-E4"), (3, "B2-B3")] {
        store.record_move(played(a, ply, text)).await.unwrap();
    }
    store.truncate_moves(a, 2, None).await.unwrap();
    store.end_game(ended(a, "A2-A3 F5-E4 R#")).await.unwrap();
    store.flush().await;
    let game = store.game(a).await.unwrap().unwrap();
    let moves: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(moves, ["A2-A3", "F5-E4"]);
    assert_eq!(game.winner, Some(Winner::Second));
    assert_eq!(game.end_reason.as_deref(), Some("RESIGN"));
    assert_eq!(game.record.as_deref(), Some("A2-A3 F5-E4 R#"));
    assert_eq!((game.room, game.first.as_str()), (3, "ann"));
    assert_eq!(game.settings["size"], 6);
    assert!(game.ended_at.is_some());
    let everyone = GameQuery {
        limit: 10,
        ..GameQuery::default()
    };
    let ids: Vec<i64> = store
        .list_games(everyone)
        .await
        .unwrap()
        .iter()
        .map(|g| g.id)
        .collect();
    assert_eq!(ids, [b, a]);
    let bobs = GameQuery {
        limit: 10,
        offset: 0,
        player: Some("bob".into()),
    };
    assert_eq!(store.list_games(bobs).await.unwrap().len(), 1);
    let anns = GameQuery {
        limit: 1,
        offset: 1,
        player: Some("ann".into()),
    };
    let second_of_anns = store.list_games(anns).await.unwrap();
    assert_eq!(second_of_anns.iter().map(|g| g.id).collect::<Vec<_>>(), [a]);
    let owned = store.owned_game(b).await.unwrap().unwrap();
    assert_eq!(
        (owned.owner.as_deref(), owned.ended),
        (Some("secret"), false)
    );
    let owned = store.owned_game(a).await.unwrap().unwrap();
    assert_eq!((owned.ended, owned.moves.len()), (true, 2));
    assert!(store.game(b + 100).await.unwrap().is_none());
    assert!(store.owned_game(b + 100).await.unwrap().is_none());
}

/// Moves are keyed by (game, ply): never two at one ply, never a gap.
async fn stores_each_ply_once_and_in_order(store: &dyn GameStore) {
    let id = store.start_game(new_game(["a", "b"], None)).await.unwrap();
    store.record_move(played(id, 1, "A2-A3")).await.unwrap();
    // The very same move again (a retry) is stored once.
    store.record_move(played(id, 1, "A2-A3")).await.unwrap();
    let e = store.record_move(played(id, 1, "B2-B3")).await.unwrap_err();
    assert!(matches!(e, StorageError::PlyTaken { ply: 1, .. }), "{e}");
    let e = store.record_move(played(id, 3, "B2-B3")).await.unwrap_err();
    assert!(matches!(e, StorageError::PlySkipped { ply: 3, .. }), "{e}");
    let e = store.record_move(played(id, 0, "B2-B3")).await.unwrap_err();
    assert!(matches!(e, StorageError::PlySkipped { ply: 0, .. }), "{e}");
    let e = store.record_move(played(id + 1000, 1, "A2-A3")).await;
    assert!(matches!(e, Err(StorageError::NoGame(_))), "{e:?}");
    store.record_move(played(id, 2, "F5-E4")).await.unwrap();
    // Another move at a stored ply only after a takeback.
    store.truncate_moves(id, 1, None).await.unwrap();
    store.record_move(played(id, 2, "F5-F4")).await.unwrap();
    let moves = store.game(id).await.unwrap().unwrap().moves;
    let plies: Vec<(usize, &str)> = moves.iter().map(|m| (m.ply, m.text.as_str())).collect();
    assert_eq!(plies, [(1, "A2-A3"), (2, "F5-F4")]);
}

/// Once a newer owner has claimed a room, the former owner's writes are refused, whatever
/// they are; the new owner's and unfenced ones pass.
async fn refuses_a_former_owners_writes(store: &dyn GameStore, claim: Claim<'_>) {
    let room = 40;
    let old = Fence {
        room,
        epoch: claim(room).await,
    };
    let mut game = new_game(["a", "b"], None);
    (game.room, game.fence) = (room, Some(old));
    let id = store.start_game(game.clone()).await.unwrap();
    let fenced = |ply, text, fence| PlayedMove {
        fence: Some(fence),
        ..played(id, ply, text)
    };
    store.record_move(fenced(1, "A2-A3", old)).await.unwrap();
    let new = Fence {
        room,
        epoch: claim(room).await,
    };
    assert!(new.epoch > old.epoch);
    let refused = format!("room {room} has a newer owner (epoch {})", new.epoch);
    let check = |result: StorageResult<()>| {
        let e = result.unwrap_err();
        assert!(
            matches!(e, StorageError::Fenced { room: 40, epoch } if epoch == new.epoch),
            "{e}"
        );
        assert_eq!(e.to_string(), refused);
        assert!(e.is_permanent());
    };
    check(store.record_move(fenced(2, "F5-E4", old)).await);
    let end = GameEnd {
        fence: Some(old),
        ..ended(id, "A2-A3 R#")
    };
    check(store.end_game(end).await);
    check(store.truncate_moves(id, 0, Some(old)).await);
    check(store.start_game(game.clone()).await.map(drop));
    let kept = store.game(id).await.unwrap().unwrap();
    assert_eq!((kept.moves.len(), kept.ended_at), (1, None));
    // The new owner carries on; a write of no owner (one node alone) is never fenced.
    store.record_move(fenced(2, "F5-E4", new)).await.unwrap();
    store.record_move(played(id, 3, "B2-B3")).await.unwrap();
    let elsewhere = Fence { room: 41, epoch: 1 };
    store
        .record_move(fenced(4, "E4-D3", elsewhere))
        .await
        .unwrap();
    let end = GameEnd {
        fence: Some(new),
        ..ended(id, "A2-A3 F5-E4 B2-B3 E4-D3 R#")
    };
    store.end_game(end).await.unwrap();
    game.fence = Some(new);
    store.start_game(game).await.unwrap();
}

/// A room's next owner finds its running game with everything to carry it on.
async fn gives_a_rooms_live_game_back(store: &dyn GameStore) {
    let room = 50;
    assert!(store.live_game(room).await.unwrap().is_none());
    let mut game = new_game(["ann", "bob"], None);
    game.room = room;
    let done = store.start_game(game.clone()).await.unwrap();
    store.end_game(ended(done, "R#")).await.unwrap();
    game.seat_tokens = [Some("tok-ann".into()), None];
    let before = super::sqlite::now_ms();
    let live = store.start_game(game.clone()).await.unwrap();
    // A page's own game in the same room number is not a room's.
    let mut page = new_game(["me", "AI"], Some("secret"));
    page.room = room;
    store.start_game(page).await.unwrap();
    let texts = ["A2-A3", "F5-E4", "B2-B3"];
    for (i, text) in texts.iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(30)).await;
        store.record_move(played(live, i + 1, text)).await.unwrap();
    }
    let after = super::sqlite::now_ms();
    let got = store.live_game(room).await.unwrap().expect("a live game");
    assert_eq!(
        (got.id, got.room, got.game.as_str()),
        (live, room, "surakarta")
    );
    assert_eq!(got.players, ["ann".to_string(), "bob".to_string()]);
    assert_eq!(got.seat_tokens, [Some("tok-ann".to_string()), None]);
    let settings: serde_json::Value = serde_json::from_str(&got.settings).unwrap();
    assert_eq!(
        settings,
        serde_json::json!({"game": "surakarta", "size": 6})
    );
    let plies: Vec<(usize, &str)> = got.moves.iter().map(|m| (m.ply, m.text.as_str())).collect();
    assert_eq!(plies, [(1, "A2-A3"), (2, "F5-E4"), (3, "B2-B3")]);
    assert!(got
        .moves
        .iter()
        .all(|m| m.reason == "LEGAL_NON_CAPTURE_MOVE"));
    // Milliseconds since the epoch (PostgreSQL's clock is this machine's), 30 ms apart.
    let slack = 1000;
    assert!(
        (before - slack..=after + slack).contains(&got.started_at),
        "{got:?}"
    );
    for pair in got.moves.windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(
            (25..=after - before + slack).contains(&gap),
            "{gap} ms: {got:?}"
        );
    }
    assert!(got.moves[0].at >= got.started_at, "{got:?}");
    assert!(store.live_game(room + 1).await.unwrap().is_none());
    store.end_game(ended(live, "R#")).await.unwrap();
    assert!(store.live_game(room).await.unwrap().is_none());
}

#[tokio::test]
async fn sqlite_keeps_the_contract() {
    let (_dir, path) = temp_sqlite("contract");
    let store = Store::open(&path, &StoreOptions::default()).unwrap();
    // One node alone writes no lease; a newer owner is set by hand, as a claim would.
    let claim = move |room: u32| -> BoxFuture<'static, u64> {
        let path = path.clone();
        Box::pin(async move {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.busy_timeout(Duration::from_secs(5)).unwrap();
            conn.query_row(
                "INSERT INTO room_leases (room, node, epoch, expires_at) VALUES (?1, 'n', 1, 0)
                 ON CONFLICT (room) DO UPDATE SET epoch = epoch + 1 RETURNING epoch",
                [room],
                |r| r.get::<_, i64>(0),
            )
            .unwrap() as u64
        })
    };
    keeps_the_contract(&store, &claim).await;
}

#[tokio::test]
async fn memory_keeps_the_contract() {
    let store = Arc::new(memory::MemoryStore::default());
    let epochs = Arc::new(std::sync::Mutex::new(std::collections::HashMap::new()));
    let leases = store.clone();
    let claim = move |room: u32| -> BoxFuture<'static, u64> {
        let mut epochs = epochs.lock().unwrap();
        let epoch = epochs.entry(room).or_insert(0);
        *epoch += 1;
        leases.set_lease(room, *epoch);
        let epoch = *epoch;
        Box::pin(async move { epoch })
    };
    keeps_the_contract(store.as_ref(), &claim).await;
}

#[tokio::test]
async fn postgres_keeps_the_contract() {
    let (url, _pg) = TestPostgres::start();
    let store = PgStore::connect(&url).await.unwrap();
    // Real claims: each newer owner is another node, after the last one let its lease go.
    let leases = Arc::new(PgLeases::new(&store, Duration::from_secs(30)));
    let last: Arc<std::sync::Mutex<Option<(String, u64)>>> = Arc::default();
    let claim = move |room: u32| -> BoxFuture<'static, u64> {
        let (leases, last) = (leases.clone(), last.clone());
        Box::pin(async move {
            let previous = last.lock().unwrap().take();
            let node = match previous {
                Some((node, epoch)) => {
                    leases.release(room, &node, epoch).await.unwrap();
                    format!("{node}+")
                }
                None => "node".to_string(),
            };
            let epoch = leases.claim(room, &node).await.unwrap().expect("lapsed");
            *last.lock().unwrap() = Some((node, epoch));
            epoch
        })
    };
    keeps_the_contract(&store, &claim).await;
}

/// A test's folder (declared before the store, so dropped after it) and its database.
fn temp_sqlite(name: &str) -> (TestDir, PathBuf) {
    let dir = TestDir::new(&format!("arbiter-{name}-"));
    let path = dir.join("games.sqlite");
    (dir, path)
}

#[tokio::test]
async fn sqlite_refuses_a_newer_schema_naming_both_versions() {
    let (_dir, path) = temp_sqlite("newer-schema");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(conn);
    let e = Store::open(&path, &StoreOptions::default()).err().unwrap();
    let text = e.to_string();
    let supported = migrations::latest(migrations::SQLITE);
    assert!(
        matches!(e, StorageError::SchemaTooNew { found: 99, .. }),
        "{text}"
    );
    assert!(text.contains("schema version 99"), "{text}");
    assert!(text.contains(&format!("version {supported}")), "{text}");
    assert!(text.contains("games.sqlite"), "{text}");
}

#[tokio::test]
async fn postgres_refuses_a_newer_schema_naming_both_versions() {
    let (url, pg) = TestPostgres::start();
    drop(PgStore::connect(&url).await.unwrap());
    pg.psql("INSERT INTO schema_version (version, name) VALUES (99, 'from the future')");
    let e = PgStore::connect(&url).await.err().unwrap();
    let text = e.to_string();
    assert!(
        matches!(e, StorageError::SchemaTooNew { found: 99, .. }),
        "{text}"
    );
    let supported = migrations::latest(migrations::POSTGRES);
    assert!(text.contains(&format!("version {supported}")), "{text}");
    assert!(
        text.contains(&format!("127.0.0.1:{}/arbiter", pg.port())),
        "{text}"
    );
    // Opening again and again migrates nothing twice.
    let fresh = pg.create_database("again");
    drop(PgStore::connect(&fresh).await.unwrap());
    drop(PgStore::connect(&fresh).await.unwrap());
}

/// A database of an arbiter from before numbered migrations (no `owner` column, version 0)
/// opens, is migrated, and keeps its games.
#[tokio::test]
async fn sqlite_migrates_a_database_from_before_versions() {
    let (_dir, path) = temp_sqlite("unversioned");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE games (id INTEGER PRIMARY KEY, room INTEGER NOT NULL, game TEXT NOT NULL,
             settings TEXT NOT NULL, first_player TEXT NOT NULL, second_player TEXT NOT NULL,
             started_at INTEGER NOT NULL, ended_at INTEGER, end_reason TEXT, winner INTEGER,
             record TEXT);
         CREATE TABLE moves (game_id INTEGER NOT NULL REFERENCES games(id),
             ply INTEGER NOT NULL, text TEXT NOT NULL, reason TEXT NOT NULL,
             at INTEGER NOT NULL, PRIMARY KEY (game_id, ply));
         CREATE INDEX games_by_player ON games (first_player, second_player);
         INSERT INTO games VALUES (1, 2, 'duck', '{}', 'a', 'b', 5, 9, 'RESIGN', 1, 'a0-a1 R#');
         INSERT INTO moves VALUES (1, 1, 'a0-a1', 'LEGAL', 7);",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path, &StoreOptions::default()).unwrap();
    let game = store.game(1).unwrap().unwrap();
    assert_eq!((game.first.as_str(), game.moves.len()), ("a", 1));
    let id = GameStore::start_game(&store, new_game(["c", "d"], Some("s")))
        .await
        .unwrap();
    assert_eq!(
        store.owned_game(id).unwrap().unwrap().owner.as_deref(),
        Some("s")
    );
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, migrations::latest(migrations::SQLITE));
}

#[tokio::test]
async fn postgres_out_of_reach_is_named_without_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://zoe:s3cret@127.0.0.1:{port}/games");
    let location = DbLocation::parse(&url).unwrap();
    assert_eq!(location.to_string(), format!("127.0.0.1:{port}/games"));
    assert!(!format!("{location:?}").contains("s3cret"));
    let e = open(&location, &StoreOptions::default())
        .await
        .err()
        .unwrap();
    let text = e.to_string();
    assert!(matches!(e, StorageError::Unreachable { .. }), "{text}");
    assert!(
        text.contains(&format!("PostgreSQL at 127.0.0.1:{port}/games")),
        "{text}"
    );
    assert!(!text.contains("s3cret") && !text.contains("zoe"), "{text}");
}

#[test]
fn a_db_location_is_a_file_unless_it_is_a_postgres_url() {
    let parse = |s: &str| DbLocation::parse(s).unwrap();
    assert_eq!(
        parse("games.sqlite"),
        DbLocation::Sqlite("games.sqlite".into())
    );
    assert_eq!(parse("./postgres"), DbLocation::Sqlite("./postgres".into()));
    for url in ["postgres://a@h:1/d", "postgresql://a@h/d"] {
        assert_eq!(parse(url), DbLocation::Postgres(url.into()));
    }
    let e = DbLocation::parse("postgres://a@h:notaport/d").unwrap_err();
    assert!(e.to_string().contains("invalid PostgreSQL URL"), "{e}");
}
