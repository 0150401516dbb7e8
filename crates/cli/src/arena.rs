//! `arbiter arena`: argument parsing, the progress bar and the final table.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_ai::{PlayerSpec, SearchSettings};
use arbiter_arena::openings::{self, GenerateConfig};
use arbiter_arena::{
    Adjudication, ArenaConfig, DrawRule, EloModel, Entrant, OpeningSuite, Progress, Report,
    ResignRule, Sprt, TimeControl,
};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Args)]
#[command(
    after_help = format!("SPEC: {}", arbiter_ai::SPEC_HELP),
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    args_override_self = true
)]
pub struct ArenaArgs {
    #[command(subcommand)]
    command: Option<ArenaCommand>,
    #[command(flatten)]
    game: Option<crate::GameArgs>,
    /// A player, NAME=SPEC (at least two; see SPEC below).
    #[arg(long = "player", value_name = "NAME=SPEC", required = true)]
    players: Vec<String>,
    /// Games per pair of players (each opening is played with both colours).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Thinking time per move for players without their own limit, and for engines.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    time_per_move: u64,
    /// Game clocks instead of a time a move: BASE seconds for the game plus INC seconds after
    /// each move (`10+0.1`, `60`). Engines are sent `go wtime … btime … winc … binc …`, players
    /// without their own limit share their time out the same way, and a side whose time runs
    /// out loses the game.
    #[arg(long = "tc", value_name = "BASE+INC", conflicts_with_all = ["time_per_move", "nodes_per_move"])]
    time_control: Option<TimeControl>,
    /// Limit each move by nodes instead of time: engines (`cmd:`) are sent `go nodes N` (and
    /// forfeit after 60 s), players without their own limit stop after N nodes. The games
    /// then play the same however loaded the machine is.
    #[arg(long, value_name = "N", conflicts_with = "time_per_move")]
    nodes_per_move: Option<u64>,
    /// Games played at once.
    #[arg(long, value_name = "K", default_value_t = 1)]
    concurrency: usize,
    /// Random plies from the start that make each opening (default 4); with --suite, play
    /// only the suite's openings of this many plies (default: all of them).
    #[arg(long, value_name = "PLIES")]
    openings: Option<u32>,
    /// Play the openings of this suite file (see `arbiter openings`) in an order shuffled by
    /// --seed, each with both colours, instead of random ones.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Seed of the openings and of the players' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write every game's record (and games.tsv) into this folder.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Stop a two-player match early once an SPRT between these Elo differences decides
    /// (counted by pairs of games on one opening: the pentanomial GSPRT).
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// The SPRT's chance of accepting H1 when H0 holds (a false gain).
    #[arg(long, value_name = "P", default_value_t = 0.05, requires = "sprt")]
    sprt_alpha: f64,
    /// The SPRT's chance of accepting H0 when H1 holds (a missed gain).
    #[arg(long, value_name = "P", default_value_t = 0.05, requires = "sprt")]
    sprt_beta: f64,
    /// How ELO0 and ELO1 are read: `logistic` Elo (what the table prints) or `normalized`
    /// Elo (nElo, as fastchess's default and fishtest read them).
    #[arg(
        long,
        value_name = "MODEL",
        default_value = "logistic",
        requires = "sprt"
    )]
    sprt_model: EloModel,
    /// Log every line sent to and received from the outside engines (and their stderr) to
    /// this file, with the time and the engine's name and process id.
    #[arg(long, value_name = "FILE")]
    engine_log: Option<PathBuf>,
    /// Finish the match whose records are in DIR (stopped with Ctrl-C): its arguments are
    /// read from DIR/arena-args, the games in DIR/games.tsv count as played.
    #[arg(long, value_name = "DIR")]
    resume: Option<PathBuf>,
    /// Adjudicate games that reach this many plies as draws (default: the game's own cap).
    #[arg(long)]
    max_plies: Option<u32>,
    /// Give the game to a side once both players' scores put it at least CP centipawns ahead
    /// for PLIES plies in a row (a mate counts as far ahead). Off by default.
    #[arg(long, value_name = "CP,PLIES")]
    resign: Option<String>,
    /// Draw the game once both players' scores stay within CP centipawns of level for PLIES
    /// plies in a row, counted after ply AFTER. Off by default.
    #[arg(long, value_name = "CP,PLIES,AFTER")]
    draw: Option<String>,
    /// Do not play: submit the match to the queue in this PostgreSQL database
    /// (postgres://USER@HOST:PORT/DATABASE) for `arbiter worker`s, and print its id. Workers
    /// keep the records (`worker --records`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["out", "json"])]
    queue: Option<String>,
    /// With --queue: pairs of games (an opening with both colours) handed out at a time.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "queue")]
    batch_pairs: u32,
}

#[derive(clap::Subcommand)]
enum ArenaCommand {
    /// Show the tests of a queue: games, W/D/L, pentanomial, Elo, LLR and the workers playing.
    Status(crate::queue::StatusArgs),
}

fn entrants(args: &ArenaArgs) -> anyhow::Result<Vec<Entrant>> {
    let mut entrants = args
        .players
        .iter()
        .map(|p| {
            let (name, spec) = p.split_once('=').with_context(|| {
                format!("--player `{p}` must be NAME=SPEC, like ab=alphabeta:ms=100")
            })?;
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                bail!("player name `{name}` may only use letters, digits, `_` and `-`");
            }
            let spec: PlayerSpec = spec.parse()?;
            Ok(Entrant::new(name, spec))
        })
        .collect::<anyhow::Result<Vec<Entrant>>>()?;
    for (player, name, value) in engine_options(args) {
        let Some(entrant) = entrants.iter_mut().find(|e| e.name == player) else {
            bail!("--option {player}.{name}={value}: there is no player `{player}`");
        };
        entrant.options.push((name, value));
    }
    Ok(entrants)
}

/// The `--option PLAYER.NAME=VALUE` of outside engines (the others are the game's options).
fn engine_options(args: &ArenaArgs) -> Vec<(String, String, String)> {
    let given = args.game.iter().flat_map(|g| g.option.iter());
    given
        .filter_map(|text| {
            let (key, value) = text.split_once('=')?;
            let (player, name) = key.split_once('.')?;
            Some((
                player.trim().into(),
                name.trim().into(),
                value.trim().into(),
            ))
        })
        .collect()
}

/// The game's arguments without the engines' options.
fn game_args(args: &ArenaArgs) -> Option<crate::GameArgs> {
    let mut game = args.game.clone()?;
    game.option.retain(|text| {
        !text
            .split_once('=')
            .is_some_and(|(key, _)| key.contains('.'))
    });
    Some(game)
}

/// `--sprt ELO0,ELO1` with its error rates and Elo model, checked.
fn sprt(args: &ArenaArgs) -> anyhow::Result<Option<Sprt>> {
    let Some(text) = &args.sprt else {
        return Ok(None);
    };
    let (a, b) = text
        .split_once(',')
        .context("--sprt takes ELO0,ELO1, like 0,50")?;
    let parse = |s: &str| {
        s.trim()
            .parse::<f64>()
            .with_context(|| format!("--sprt: `{s}` is not a number"))
    };
    let (elo0, elo1) = (parse(a)?, parse(b)?);
    if elo0 >= elo1 {
        bail!("--sprt: ELO0 must be below ELO1");
    }
    let (alpha, beta) = (args.sprt_alpha, args.sprt_beta);
    if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
        bail!("--sprt-alpha and --sprt-beta must be above 0 with a sum below 1");
    }
    if args.players.len() != 2 {
        let n = args.players.len();
        bail!("--sprt needs exactly two players, not {n}");
    }
    let model = args.sprt_model;
    Ok(Some(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
        model,
    }))
}

fn config(args: &ArenaArgs) -> anyhow::Result<ArenaConfig> {
    let sprt = sprt(args)?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.nodes_per_move == Some(0) {
        bail!("--nodes-per-move must be at least 1");
    }
    let suite = args
        .suite
        .as_deref()
        .map(|path| read_suite(path, args.openings))
        .transpose()?;
    Ok(ArenaConfig {
        games: args.games,
        time_per_move: Duration::from_millis(args.time_per_move),
        nodes_per_move: args.nodes_per_move,
        concurrency: args.concurrency.max(1),
        opening_plies: args.openings.unwrap_or(4),
        suite,
        seed: args.seed,
        out_dir: args.out.clone(),
        max_plies: args.max_plies,
        adjudication: adjudication(args)?,
        sprt,
        time_control: args.time_control,
        engine_log: args.engine_log.clone(),
        interrupt: None,
        done: Vec::new(),
    })
}

/// The `--resign` and `--draw` rules.
fn adjudication(args: &ArenaArgs) -> anyhow::Result<Adjudication> {
    let resign = args.resign.as_deref().map(ResignRule::parse).transpose();
    let draw = args.draw.as_deref().map(DrawRule::parse).transpose();
    Ok(Adjudication {
        resign: resign.map_err(anyhow::Error::msg)?,
        draw: draw.map_err(anyhow::Error::msg)?,
    })
}

/// The suite file at `path`, keeping only openings of `plies` plies when given.
fn read_suite(path: &Path, plies: Option<u32>) -> anyhow::Result<OpeningSuite> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the suite {}", path.display()))?;
    let suite = OpeningSuite::parse(&text)
        .with_context(|| format!("suite {}", path.display()))?
        .with_plies(plies.as_slice());
    if suite.lines.is_empty() {
        match plies {
            Some(n) => bail!("the suite {} has no opening of {n} plies", path.display()),
            None => bail!("the suite {} has no opening", path.display()),
        }
    }
    Ok(suite)
}

/// Plays the tournament with the game's own type.
struct Play<'a> {
    entrants: &'a [Entrant],
    config: &'a ArenaConfig,
}

impl GameVisitor for Play<'_> {
    type Output = anyhow::Result<Report>;
    fn visit<G: FullGame>(self, start: G) -> anyhow::Result<Report> {
        play(start, self.entrants, self.config)
    }
}

fn play<G: FullGame>(
    start: G,
    entrants: &[Entrant],
    config: &ArenaConfig,
) -> anyhow::Result<Report> {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} games  {msg}  [{elapsed_precise}, about {eta} left]",
        )
        .expect("valid template"),
    );
    let report = arbiter_arena::run(&start, entrants, config, &mut |progress: &Progress| {
        let (done, total, outcome) = (progress.done, progress.total, progress.outcome);
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        let winner = outcome
            .winner
            .map_or("draw".to_string(), |w| format!("{} won", entrants[w].name));
        match &progress.live {
            Some(live) => bar.set_message(live.clone()),
            None => bar.set_message(format!("last: {winner} ({})", outcome.reason)),
        }
        // Without a terminal (a log, a pipe) the bar is hidden: every game gets a line instead.
        if bar.is_hidden() || is_forfeit(&outcome.reason) {
            let (first, second) = (
                &entrants[outcome.first].name,
                &entrants[outcome.second].name,
            );
            let mut line = format!(
                "game {} ({first} vs {second}): {winner}: {} [{done}/{total} done]",
                outcome.index + 1,
                outcome.reason
            );
            if let Some(live) = &progress.live {
                line.push_str(&format!(" {live}"));
            }
            bar.suspend(|| eprintln!("{line}"));
        }
    })?;
    bar.finish_and_clear();
    Ok(report)
}

/// A game lost outside the rules (an engine that failed, timed out or played an illegal move):
/// said on the terminal at once, not only in `games.tsv`.
fn is_forfeit(reason: &str) -> bool {
    [
        "engine failed",
        "engine did not answer",
        "illegal move",
        "lost on time",
    ]
    .iter()
    .any(|start| reason.starts_with(start))
}

/// `--json`'s file, opened before the tournament so that a path that cannot be written fails at
/// once instead of after hours of games. An existing file is replaced only at the end; a file
/// made here is removed again if the tournament cannot be played.
struct JsonOut {
    file: File,
    path: PathBuf,
    made_here: bool,
}

impl JsonOut {
    fn open(path: &Path) -> anyhow::Result<JsonOut> {
        let made_here = !path.exists();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(JsonOut {
            file,
            path: path.to_path_buf(),
            made_here,
        })
    }

    fn write(mut self, report: &Report) -> anyhow::Result<()> {
        self.file
            .set_len(0)
            .and_then(|_| self.file.write_all(report.to_json().as_bytes()))
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    fn abandon(self) {
        if self.made_here {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

pub fn run<C: Catalogue>(args: ArenaArgs) -> anyhow::Result<ExitCode> {
    if let Some(ArenaCommand::Status(status)) = args.command {
        return crate::queue::status(status);
    }
    let entrants = entrants(&args)?;
    let mut config = config(&args)?;
    let options = game_args(&args)
        .context("arena needs a GAME (or `arena status URL`)")?
        .options::<C>()?;
    if let Some(url) = &args.queue {
        refuse_for_queue(&args, &entrants)?;
        return crate::queue::submit::<C>(url, &options, &entrants, &config, args.batch_pairs);
    }
    if let Some(dir) = &args.out {
        // Made first: `--json` may name a file inside it.
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make the records folder {}", dir.display()))?;
        match &args.resume {
            Some(_) => {
                config.done = arbiter_arena::finished_games(dir, &entrants, config.games)?;
            }
            None => crate::resume::save_arguments(dir)?,
        }
    }
    let interrupt = crate::resume::stop_on_signals()?;
    config.interrupt = Some(interrupt);
    let json = args.json.as_deref().map(JsonOut::open).transpose()?;
    let played = registry::with_game::<C, _>(
        &options,
        Play {
            entrants: &entrants,
            config: &config,
        },
    )
    .map_err(anyhow::Error::from)
    .and_then(|report| report);
    let report = match played {
        Ok(report) => report,
        Err(e) => {
            if let Some(out) = json {
                out.abandon();
            }
            return Err(e);
        }
    };
    print!("{}", report.table());
    if let Some(out) = json {
        out.write(&report)?;
    }
    if let Some(dir) = &args.out {
        eprintln!("game records in {}", dir.display());
    }
    if report.interrupted {
        return Ok(crate::resume::interrupted(&report, args.out.as_deref()));
    }
    Ok(ExitCode::SUCCESS)
}

/// What a queued test cannot carry yet, refused rather than dropped.
fn refuse_for_queue(args: &ArenaArgs, entrants: &[Entrant]) -> anyhow::Result<()> {
    if args.time_control.is_some() {
        bail!("--tc: a queued test is played with --time-per-move or --nodes-per-move");
    }
    if args.sprt_alpha != 0.05 || args.sprt_beta != 0.05 || args.sprt_model != EloModel::Logistic {
        bail!("a queued test's SPRT has alpha 0.05, beta 0.05 and logistic Elo");
    }
    if entrants.iter().any(|e| !e.options.is_empty()) || args.engine_log.is_some() {
        bail!("--option for an engine and --engine-log are for a local match, not --queue");
    }
    Ok(())
}

/// `arbiter openings`: a balanced opening suite, made reproducibly.
#[derive(Args)]
pub struct OpeningsArgs {
    #[command(flatten)]
    game: crate::GameArgs,
    /// Opening lengths in plies; the openings are shared out evenly among them.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [2, 4, 6, 8])]
    plies: Vec<u32>,
    /// Openings wanted in all (fewer when a length has too few level positions).
    #[arg(long, default_value_t = 2000)]
    count: usize,
    /// Seed of the random plies (the same arguments write the same file).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth of the alpha-beta search that judges each position (default: Duck Chess 7,
    /// Surakarta 10 on 6×6 and 8 on larger boards, RC-02 8).
    #[arg(long)]
    depth: Option<u32>,
    /// Keep positions whose value is within this many hundredths of a piece of level.
    #[arg(long, value_name = "CP", default_value_t = 50)]
    max_eval: i32,
    /// Random positions tried for each opening wanted before a length gives up.
    #[arg(long, default_value_t = 50)]
    tries: usize,
    /// An evaluation weight of the judging search other than its default (repeatable), e.g.
    /// `learnt=0`: the Duck Chess suite was judged by the hand-written evaluation alone.
    #[arg(long = "weight", value_name = "NAME=VALUE", value_parser = parse_weight)]
    weights: Vec<(String, i32)>,
    /// A setting of the judging alpha-beta search other than its default (repeatable):
    /// `statistics`, `history_reduction`, `history_pruning`, `cut_reduction` or `pv_reduction`,
    /// e.g. `statistics=0`, so a suite made before a default changed is made again the same way.
    #[arg(long = "search", value_name = "KEY=VALUE", value_parser = parse_search_setting)]
    search: Vec<String>,
    /// Write the suite here (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// The search depth that judges openings of game `id` when none is given: each about 40 ms a
/// position on this project's machine, so a suite of 2000 takes a few minutes.
fn default_depth(id: &str, size: Option<u32>) -> u32 {
    match (id, size) {
        ("duck", _) => 7,
        ("surakarta", Some(6)) => 10,
        _ => 8,
    }
}

fn parse_weight(text: &str) -> Result<(String, i32), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE, like learnt=0"))?;
    let value = value
        .parse()
        .map_err(|_| format!("`{value}` is not a whole number"))?;
    Ok((name.to_string(), value))
}

fn parse_search_setting(text: &str) -> Result<String, String> {
    search_settings(&[text.to_string()])?;
    Ok(text.to_string())
}

/// The search settings `--search` gave, or what is wrong with one.
fn search_settings(given: &[String]) -> Result<SearchSettings, String> {
    let mut settings = SearchSettings::default();
    for text in given {
        settings.set_pair(text)?;
    }
    Ok(settings)
}

struct Generate<'a> {
    args: &'a OpeningsArgs,
    config: GenerateConfig,
}

impl GameVisitor for Generate<'_> {
    type Output = anyhow::Result<String>;
    fn visit<G: FullGame>(self, start: G) -> anyhow::Result<String> {
        let options = start.options();
        let mut command = format!("arbiter openings {}", options.def().id);
        if let Some(size) = options.get("size") {
            command.push_str(&format!(" --size {size}"));
        }
        let plies: Vec<String> = self.config.plies.iter().map(u32::to_string).collect();
        command.push_str(&format!(
            " --plies {} --count {} --seed {} --depth {} --max-eval {} --tries {}",
            plies.join(","),
            self.args.count,
            self.config.seed,
            self.config.depth,
            self.config.max_eval,
            self.config.tries_per_opening
        ));
        for (name, value) in &self.config.weights {
            command.push_str(&format!(" --weight {name}={value}"));
        }
        for setting in &self.args.search {
            command.push_str(&format!(" --search {setting}"));
        }
        let generated = openings::generate(&start, &self.config, &mut |kept| {
            if kept % 100 == 0 {
                eprintln!("{kept} openings kept");
            }
        })
        .map_err(anyhow::Error::msg)?;
        for (plies, tried, kept) in &generated.per_length {
            eprintln!("{plies} plies: {kept} kept of {tried} positions searched");
        }
        Ok(generated.text(&options, &command))
    }
}

pub fn openings_command<C: Catalogue>(args: OpeningsArgs) -> anyhow::Result<ExitCode> {
    let options = args.game.options::<C>()?;
    if args.plies.is_empty() || args.count == 0 {
        bail!("--plies and --count must not be empty or zero");
    }
    let config = GenerateConfig {
        plies: args.plies.clone(),
        count: args.count,
        seed: args.seed,
        depth: args
            .depth
            .unwrap_or_else(|| default_depth(options.def().id, options.get("size"))),
        max_eval: args.max_eval,
        tries_per_opening: args.tries,
        weights: args.weights.clone(),
        search: search_settings(&args.search).map_err(anyhow::Error::msg)?,
    };
    let text = registry::with_game::<C, _>(
        &options,
        Generate {
            args: &args,
            config,
        },
    )??;
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
