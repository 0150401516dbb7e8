//! `arbiter serve --db postgres://…`: the real binary on a PostgreSQL database of its own (started
//! by the test, see `storage::postgres::testing`) plays a course game between two
//! `arbiter connect` clients and a page's game over the HTTP API, and gives both back from
//! `GET /api/games/{id}` — also after a restart of the server.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_pgtest::TestPostgres;
use common::{arbiter, free_port, http, start_server_on, TestDir};

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-pg-{name}-"))
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The server's record of the last finished game, once it has written it (up to 5 s).
fn server_record(dir: &std::path::Path) -> String {
    let latest = dir.join("records").join("latest.txt");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !latest.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&latest).unwrap()
}

/// Two `arbiter connect` clients play a course game in room 5; the server's record.
fn play_a_course_game(dir: &std::path::Path, tcp: u16) -> String {
    let clients: Vec<_> = [("BLACK", "team_a"), ("WHITE", "team_b")]
        .iter()
        .map(|(colour, name)| {
            Command::new(env!("CARGO_BIN_EXE_arbiter"))
                .args(["connect", "127.0.0.1", &tcp.to_string(), colour])
                .args([
                    "--name",
                    name,
                    "--player",
                    "alphabeta:depth=1",
                    "--room",
                    "5",
                ])
                .arg("--record")
                .arg(dir.join(format!("{name}.txt")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in clients {
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{said}");
    }
    let record = server_record(dir);
    assert_eq!(
        std::fs::read_to_string(dir.join("team_a.txt")).unwrap(),
        record
    );
    record
}

/// The stored course game, as `GET /api/games/{id}` gives it, matches the record; its id.
fn check_stored_course_game(http_port: u16, record: &str) -> i64 {
    let (status, body) = http(http_port, "GET", "/api/games?player=team_a", "");
    assert_eq!(status, 200, "{body}");
    let id = json(&body)[0]["id"]
        .as_i64()
        .expect("the course game is listed");
    let (status, body) = http(http_port, "GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200, "{body}");
    let game = json(&body);
    assert_eq!(game["room"], 5, "{game}");
    assert_eq!(game["record"].as_str(), Some(record), "{game}");
    let moves = game["moves"].as_array().unwrap();
    let texts: Vec<&str> = moves.iter().map(|m| m["move"].as_str().unwrap()).collect();
    let (played, _end) = record.rsplit_once(' ').unwrap_or(("", record));
    assert_eq!(texts.join(" "), played, "{game}");
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"], i + 1, "{game}");
        assert!(m["at"].as_i64().unwrap() > 1_600_000_000_000, "ms: {game}");
    }
    id
}

/// A page's own game over the API: created, one move at a time, a resignation; its id.
fn play_a_page_game(http_port: u16) -> i64 {
    let create = r#"{"game":"surakarta","mode":"local","players":["me","you"]}"#;
    let (status, body) = http(http_port, "POST", "/api/games", create);
    assert_eq!(status, 200, "{body}");
    let created = json(&body);
    let (page, token) = (
        created["id"].as_i64().unwrap(),
        created["token"].as_str().unwrap(),
    );
    let moves = format!("/api/games/{page}/moves");
    for (ply, mv) in [(1, "A2-A3"), (2, "F5-E4")] {
        let append = format!(r#"{{"token":"{token}","ply":{ply},"move":"{mv}"}}"#);
        let (status, body) = http(http_port, "POST", &moves, &append);
        assert_eq!(status, 200, "{body}");
    }
    // The same ply again is refused, not stored twice.
    let again = format!(r#"{{"token":"{token}","ply":2,"move":"F5-F4"}}"#);
    assert_eq!(http(http_port, "POST", &moves, &again).0, 409);
    let resign = format!(r#"{{"token":"{token}","moves":["A2-A3","F5-E4"],"resign":"first"}}"#);
    let (status, body) = http(http_port, "PUT", &format!("/api/games/{page}"), &resign);
    assert_eq!(status, 200, "{body}");
    page
}

#[test]
fn serve_stores_games_in_postgres_and_gives_them_back() {
    let (url, _pg) = TestPostgres::start();
    let dir = temp("serve");
    let (server, tcp, http_port) = start_server_on(&dir, url.as_ref());
    let record = play_a_course_game(&dir, tcp);
    let id = check_stored_course_game(http_port, &record);
    let page = play_a_page_game(http_port);
    // Another server on the same database finds both.
    drop(server);
    let (_again, _, http_port) = start_server_on(&dir, url.as_ref());
    let (status, body) = http(http_port, "GET", &format!("/api/games/{page}"), "");
    assert_eq!(status, 200, "{body}");
    let stored = json(&body);
    assert_eq!(stored["end_reason"], "RESIGN", "{stored}");
    assert_eq!(stored["record"], "A2-A3 F5-E4 R#", "{stored}");
    check_stored_course_game(http_port, &record);
    assert!(id > 0);
}

#[test]
fn serve_says_which_postgres_it_cannot_reach_and_never_the_password() {
    let port = free_port();
    let url = format!("postgres://arbiter:s3cret@127.0.0.1:{port}/games");
    let out = arbiter(
        &[
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
            "--db",
            &url,
        ],
        b"",
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "cannot reach PostgreSQL at 127.0.0.1:{port}/games"
        )),
        "{said}"
    );
    assert!(!said.contains("s3cret"), "{said}");
    let out = arbiter(&["serve", "--db", "postgres://a@h:port/x"], b"");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("invalid PostgreSQL URL"),
        "{said}"
    );
}
