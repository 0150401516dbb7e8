//! One rule, one result in every layer: the same quiet Duck Chess game (two cars shuffling,
//! no capture) played through the engine protocol, the arena, the server and the page's API
//! ends the same way — drawn by the no-capture limit — because the rule lives in the game crate.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{arbiter, http, start_server, TestDir};

const CYCLE: [&str; 4] = ["a0-a1", "a9-a8", "a1-a0", "a8-a9"];
const LIMIT: &str = "4";
const DRAW_TEXT: &str = "no capture in 4 plies: a draw";

fn temp(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-quiet-{name}-"))
}

#[test]
fn the_engine_sees_the_draw() {
    let session = format!(
        "game duck max_no_capture_round {LIMIT}\nposition startpos moves {}\nshow\ngo depth 2\nposition startpos moves {}\nshow\nquit\n",
        CYCLE.join(" "),
        CYCLE[..3].join(" ")
    );
    let out = arbiter(&["engine"], session.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("info depth"))
        .collect();
    assert_eq!(
        lines[0],
        format!("info string game over: a draw ({DRAW_TEXT})")
    );
    assert_eq!(lines[1], "bestmove (none)");
    assert!(lines[2].starts_with("info string blue to move"), "{text}");
}

/// An outside engine that plays the cycle whatever happens.
fn cycling_engine(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("cycle.sh");
    let script = r#"#!/bin/sh
n=0
while read -r line; do
  case "$line" in
    arbiter) echo arbiterok ;;
    isready) echo readyok ;;
    position*) set -- $line; n=$(($# - 3)); [ "$n" -lt 0 ] && n=0 ;;
    go*) case $((n % 4)) in
           0) echo "bestmove a0-a1" ;; 1) echo "bestmove a9-a8" ;;
           2) echo "bestmove a1-a0" ;; *) echo "bestmove a8-a9" ;;
         esac ;;
    quit) exit 0 ;;
  esac
done
"#;
    std::fs::write(&path, script).unwrap();
    path
}

#[test]
fn the_arena_sees_the_draw() {
    let dir = temp("arena");
    let engine = format!("cmd:sh {}", cycling_engine(&dir).display());
    let out = arbiter(
        &[
            "arena",
            "duck",
            "--max-no-capture-round",
            LIMIT,
            "--openings",
            "0",
            "--games",
            "2",
            "--player",
            &format!("a={engine}"),
            "--player",
            &format!("b={engine}"),
            "--out",
            dir.join("games").to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = std::fs::read_to_string(dir.join("games").join("games.tsv")).unwrap();
    let rows: Vec<&str> = index.lines().skip(1).collect();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let cells: Vec<&str> = row.split('\t').collect();
        assert_eq!(
            (cells[3], cells[4], cells[5]),
            ("draw", "4", DRAW_TEXT),
            "{row}"
        );
        let record = std::fs::read_to_string(dir.join("games").join(cells[6])).unwrap();
        // The moves follow the record's headers.
        let moves = record.trim_end().lines().last().unwrap_or_default();
        assert_eq!(moves, format!("{} S#", CYCLE.join(" ")));
    }
}

fn send(stream: &mut TcpStream, line: &str) {
    stream.write_all(format!("{line}\n").as_bytes()).unwrap();
}

fn recv(reader: &mut BufReader<TcpStream>) -> serde_json::Value {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn the_server_and_the_page_see_the_draw() {
    let dir = temp("server");
    let (_server, tcp, http_port) = start_server(&dir);
    let mut clients: Vec<(TcpStream, BufReader<TcpStream>)> = (0..2)
        .map(|_| {
            let s = TcpStream::connect(("127.0.0.1", tcp)).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let r = BufReader::new(s.try_clone().unwrap());
            (s, r)
        })
        .collect();
    for (i, colour) in ["RED", "BLUE"].iter().enumerate() {
        let ready = format!(
            r#"{{"op":200000,"data1":"p{i}","data2":"{colour}","data3":"9","game":"duck","max_no_capture_round":{LIMIT}}}"#
        );
        send(&mut clients[i].0, &ready);
    }
    for (_, reader) in clients.iter_mut() {
        let ready = recv(reader);
        assert_eq!(ready["max_no_capture_round"], 4, "{ready}");
    }
    for (ply, mv) in CYCLE.iter().enumerate() {
        let (from, to) = mv.split_once('-').unwrap();
        let line = format!(r#"{{"op":200001,"data1":"{from}","data2":"{to}","data3":""}}"#);
        send(&mut clients[ply % 2].0, &line);
        let forwarded = recv(&mut clients[1 - ply % 2].1);
        assert_eq!(forwarded["data1"], from);
    }
    // STALEMATE (1), nobody wins (2), after four moves.
    let end = recv(&mut clients[0].1);
    assert_eq!(
        (
            end["op"].as_i64(),
            end["data2"].as_str(),
            end["data3"].as_str()
        ),
        (Some(200006), Some("1"), Some("2"))
    );
    assert_eq!(end["plies"], 4);
    // The page asks the API about the same moves.
    let body = format!(
        r#"{{"game":"duck","max_no_capture_round":{LIMIT},"moves":{}}}"#,
        serde_json::to_string(&CYCLE).unwrap()
    );
    let (status, answer) = http(http_port, "POST", "/api/state", &body);
    assert_eq!(status, 200, "{answer}");
    let view: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(view["status"], "drawn");
    assert_eq!(view["end"], DRAW_TEXT);
    assert_eq!(view["end_reason"], "STALEMATE");
    assert_eq!(view["legal"].as_array().unwrap().len(), 0);
}
