//! `arbiter arena` as an engine author uses it beside fastchess or cutechess-cli: outside
//! engines cleaned up with their process group, every record with its end mark and headers,
//! Ctrl-C keeping the result (and `--resume` finishing the match), game clocks, one engine
//! process a slot with its options, its log and its stderr, the live line and the SPRT's
//! settings.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{arbiter, arbiter_with_env, TestDir};

/// The standard output of a run that must have succeeded (else its standard error is shown).
fn table_of(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `arbiter arena` with `words` (split at spaces), then `more` (an argument each).
fn arena(words: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec!["arena"];
    args.extend(words.split(' '));
    args.extend_from_slice(more);
    arbiter(&args, b"")
}

fn temp_dir(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-test-{name}-"))
}

fn me() -> &'static str {
    env!("CARGO_BIN_EXE_arbiter")
}

/// The processes (other than zombies) whose environment holds `marker`: what an arena run
/// with `ARBITER_TEST_MARK=marker` left behind.
fn processes_marked(marker: &str) -> Vec<String> {
    let needle = format!("ARBITER_TEST_MARK={marker}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let marked = environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes());
        if marked {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

/// Waits up to two seconds for the processes marked `marker` to be gone; those still there.
fn left_behind(marker: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = processes_marked(marker);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An engine script file that answers the handshake and then, asked to move, starts a child
/// that never ends and waits for it: hung, with a process of its own below the shell.
fn hung_engine(dir: &Path) -> PathBuf {
    let path = dir.join("hung-engine.sh");
    std::fs::write(
        &path,
        "while read l; do case \"$l\" in arbiter) echo arbiterok;; isready) echo readyok;; \
         go*) sleep 1000 & wait;; esac; done\n",
    )
    .unwrap();
    path
}

#[test]
fn a_hung_engine_and_its_children_are_gone_after_each_game() {
    let dir = temp_dir("hung");
    let hung = format!("hung=cmd:sh {}", hung_engine(&dir).display());
    let marker = format!("hung-{}", std::process::id());
    let mut args: Vec<&str> = "arena rc02 --size 4 --player me=random --games 2"
        .split(' ')
        .collect();
    args.extend(["--time-per-move", "50", "--player", &hung]);
    let out = arbiter_with_env(&args, &[("ARBITER_TEST_MARK", marker.as_ref())], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("did not answer in time").count(), 2, "{err}");
    let left = left_behind(&marker);
    assert!(left.is_empty(), "engine processes left running: {left:?}");
}

/// Sends SIGINT to a child process.
fn interrupt(child: &std::process::Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for `child` to exit (at most `within`) and returns its output.
fn finish(child: std::process::Child, within: Duration) -> std::process::Output {
    let deadline = Instant::now() + within;
    let mut child = child;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the arena did not stop within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The lines of `DIR/games.tsv` after its header (none when it is not there).
fn index_rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("games.tsv")).unwrap_or_default();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

/// Waits until `DIR/games.tsv` has at least `games` games.
fn wait_for_games(dir: &Path, games: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while index_rows(dir).len() < games {
        assert!(Instant::now() < deadline, "no {games} games in time");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_prints_the_result_so_far_and_resume_finishes_the_match() {
    let dir = temp_dir("sigint");
    let child = Command::new(me())
        .args(["arena", "surakarta", "--player", "a=alphabeta:depth=2"])
        .args(["--player", "b=greedy", "--games", "40", "--seed", "5"])
        .args(["--sprt", "0,50", "--out"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_games(&dir, 3);
    interrupt(&child);
    let out = finish(child, Duration::from_secs(30));
    let table = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(table.contains("a vs b: "), "{table}\n{err}");
    assert!(table.contains("Elo "), "{table}");
    assert!(table.contains("LLR "), "{table}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(err.contains("--resume"), "{err}");
    let played = index_rows(&dir).len();
    assert!((3..40).contains(&played), "{played} games");
    let resumed = arbiter(&["arena", "--resume", dir.to_str().unwrap()], b"");
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    let table = String::from_utf8_lossy(&resumed.stdout);
    let rows = index_rows(&dir);
    let mut numbers: Vec<usize> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    numbers.dedup();
    if table.contains("H1 accepted") || table.contains("H0 accepted") {
        // The games finished while stopping may already decide the test.
        assert!(numbers.len() >= played, "{table}");
    } else {
        assert_eq!(numbers, (1..=40).collect::<Vec<_>>(), "{table}");
        assert!(table.contains("a vs b: 40 games"), "{table}");
    }
    for row in &rows {
        assert!(dir.join(&row[6]).is_file(), "{row:?}");
    }
}

#[test]
fn ctrl_c_ends_a_hung_engine_at_once_and_leaves_nothing_behind() {
    let dir = temp_dir("sigint-hung");
    let hung = format!("hung=cmd:sh {}", hung_engine(&dir).display());
    let marker = format!("sigint-hung-{}", std::process::id());
    let child = Command::new(me())
        .args(["arena", "rc02", "--size", "4", "--player", "me=random"])
        .args([
            "--player",
            &hung,
            "--games",
            "2",
            "--time-per-move",
            "600000",
        ])
        .env("ARBITER_TEST_MARK", &marker)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the engine is thinking (its `sleep` started).
    let deadline = Instant::now() + Duration::from_secs(30);
    while !processes_marked(&marker)
        .iter()
        .any(|p| p.contains("sleep"))
    {
        assert!(
            Instant::now() < deadline,
            "the engine never started thinking"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    interrupt(&child);
    let out = finish(child, Duration::from_secs(10));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("me vs hung: 0 games"), "{table}");
    let left = left_behind(&marker);
    assert!(left.is_empty(), "engine processes left running: {left:?}");
}

/// A Surakarta 6×6 match of `a=alphabeta:depth=2` against arbiter's engine as an outside
/// program, with `extra` arguments, into `dir`; standard error.
fn against_our_engine(dir: &Path, extra: &[&str]) -> String {
    let engine = format!("engine=cmd:{} engine", me());
    let mut args = vec!["arena", "surakarta", "--player", "a=alphabeta:depth=2"];
    args.extend(["--player", &engine, "--out", dir.to_str().unwrap()]);
    args.extend(extra);
    let out = arbiter(&args, b"");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

/// The record of the game in row `row` of games.tsv: its header lines and its moves line.
fn record_of(dir: &Path, row: &[String]) -> (Vec<String>, String) {
    let text = std::fs::read_to_string(dir.join(&row[6])).unwrap();
    let (headers, moves): (Vec<&str>, Vec<&str>) =
        text.lines().partition(|line| line.starts_with('['));
    let moves: Vec<&str> = moves.into_iter().filter(|l| !l.is_empty()).collect();
    assert_eq!(moves.len(), 1, "{text}");
    (
        headers.into_iter().map(String::from).collect(),
        moves[0].to_string(),
    )
}

#[test]
fn a_draw_by_adjudication_or_by_the_ply_cap_ends_with_its_mark() {
    let adjudicated = temp_dir("draw-adjudicated");
    against_our_engine(
        &adjudicated,
        &["--games", "2", "--openings", "4", "--draw", "100000,2,0"],
    );
    let capped = temp_dir("draw-capped");
    against_our_engine(&capped, &["--games", "2", "--max-plies", "7"]);
    for dir in [&adjudicated, &capped] {
        let rows = index_rows(dir);
        assert_eq!(rows.len(), 2);
        for row in &rows {
            assert_eq!(row[3], "draw", "{row:?}");
            let (_, moves) = record_of(dir, row);
            assert!(moves.ends_with(" D#"), "{row:?}: {moves}");
        }
    }
}

#[test]
fn records_carry_players_date_opening_result_and_termination() {
    let dir = temp_dir("headers");
    let out = arena(
        "duck --player a=greedy --player b=random --games 2 --openings 2 --out",
        &[dir.to_str().unwrap()],
    );
    assert!(out.status.success());
    for (n, row) in index_rows(&dir).iter().enumerate() {
        let (headers, moves) = record_of(&dir, row);
        let tag = |name: &str| {
            let start = format!("[{name} \"");
            let line = headers.iter().find(|h| h.starts_with(&start));
            let line = line.unwrap_or_else(|| panic!("no {name} in {headers:?}"));
            line[start.len()..line.len() - 2].to_string()
        };
        assert_eq!(tag("Game"), "duck");
        assert_eq!(tag("Round"), (n + 1).to_string());
        assert_eq!((tag("Red"), tag("Blue")), (row[1].clone(), row[2].clone()));
        let date = tag("Date");
        assert_eq!(date.len(), 10, "{date}");
        assert!(
            date.starts_with("20") && date.as_bytes()[4] == b'.',
            "{date}"
        );
        let opening: Vec<String> = tag("Opening").split(' ').map(String::from).collect();
        assert_eq!(opening.len(), 2, "{headers:?}");
        let played: Vec<&str> = moves.split(' ').collect();
        assert_eq!(played[..2], [opening[0].as_str(), opening[1].as_str()]);
        let result = match row[3].as_str() {
            "draw" => "1/2-1/2",
            w if w == row[1] => "1-0",
            _ => "0-1",
        };
        assert_eq!(tag("Result"), result);
        assert_eq!(tag("Termination"), row[5]);
    }
}

#[test]
fn our_engine_plays_on_a_clock_and_a_slow_one_loses_on_time() {
    let dir = temp_dir("clock");
    let log = dir.join("engines.log");
    let err = against_our_engine(
        &dir,
        &[
            "--tc",
            "2+0.05",
            "--games",
            "2",
            "--engine-log",
            log.to_str().unwrap(),
        ],
    );
    for row in index_rows(&dir) {
        assert!(!row[5].contains("time"), "{row:?}\n{err}");
    }
    let log = std::fs::read_to_string(&log).unwrap();
    let go = log.lines().find(|l| l.contains("> go ")).unwrap();
    for word in ["wtime", "btime", "winc 50", "binc 50"] {
        assert!(go.contains(word), "{go}");
    }
    // An engine that takes 0.4 s to pass on each `go`: 1 s on its clock lasts two moves.
    let slow = temp_dir("clock-slow");
    let engine = format!(
        "slow=cmd:while read l; do case \"$l\" in go*) sleep 0.4;; esac; echo \"$l\"; done | {} engine",
        me()
    );
    let out = arena(
        "surakarta --player a=alphabeta:depth=1 --player",
        &[
            &engine,
            "--tc",
            "1",
            "--games",
            "2",
            "--out",
            slow.to_str().unwrap(),
        ],
    );
    table_of(&out);
    for row in index_rows(&slow) {
        assert_eq!(row[3], "a", "{row:?}");
        assert!(row[5].starts_with("lost on time"), "{row:?}");
        let (headers, moves) = record_of(&slow, &row);
        assert!(moves.ends_with(" T#"), "{moves}");
        assert!(
            headers.iter().any(|h| h == "[TimeControl \"1+0\"]"),
            "{headers:?}"
        );
    }
}

#[test]
fn our_engine_understands_a_clock() {
    let input = "game surakarta size 6\nposition startpos\ngo wtime 3000 btime 2000 winc 100 binc 100\nquit\n";
    let out = arbiter(&["engine"], input.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("error"), "{text}");
    assert!(text.contains("bestmove "), "{text}");
}

#[test]
fn one_engine_process_a_slot_with_newgame_options_log_and_stderr() {
    let dir = temp_dir("slots");
    let starts = dir.join("starts");
    let log = dir.join("engines.log");
    // The engine says it started, writes `thinking` on stderr at every `go`, and passes every
    // line on to arbiter's engine.
    let engine = format!(
        "engine=cmd:echo started >> {}; while read l; do case \"$l\" in go*) echo thinking >&2;; esac; echo \"$l\"; done | {} engine",
        starts.display(),
        me()
    );
    let out = arena(
        "surakarta --player a=alphabeta:depth=1 --player",
        &[
            &engine,
            "--games",
            "4",
            "--time-per-move",
            "20",
            "--option",
            "engine.seed=7",
            "--engine-log",
            log.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    table_of(&out);
    // One start to check the engine, one for the slot that plays the four games.
    let started = std::fs::read_to_string(&starts).unwrap();
    assert_eq!(started.lines().count(), 2, "{started}");
    let log = std::fs::read_to_string(&log).unwrap();
    let sent = |line: &str| log.lines().filter(|l| l.ends_with(line)).count();
    assert_eq!(sent("> newgame"), 5, "{log}");
    assert_eq!(sent("> setoption name seed value 7"), 2, "{log}");
    assert!(sent("< arbiterok") >= 2, "{log}");
    assert!(log.lines().any(|l| l.contains("< bestmove ")), "{log}");
    assert!(log.lines().any(|l| l.ends_with("! thinking")), "{log}");
    for row in index_rows(&dir) {
        let record = dir.join(&row[6]);
        let stderr = record.with_extension("stderr");
        let text = std::fs::read_to_string(&stderr)
            .unwrap_or_else(|e| panic!("{}: {e}", stderr.display()));
        assert!(text.contains("engine: thinking"), "{text}");
    }
}

#[test]
fn an_option_the_engine_refuses_stops_the_match_before_it_starts() {
    let engine = format!("engine=cmd:{} engine", me());
    let out = arena(
        "surakarta --player a=random --player",
        &[&engine, "--option", "engine.warp=9"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("engine `engine` cannot play"), "{err}");
    assert!(err.contains("warp"), "{err}");
    let out = arena(
        "surakarta --player a=random --player b=greedy --option c.hash=9",
        &[],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no player `c`"), "{err}");
}

#[test]
fn the_live_line_shows_score_elo_and_llr() {
    let out = arena(
        "surakarta --player a=alphabeta:depth=1 --player b=random --games 4 --sprt 0,50",
        &[],
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().rfind(|l| l.contains("[4/4 done]")).unwrap();
    for word in ["a vs b ", "Elo", "LLR"] {
        assert!(last.contains(word), "{last}");
    }
}

#[test]
fn sprt_needs_two_players_and_states_its_settings() {
    let out = arena(
        "surakarta --player a=random --player b=random --player c=random --sprt 0,10",
        &[],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--sprt needs exactly two players, not 3"),
        "{err}"
    );

    let dir = temp_dir("sprt-json");
    let json = dir.join("result.json");
    let out = arena("surakarta --player a=alphabeta:depth=1 --player b=random --games 4 --sprt 0,50 --sprt-alpha 0.1 --sprt-beta 0.2 --sprt-model normalized --json", &[json.to_str().unwrap()]);
    let table = table_of(&out);
    assert!(table.contains("normalized Elo"), "{table}");
    assert!(table.contains("alpha 0.1, beta 0.2"), "{table}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let sprt = &report["sprt"];
    assert_eq!(sprt["model"], "normalized", "{sprt}");
    assert_eq!(sprt["alpha"], 0.1);
    assert_eq!(sprt["beta"], 0.2);
    assert_eq!(
        (sprt["elo0"].as_f64(), sprt["elo1"].as_f64()),
        (Some(0.0), Some(50.0))
    );
    let (lower, upper) = (
        sprt["lower"].as_f64().unwrap(),
        sprt["upper"].as_f64().unwrap(),
    );
    assert!((lower - (0.2f64 / 0.9).ln()).abs() < 1e-9, "{sprt}");
    assert!((upper - (0.8f64 / 0.1).ln()).abs() < 1e-9, "{sprt}");
    assert!(sprt["llr"].is_number(), "{sprt}");
    assert!(
        ["H0", "H1", "none"].contains(&sprt["decision"].as_str().unwrap()),
        "{sprt}"
    );
}

#[test]
fn two_pairs_that_score_alike_have_no_interval() {
    // Two identical players: each opening, played both ways, scores one point for each.
    let out = arena(
        "surakarta --player a=alphabeta:depth=1 --player b=alphabeta:depth=1 --games 4",
        &[],
    );
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!table.contains("± 0"), "{table}");
    assert!(!table.contains("-0 "), "{table}");
    assert!(table.contains("no interval"), "{table}");
}
