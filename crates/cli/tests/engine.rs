//! Replays the example session of docs/engine-protocol.md against the real binary.

mod common;

use common::arbiter;

#[test]
fn the_documented_session_replays() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/engine-protocol.md"
    ))
    .unwrap();
    let session = doc
        .split("## Example session")
        .nth(1)
        .expect("the doc has an example session");
    let block = session
        .split("```")
        .nth(1)
        .expect("the session is a code block");
    let mut input = String::new();
    let mut expected = Vec::new();
    for line in block.lines() {
        if let Some(sent) = line.strip_prefix("> ") {
            input.push_str(sent);
            input.push('\n');
        } else if let Some(answer) = line.strip_prefix("< ") {
            expected.push(answer.to_string());
        }
    }
    let out = arbiter(&["engine"], input.as_bytes());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got.len(), expected.len(), "answers:\n{text}");
    for (got, want) in got.iter().zip(&expected) {
        if want.starts_with("info depth") && want.contains(" nodes ") {
            // Node counts and times vary; the depth, score and line do not.
            let stable = |s: &str| {
                let w: Vec<&str> = s.split_whitespace().collect();
                let pv = s.split(" pv ").nth(1).unwrap_or("").to_string();
                (w[2].to_string(), w[4].to_string(), w[5].to_string(), pv)
            };
            assert_eq!(stable(got), stable(want), "{got} vs {want}");
        } else if want.starts_with("id name arbiter") {
            assert!(got.starts_with("id name arbiter "), "{got}");
        } else {
            assert_eq!(got, want);
        }
    }
}

#[test]
fn bad_lines_get_errors_and_the_engine_keeps_running() {
    let input = "go\ngame chess\ngame surakarta size 7\ngame rc02 size 4\nposition startpos moves z9-z8\ngo depth x\nsetoption name player value cmd:foo\nsetoption name sparkle value 3\nisready\nquit\n";
    let out = arbiter(&["engine"], input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let errors = text.lines().filter(|l| l.starts_with("error ")).count();
    assert_eq!(errors, 7, "{text}");
    assert!(text.ends_with("readyok\n"), "{text}");
}

/// The engine's answer and its standard error with `ARBITER_DUCK_NET` set to `net`.
fn with_network(net: &std::path::Path, input: &str) -> (String, String) {
    let env = [("ARBITER_DUCK_NET", net.as_os_str())];
    let out = common::arbiter_with_env(&["engine"], &env, input.as_bytes());
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (text(out.stdout), text(out.stderr))
}

#[test]
fn a_network_file_that_is_not_one_is_reported_and_the_engine_plays_on() {
    let dir = common::TestDir::new("arbiter-engine-net-");
    let bad = dir.join("net.txt");
    std::fs::write(&bad, "arbiter-duck-net 1 1260 8\n0 0 0\n").unwrap();
    let input = "game duck\nsetoption name learnt value 100\nposition startpos\ngo depth 3\nquit\n";
    let (out, err) = with_network(&bad, input);
    assert!(out.contains("bestmove "), "{out}");
    assert_eq!(err.matches("no learnt correction").count(), 1, "{err}");
    assert!(err.contains("line 2: expected 8 numbers"), "{err}");
    // With the weight at 0 the network is never read, so nothing is said.
    let plain = "game duck\nsetoption name learnt value 0\nposition startpos\ngo depth 3\nquit\n";
    let (out, err) = with_network(&bad, plain);
    assert!(out.contains("bestmove ") && err.is_empty(), "{out}{err}");
}
