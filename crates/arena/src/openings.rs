//! Opening suites: files of openings, one a line, each a few moves from the start judged
//! roughly level by a search, played by the arena in a seeded order.
//!
//! A suite file is text: lines starting with `#` are comments (the generator writes the
//! command that made the file and what it kept), `#! game=ID size=N` names the game it is
//! for, and every other non-blank line is one opening — moves in the game's notation separated
//! by spaces (`a0-a1 f9-f8`, `A2-B3 C5-D4`). Positions are not stored: the moves are enough
//! and keep the files small.
//!
//! [`generate`] makes a suite reproducibly: for each requested length it plays random legal
//! plies from a seeded generator of its own, skips positions that length already has (by
//! their full state) and any that ended, and keeps those whose value by the project's
//! alpha-beta at a fixed depth (a fresh table for each, so the value does not depend on what
//! was searched before) is within `max_eval` of level. The same arguments give the same file
//! on any machine, and a smaller `count` gives a prefix of each length's openings.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

use arbiter_ai::{AlphaBeta, AlphaBetaConfig, EvalWeights, FullGame, Limits, SearchSettings};
use arbiter_core::playout::below;
use arbiter_core::{MoveList, Options};
use rand::RngCore;
use thiserror::Error;

/// A suite's openings as written (move texts), not yet checked against a game.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpeningSuite {
    /// The game id and size named by the `#!` line, if any.
    pub game: Option<String>,
    pub size: Option<u32>,
    /// Each opening's moves, and the line of the file it came from (1-based).
    pub lines: Vec<(usize, Vec<String>)>,
}

/// What is wrong with a suite.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SuiteError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("the suite is for {suite}, not {game}")]
    WrongGame { suite: String, game: String },
    #[error("the suite has no opening{0}")]
    Empty(String),
}

impl OpeningSuite {
    /// Reads a suite's text; only the `#!` line can be malformed here (moves are checked by
    /// [`OpeningSuite::positions`]).
    pub fn parse(text: &str) -> Result<OpeningSuite, SuiteError> {
        let mut suite = OpeningSuite::default();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.trim();
            if let Some(header) = line.strip_prefix("#!") {
                suite.read_header(header, line_no)?;
            } else if !line.is_empty() && !line.starts_with('#') {
                let moves = line.split_whitespace().map(str::to_string).collect();
                suite.lines.push((line_no, moves));
            }
        }
        Ok(suite)
    }

    fn read_header(&mut self, header: &str, line: usize) -> Result<(), SuiteError> {
        for field in header.split_whitespace() {
            let bad = |why: String| SuiteError::Line { line, why };
            match field.split_once('=') {
                Some(("game", id)) => self.game = Some(id.to_string()),
                Some(("size", n)) => {
                    self.size = Some(n.parse().map_err(|_| bad(format!("size `{n}`")))?)
                }
                _ => return Err(bad(format!("unknown header field `{field}`"))),
            }
        }
        Ok(())
    }

    /// Only the openings of these lengths (all of them for an empty list).
    pub fn with_plies(mut self, plies: &[u32]) -> OpeningSuite {
        if !plies.is_empty() {
            self.lines
                .retain(|(_, m)| plies.contains(&(m.len() as u32)));
        }
        self
    }

    /// How many openings of each length, shortest first.
    pub fn lengths(&self) -> Vec<(u32, usize)> {
        let mut out: Vec<(u32, usize)> = Vec::new();
        for (_, moves) in &self.lines {
            let plies = moves.len() as u32;
            match out.iter_mut().find(|(p, _)| *p == plies) {
                Some((_, n)) => *n += 1,
                None => out.push((plies, 1)),
            }
        }
        out.sort_unstable();
        out
    }

    /// Every opening played out from `start`: the position reached and the moves. Refuses a
    /// suite named for another game or size, an empty one, an illegal move (naming its line)
    /// and an opening that ends the game.
    pub fn positions<G: FullGame>(&self, start: &G) -> Result<Vec<(G, Vec<String>)>, SuiteError> {
        self.check_game(&start.options())?;
        if self.lines.is_empty() {
            return Err(SuiteError::Empty(String::new()));
        }
        self.lines
            .iter()
            .map(|(line, moves)| {
                play_line(start, moves)
                    .map(|pos| (pos, moves.clone()))
                    .map_err(|why| SuiteError::Line { line: *line, why })
            })
            .collect()
    }

    fn check_game(&self, options: &Options) -> Result<(), SuiteError> {
        let id = options.def().id;
        let size = options.get("size");
        let named = |game: &str, size: Option<u32>| match size {
            Some(n) => format!("{game} size {n}"),
            None => game.to_string(),
        };
        let game_differs = self.game.as_deref().is_some_and(|g| g != id);
        let size_differs = self.size.is_some() && self.size != size;
        if game_differs || size_differs {
            return Err(SuiteError::WrongGame {
                suite: named(self.game.as_deref().unwrap_or(id), self.size),
                game: named(id, size),
            });
        }
        Ok(())
    }
}

/// Plays `moves` from `start`; the error says which move is not legal, or that the game ended.
fn play_line<G: FullGame>(start: &G, moves: &[String]) -> Result<G, String> {
    let mut pos = start.clone();
    for (i, text) in moves.iter().enumerate() {
        if pos.status().is_over() {
            return Err(format!("the game is over before move {} `{text}`", i + 1));
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| format!("move {} `{text}`: {e}", i + 1))?;
        pos.play(mv);
    }
    if pos.status().is_over() {
        return Err("the opening ends the game".to_string());
    }
    Ok(pos)
}

/// SplitMix64: a generator whose numbers are fixed by this code alone (not by a library
/// version or the platform), so a suite and its playing order are the same everywhere.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
}

impl RngCore for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// The order the arena plays a suite's openings in: a shuffle of `0..n` by `seed`
/// (Fisher–Yates on [`SplitMix64`]).
pub fn seeded_order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed ^ 0x5EED_0F0B_E111_1165);
    for i in (1..n).rev() {
        let j = below(&mut rng, (i + 1) as u32) as usize;
        order.swap(i, j);
    }
    order
}

/// How [`generate`] makes a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateConfig {
    /// Opening lengths in plies; the openings are shared out evenly among them.
    pub plies: Vec<u32>,
    /// Openings wanted in all.
    pub count: usize,
    pub seed: u64,
    /// Depth of the alpha-beta search that judges each position.
    pub depth: u32,
    /// The largest |value| (the game's evaluation units, hundredths of a piece) kept.
    pub max_eval: i32,
    /// Random positions tried for each opening wanted before giving up on a length.
    pub tries_per_opening: usize,
    /// Evaluation weights of the judging search that differ from the defaults (`--weight
    /// NAME=VALUE`): a suite names them in its command, so it is made again the same way
    /// after the defaults change.
    pub weights: Vec<(String, i32)>,
    /// Search settings of the judging search that differ from the defaults (`--search
    /// KEY=VALUE`), named in the command for the same reason as the weights.
    pub search: SearchSettings,
}

/// A generated suite and what it took.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The openings with the value the search gave each (for the side to move).
    pub openings: Vec<(Vec<String>, i32)>,
    /// For each length: positions tried (new and not over), openings kept.
    pub per_length: Vec<(u32, usize, usize)>,
}

/// Makes a suite for the game `start` begins (see the module's documentation); `progress`
/// hears of each opening kept. Errors on a weight the game's evaluation does not have.
pub fn generate<G: FullGame>(
    start: &G,
    config: &GenerateConfig,
    progress: &mut dyn FnMut(usize),
) -> Result<Generated, String> {
    let mut weights = G::Weights::default();
    for (name, value) in &config.weights {
        weights.set(name, *value).map_err(|e| e.to_string())?;
    }
    let mut search_config = AlphaBetaConfig::default();
    config.search.apply(&mut search_config);
    let mut search = AlphaBeta::<G>::new(weights, search_config);
    let mut out = Generated {
        openings: Vec::new(),
        per_length: Vec::new(),
    };
    let lengths = config.plies.len().max(1);
    for (i, &plies) in config.plies.iter().enumerate() {
        let wanted = config.count / lengths + usize::from(i < config.count % lengths);
        let mut rng = SplitMix64::new(config.seed ^ (u64::from(plies) << 48));
        // Per length, so the first openings of a length do not depend on the others' count.
        let mut seen: HashSet<String> = HashSet::new();
        let (mut tried, mut kept) = (0, 0);
        for _ in 0..wanted.saturating_mul(config.tries_per_opening) {
            if kept == wanted {
                break;
            }
            let Some((pos, moves)) = random_line(start, plies, &mut rng) else {
                continue;
            };
            if !seen.insert(pos.state_text()) {
                continue;
            }
            tried += 1;
            search.clear();
            let limits = Limits::depth(config.depth);
            let result = search.search(&pos, &limits, &AtomicBool::new(false), &mut |_| {});
            if result.score.abs() <= config.max_eval {
                kept += 1;
                out.openings.push((moves, result.score));
                progress(out.openings.len());
            }
        }
        out.per_length.push((plies, tried, kept));
    }
    Ok(out)
}

/// `plies` uniformly random legal moves from `start`, or `None` if the game ended on the way.
fn random_line<G: FullGame>(
    start: &G,
    plies: u32,
    rng: &mut SplitMix64,
) -> Option<(G, Vec<String>)> {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(plies as usize);
    let mut list = MoveList::new();
    for _ in 0..plies {
        list.clear();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return None;
        }
        let mv = list[below(rng, list.len() as u32) as usize];
        moves.push(pos.format_move(mv));
        pos.play(mv);
        if pos.status().is_over() {
            return None;
        }
    }
    Some((pos, moves))
}

impl Generated {
    /// The suite file: the header (`#!` line, the command, what was kept), then one opening a
    /// line. Nothing in it depends on the machine or the time, so a second run writes the same
    /// bytes.
    pub fn text(&self, options: &Options, command: &str) -> String {
        let mut out = format!("#! game={}", options.def().id);
        if let Some(size) = options.get("size") {
            let _ = write!(out, " size={size}");
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "# arbiter opening suite, made by: {command}");
        for (plies, tried, kept) in &self.per_length {
            let _ = writeln!(
                out,
                "# {plies} plies: {kept} kept of {tried} positions searched"
            );
        }
        let _ = writeln!(
            out,
            "# one opening a line: moves from the start, in the game's notation"
        );
        for (moves, _) in &self.openings {
            let _ = writeln!(out, "{}", moves.join(" "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use arbiter_core::{Game, Rules};
    use arbiter_surakarta::Position;

    use super::*;

    fn surakarta(size: u64) -> Position {
        let def = <Position as Rules>::definition();
        Position::start(&def.options_from([("size", size)]).unwrap())
    }

    #[test]
    fn a_suite_parses_and_plays_out() {
        let text =
            "#! game=surakarta size=6\n# a comment\n\nA2-A3 F5-F4\n  B2-B3   E5-E4 B3-B4 E4-E3 \n";
        let suite = OpeningSuite::parse(text).unwrap();
        assert_eq!(suite.game.as_deref(), Some("surakarta"));
        assert_eq!(suite.size, Some(6));
        assert_eq!(suite.lines.len(), 2);
        assert_eq!(suite.lines[1].0, 5);
        assert_eq!(suite.lengths(), vec![(2, 1), (4, 1)]);
        let positions = suite.positions(&surakarta(6)).unwrap();
        assert_eq!(positions[1].0.ply(), 4);
        assert_eq!(suite.clone().with_plies(&[4]).lines.len(), 1);
        assert!(suite.clone().with_plies(&[6]).lines.is_empty());
        assert_eq!(suite.clone().with_plies(&[]).lines.len(), 2);
    }

    #[test]
    fn bad_suites_are_refused_with_their_line() {
        let start = surakarta(6);
        let illegal = OpeningSuite::parse("A2-A3 F5-F4\nA2-A3 A3-A4\n").unwrap();
        let err = illegal.positions(&start).unwrap_err().to_string();
        assert!(err.starts_with("line 2: move 2 `A3-A4`"), "{err}");
        let other_size = OpeningSuite::parse("#! game=surakarta size=8\nA2-A3\n").unwrap();
        let err = other_size.positions(&start).unwrap_err().to_string();
        assert_eq!(
            err,
            "the suite is for surakarta size 8, not surakarta size 6"
        );
        let other_game = OpeningSuite::parse("#! game=duck\na3-a4\n").unwrap();
        assert!(other_game.positions(&start).is_err());
        assert!(OpeningSuite::parse("#! colour=red\n").is_err());
        assert!(OpeningSuite::parse("# nothing\n")
            .unwrap()
            .positions(&start)
            .is_err());
    }

    #[test]
    fn the_order_is_a_seeded_shuffle() {
        let a = seeded_order(1000, 7);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        assert_eq!(a, seeded_order(1000, 7));
        assert_ne!(a, seeded_order(1000, 8));
        assert_ne!(a, sorted);
        // Fixed by this code alone: the first numbers of SplitMix64 from 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn generation_is_reproducible_and_level() {
        let start = surakarta(6);
        let config = GenerateConfig {
            plies: vec![2, 4],
            count: 12,
            seed: 3,
            depth: 3,
            max_eval: 40,
            tries_per_opening: 50,
            weights: Vec::new(),
            search: SearchSettings::default(),
        };
        let first = generate(&start, &config, &mut |_| {}).unwrap();
        let again = generate(&start, &config, &mut |_| {}).unwrap();
        let options = start.options();
        assert_eq!(first.text(&options, "cmd"), again.text(&options, "cmd"));
        assert_eq!(first.openings.len(), 12);
        assert!(first.openings.iter().all(|(_, v)| v.abs() <= 40));
        // A smaller count keeps a prefix of each length's openings.
        let fewer = generate(
            &start,
            &GenerateConfig {
                count: 4,
                ..config.clone()
            },
            &mut |_| {},
        )
        .unwrap();
        let of_length = |g: &Generated, n: usize| -> Vec<Vec<String>> {
            g.openings
                .iter()
                .filter(|(m, _)| m.len() == n)
                .map(|(m, _)| m.clone())
                .collect()
        };
        for n in [2, 4] {
            assert_eq!(of_length(&fewer, n)[..], of_length(&first, n)[..2]);
        }
        // The file reads back as the same openings, for the same game.
        let suite = OpeningSuite::parse(&first.text(&options, "cmd")).unwrap();
        assert_eq!(suite.lines.len(), 12);
        assert_eq!(suite.positions(&start).unwrap().len(), 12);
        let other = GenerateConfig { seed: 4, ..config };
        assert_ne!(
            generate(&start, &other, &mut |_| {}).unwrap().openings,
            first.openings
        );
    }
}
