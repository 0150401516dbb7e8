//! `arbiter arena` end to end: a real tournament, JSON, records, outside engines good and bad.

mod common;

use common::{arbiter, TestDir};

fn temp_dir(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-test-{name}-"))
}

#[test]
fn a_small_tournament_writes_json_and_records() {
    let dir = temp_dir("arena");
    let json = dir.join("result.json");
    let out = arbiter(
        &[
            "arena",
            "surakarta",
            "--player",
            "ab=alphabeta:depth=2",
            "--player",
            "rnd=random",
            "--player",
            "gr=greedy",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--out",
            dir.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("ab vs rnd: 4 games"), "{table}");
    // Not a terminal: a line for each game shows the progress.
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(log.matches(" done]").count(), 12, "{log}");
    assert!(log.contains("[12/12 done]"), "{log}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    check_three_player_report(&report);
    let index = std::fs::read_to_string(dir.join("games.tsv")).unwrap();
    assert_eq!(index.lines().count(), 13);
    // Surakarta records are in the course notation: moves, then an end mark.
    let record = std::fs::read_to_string(dir.join("game-0001-ab-vs-rnd.txt")).unwrap();
    let parsed = arbiter_surakarta::Record::parse(&record, 6).unwrap();
    assert!(!parsed.moves.is_empty());
}

/// The JSON report of three players, four games for each pair.
fn check_three_player_report(report: &serde_json::Value) {
    assert_eq!(report["game"], "surakarta");
    assert_eq!(report["games"], 12);
    let players = report["players"].as_array().unwrap();
    assert_eq!(players.len(), 3);
    for p in players {
        let score = p["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        // Three players, each pair 4 games: 8 games per player.
        assert_eq!(p["games"], 8);
        for key in ["name", "spec", "wins", "draws", "losses"] {
            assert!(p.get(key).is_some(), "{key}");
        }
    }
    let pairs = report["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    for key in ["a", "b", "wins", "draws", "losses", "elo", "elo_error"] {
        assert!(pairs[0].get(key).is_some(), "{key}");
    }
    for pair in pairs {
        // A number, or null for a pair whose score is 0% or 100%.
        let count = |key: &str| pair[key].as_u64().unwrap();
        assert_eq!(
            count("wins") + count("draws") + count("losses"),
            4,
            "{pair}"
        );
        let one_sided = count("draws") == 0 && (count("wins") == 0 || count("losses") == 0);
        assert_eq!(pair["elo"].is_null(), one_sided, "{pair}");
        assert_eq!(pair["elo_error"].is_null(), one_sided, "{pair}");
        assert!(pair["los"]
            .as_f64()
            .is_some_and(|l| (0.0..=1.0).contains(&l)));
    }
}

#[test]
fn outside_engines_play_and_bad_ones_forfeit() {
    let dir = temp_dir("engines");
    let me = env!("CARGO_BIN_EXE_arbiter");
    let good = format!("good=cmd:{me} engine");
    // Engines that answer the handshake and then misbehave when asked to move.
    let script = |on_go: &str| {
        format!(
            "cmd:while read l; do case \"$l\" in arbiter) echo arbiterok;; isready) echo readyok;; go*) {on_go};; esac; done"
        )
    };
    let crash = format!("crash={}", script("exit 3"));
    let illegal = format!("illegal={}", script("echo bestmove Z9-Z9"));
    let hang = format!("hang={}", script("sleep 30"));
    let out = arbiter(
        &[
            "arena",
            "rc02",
            "--size",
            "4",
            "--player",
            &good,
            "--player",
            &crash,
            "--player",
            &illegal,
            "--player",
            &hang,
            "--games",
            "2",
            "--time-per-move",
            "50",
            "--concurrency",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_forfeits(&std::fs::read_to_string(dir.join("games.tsv")).unwrap());
}

/// Every game of `good` won by it, every other lost for the misbehaviour its loser is named for.
fn check_forfeits(index: &str) {
    let rows: Vec<Vec<&str>> = index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 12);
    for row in &rows {
        let (first, second, winner, reason) = (row[1], row[2], row[3], row[5]);
        if first == "good" || second == "good" {
            assert_eq!(winner, "good", "{row:?}");
        }
        let loser = if winner == first { second } else { first };
        match loser {
            "crash" => assert!(reason.contains("engine failed"), "{row:?}"),
            "illegal" => assert!(reason.contains("illegal move"), "{row:?}"),
            "hang" => assert!(reason.contains("in time"), "{row:?}"),
            _ => panic!("unexpected loser in {row:?}"),
        }
    }
}

#[test]
fn bad_arguments_are_explained() {
    for (args, needle) in [
        ("arena duck --player a=random", "at least two"),
        (
            "arena duck --player a=random --player a=greedy",
            "two players are called",
        ),
        (
            "arena duck --player a=random --player b=wizard",
            "unknown player",
        ),
        ("arena duck --player arandom --player b=greedy", "NAME=SPEC"),
        (
            "arena surakarta --size 7 --player a=random --player b=greedy",
            "6, 8, 10 or 12",
        ),
        (
            "arena duck --player a=random --player b=greedy --sprt 50,0",
            "below",
        ),
        (
            "arena duck --player a=greedy:warp=9 --player b=greedy",
            "unknown weight",
        ),
        (
            "arena duck --player a=random --player b=greedy --resign 600",
            "--resign takes CP,PLIES",
        ),
        (
            "arena duck --player a=random --player b=greedy --draw 10,x,80",
            "`x` is not a whole number",
        ),
        (
            "arena duck --player a=random --player b=greedy --nodes-per-move 0",
            "--nodes-per-move must be at least 1",
        ),
        (
            "arena duck --player a=random --player b=greedy --nodes-per-move 5 --time-per-move 9",
            "cannot be used with",
        ),
    ] {
        assert_refused(args, needle);
    }
}

#[test]
fn bad_openings_arguments_are_explained() {
    for (args, needle) in [
        ("--weight nope=1", "unknown weight `nope`"),
        ("--weight nope", "is not NAME=VALUE"),
        ("--search learnt=0", "`learnt` is not a search setting"),
        (
            "--search statistics=yes",
            "statistics must be 0 or 1, found `yes`",
        ),
    ] {
        assert_refused(&format!("openings duck --count 2 {args}"), needle);
    }
}

/// `arbiter ARGS` fails and says `needle` on standard error.
fn assert_refused(args: &str, needle: &str) {
    let args: Vec<&str> = args.split(' ').collect();
    let out = arbiter(&args, b"");
    assert!(!out.status.success(), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let out = arbiter(
        &[
            "arena",
            "duck",
            "--player",
            "ab=alphabeta:depth=2",
            "--player",
            "rnd=random",
            "--games",
            "200",
            "--sprt",
            "0,100",
        ],
        b"",
    );
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("SPRT: H1 accepted"), "{table}");
    let games: u32 = table
        .lines()
        .find(|l| l.starts_with("ab vs rnd:"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(games < 200, "{table}");
}

/// An engine that answers the handshake, then exits with status 3 when asked to move.
const CRASHING_ENGINE: &str = "cmd:while read l; do case \"$l\" in arbiter) echo arbiterok;; isready) echo readyok;; go*) echo out of memory >&2; exit 3;; esac; done";

/// `arbiter arena rc02 --size 4` with `random` against the crashing engine, `games` games, and
/// `extra` arguments.
fn against_a_crashing_engine(games: &str, extra: &[&str]) -> std::process::Output {
    let crash = format!("crash={CRASHING_ENGINE}");
    let mut args = vec![
        "arena",
        "rc02",
        "--size",
        "4",
        "--player",
        "me=random",
        "--player",
        &crash,
        "--games",
        games,
    ];
    args.extend_from_slice(extra);
    arbiter(&args, b"")
}

#[test]
fn an_engine_that_cannot_start_stops_the_match_with_the_reason() {
    let dir = temp_dir("missing-engine");
    let json = dir.join("result.json");
    let out = arbiter(
        &[
            "arena",
            "rc02",
            "--player",
            "me=random",
            "--player",
            "them=cmd:./no-such-engine --level 3",
            "--games",
            "2",
            "--json",
            json.to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("engine `them` cannot play"), "{err}");
    assert!(err.contains("not found"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "no table for a match that was not played"
    );
    assert!(!json.exists(), "no empty --json file left behind");
}

#[test]
fn an_engine_that_dies_is_reported_at_once_with_its_last_words() {
    let out = against_a_crashing_engine("2", &[]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("engine failed").count(), 2, "{err}");
    assert!(err.contains("exit status: 3"), "{err}");
    assert!(err.contains("it said: out of memory"), "{err}");
}

#[test]
fn an_unwritable_json_path_fails_before_any_game() {
    // A path under a plain file cannot be written, even by root.
    let dir = temp_dir("unwritable");
    let file = dir.join("plain-file");
    std::fs::write(&file, "").unwrap();
    let json = file.join("result.json");
    let out = arbiter(
        &[
            "arena",
            "duck",
            "--player",
            "a=alphabeta:depth=4",
            "--player",
            "b=alphabeta:depth=4",
            "--games",
            "1000",
            "--json",
            json.to_str().unwrap(),
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot write {}", json.display())),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_one_sided_pair_has_no_finite_elo() {
    let dir = temp_dir("one-sided");
    let json = dir.join("result.json");
    std::fs::write(&json, "kept until the end").unwrap();
    let out = against_a_crashing_engine("4", &["--json", json.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Elo +inf"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let pair = &report["pairs"][0];
    assert_eq!(pair["wins"], 4, "{pair}");
    assert!(
        pair["elo"].is_null() && pair["elo_error"].is_null(),
        "{pair}"
    );
    assert!(pair["los"].as_f64().unwrap() > 0.9, "{pair}");
}

/// `arbiter openings` with a shallow search: the same arguments write the same suite.
fn small_suite() -> String {
    let args = [
        "openings",
        "surakarta",
        "--plies",
        "2,4",
        "--count",
        "8",
        "--seed",
        "2",
        "--depth",
        "2",
    ];
    let first = arbiter(&args, b"");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(first.stdout, arbiter(&args, b"").stdout);
    String::from_utf8(first.stdout).unwrap()
}

/// A suite judged with other search settings says so in its command, so it can be made again.
#[test]
fn a_suites_search_settings_are_in_its_command() {
    let args = "openings duck --plies 2 --count 2 --depth 2 --search statistics=0";
    let out = arbiter(&args.split(' ').collect::<Vec<_>>(), b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let suite = String::from_utf8(out.stdout).unwrap();
    let made_by = "made by: arbiter openings duck --plies 2 --count 2 --seed 1 --depth 2 \
        --max-eval 50 --tries 50 --search statistics=0\n";
    assert!(suite.contains(made_by), "{suite}");
    assert_eq!(suite.lines().filter(|l| !l.starts_with('#')).count(), 2);
}

#[test]
fn a_suite_is_played_in_pairs_and_counted_by_pairs() {
    let suite = small_suite();
    assert!(suite.starts_with("#! game=surakarta size=6\n"), "{suite}");
    assert!(suite.contains("made by: arbiter openings surakarta --size 6 --plies 2,4 --count 8"));
    let dir = temp_dir("suite");
    let file = dir.join("suite.txt");
    std::fs::write(&file, &suite).unwrap();
    let json = dir.join("result.json");
    #[rustfmt::skip]
    let out = arbiter(
        &[
            "arena", "surakarta", "--player", "ab=alphabeta:depth=2", "--player", "rnd=random",
            "--games", "7", "--suite", file.to_str().unwrap(), "--openings", "4",
            "--sprt", "0,50", "--out", dir.to_str().unwrap(), "--json", json.to_str().unwrap(),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("  pairs: 3 (LL "), "{table}");
    assert!(table.contains("; 1 game unpaired"), "{table}");
    assert!(
        table.contains("SPRT: no decision after 7 games, 3 pairs: pentanomial LLR"),
        "{table}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let penta = &report["pairs"][0]["pentanomial"];
    let counts: Vec<u64> = penta["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 3, "{penta}");
    assert_eq!(penta["pairs"], 3);
    assert_eq!(penta["unpaired"], 1);
    check_pairs_share_suite_lines(&dir, &suite);
}

/// Games 1 and 2, 3 and 4, 5 and 6 of `ab` against `rnd` in `dir` each start with the same
/// 4-ply line of `suite`, colours swapped.
fn check_pairs_share_suite_lines(dir: &std::path::Path, suite: &str) {
    let openings: Vec<&str> = suite.lines().filter(|l| !l.starts_with('#')).collect();
    let record = |n: usize| {
        let name = format!(
            "game-000{n}-{}.txt",
            if n % 2 == 1 { "ab-vs-rnd" } else { "rnd-vs-ab" }
        );
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        // The moves, after the header lines.
        let moves = text.lines().filter(|l| !l.starts_with('['));
        moves.collect::<Vec<_>>().join(" ")
    };
    for pair in [1, 3, 5] {
        let (a, b) = (record(pair), record(pair + 1));
        let line: Vec<&str> = a.split_whitespace().take(4).collect();
        assert_eq!(
            line[..],
            b.split_whitespace().take(4).collect::<Vec<_>>()[..]
        );
        assert!(openings.contains(&line.join(" ").as_str()), "{line:?}");
    }
}

#[test]
fn a_suite_with_an_illegal_line_is_refused_with_the_line() {
    let dir = temp_dir("bad-suite");
    let file = dir.join("suite.txt");
    std::fs::write(
        &file,
        "#! game=surakarta size=6\nA2-A3 F5-F4\nA2-A3 A3-A4\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "arena",
            "surakarta",
            "--player",
            "a=random",
            "--player",
            "b=random",
        ];
        args.extend_from_slice(&["--suite", file.to_str().unwrap()]);
        args.extend_from_slice(extra);
        arbiter(&args, b"")
    };
    let out = run(&[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("opening suite: line 3: move 2 `A3-A4`"),
        "{err}"
    );
    let out = run(&["--openings", "6"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no opening of 6 plies"), "{err}");
    let out = run(&["--size", "8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the suite is for surakarta size 6, not surakarta size 8"),
        "{err}"
    );
}

/// A Surakarta 6×6 match of `inside` against arbiter's engine as an outside program (named
/// `engine`), 20 ms a move, with `extra` arguments; the rows of its games.tsv, and its folder.
fn against_our_engine(name: &str, inside: &str, extra: &[&str]) -> (Vec<Vec<String>>, TestDir) {
    let dir = temp_dir(name);
    let engine = format!("engine=cmd:{} engine", env!("CARGO_BIN_EXE_arbiter"));
    let mut args = vec![
        "arena",
        "surakarta",
        "--player",
        inside,
        "--player",
        &engine,
    ];
    let out_dir = dir.to_str().unwrap();
    args.extend(["--time-per-move", "20", "--out", out_dir]);
    args.extend(extra);
    let out = arbiter(&args, b"");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let index = std::fs::read_to_string(dir.join("games.tsv")).unwrap();
    let rows = index.lines().skip(1);
    let games = rows.map(|l| l.split('\t').map(String::from).collect());
    (games.collect(), dir)
}

/// `--resign`: a game both players score as lost for one side goes to the other, with the
/// reason in games.tsv and the resignation in the record; the outside engine's scores are read
/// from its `info` lines, the inside player's from its search.
#[test]
fn both_players_agreeing_on_a_winner_end_the_game() {
    let extra = ["--games", "4", "--seed", "3", "--resign", "150,2"];
    let (games, dir) = against_our_engine("resign", "shallow=alphabeta:depth=2", &extra);
    assert_eq!(games.len(), 4, "{games:?}");
    let adjudicated: Vec<_> = games
        .iter()
        .filter(|g| g[5].starts_with("adjudicated"))
        .collect();
    assert!(!adjudicated.is_empty(), "{games:?}");
    for game in adjudicated {
        assert_ne!(game[3], "draw", "{game:?}");
        assert!(
            game[5].contains("at least 150 centipawns ahead for 2 plies"),
            "{game:?}"
        );
        let record = std::fs::read_to_string(dir.join(&game[6])).unwrap();
        let parsed = arbiter_surakarta::Record::parse(&record, 6).unwrap();
        assert_eq!(parsed.moves.len().to_string(), game[4], "{record}");
    }
}

/// `--draw`: scores within the margin for the given plies after the given ply draw the game
/// there (here every score counts as level, so each game ends two plies after its opening).
#[test]
fn level_scores_draw_the_game_after_the_given_ply() {
    let extra = ["--games", "2", "--openings", "4", "--draw", "100000,2,0"];
    let (games, _dir) = against_our_engine("draw", "a=alphabeta:depth=2", &extra);
    assert_eq!(games.len(), 2, "{games:?}");
    for game in &games {
        assert_eq!(
            (game[3].as_str(), game[4].as_str()),
            ("draw", "6"),
            "{game:?}"
        );
        assert!(
            game[5].starts_with("draw adjudicated: both players"),
            "{game:?}"
        );
    }
}
