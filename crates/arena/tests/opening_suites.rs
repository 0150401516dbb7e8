//! The opening suites kept in `tests/data/openings`: every file parses, every opening is legal
//! and leaves the game running, no opening is there twice, and the command in each file's
//! header makes the same openings again (checked on the first few of each length).

use std::collections::HashSet;
use std::path::PathBuf;

use arbiter_ai::registry::{self, FullGame, GameVisitor};
use arbiter_ai::{SearchSettings, Standard};
use arbiter_arena::openings::{generate, GenerateConfig};
use arbiter_arena::OpeningSuite;

fn suites_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/openings")
}

/// The value of `--flag` in the header's command.
fn flag<'a>(command: &'a str, name: &str) -> Option<&'a str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == name)?;
    words.get(at + 1).copied()
}

/// The generator's settings from the file's `made by:` line, for `count` openings a length.
fn config_of(text: &str, per_length: usize) -> GenerateConfig {
    let command = text
        .lines()
        .find_map(|l| l.strip_prefix("# arbiter opening suite, made by: "))
        .expect("a made-by line");
    let number = |name: &str| -> u64 { flag(command, name).unwrap().parse().unwrap() };
    let plies: Vec<u32> = flag(command, "--plies")
        .unwrap()
        .split(',')
        .map(|p| p.parse().unwrap())
        .collect();
    GenerateConfig {
        count: per_length * plies.len(),
        plies,
        seed: number("--seed"),
        depth: number("--depth") as u32,
        max_eval: number("--max-eval") as i32,
        tries_per_opening: number("--tries") as usize,
        weights: weights_of(command),
        search: search_of(command),
    }
}

/// The search settings of every `--search KEY=VALUE` of the header's command.
fn search_of(command: &str) -> SearchSettings {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut settings = SearchSettings::default();
    for pair in words.windows(2).filter(|w| w[0] == "--search") {
        settings.set_pair(pair[1]).unwrap();
    }
    settings
}

/// Every `--weight NAME=VALUE` of the header's command.
fn weights_of(command: &str) -> Vec<(String, i32)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let given = words.windows(2).filter(|w| w[0] == "--weight");
    given
        .map(|w| {
            let (name, value) = w[1].split_once('=').expect("NAME=VALUE");
            (name.to_string(), value.parse().unwrap())
        })
        .collect()
}

struct Check {
    suite: OpeningSuite,
    config: GenerateConfig,
}

impl GameVisitor for Check {
    type Output = Result<(), String>;
    fn visit<G: FullGame>(self, start: G) -> Result<(), String> {
        let positions = self.suite.positions(&start).map_err(|e| e.to_string())?;
        let mut seen = HashSet::new();
        for (line, (pos, _)) in self.suite.lines.iter().zip(&positions) {
            if !seen.insert((line.1.len(), pos.state_text())) {
                return Err(format!("line {}: the same position again", line.0));
            }
        }
        let again = generate(&start, &self.config, &mut |_| {})?;
        for &plies in &self.config.plies {
            let want: Vec<&Vec<String>> = self
                .suite
                .lines
                .iter()
                .map(|l| &l.1)
                .filter(|m| m.len() == plies as usize)
                .collect();
            let got: Vec<&Vec<String>> = again
                .openings
                .iter()
                .map(|o| &o.0)
                .filter(|m| m.len() == plies as usize)
                .collect();
            if want[..got.len()] != got[..] {
                return Err(format!(
                    "{plies} plies: regenerated {got:?}, the file has {:?}",
                    &want[..got.len()]
                ));
            }
        }
        Ok(())
    }
}

#[test]
fn the_opening_suites_are_legal_and_reproducible() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(suites_dir())
        .expect("tests/data/openings")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let suite = OpeningSuite::parse(&text).unwrap();
        let game = suite.game.clone().expect("a #! game= line");
        let size = suite.size.map(|s| ("size", u64::from(s)));
        let options = registry::options::<Standard>(&game, size).unwrap();
        assert!(
            suite.lines.len() >= 1000,
            "{}: {} openings",
            path.display(),
            suite.lines.len()
        );
        let check = Check {
            config: config_of(&text, 3),
            suite,
        };
        let result = registry::with_game::<Standard, _>(&options, check).unwrap();
        if let Err(e) = result {
            panic!("{}: {e}", path.display());
        }
    }
}
