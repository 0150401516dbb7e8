//! A game added from outside arbiter's crates (Hexapawn, `examples/hexapawn/`) registers in one
//! line and gets everything: the conformance suite, `arbiter games`, `perft`, `arena` and the
//! engine protocol, through the real command line.
//!
//! This test has its own `main` (`harness = false`): started with `ARBITER_AS_CLI` set, it *is*
//! the command line of `(Hexapawn, Standard)` — the same line as the example's `main` — so the
//! checks below run it as a real process, the way a user runs the example.

#[path = "../examples/hexapawn/game.rs"]
mod game;

use std::io::Write;
use std::process::{Command, ExitCode, Output, Stdio};

use arbiter_core::suite::{check_game, SuiteConfig};
use game::{Hexapawn, DEFINITION};

type WithHexapawn = (Hexapawn, arbiter_ai::Standard);

const AS_CLI: &str = "ARBITER_AS_CLI";

fn main() -> ExitCode {
    if std::env::var_os(AS_CLI).is_some() {
        return arbiter_cli::main::<WithHexapawn>();
    }
    let tests: [(&str, fn()); 5] = [
        (
            "passes_the_game_suite_on_every_size",
            passes_the_game_suite_on_every_size,
        ),
        (
            "is_listed_and_counted_by_the_cli",
            is_listed_and_counted_by_the_cli,
        ),
        (
            "plays_a_tournament_in_the_arena",
            plays_a_tournament_in_the_arena,
        ),
        ("speaks_the_engine_protocol", speaks_the_engine_protocol),
        (
            "leaves_the_shipped_games_alone",
            leaves_the_shipped_games_alone,
        ),
    ];
    let mut failed = 0;
    for (name, test) in tests {
        let ok = std::panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        failed += usize::from(!ok);
    }
    println!(
        "\ntest result: {}. {} passed; {failed} failed",
        if failed == 0 { "ok" } else { "FAILED" },
        tests.len() - failed
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs the command line of `(Hexapawn, Standard)` with `args`, feeding `stdin`.
fn cli(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(AS_CLI, "1")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn passes_the_game_suite_on_every_size() {
    for size in [3u64, 4, 5] {
        let options = DEFINITION.options_from([("size", size)]).unwrap();
        let report = check_game::<Hexapawn>(&options, SuiteConfig::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.finished, report.games, "{report:?}");
    }
}

fn is_listed_and_counted_by_the_cli() {
    let out = cli(&["games"], "");
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("hexapawn  Hexapawn: white (WHITE) moves first"));
    let out = cli(&["perft", "hexapawn", "2"], "");
    assert_eq!(text(&out.stdout), "10\n", "{}", text(&out.stderr));
    let out = cli(&["perft", "hexapawn", "3", "--size", "7"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("hexapawn: size must be 3, 4 or 5, not 7"));
}

fn plays_a_tournament_in_the_arena() {
    let dir = arbiter_pgtest::TestDir::new("arbiter-hexapawn-");
    let json = dir.join("result.json");
    let out = cli(
        &[
            "arena",
            "hexapawn",
            "--player",
            "ab=alphabeta:depth=9",
            "--player",
            "rnd=random",
            "--games",
            "10",
            "--openings",
            "0",
            "--json",
            json.to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("ab vs rnd: 10 games"),
        "{}",
        text(&out.stdout)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["game"], "hexapawn");
    // A full-depth search never loses as black (the second player wins 3×3 Hexapawn) and
    // punishes a random white.
    let ab = &report["players"][0];
    assert!(ab["score"].as_f64().unwrap() >= 0.7, "{report}");
}

fn speaks_the_engine_protocol() {
    let session = "arbiter\ngame hexapawn size 3\nposition startpos moves b1-b2\ngo depth 9\nshow\nposition startpos moves a1-a2 b3-a2\nshow\nquit\n";
    let out = cli(&["engine"], session);
    let answers = text(&out.stdout);
    assert!(answers.contains("arbiterok"), "{answers}");
    let best = answers
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a best move");
    // Black, facing a white pawn on b2, takes it: a3-b2 or c3-b2 win.
    assert!(best == "a3-b2" || best == "c3-b2", "{answers}");
    assert!(answers.contains("info string black to move"), "{answers}");
    assert!(!answers.contains("error"), "{answers}");
}

fn leaves_the_shipped_games_alone() {
    let out = cli(&["perft", "duck", "3"], "");
    assert_eq!(text(&out.stdout), "80066\n");
    let out = cli(&["games"], "");
    let ids: Vec<String> = text(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(ids, ["hexapawn", "duck", "surakarta", "rc02"]);
}
