//! Player specifications (`alphabeta:depth=6:ms=100`), levels, and building players from them.

use std::str::FromStr;
use std::time::Duration;

use arbiter_core::Rules;
use thiserror::Error;

use crate::alphabeta::{AlphaBeta, AlphaBetaConfig};
use crate::eval::{EvalWeights, Evaluate};
use crate::mcts::{Mcts, MctsConfig};
use crate::player::{Limits, Player};
use crate::simple::{GreedyPlayer, RandomPlayer};

/// The strength levels offered to people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
    /// The concrete player a level stands for in `game` (the result of the arena runs in
    /// `docs/tuning.md`).
    pub fn spec(self, game: &str) -> PlayerSpec {
        let text = match (self, game) {
            (Level::Easy, _) => "greedy",
            (Level::Medium, _) => "alphabeta:ms=200",
            (Level::Hard, _) => "alphabeta:ms=1000",
        };
        text.parse().expect("level specs are valid")
    }
}

/// What kind of player a spec asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    Random,
    Greedy,
    AlphaBeta,
    Mcts,
    Level(Level),
    /// An outside program speaking the engine protocol (`cmd:COMMAND`), run by the arena.
    Command(String),
}

/// A parsed player specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    pub kind: PlayerKind,
    pub depth: Option<u32>,
    pub ms: Option<u64>,
    pub nodes: Option<u64>,
    pub iterations: Option<u64>,
    pub hash_bits: Option<u32>,
    /// Search settings an alpha-beta player takes over its defaults.
    pub search: SearchSettings,
    /// Evaluation weight overrides, checked against the game when the player is built.
    pub weights: Vec<(String, i32)>,
    /// MCTS exploration constant, in hundredths (`c=140` is 1.4).
    pub exploration: Option<u32>,
    /// A directory of endgame tables the alpha-beta player probes (`tables=DIR`).
    pub tables: Option<String>,
    /// The text it was read from.
    pub text: String,
}

/// The names [`SearchSettings::set`] reads, for the messages that list them.
const SEARCH_SETTING_NAMES: &str = "statistics, history_reduction, history_pruning, \
    cut_reduction, pv_reduction, improving, reduction_divisor, pace or singular";

/// The [`AlphaBetaConfig`] settings a spec may set (`statistics=1`, `history_reduction=N`,
/// `history_pruning=D`); `None` leaves the default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchSettings {
    pub statistics: Option<bool>,
    pub history_reduction: Option<i32>,
    pub history_pruning: Option<i32>,
    pub cut_reduction: Option<i32>,
    pub pv_reduction: Option<i32>,
    pub improving: Option<bool>,
    pub reduction_divisor: Option<i32>,
    pub pace: Option<bool>,
    pub singular: Option<bool>,
}

impl SearchSettings {
    fn is_empty(&self) -> bool {
        *self == SearchSettings::default()
    }

    /// These settings, with `other`'s where it sets them.
    fn overlaid(&self, other: &SearchSettings) -> SearchSettings {
        SearchSettings {
            statistics: other.statistics.or(self.statistics),
            history_reduction: other.history_reduction.or(self.history_reduction),
            history_pruning: other.history_pruning.or(self.history_pruning),
            cut_reduction: other.cut_reduction.or(self.cut_reduction),
            pv_reduction: other.pv_reduction.or(self.pv_reduction),
            improving: other.improving.or(self.improving),
            reduction_divisor: other.reduction_divisor.or(self.reduction_divisor),
            pace: other.pace.or(self.pace),
            singular: other.singular.or(self.singular),
        }
    }

    /// Reads one `KEY=VALUE` if it is a search setting: `Ok(false)` when `key` is not one, the
    /// reason when `value` does not fit it.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("{key} must be {what}, found `{value}`"))
        };
        let history =
            || -> Result<i32, String> { Ok(number("a non-negative integer")?.min(1 << 20) as i32) };
        let plies = || -> Result<i32, String> {
            match number("plies, 0 to 8")? {
                p @ 0..=8 => Ok(p as i32),
                _ => Err(format!("{key} must be plies, 0 to 8, found `{value}`")),
            }
        };
        let hundredths = || -> Result<i32, String> {
            match number("hundredths, 100 to 1000")? {
                h @ 100..=1000 => Ok(h as i32),
                _ => Err(format!(
                    "{key} must be hundredths, 100 to 1000, found `{value}`"
                )),
            }
        };
        // A switch is 0 or 1: `improving=2` is more likely a typo than a wish.
        let switch = || match number("0 or 1")? {
            v @ 0..=1 => Ok(v == 1),
            _ => Err(format!("{key} must be 0 or 1, found `{value}`")),
        };
        match key {
            "statistics" => self.statistics = Some(switch()?),
            "history_reduction" => self.history_reduction = Some(history()?),
            "history_pruning" => self.history_pruning = Some(history()?),
            "cut_reduction" => self.cut_reduction = Some(plies()?),
            "pv_reduction" => self.pv_reduction = Some(plies()?),
            "improving" => self.improving = Some(switch()?),
            "reduction_divisor" => self.reduction_divisor = Some(hundredths()?),
            "pace" => self.pace = Some(switch()?),
            "singular" => self.singular = Some(switch()?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Reads `KEY=VALUE` that must name a search setting (`openings --search`).
    pub fn set_pair(&mut self, text: &str) -> Result<(), String> {
        let (key, value) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}` is not KEY=VALUE, like statistics=0"))?;
        match self.set(key, value)? {
            true => Ok(()),
            false => Err(format!(
                "`{key}` is not a search setting; expected {SEARCH_SETTING_NAMES}"
            )),
        }
    }

    /// Sets these settings in `config`, leaving the others as they are.
    pub fn apply(&self, config: &mut AlphaBetaConfig) {
        config.statistics = self.statistics.unwrap_or(config.statistics);
        config.history_reduction = self.history_reduction.unwrap_or(config.history_reduction);
        config.history_pruning = self.history_pruning.unwrap_or(config.history_pruning);
        config.cut_reduction = self.cut_reduction.unwrap_or(config.cut_reduction);
        config.pv_reduction = self.pv_reduction.unwrap_or(config.pv_reduction);
        config.improving = self.improving.unwrap_or(config.improving);
        config.reduction_divisor = self.reduction_divisor.or(config.reduction_divisor);
        config.pace = self.pace.unwrap_or(config.pace);
        config.singular = self.singular.unwrap_or(config.singular);
    }
}

/// A player specification that cannot be read or built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("player `{spec}`: {reason}")]
pub struct SpecError {
    pub spec: String,
    pub reason: String,
}

/// What the spec grammar accepts, for error messages and `--help`.
pub const SPEC_HELP: &str =
    "random | greedy | alphabeta[:depth=D][:ms=T][:nodes=N][:hash=BITS][:tables=DIR]\
[:statistics=0|1][:history_reduction=N][:history_pruning=D][:cut_reduction=P][:pv_reduction=P]\
[:improving=0|1][:reduction_divisor=H][:pace=0|1][:singular=0|1] | \
mcts[:ms=T][:iterations=N][:c=HUNDREDTHS] | easy | medium | hard | cmd:COMMAND; \
any player may add evaluation weights as NAME=VALUE";

/// The player a spec's first word names (`cmd:` aside).
fn kind_of(name: &str) -> Option<PlayerKind> {
    Some(match name {
        "random" => PlayerKind::Random,
        "greedy" => PlayerKind::Greedy,
        "alphabeta" => PlayerKind::AlphaBeta,
        "mcts" => PlayerKind::Mcts,
        "easy" => PlayerKind::Level(Level::Easy),
        "medium" => PlayerKind::Level(Level::Medium),
        "hard" => PlayerKind::Level(Level::Hard),
        _ => return None,
    })
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        let error = |reason: String| SpecError {
            spec: text.to_string(),
            reason,
        };
        let mut spec = PlayerSpec {
            kind: PlayerKind::Random,
            depth: None,
            ms: None,
            nodes: None,
            iterations: None,
            hash_bits: None,
            search: SearchSettings::default(),
            weights: Vec::new(),
            exploration: None,
            tables: None,
            text: text.to_string(),
        };
        if let Some(command) = text.strip_prefix("cmd:") {
            if command.trim().is_empty() {
                return Err(error("`cmd:` needs a command to run".into()));
            }
            spec.kind = PlayerKind::Command(command.to_string());
            return Ok(spec);
        }
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or("");
        spec.kind = kind_of(name)
            .ok_or_else(|| error(format!("unknown player `{name}`; expected {SPEC_HELP}")))?;
        for part in parts {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| error(format!("`{part}` is not KEY=VALUE")))?;
            spec.set(key, value).map_err(error)?;
        }
        Ok(spec)
    }
}

impl PlayerSpec {
    /// Reads one `KEY=VALUE` of the spec into it; the reason when it cannot.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let number = |what: &str| {
            value
                .parse::<u64>()
                .map_err(|_| format!("{key} must be {what}, found `{value}`"))
        };
        match key {
            "depth" => self.depth = Some(number("a number of plies")?.clamp(1, 100) as u32),
            "ms" => self.ms = Some(number("milliseconds")?),
            "nodes" => self.nodes = Some(number("a node count")?),
            "iterations" => self.iterations = Some(number("an iteration count")?),
            "hash" => {
                self.hash_bits = Some(number("a number of bits (10-26)")?.clamp(10, 26) as u32)
            }
            "c" => self.exploration = Some(number("hundredths")? as u32),
            "tables" if value.is_empty() => {
                return Err("tables needs a directory (tables=DIR)".into())
            }
            "tables" => self.tables = Some(value.to_string()),
            _ if self.search.set(key, value)? => {}
            _ => {
                let weight = value
                    .parse::<i32>()
                    .map_err(|_| format!("weight {key} must be an integer, found `{value}`"))?;
                self.weights.push((key.to_string(), weight));
            }
        }
        Ok(())
    }

    /// The search limits the spec sets, with `default_ms` when it sets none.
    pub fn limits(&self, default_ms: Option<u64>) -> Limits {
        let mut limits = Limits {
            depth: self.depth,
            nodes: self.nodes,
            iterations: self.iterations,
            time: self.ms.map(Duration::from_millis),
            time_cap: None,
        };
        if limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.iterations.is_none()
            && limits.time.is_none()
        {
            limits.time = default_ms.map(Duration::from_millis);
        }
        limits
    }

    /// The spec a level stands for (itself for other kinds).
    pub fn resolve(&self, game: &str) -> PlayerSpec {
        match &self.kind {
            PlayerKind::Level(level) => {
                let mut resolved = level.spec(game);
                resolved.weights.extend(self.weights.iter().cloned());
                resolved.tables = self.tables.clone();
                resolved.search = resolved.search.overlaid(&self.search);
                resolved.text = self.text.clone();
                resolved
            }
            _ => self.clone(),
        }
    }

    pub fn weights<W: EvalWeights>(&self) -> Result<W, SpecError> {
        let mut weights = W::default();
        for (name, value) in &self.weights {
            weights.set(name, *value).map_err(|reason| SpecError {
                spec: self.text.clone(),
                reason: reason.to_string(),
            })?;
        }
        Ok(weights)
    }

    /// The endgame tables of game `G` in `dir`.
    fn tables_in<G: Evaluate>(&self, dir: &str) -> Result<std::sync::Arc<G::Tables>, SpecError> {
        G::load_tables(std::path::Path::new(dir)).map_err(|reason| SpecError {
            spec: self.text.clone(),
            reason,
        })
    }

    /// Builds the player for game `G`; `seed` makes its random choices repeatable.
    pub fn build<G: Evaluate + Rules>(&self, seed: u64) -> Result<Box<dyn Player<G>>, SpecError> {
        let spec = self.resolve(G::definition().id);
        if spec.tables.is_some() && spec.kind != PlayerKind::AlphaBeta {
            return Err(SpecError {
                spec: self.text.clone(),
                reason: "only an alpha-beta player (alphabeta, medium, hard) reads tables=DIR"
                    .into(),
            });
        }
        if !spec.search.is_empty() && spec.kind != PlayerKind::AlphaBeta {
            return Err(SpecError {
                spec: self.text.clone(),
                reason: format!(
                    "only an alpha-beta player (alphabeta, medium, hard) takes \
                     {SEARCH_SETTING_NAMES}"
                ),
            });
        }
        let weights = spec.weights::<G::Weights>()?;
        Ok(match &spec.kind {
            PlayerKind::Random => Box::new(RandomPlayer::new(seed)),
            PlayerKind::Greedy => Box::new(GreedyPlayer::<G>::new(seed, weights)),
            PlayerKind::AlphaBeta => {
                let mut config = AlphaBetaConfig::default();
                if let Some(bits) = spec.hash_bits {
                    config.hash_bits = bits;
                }
                spec.search.apply(&mut config);
                let player = AlphaBeta::<G>::new(weights, config);
                match &spec.tables {
                    Some(dir) => Box::new(player.with_tables(self.tables_in::<G>(dir)?)),
                    None => Box::new(player),
                }
            }
            PlayerKind::Mcts => {
                let mut config = MctsConfig::default();
                if let Some(c) = spec.exploration {
                    config.exploration = c as f64 / 100.0;
                }
                Box::new(Mcts::<G>::new(seed, config, weights))
            }
            PlayerKind::Level(_) => unreachable!("levels are resolved above"),
            PlayerKind::Command(_) => {
                return Err(SpecError {
                    spec: self.text.clone(),
                    reason: "an outside engine is run by the arena, not built as a player".into(),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        let s: PlayerSpec = "alphabeta:depth=6:ms=100:mobility=7".parse().unwrap();
        assert_eq!(s.kind, PlayerKind::AlphaBeta);
        assert_eq!((s.depth, s.ms), (Some(6), Some(100)));
        assert_eq!(s.weights, vec![("mobility".to_string(), 7)]);
        let s: PlayerSpec = "cmd:./engine --fast:yes".parse().unwrap();
        assert_eq!(s.kind, PlayerKind::Command("./engine --fast:yes".into()));
        assert_eq!(
            "hard".parse::<PlayerSpec>().unwrap().kind,
            PlayerKind::Level(Level::Hard)
        );
        assert!("alphabeta:ms=fast"
            .parse::<PlayerSpec>()
            .unwrap_err()
            .reason
            .contains("milliseconds"));
        assert!("alphabeta:ms".parse::<PlayerSpec>().is_err());
        assert!("chess"
            .parse::<PlayerSpec>()
            .unwrap_err()
            .reason
            .contains("unknown player"));
        assert!("cmd:".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn search_settings_go_to_alpha_beta_players_only() {
        let s: PlayerSpec = "hard:statistics=1:history_pruning=3:cut_reduction=1"
            .parse()
            .unwrap();
        let expected = SearchSettings {
            statistics: Some(true),
            history_pruning: Some(3),
            cut_reduction: Some(1),
            ..SearchSettings::default()
        };
        assert_eq!(s.search, expected);
        assert!(s.build::<arbiter_duck::Position>(1).is_ok());
        let err = "mcts:statistics=1".parse::<PlayerSpec>().unwrap();
        let err = err.build::<arbiter_duck::Position>(1).err().unwrap();
        assert!(err.reason.contains("only an alpha-beta player"), "{err}");
        let err = "alphabeta:history_reduction=-5".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("non-negative integer"));
        let err = "alphabeta:pv_reduction=one".parse::<PlayerSpec>();
        assert!(err
            .unwrap_err()
            .reason
            .contains("pv_reduction must be plies"));
        let err = "alphabeta:cut_reduction=20".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("0 to 8, found `20`"));
    }

    #[test]
    fn improving_can_be_turned_off_as_the_opening_suite_judges() {
        let s: PlayerSpec = "alphabeta:improving=0".parse().unwrap();
        assert_eq!(s.search.improving, Some(false));
        let mut config = AlphaBetaConfig::default();
        assert!(config.improving, "on by default");
        s.search.apply(&mut config);
        assert!(!config.improving);
        let mut settings = SearchSettings::default();
        settings.set_pair("improving=1").unwrap();
        settings.apply(&mut config);
        assert!(config.improving);
        let err = "alphabeta:improving=yes".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("improving must be 0 or 1"));
        let err = "alphabeta:improving=2".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("0 or 1, found `2`"));
    }

    #[test]
    fn singular_extensions_can_be_turned_off() {
        let mut config = AlphaBetaConfig::default();
        assert!(config.singular, "on by default");
        let s: PlayerSpec = "alphabeta:singular=0".parse().unwrap();
        s.search.apply(&mut config);
        assert!(!config.singular);
        let err = "alphabeta:singular=yes".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("singular must be 0 or 1"));
    }

    #[test]
    fn the_pace_on_a_clock_can_be_turned_on() {
        let mut config = AlphaBetaConfig::default();
        assert!(!config.pace, "off by default");
        let s: PlayerSpec = "alphabeta:pace=1".parse().unwrap();
        s.search.apply(&mut config);
        assert!(config.pace);
        let err = "alphabeta:pace=on".parse::<PlayerSpec>();
        assert!(err.unwrap_err().reason.contains("pace must be 0 or 1"));
    }

    #[test]
    fn the_reduction_divisor_overrides_the_games_until_another_spec_sets_it() {
        let mut config = AlphaBetaConfig::default();
        assert_eq!(config.reduction_divisor, None, "the game's by default");
        let s: PlayerSpec = "alphabeta:reduction_divisor=225".parse().unwrap();
        s.search.apply(&mut config);
        assert_eq!(config.reduction_divisor, Some(225));
        // A spec that does not name it leaves the one set before.
        "alphabeta:improving=1"
            .parse::<PlayerSpec>()
            .unwrap()
            .search
            .apply(&mut config);
        assert_eq!(config.reduction_divisor, Some(225));
        for bad in ["99", "1001", "2.25"] {
            let err = format!("alphabeta:reduction_divisor={bad}").parse::<PlayerSpec>();
            let reason = err.unwrap_err().reason;
            assert!(
                reason.contains("hundredths, 100 to 1000"),
                "{bad}: {reason}"
            );
        }
    }

    #[test]
    fn unknown_weights_are_refused_when_built() {
        let s: PlayerSpec = "greedy:sparkle=3".parse().unwrap();
        let err = s.build::<arbiter_duck::Position>(1).err().unwrap();
        assert!(
            err.reason.contains("unknown weight") && err.reason.contains("mobility"),
            "{err}"
        );
    }
}
