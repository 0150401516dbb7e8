//! `scripts/make-duck-net.sh`, the whole pipeline of a Duck Chess network on a tiny scale: real
//! self-play, real Fairy-Stockfish labels, a real training; the network it writes is one the
//! engine reads, a second run keeps what the first made, and bad options are named before any
//! work. It needs what its parts need (`scripts/ensure-packages.sh` installs them).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{arbiter_with_env, TestDir};

fn make_net(args: &[&str]) -> Output {
    make_net_with(Path::new(env!("CARGO_BIN_EXE_arbiter")), args)
}

fn make_net_with(arbiter: &Path, args: &[&str]) -> Output {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/make-duck-net.sh"
    );
    Command::new(script)
        .arg("--arbiter")
        .arg(arbiter)
        .args(args)
        .output()
        .expect("bash runs the pipeline")
}

fn tiny_run(dir: &Path) -> Output {
    tiny_run_with(Path::new(env!("CARGO_BIN_EXE_arbiter")), dir)
}

fn tiny_run_with(arbiter: &Path, dir: &Path) -> Output {
    let dir = dir.to_str().unwrap();
    let options = "--batch default:10:1 --batch off:10:2 --nodes 300 --fsf-nodes 200 \
                   --hidden 4 --epochs 2";
    let args: Vec<&str> = std::iter::once(dir)
        .chain(options.split_whitespace())
        .collect();
    make_net_with(arbiter, &args)
}

fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn the_pipeline_makes_a_network_the_engine_reads_and_a_second_run_keeps_its_data() {
    let dir = TestDir::new("arbiter-make-net-");
    let first = tiny_run(&dir.join("net"));
    assert!(first.status.success(), "{}", said(&first));
    for file in [
        "selfplay-default-1.tsv",
        "selfplay-off-2.tsv",
        "fs-default-1.tsv",
    ] {
        let rows = std::fs::read_to_string(dir.join("net").join(file)).unwrap();
        assert!(
            rows.lines().count() > 100,
            "{file}: {} lines",
            rows.lines().count()
        );
    }
    let net = dir.join("net").join("net.txt");
    let text = std::fs::read_to_string(&net).unwrap();
    assert!(
        text.starts_with("arbiter-duck-net 1 2520 4\n"),
        "{text:.200}"
    );
    assert!(
        said(&first).contains("--nodes-per-move 20000"),
        "{}",
        said(&first)
    );

    let input = "game duck\nposition startpos\ngo depth 3\nquit\n";
    let engine = arbiter_with_env(
        &["engine"],
        &[("ARBITER_DUCK_NET", net.as_os_str())],
        input.as_bytes(),
    );
    assert!(String::from_utf8_lossy(&engine.stdout).contains("bestmove "));
    assert!(
        engine.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&engine.stderr)
    );

    let before = data_files_modified(&dir.join("net"));
    let second = tiny_run(&dir.join("net"));
    assert!(second.status.success(), "{}", said(&second));
    assert_eq!(
        said(&second).matches(": kept (").count(),
        4,
        "{}",
        said(&second)
    );
    assert_eq!(
        data_files_modified(&dir.join("net")),
        before,
        "data made again"
    );
    self_play_of_another_build_is_played_again(&dir);
}

/// Another build plays other games: a binary with a byte more (still the same program) makes
/// its own self-play and labels in the folder of a finished run.
fn self_play_of_another_build_is_played_again(dir: &Path) {
    let other = dir.join("arbiter-other");
    let mut bytes = std::fs::read(env!("CARGO_BIN_EXE_arbiter")).unwrap();
    bytes.push(0);
    std::fs::write(&other, bytes).unwrap();
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let third = tiny_run_with(&other, &dir.join("net"));
    assert!(third.status.success(), "{}", said(&third));
    assert!(
        said(&third).contains("== self-play default, seed 1: 10 games at 300 nodes"),
        "{}",
        said(&third)
    );
    assert!(!said(&third).contains(": kept ("), "{}", said(&third));
}

/// When each of the self-play and label files was last written.
fn data_files_modified(dir: &Path) -> Vec<std::time::SystemTime> {
    [
        "selfplay-default-1",
        "selfplay-off-2",
        "fs-default-1",
        "fs-off-2",
    ]
    .iter()
    .map(|name| {
        let path = dir.join(format!("{name}.tsv"));
        std::fs::metadata(path).unwrap().modified().unwrap()
    })
    .collect()
}

#[test]
fn bad_options_are_named_with_a_non_zero_exit_before_any_work() {
    let dir = TestDir::new("arbiter-make-net-bad-");
    let out_dir = dir.join("net");
    let out_dir = out_dir.to_str().unwrap();
    for (args, named) in [
        (vec![out_dir, "--batch", "sometimes:10:1"], "--batch"),
        (vec![out_dir, "--nodes", "many"], "--nodes"),
        (vec![out_dir, "--mix"], "--mix needs a value"),
        (vec![out_dir, "--mix", "1.5"], "--mix takes 0 to 1"),
        (vec![out_dir, "--hidden", "65"], "--hidden takes 1 to 64"),
        (vec![out_dir, "--colour", "red"], "unknown option --colour"),
        (vec![out_dir, "elsewhere"], "one DIR only"),
    ] {
        let out = make_net(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        assert!(said(&out).contains(named), "{args:?}: {}", said(&out));
    }
    assert!(!dir.join("net").exists(), "a refused run made its folder");
}
