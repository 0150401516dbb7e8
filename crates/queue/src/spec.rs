//! What a test is, as stored with it: everything a worker needs to play any of its pairs
//! exactly as a local `arbiter arena` run with the same arguments would, and the content hash
//! of each outside engine so that a worker with a different binary refuses to play.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_ai::{PlayerKind, PlayerSpec};
use arbiter_arena::{
    Adjudication, ArenaConfig, DrawRule, Entrant, OpeningSuite, PairRunner, PairSource, ResignRule,
    Sprt,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A test as submitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestSpec {
    /// The game's id and the options given (`size`, …).
    pub game: String,
    pub options: Vec<(String, u64)>,
    /// The two players; the results are counted from the first one's side.
    pub players: Vec<Player>,
    /// Games wanted in all (even: pairs of games on one opening); an SPRT may stop sooner.
    pub games: u32,
    pub time_per_move_ms: u64,
    /// `--nodes-per-move N`, which replaces the time (tests stored before it have none).
    #[serde(default)]
    pub nodes_per_move: Option<u64>,
    pub opening_plies: u32,
    pub suite: Option<OpeningSuite>,
    pub seed: u64,
    pub max_plies: Option<u32>,
    /// `--resign CP,PLIES` (tests stored before it have none).
    #[serde(default)]
    pub resign: Option<(i32, u32)>,
    /// `--draw CP,PLIES,AFTER`.
    #[serde(default)]
    pub draw: Option<(i32, u32, u32)>,
    /// The SPRT's Elo bounds (H0, H1).
    pub sprt: Option<(f64, f64)>,
    /// Pairs handed out in one batch.
    pub batch_pairs: u32,
}

/// One player of a test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    /// The spec as written (`alphabeta:ms=50`, `cmd:./engine --fast`).
    pub spec: String,
    /// For an outside engine: its binary as found by the submitter, and its hash.
    pub engine: Option<EngineHash>,
}

/// An engine's binary and the SHA-256 of its contents (lowercase hex).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineHash {
    pub path: PathBuf,
    pub sha256: String,
}

/// The binary an engine command starts (its first word, looked up on `PATH` when it has no
/// `/`) and the hash of its contents.
pub fn engine_hash(command: &str) -> Result<EngineHash, String> {
    let program = command
        .split_whitespace()
        .next()
        .ok_or("the engine command is empty")?;
    let path = if program.contains('/') {
        PathBuf::from(program)
    } else {
        find_on_path(program).ok_or_else(|| format!("`{program}` is not on PATH"))?
    };
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let digest = Sha256::digest(&bytes);
    let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok(EngineHash { path, sha256 })
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| Path::is_file(p))
}

impl TestSpec {
    /// The pairs of games the test has at most.
    pub fn pairs(&self) -> u32 {
        self.games / 2
    }

    /// The two entrants, their specs read again.
    pub fn entrants(&self) -> Result<Vec<Entrant>, String> {
        self.players
            .iter()
            .map(|p| {
                let spec: PlayerSpec = p
                    .spec
                    .parse()
                    .map_err(|e| format!("player {}: {e}", p.name))?;
                Ok(Entrant::new(&p.name, spec))
            })
            .collect()
    }

    /// The match's conditions in words (time, openings, ply cap, adjudication, seed), for
    /// `arena status` and `/tests`: results are only comparable under the same ones.
    pub fn conditions(&self) -> String {
        let mut parts = vec![
            match self.nodes_per_move {
                Some(nodes) => format!("{nodes} nodes a move"),
                None => format!("{} ms a move", self.time_per_move_ms),
            },
            match &self.suite {
                Some(suite) => format!("a suite of {} openings", suite.lines.len()),
                None => format!("{}-ply random openings", self.opening_plies),
            },
        ];
        if let Some(plies) = self.max_plies {
            parts.push(format!("drawn at ply {plies}"));
        }
        parts.push(match self.resign {
            Some((cp, plies)) => format!("resign at {cp} cp for {plies} plies"),
            None => "no resign rule".into(),
        });
        parts.push(match self.draw {
            Some((cp, plies, after)) => {
                format!("draw within {cp} cp for {plies} plies after ply {after}")
            }
            None => "no draw rule".into(),
        });
        parts.push(format!("seed {}", self.seed));
        parts.join(", ")
    }

    /// The arena's settings for one worker thread: the same openings and seeds as a local run.
    pub fn arena_config(&self) -> ArenaConfig {
        ArenaConfig {
            games: self.games,
            time_per_move: Duration::from_millis(self.time_per_move_ms),
            nodes_per_move: self.nodes_per_move,
            concurrency: 1,
            opening_plies: self.opening_plies,
            suite: self.suite.clone(),
            seed: self.seed,
            out_dir: None,
            max_plies: self.max_plies,
            adjudication: Adjudication {
                resign: self
                    .resign
                    .map(|(score, plies)| ResignRule { score, plies }),
                draw: self.draw.map(|(score, plies, after)| DrawRule {
                    score,
                    plies,
                    after,
                }),
            },
            sprt: self.sprt.map(|(elo0, elo1)| Sprt::new(elo0, elo1)),
            ..ArenaConfig::default()
        }
    }

    /// Checks that every engine here is the binary the test was submitted with.
    pub fn check_engines(&self) -> Result<(), String> {
        for (player, entrant) in self.players.iter().zip(self.entrants()?) {
            let PlayerKind::Command(command) = &entrant.spec.kind else {
                continue;
            };
            let Some(wanted) = &player.engine else {
                continue;
            };
            let here = engine_hash(command).map_err(|e| format!("engine {}: {e}", player.name))?;
            if here.sha256 != wanted.sha256 {
                return Err(format!(
                    "engine {} is {} with SHA-256 {} here, but the test was submitted with {} \
                     (SHA-256 {}): install the same binary on this machine, or submit a new test",
                    player.name,
                    here.path.display(),
                    here.sha256,
                    wanted.path.display(),
                    wanted.sha256
                ));
            }
        }
        Ok(())
    }

    /// The player of pairs for this test's game from catalogue `C`, after checking the engines.
    pub fn runner<C: Catalogue>(&self) -> Result<Arc<dyn PairSource>, String> {
        self.check_engines()?;
        let given = self.options.iter().map(|(k, v)| (k.as_str(), *v));
        let options = registry::options::<C>(&self.game, given).map_err(|e| e.to_string())?;
        let build = Build {
            entrants: self.entrants()?,
            config: self.arena_config(),
        };
        registry::with_game::<C, _>(&options, build).map_err(|e| e.to_string())?
    }
}

/// Makes the pair runner with the game's own type.
struct Build {
    entrants: Vec<Entrant>,
    config: ArenaConfig,
}

impl GameVisitor for Build {
    type Output = Result<Arc<dyn PairSource>, String>;
    fn visit<G: FullGame>(self, start: G) -> Self::Output {
        PairRunner::new(start, self.entrants, self.config)
            .map(|runner| Arc::new(runner) as Arc<dyn PairSource>)
            .map_err(|e| e.to_string())
    }
}
