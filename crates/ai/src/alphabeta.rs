//! Negamax alpha-beta: iterative deepening with aspiration windows, principal variation search,
//! a transposition table (shared with quiescence), move ordering (table move, captures, killers,
//! countermoves, history; captures a game calls losing go after the killers and are left out of
//! quiescence), null move with verification where a game can pass, late move and internal
//! iterative reductions, late move pruning and reverse futility pruning where a game asks for
//! them, an extension for moves that put the opponent in danger, mate-distance pruning, and a
//! quiescence search. Each technique was kept for what it won in arena matches against the
//! build before it (docs/strength.md, docs/tuning.md); mate-distance pruning changes no value,
//! only the nodes spent after a mate is found. Futility pruning of quiet moves (−11 ± 52 Elo on
//! Surakarta 6×6) and multi-cut (−5 ± 46) were tried and lost, so they are not here; reverse
//! futility pruning took Duck Chess from 35% to 57.5% against Fairy-Stockfish.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arbiter_core::{Game, MoveList, Status};

use crate::eval::Evaluate;
use crate::player::{Limits, Player, Score, SearchInfo};
use crate::table::{Bound, Table};

/// The score of a win at the root; a win `p` plies deep scores `WIN - p`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are forced results.
pub const MATE_BOUND: i32 = WIN - 10_000;
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
/// The reduction is `LMR_BASE + ln(depth) · ln(move number) / LMR_DIVISOR` plies.
const LMR_BASE: f64 = 0.75;
const LMR_DIVISOR: f64 = 2.25;
/// Iterations from this depth on search a window of this many centipawns either side of the
/// previous iteration's score first.
const ASPIRATION_MIN_DEPTH: i32 = 4;
const ASPIRATION_WINDOW: i32 = 30;
/// Null-move pruning from this remaining depth on, searching the pass this much shallower
/// (one more per six plies of depth), verified from `NULL_VERIFY_DEPTH` on.
const NULL_MIN_DEPTH: i32 = 3;
const NULL_REDUCTION: i32 = 2;
const NULL_VERIFY_DEPTH: i32 = 6;
/// Late move pruning (games that ask for it): up to this remaining depth, a null-window node
/// searches `LMP_BASE + depth²` moves and then only captures and killers.
const LMP_MAX_DEPTH: i32 = 3;
const LMP_BASE: i32 = 3;
/// Reverse futility pruning (games that ask for it) up to this remaining depth.
const REVERSE_FUTILITY_MAX_DEPTH: i32 = 3;
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
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            max_depth: 64,
            hash_bits: 18,
            plain: false,
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
}

/// A fast hash of a move for the history table (FNV-1a over the move's `Hash` bytes).
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

fn history_slot<M: Hash>(mv: &M) -> usize {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    mv.hash(&mut h);
    (h.finish() as usize) & (HISTORY_SLOTS - 1)
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
        }
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
        let mut moves = MoveList::new();
        root.legal_moves(&mut moves);
        let mut result = SearchResult {
            best: moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            pv: moves.first().copied().into_iter().collect(),
            elapsed: Duration::ZERO,
        };
        if moves.len() <= 1 && limits.depth.is_none() {
            // Nothing to think about (but a depth-limited analysis still wants a score).
            if moves.len() == 1 || root.status().is_over() {
                result.elapsed = start.elapsed();
                return result;
            }
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
            let pv = ctx.extend_from_table(root, ctx.pv[0].clone(), depth as usize);
            result.best = pv.first().copied().or(result.best);
            result.score = score;
            result.depth = depth;
            result.pv = pv;
            result.nodes = ctx.nodes;
            result.elapsed = start.elapsed();
            info(&SearchInfo {
                depth,
                score: score_of(score),
                nodes: ctx.nodes,
                time: result.elapsed,
                pv: format_line(root, &result.pv),
            });
            if score.abs() >= MATE_BOUND && (WIN - score.abs()) as u32 <= depth {
                break;
            }
            // An iteration takes several times the previous one: do not start one that could
            // not get past its first moves (a cut-short iteration still yields its best move).
            if let (Some(time), Some(_)) = (limits.time, ctx.deadline) {
                if start.elapsed() * 5 > time * 3 {
                    break;
                }
            }
        }
        result.nodes = ctx.nodes;
        result.elapsed = start.elapsed();
        result
    }
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
    deadline: Option<Instant>,
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
    /// `played[ply]`: the move that led to `ply` (`None` at the root and after a pass).
    played: Vec<Option<G::Move>>,
    /// Set while a null-move cut is verified: no passes below.
    no_passes: bool,
    /// The depth of the running iteration (extensions stop at twice it).
    root_depth: i32,
    /// `keys[ply]`: the ordering keys of the moves at `ply`, kept between nodes so a node does
    /// not build (and copy) a stack list of keys.
    keys: Vec<Vec<i64>>,
}

fn to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl<'a, G: Evaluate> Context<'a, G> {
    fn new(
        ab: &'a mut AlphaBeta<G>,
        limits: &Limits,
        start: Instant,
        stop: &'a AtomicBool,
    ) -> Self {
        Context {
            ab,
            deadline: limits.time.map(|t| start + t),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            nodes: 0,
            aborted: false,
            stop,
            path: Vec::with_capacity(MAX_PLY),
            pv: vec![Vec::new(); MAX_PLY + 1],
            root_best: None,
            passed: vec![false; MAX_PLY + 1],
            played: vec![None; MAX_PLY + 1],
            no_passes: false,
            root_depth: 1,
            keys: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
        }
    }

    /// One iteration in a window around the previous score, widened on each side that fails,
    /// until the score falls inside it (the whole range for the first iterations, for forced
    /// results, and in plain mode).
    fn aspiration(&mut self, root: &G, depth: i32, previous: i32) -> i32 {
        self.root_depth = depth;
        if self.ab.config.plain || depth < ASPIRATION_MIN_DEPTH || previous.abs() >= MATE_BOUND {
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
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 255 == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            if late || self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
        }
        self.aborted
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

    /// The ordering keys of `moves` (highest first): the table's move, captures, killers, the
    /// answer that last refuted the opponent's move, history.
    fn order(
        &self,
        pos: &G,
        moves: &MoveList<G::Move>,
        tt_move: Option<G::Move>,
        ply: usize,
        keys: &mut Vec<i64>,
    ) {
        let killers = self.ab.killers[ply];
        let countermove = self.played[ply].and_then(|m| self.ab.countermoves[history_slot(&m)]);
        keys.clear();
        keys.extend(moves.iter().map(|&mv| {
            if Some(mv) == tt_move {
                1 << 40
            } else if pos.is_capture(mv) {
                let losing = pos.losing_capture(mv);
                (if losing { 1 << 30 } else { 1 << 36 }) + pos.order_hint(mv) as i64
            } else if Some(mv) == killers[0] {
                1 << 32
            } else if Some(mv) == killers[1] {
                (1 << 32) - 1
            } else if Some(mv) == countermove {
                (1 << 32) - 2
            } else {
                self.ab.history[history_slot(&mv)] as i64
            }
        }));
    }

    fn negamax(&mut self, pos: &G, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        if let Some(score) = Self::terminal(pos, ply) {
            return score;
        }
        let plain = self.ab.config.plain;
        // Mate-distance pruning: the best any line from here can do is win at this ply, the
        // worst to lose at it; a shorter mate found elsewhere that bounds the window past
        // either makes the node irrelevant.
        if !plain {
            alpha = alpha.max(-(WIN - ply as i32));
            beta = beta.min(WIN - ply as i32);
            if alpha >= beta {
                return alpha;
            }
        }
        let key = pos.hash();
        if !plain && ply > 0 && self.path.iter().rev().skip(1).step_by(2).any(|&h| h == key) {
            return 0;
        }
        if ply >= MAX_PLY - 2 || (plain && depth <= 0) {
            return pos.evaluate(&self.ab.weights);
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        let (tt_move, cut) = self.probe(key, depth, alpha, beta, ply);
        if let Some(score) = cut {
            return score;
        }
        let depth = if tt_move.is_none() && !plain && depth >= IIR_MIN_DEPTH {
            depth - 1
        } else {
            depth
        };
        // Duck Chess answers this with an attack search: asked once per node.
        let in_danger = pos.in_danger();
        // The static value, asked by the first pruning that needs it (Duck Chess's is costly).
        let mut static_value = None;
        let window = (alpha, beta);
        if let Some(score) =
            self.reverse_futility_cut(pos, depth, window, in_danger, &mut static_value)
        {
            return score;
        }
        if let Some(score) =
            self.null_move_cut(pos, key, depth, beta, ply, in_danger, &mut static_value)
        {
            return score;
        }
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            return -(WIN - ply as i32);
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        self.order(pos, &moves, tt_move, ply, &mut keys);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let may_reduce = !plain && depth >= LMR_MIN_DEPTH && !in_danger;
        self.path.push(key);
        let prune_after = (!plain && G::LATE_MOVE_PRUNING && !in_danger && beta - alpha == 1)
            .then(|| late_move_count(depth))
            .flatten();
        for i in 0..moves.len() {
            bring_best_forward(&mut moves, &mut keys, i);
            let mv = moves[i];
            if prune_after.is_some_and(|count| i >= count) && self.is_quiet(pos, mv, ply) {
                // Ordered after every capture and killer: the rest are quiet too.
                break;
            }
            let score = self.search_move(pos, mv, i, depth, alpha, beta, ply, may_reduce);
            if self.aborted {
                self.path.pop();
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.new_best_line(mv, ply);
                    if alpha >= beta {
                        self.remember_cutoff(pos, mv, depth, ply);
                        break;
                    }
                }
            }
        }
        self.path.pop();
        self.keys[ply] = keys;
        self.store_result(key, best_move, best, (original_alpha, beta), depth, ply);
        best
    }

    /// Stores a node's result, bounded by how it fell against the `window` it was searched with.
    fn store_result(
        &mut self,
        key: u64,
        best_move: Option<G::Move>,
        best: i32,
        (alpha, beta): (i32, i32),
        depth: i32,
        ply: usize,
    ) {
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.ab
            .table
            .store(key, best_move, to_table(best, ply), depth, bound);
    }

    /// The score of move `i` (in search order) of `pos`: the first with the full window, the
    /// others with a null window first — late quiet ones also shallower, searched again at full
    /// depth when they beat alpha anyway — and with the full window when they land inside it.
    /// A move that puts the opponent in danger (Duck Chess: attacks its captain) is searched a
    /// ply deeper, so the answer to the threat is seen.
    #[allow(clippy::too_many_arguments)]
    fn search_move(
        &mut self,
        pos: &G,
        mv: G::Move,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        may_reduce: bool,
    ) -> i32 {
        let mut child = pos.clone();
        child.play(mv);
        self.ab.table.prefetch(child.hash());
        self.played[ply + 1] = Some(mv);
        let extended =
            !self.ab.config.plain && ply < 2 * self.root_depth as usize && child.in_danger();
        let next = depth - 1 + i32::from(extended);
        if i == 0 {
            return -self.negamax(&child, next, -beta, -alpha, ply + 1);
        }
        let quiet = !extended && self.is_quiet(pos, mv, ply);
        let reduction = if may_reduce && i >= LMR_FIRST_MOVE && quiet {
            late_move_reduction(depth, i).min(next - 1)
        } else {
            0
        };
        let mut score = -self.negamax(&child, next - reduction, -alpha - 1, -alpha, ply + 1);
        if reduction > 0 && score > alpha && !self.aborted {
            score = -self.negamax(&child, next, -alpha - 1, -alpha, ply + 1);
        }
        if score > alpha && score < beta && !self.aborted {
            score = -self.negamax(&child, next, -beta, -alpha, ply + 1);
        }
        score
    }

    /// `mv` beat alpha at `ply`: the line from here is it and the line found below it.
    fn new_best_line(&mut self, mv: G::Move, ply: usize) {
        if ply == 0 {
            self.root_best = Some(mv);
        }
        let rest = std::mem::take(&mut self.pv[ply + 1]);
        let line = &mut self.pv[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&rest);
        self.pv[ply + 1] = rest;
    }

    /// A quiet move that refuted the opponent's is tried early in sibling positions (killers),
    /// after the same opponent move anywhere (countermoves), and anywhere later (history,
    /// growing with the depth it worked at).
    fn remember_cutoff(&mut self, pos: &G, mv: G::Move, depth: i32, ply: usize) {
        if pos.is_capture(mv) {
            return;
        }
        let killers = &mut self.ab.killers[ply];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let slot = &mut self.ab.history[history_slot(&mv)];
        *slot = (*slot + depth * depth).min(HISTORY_MAX);
        if let Some(previous) = self.played[ply] {
            self.ab.countermoves[history_slot(&previous)] = Some(mv);
        }
    }

    /// The table's move for this position, and its score when that alone decides the node.
    fn probe(
        &self,
        key: u64,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (Option<G::Move>, Option<i32>) {
        let Some(entry) = self.ab.table.get(key) else {
            return (None, None);
        };
        if self.ab.config.plain || ply == 0 || (entry.depth as i32) < depth {
            return (entry.mv, None);
        }
        let score = from_table(entry.score, ply);
        let cut = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        (entry.mv, cut.then_some(score))
    }

    /// Reverse futility pruning, where the game asks for it: a null-window node near the horizon
    /// whose static value stands above beta by the game's margin for each remaining ply is cut
    /// with that value (the opponent is not expected to win the margin back in so few plies).
    fn reverse_futility_cut(
        &self,
        pos: &G,
        depth: i32,
        (alpha, beta): (i32, i32),
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        let margin = G::REVERSE_FUTILITY_MARGIN?;
        if self.ab.config.plain
            || depth > REVERSE_FUTILITY_MAX_DEPTH
            || beta - alpha != 1
            || in_danger
            || beta.abs() >= MATE_BOUND
        {
            return None;
        }
        let value = *static_value.get_or_insert_with(|| pos.evaluate(&self.ab.weights));
        (value - margin * depth >= beta).then_some(value)
    }

    /// Null-move pruning: when the side to move already stands at `beta` or above, and letting
    /// the opponent move twice (a pass, searched a few plies shallower) still fails high, the
    /// node is cut. Never twice in a row, never when the side to move is in danger or the game
    /// cannot pass; from [`NULL_VERIFY_DEPTH`] on, a search without passes must confirm it.
    #[allow(clippy::too_many_arguments)]
    fn null_move_cut(
        &mut self,
        pos: &G,
        key: u64,
        depth: i32,
        beta: i32,
        ply: usize,
        in_danger: bool,
        static_value: &mut Option<i32>,
    ) -> Option<i32> {
        if self.ab.config.plain
            || self.no_passes
            || ply == 0
            || depth < NULL_MIN_DEPTH
            || beta.abs() >= MATE_BOUND
            || self.passed[ply]
            || in_danger
        {
            return None;
        }
        // Asked before the evaluation: a game that cannot pass (RC-02) pays nothing here.
        let passed = pos.pass()?;
        if *static_value.get_or_insert_with(|| pos.evaluate(&self.ab.weights)) < beta {
            return None;
        }
        let reduction = NULL_REDUCTION + depth / 6;
        self.path.push(key);
        self.passed[ply + 1] = true;
        self.played[ply + 1] = None;
        let score = -self.negamax(&passed, depth - 1 - reduction, -beta, 1 - beta, ply + 1);
        self.passed[ply + 1] = false;
        self.path.pop();
        if self.aborted || score < beta {
            return None;
        }
        if depth >= NULL_VERIFY_DEPTH {
            self.no_passes = true;
            let verified = self.negamax(pos, depth - reduction, beta - 1, beta, ply);
            self.no_passes = false;
            if self.aborted || verified < beta {
                return None;
            }
        }
        Some(beta)
    }

    /// A move late move reductions may shorten: no capture, not a killer.
    fn is_quiet(&self, pos: &G, mv: G::Move, ply: usize) -> bool {
        !pos.is_capture(mv) && !self.ab.killers[ply].contains(&Some(mv))
    }

    /// Captures only (every move when the side to move is in danger), until the position is
    /// quiet. Results go into the transposition table at depth 0 (any deeper result found there
    /// decides the node), and the table's move is tried first.
    fn quiesce(&mut self, pos: &G, mut alpha: i32, beta: i32, ply: usize, depth: u32) -> i32 {
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        if let Some(score) = Self::terminal(pos, ply) {
            return score;
        }
        if ply >= MAX_PLY - 2 || depth >= MAX_QUIESCENCE {
            return pos.evaluate(&self.ab.weights);
        }
        let key = pos.hash();
        let (tt_move, cut) = self.probe(key, 0, alpha, beta, ply);
        if let Some(score) = cut {
            return score;
        }
        let original_alpha = alpha;
        let danger = depth < 2 && pos.in_danger();
        let mut best = -INFINITY;
        if !danger {
            let stand = pos.evaluate(&self.ab.weights);
            if stand >= beta {
                self.ab
                    .table
                    .store(key, None, to_table(stand, ply), 0, Bound::Lower);
                return stand;
            }
            best = stand;
            alpha = alpha.max(stand);
        }
        let mut moves = MoveList::new();
        if danger {
            pos.legal_moves(&mut moves);
            if moves.is_empty() {
                return -(WIN - ply as i32);
            }
        } else {
            // A side without any move has lost by every game's `status`, asked above.
            pos.capture_moves(&mut moves);
            moves.retain(|&mv| !pos.losing_capture(mv));
        }
        let mut keys = std::mem::take(&mut self.keys[ply]);
        keys.clear();
        keys.extend(moves.iter().map(|&mv| {
            if Some(mv) == tt_move {
                i64::MAX
            } else {
                i64::from(pos.order_hint(mv))
            }
        }));
        let mut best_move = None;
        for i in 0..moves.len() {
            bring_best_forward(&mut moves, &mut keys, i);
            let mut child = pos.clone();
            child.play(moves[i]);
            self.ab.table.prefetch(child.hash());
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, depth + 1);
            if self.aborted {
                self.keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(moves[i]);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.keys[ply] = keys;
        self.store_result(key, best_move, best, (original_alpha, beta), 0, ply);
        best
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

/// How many plies late move `i` (0-based, in search order) is reduced at remaining `depth`:
/// growing with the logarithms of both, as the deeper the search and the later the move, the
/// less likely it is to matter; at least one.
fn late_move_reduction(depth: i32, i: usize) -> i32 {
    let (d, m) = (f64::from(depth.max(1)), (i + 1) as f64);
    (LMR_BASE + d.ln() * m.ln() / LMR_DIVISOR).max(1.0) as i32
}

/// How many moves a null-window node `depth` plies from the horizon searches before it skips
/// the quiet ones left (late move pruning): `None` above [`LMP_MAX_DEPTH`].
fn late_move_count(depth: i32) -> Option<usize> {
    (depth <= LMP_MAX_DEPTH).then(|| (LMP_BASE + depth * depth) as usize)
}

/// Selection sort one step at a time: swaps the best-keyed move from `i` on into place `i`, so a
/// cut-off saves sorting the rest.
fn bring_best_forward<M: Copy, K: Ord + Copy>(moves: &mut MoveList<M>, keys: &mut [K], i: usize) {
    let pick = (i..moves.len())
        .max_by_key(|&j| keys[j])
        .expect("i is below the number of moves");
    moves.swap(i, pick);
    keys.swap(i, pick);
}
