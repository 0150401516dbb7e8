//! The load test plays every registered game against a server in this process, and every
//! stored game matches what its bots saw.

use std::time::Duration;

use arbiter_ai::registry::{self, Standard};
use arbiter_loadtest::{run, LoadtestOptions};
use arbiter_server::ServerConfig;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_play_every_game_and_the_stored_games_match() {
    let dir = std::env::temp_dir().join(format!("arbiter-loadtest-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = ServerConfig {
        tcp: "127.0.0.1:0".parse().unwrap(),
        http: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("games.sqlite").into(),
        ..ServerConfig::default()
    };
    let server = arbiter_server::start::<Standard>(config).await.unwrap();
    for (n, def) in registry::games::<Standard>().into_iter().enumerate() {
        let options = LoadtestOptions {
            game: def.id.to_string(),
            games: 3,
            addr: Some(server.tcp_addr),
            http: Some(server.http_addr),
            think: Duration::ZERO,
            seed: n as u64 + 1,
            server_exe: "unused".into(),
        };
        let report = run::<Standard>(&options).await.unwrap();
        assert_eq!(report.errors, 0, "{}: {report}", def.id);
        assert_eq!(report.completed, 3, "{}: {report}", def.id);
        assert_eq!(report.verified, Some(3), "{}: {report}", def.id);
        assert!(report.moves > 0);
    }
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_unknown_game_is_refused_with_the_list() {
    let options = LoadtestOptions {
        game: "chess".into(),
        games: 1,
        addr: None,
        http: None,
        think: Duration::ZERO,
        seed: 1,
        server_exe: "unused".into(),
    };
    let e = run::<Standard>(&options).await.unwrap_err();
    assert_eq!(e, "unknown game `chess` (games: duck, surakarta, rc02)");
}
