//! Negamax alpha-beta: iterative deepening with aspiration windows, principal variation search,
//! a transposition table (shared with quiescence), move ordering (table move, captures, killers,
//! countermoves, history; captures a game calls losing go after the killers and are left out of
//! quiescence), null move with verification where a game can pass, late move and internal
//! iterative reductions, late move, futility and reverse futility pruning where a game asks for
//! them, an extension for moves that put the opponent in danger and for recaptures where a game
//! names them, mate-distance pruning, and a quiescence search. Each technique was kept for what
//! it won in arena matches against the build before it (docs/strength.md, docs/tuning.md);
//! mate-distance pruning changes no value, only the nodes spent after a mate is found. Futility
//! pruning of quiet moves (−11 ± 52 Elo on Surakarta 6×6) and multi-cut (−5 ± 46) lost for
//! Surakarta, so only Duck Chess asks for futility (with late move pruning: +41 ± 26 by SPRT);
//! reverse futility pruning took Duck Chess from 35% to 57.5% against Fairy-Stockfish.
//!
//! Stockfish's statistics of quiet moves ([`statistics`]) replace the hashed history where a
//! game gives their slots (Duck Chess), by default since they won an SPRT with the learnt
//! correction (+62 ± 34 Elo at 100 ms; `alphabeta:statistics=0` plays without them).
//!
//! [`ordering`] ranks the moves, [`pruning`] ends nodes early, [`search`] searches them.

mod ordering;
mod pace;
mod pruning;
mod search;
mod singular;
mod statistics;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_core::{Game, MoveList, Status};

use crate::eval::{Evaluate, Exact};
use crate::player::{Limits, Player, Score, SearchInfo};
use crate::table::Table;
use pace::Pace;
use statistics::Statistics;

/// The score of a win at the root; a win `p` plies deep scores `WIN - p`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are forced results.
pub const MATE_BOUND: i32 = WIN - 10_000;
/// A win an endgame table proves, `p` plies deep with `left` still to win, scores
/// `TABLE_WIN - p - TABLE_LEFT * left`: below every mate the search sees, above any evaluation.
pub const TABLE_WIN: i32 = MATE_BOUND - 1_000;
const TABLE_LEFT: i32 = 16;
/// Scores beyond this are proven results (table wins and mates): they carry their ply in the
/// transposition table, and no aspiration window is tried around them.
pub const PROVEN_BOUND: i32 = MATE_BOUND - 2_000;
const INFINITY: i32 = WIN + 1;
const MAX_PLY: usize = 128;
const MAX_QUIESCENCE: u32 = 12;
const HISTORY_SLOTS: usize = 4096;
/// History scores stop growing here, far below `i32::MAX`, so `go infinite` cannot overflow them.
const HISTORY_MAX: i32 = 1 << 24;
/// Late move reductions start at this remaining depth …
const LMR_MIN_DEPTH: i32 = 3;
/// … from this move on in the ordered list.
const LMR_FIRST_MOVE: usize = 4;
/// The reduction is `LMR_BASE + ln(depth) · ln(move number) / divisor` plies, the divisor
/// the game's [`Pruning::reduction_divisor`](crate::eval::Pruning) unless the player sets one.
const LMR_BASE: f64 = 0.75;
/// Iterations from this depth on search a window of this many centipawns either side of the
/// previous iteration's score first.
const ASPIRATION_MIN_DEPTH: i32 = 4;
const ASPIRATION_WINDOW: i32 = 30;
/// Null-move pruning from this remaining depth on, searching the pass this much shallower
/// (one more per six plies of depth), verified from `NULL_VERIFY_DEPTH` on.
const NULL_MIN_DEPTH: i32 = 3;
const NULL_REDUCTION: i32 = 2;
const NULL_VERIFY_DEPTH: i32 = 6;
/// Late move pruning (as deep as a game's `Pruning` allows): a null-window node searches
/// `LMP_BASE + depth²` moves and then only captures and killers.
const LMP_BASE: i32 = 3;
/// A node this deep with no move from the table is searched a ply shallower: without a guess
/// it is rarely on the principal variation, and the shallower search fills the table for the
/// next visit (internal iterative reduction).
const IIR_MIN_DEPTH: i32 = 4;

/// Turns an internal score into a report.
pub fn score_of(value: i32) -> Score {
    if value >= MATE_BOUND {
        Score::Mate(WIN - value)
    } else if value <= -MATE_BOUND {
        Score::Mate(-(WIN + value))
    } else {
        Score::Cp(value)
    }
}

/// Settings of an alpha-beta player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// The deepest iteration when no other limit stops the search first.
    pub max_depth: u32,
    /// The transposition table holds `2^hash_bits` entries.
    pub hash_bits: u32,
    /// Plain alpha-beta for testing the search: no transposition-table cut-offs, no quiescence
    /// (the evaluation at depth 0), no repetition scores — its value at a fixed depth must equal
    /// plain minimax's, whatever the move ordering and the null-window re-searches do.
    pub plain: bool,
    /// Stockfish's statistics of quiet moves (a history by side, origin and destination with a
    /// malus for the quiet moves a cut-off proved worse, and continuation histories) in place
    /// of the hashed history, where the game gives their slots (Duck Chess). On by default,
    /// with the two settings below, since with the learnt correction they won an SPRT at 100 ms
    /// against the hashed history (+62 ± 34 Elo, H1 after 113 games; docs/tuning.md).
    pub statistics: bool,
    /// With `statistics`: a late quiet move is reduced a ply less for each this much of its
    /// statistics, a ply more for each this much below zero (0: no change).
    pub history_reduction: i32,
    /// With `statistics`: null-window nodes this near the horizon skip the quiet moves after
    /// the first that did badly as answers to both moves before them (0: none).
    pub history_pruning: i32,
    /// Plies more a late quiet move is reduced at a node expected to fail high (Stockfish's
    /// `cutNode`: the reply to a reduced late move, a null-window reply at an expected
    /// fail-low), where its moves only have to confirm the cut.
    pub cut_reduction: i32,
    /// Plies less a late quiet move is reduced at a principal-variation node (full window).
    pub pv_reduction: i32,
    /// Prune by whether the side to move is improving, where the game's
    /// [`Pruning::improving`](crate::eval::Pruning) asks it (Duck Chess: +52 ± 25 Elo at 20,000
    /// nodes, docs/tuning.md); off, the search is the one before it (the opening suite's judge).
    pub improving: bool,
    /// The divisor of late move reductions in hundredths (larger reduces less), in place of
    /// the game's [`Pruning::reduction_divisor`](crate::eval::Pruning); `None` keeps the game's.
    pub reduction_divisor: Option<i32>,
    /// On a game clock ([`Limits::time_cap`]), think longer while the search gets fewer nodes
    /// a second than usual, as when another program shares the core. Off by default: with a
    /// load that comes and goes it lost −23 ± 25 Elo against the same player without it
    /// (252 games at `--tc 4+0.04`, docs/tuning.md); spending the clock's share whatever the
    /// rate is the better plan.
    pub pace: bool,
    /// Singular extensions ([`singular`]), where the game's
    /// [`Pruning::singular`](crate::eval::Pruning) asks them: the table's move a ply deeper
    /// when every other move falls well short of it. Duck Chess: −10 ± 14 Elo at 20,000 nodes
    /// a move, where few nodes are six plies from the horizon, but +23 ± 15 (SPRT, H1) at
    /// 100,000 (docs/tuning.md), and 55.6% against Fairy-Stockfish in two 1 s cells where the
    /// search without them scored 53.1% (docs/strength.md); `singular=0` turns them off.
    pub singular: bool,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            max_depth: 64,
            hash_bits: 18,
            plain: false,
            statistics: true,
            history_reduction: 12_288,
            history_pruning: 3,
            cut_reduction: 0,
            pv_reduction: 0,
            improving: true,
            reduction_divisor: None,
            pace: false,
            singular: true,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    pub best: Option<M>,
    /// For the side to move at the root (see [`WIN`]).
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<M>,
    pub elapsed: Duration,
}

/// An alpha-beta player; keeps its transposition table, killers and history between moves.
pub struct AlphaBeta<G: Evaluate> {
    weights: G::Weights,
    config: AlphaBetaConfig,
    table: Table<G::Move>,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    /// `countermoves[history_slot(m)]`: the quiet move that last refuted `m`.
    countermoves: Vec<Option<G::Move>>,
    /// History and continuation history where the game gives dense slots.
    stats: Statistics,
    /// Endgame tables probed below the root (not in plain mode).
    tables: Option<Arc<G::Tables>>,
    /// The nodes a second of this game's searches on an idle core (see [`pace`]), once it has
    /// searched long enough to know. Learnt again in each game:
    /// a Duck Chess ending searches about twice the nodes a second of an opening, so the last
    /// game's rate would call the next game's opening slowed.
    usual_rate: Option<f64>,
}

impl<G: Evaluate> AlphaBeta<G> {
    pub fn new(weights: G::Weights, config: AlphaBetaConfig) -> Self {
        AlphaBeta {
            weights,
            config,
            table: Table::new(config.hash_bits),
            killers: vec![[None; 2]; MAX_PLY],
            history: vec![0; HISTORY_SLOTS],
            countermoves: vec![None; HISTORY_SLOTS],
            stats: Statistics::new(G::STATISTICS.unwrap_or((0, 0))),
            tables: None,
            usual_rate: None,
        }
    }

    /// The player with endgame tables: positions they cover get their exact value.
    pub fn with_tables(mut self, tables: Arc<G::Tables>) -> Self {
        self.tables = Some(tables);
        self
    }

    pub fn weights(&self) -> &G::Weights {
        &self.weights
    }

    /// Forgets everything learnt (a new game).
    pub fn clear(&mut self) {
        self.table.clear();
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
        self.countermoves.iter_mut().for_each(|m| *m = None);
        self.stats.clear();
        self.usual_rate = None;
    }

    /// Searches `root` by iterative deepening until a limit, `stop`, or a forced result; calls
    /// `info` after every completed iteration.
    pub fn search(
        &mut self,
        root: &G,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult<G::Move> {
        let start = Instant::now();
        let (mut result, count) = first_guess(root);
        // Nothing to think about (but a depth-limited analysis still wants a score).
        if limits.depth.is_none() && (count == 1 || (count == 0 && root.status().is_over())) {
            result.elapsed = start.elapsed();
            return result;
        }
        self.history.iter_mut().for_each(|h| *h /= 8);
        self.table.new_search();
        let max_depth = limits
            .depth
            .unwrap_or(self.config.max_depth)
            .clamp(1, MAX_PLY as u32 - 8);
        let plain = self.config.plain;
        let mut ctx = Context::new(self, limits, start, stop);
        let mut previous = 0;
        for depth in 1..=max_depth {
            ctx.root_best = None;
            let score = ctx.aspiration(root, depth as i32, previous);
            if ctx.aborted {
                // A root move that beat the previous best before time ran out was searched in
                // full: it is better informed than the last completed iteration's choice.
                if let Some(mv) = ctx.root_best.filter(|_| !plain) {
                    if result.best != Some(mv) {
                        result.best = Some(mv);
                        result.pv = vec![mv];
                    }
                }
                break;
            }
            previous = score;
            ctx.complete_iteration(root, depth, score, &mut result, info);
            if score.abs() >= MATE_BOUND && (WIN - score.abs()) as u32 <= depth {
                break;
            }
            // An iteration takes several times the previous one: one started late is cut short
            // (and yields only the root moves it got to).
            if ctx.spent(G::ITERATION_START_PERCENT) {
                break;
            }
        }
        result.nodes = ctx.nodes;
        result.elapsed = start.elapsed();
        self.learn_rate(result.nodes, result.elapsed);
        result
    }
}

/// Before any search: the first legal move (if any) as the answer, and how many there are.
fn first_guess<G: Game>(root: &G) -> (SearchResult<G::Move>, usize) {
    let mut moves = MoveList::new();
    root.legal_moves(&mut moves);
    let result = SearchResult {
        best: moves.first().copied(),
        score: 0,
        depth: 0,
        nodes: 0,
        pv: moves.first().copied().into_iter().collect(),
        elapsed: Duration::ZERO,
    };
    (result, moves.len())
}

/// A line of moves in the game's notation, played out from `root`.
pub fn format_line<G: Game>(root: &G, line: &[G::Move]) -> Vec<String> {
    let mut pos = root.clone();
    line.iter()
        .map(|&mv| {
            let text = pos.format_move(mv);
            pos.play(mv);
            text
        })
        .collect()
}

struct Context<'a, G: Evaluate> {
    ab: &'a mut AlphaBeta<G>,
    started: Instant,
    deadline: Option<Instant>,
    /// Leave to go past `deadline` while slowed (a game clock).
    pace: Option<Pace>,
    node_limit: u64,
    nodes: u64,
    aborted: bool,
    stop: &'a AtomicBool,
    /// Hashes of the positions from the root down to the current one, for repetitions.
    path: Vec<u64>,
    /// Triangular principal-variation table: `pv[ply]` is the best line found from `ply`.
    pv: Vec<Vec<G::Move>>,
    /// The best root move of the running iteration so far (searched in full).
    root_best: Option<G::Move>,
    /// `passed[ply]`: the move that led to `ply` was a pass (null move).
    passed: Vec<bool>,
    /// `cut_node[ply]`: the node at `ply` is expected to fail high (see
    /// [`AlphaBetaConfig::cut_reduction`]); false at the root and on the principal variation.
    cut_node: Vec<bool>,
    /// `played[ply]`: the move that led to `ply` (`None` at the root and after a pass).
    played: Vec<Option<G::Move>>,
    /// Set while a null-move cut is verified: no passes below.
    no_passes: bool,
    /// The depth of the running iteration (extensions stop at twice it).
    root_depth: i32,
    /// `piece_to[ply]`: the continuation slot of the move that led to `ply` (`None` at the root,
    /// after a pass, and in a game without statistics).
    piece_to: Vec<Option<usize>>,
    /// `static_at[ply]`: the static value of the node at `ply` where the game prunes by
    /// whether the side to move is improving (`None` in danger, or not asked).
    static_at: Vec<Option<i32>>,
    /// `quiets[ply]`: the quiet moves searched so far at `ply`, lowered in the statistics when a
    /// later one cuts.
    quiets: Vec<Vec<G::Move>>,
    /// Whether this search keeps [`Statistics`] (the player asks and the game gives slots).
    statistics: bool,
    /// `keys[ply]`: the ordering keys of the moves at `ply`, kept between nodes so a node does
    /// not build (and copy) a stack list of keys.
    keys: Vec<Vec<i64>>,
    /// `excluded[ply]`: the move the node at `ply` leaves out while it asks whether that move
    /// is singular ([`singular`]).
    excluded: Vec<Option<G::Move>>,
}

impl<'a, G: Evaluate> Context<'a, G> {
    fn new(
        ab: &'a mut AlphaBeta<G>,
        limits: &Limits,
        start: Instant,
        stop: &'a AtomicBool,
    ) -> Self {
        let statistics = G::STATISTICS.is_some() && ab.config.statistics;
        Context {
            pace: ab.pace(limits, start),
            ab,
            started: start,
            deadline: limits.time.map(|t| start + t),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            nodes: 0,
            aborted: false,
            stop,
            path: Vec::with_capacity(MAX_PLY),
            pv: vec![Vec::new(); MAX_PLY + 1],
            root_best: None,
            passed: vec![false; MAX_PLY + 1],
            cut_node: vec![false; MAX_PLY + 1],
            played: vec![None; MAX_PLY + 1],
            no_passes: false,
            root_depth: 1,
            keys: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            piece_to: vec![None; MAX_PLY + 1],
            static_at: vec![None; MAX_PLY + 1],
            quiets: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
            statistics,
            excluded: vec![None; MAX_PLY + 1],
        }
    }

    /// Iteration `depth` ended with `score`: its line becomes the result, reported to `info`.
    fn complete_iteration(
        &self,
        root: &G,
        depth: u32,
        score: i32,
        result: &mut SearchResult<G::Move>,
        info: &mut dyn FnMut(&SearchInfo),
    ) {
        let pv = self.extend_from_table(root, self.pv[0].clone(), depth as usize);
        result.best = pv.first().copied().or(result.best);
        result.score = score;
        result.depth = depth;
        result.pv = pv;
        result.nodes = self.nodes;
        result.elapsed = self.started.elapsed();
        info(&SearchInfo {
            depth,
            score: score_of(score),
            nodes: self.nodes,
            time: result.elapsed,
            pv: format_line(root, &result.pv),
        });
    }

    /// One iteration in a window around the previous score, widened on each side that fails,
    /// until the score falls inside it (the whole range for the first iterations, for forced
    /// results, and in plain mode).
    fn aspiration(&mut self, root: &G, depth: i32, previous: i32) -> i32 {
        self.root_depth = depth;
        if self.ab.config.plain || depth < ASPIRATION_MIN_DEPTH || previous.abs() >= PROVEN_BOUND {
            return self.negamax(root, depth, -INFINITY, INFINITY, 0);
        }
        let mut delta = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = (previous - delta, previous + delta);
        loop {
            let score = self.negamax(root, depth, alpha, beta, 0);
            if self.aborted || (score > alpha && score < beta) {
                return score;
            }
            delta *= 4;
            if score <= alpha {
                alpha = if delta > MATE_BOUND / 2 {
                    -INFINITY
                } else {
                    score - delta
                };
            } else {
                beta = if delta > MATE_BOUND / 2 {
                    INFINITY
                } else {
                    score + delta
                };
            }
        }
    }

    /// Lengthens a principal variation cut short by table hits with the table's moves.
    fn extend_from_table(&self, root: &G, mut line: Vec<G::Move>, depth: usize) -> Vec<G::Move> {
        let mut pos = root.clone();
        for &mv in &line {
            pos.play(mv);
        }
        while line.len() < depth && !pos.status().is_over() {
            let key = pos.hash();
            let Some(mv) = self.ab.table.get(key).and_then(|e| e.mv) else {
                break;
            };
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            if !moves.contains(&mv) {
                break;
            }
            pos.play(mv);
            line.push(mv);
        }
        line
    }

    /// Counts a node and tells whether the search must stop now.
    fn out_of_budget(&mut self) -> bool {
        self.nodes += 1;
        let checked = self.nodes & 255 == 0;
        if self.nodes >= self.node_limit
            || (checked && (self.spent(100) || self.stop.load(Ordering::Relaxed)))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Whether `percent` of the move's time is gone: of the time limit, and on a game clock
    /// where the search is slowed, of the nodes the usual rate buys in it or of the cap.
    fn spent(&self, percent: u32) -> bool {
        let Some(deadline) = self.deadline else {
            return false;
        };
        let now = Instant::now();
        let share = |end: Instant| (end - self.started) * percent / 100;
        if now - self.started < share(deadline) {
            return false;
        }
        self.pace.as_ref().is_none_or(|pace| {
            self.nodes * 100 >= pace.nodes * u64::from(percent)
                || now - self.started >= share(pace.cap)
        })
    }

    /// What every node checks first: its line is emptied, and a search out of time (0, thrown
    /// away by the caller) or a finished game has its score without a move being tried.
    fn settled(&mut self, pos: &G, ply: usize) -> Option<i32> {
        self.pv[ply].clear();
        if self.out_of_budget() {
            return Some(0);
        }
        Self::terminal(pos, ply).or_else(|| self.exact(pos, ply))
    }

    /// The tables' value below the root (the root still needs a move chosen).
    fn exact(&self, pos: &G, ply: usize) -> Option<i32> {
        let tables = self.ab.tables.as_deref().filter(|_| ply > 0)?;
        let win = |left: u32| TABLE_WIN - ply as i32 - TABLE_LEFT * left.min(60) as i32;
        Some(match pos.exact_value(tables)? {
            Exact::Win(left) => win(left),
            Exact::Draw => 0,
            Exact::Loss(left) => -win(left),
        })
    }

    /// The score of a finished game for the side to move, `ply` plies from the root.
    fn terminal(pos: &G, ply: usize) -> Option<i32> {
        match pos.status() {
            Status::Ongoing => None,
            Status::Drawn => Some(0),
            Status::Won(side) if side == pos.side_to_move() => Some(WIN - ply as i32),
            Status::Won(_) => Some(-(WIN - ply as i32)),
        }
    }
}

impl<G: Evaluate> Player<G> for AlphaBeta<G> {
    fn name(&self) -> String {
        "alphabeta".into()
    }

    fn choose(
        &mut self,
        game: &G,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<G::Move> {
        self.search(game, limits, stop, info).best
    }

    fn new_game(&mut self) {
        self.clear();
    }
}
