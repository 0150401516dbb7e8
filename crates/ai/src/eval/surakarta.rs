//! Surakarta: material, mobility, pieces under capture threat, circuit control, idle corners.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use arbiter_core::Game;
use arbiter_surakarta::endgame::{Tables, Wdl};
use arbiter_surakarta::{Move, Position};

use super::{weights, Evaluate, Exact, Pruning, TableSpan};

weights!(
    /// Surakarta weights.
    SurakartaWeights {
        piece = 100,
        /// Per move more than the opponent.
        mobility = 2,
        /// Per own piece the opponent could capture next.
        threatened = 15,
        /// Per enemy piece the side to move could capture now.
        attacking = 15,
        /// Per piece on an inner point (on two circuit lines, so four ways to capture).
        interior = 8,
        /// Per piece on a corner: on no circuit, it can neither be captured nor capture, and
        /// the arena says such a piece is worth less (+15: −76 Elo; −15: +52 over 400 games).
        corner = -15,
    }
);

impl Evaluate for Position {
    type Weights = SurakartaWeights;
    type Tables = Tables;

    /// The table's value; what is left to win is the losing side's pieces.
    fn exact_value(&self, tables: &Tables) -> Option<Exact> {
        let us = self.current_player;
        Some(match tables.probe(self)? {
            Wdl::Win => Exact::Win(self.board.count(us.opponent())),
            Wdl::Draw => Exact::Draw,
            Wdl::Loss => Exact::Loss(self.board.count(us)),
        })
    }

    /// Each directory is read once per process: the arena builds a player for every game.
    fn load_tables(dir: &Path) -> Result<Arc<Tables>, String> {
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, Arc<Tables>>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(tables) = loaded.get(dir) {
            return Ok(tables.clone());
        }
        let tables = Arc::new(Tables::load(dir).map_err(|e| e.to_string())?);
        loaded.insert(dir.to_path_buf(), tables.clone());
        Ok(tables)
    }

    fn build_tables(
        &self,
        dir: &Path,
        span: TableSpan,
        progress: &mut dyn FnMut(&str),
    ) -> Result<String, String> {
        build_tables(self, dir, span, progress)
    }

    fn evaluate(&self, w: &SurakartaWeights) -> i32 {
        let board = &self.board;
        let us = self.current_player;
        let them = us.opponent();
        let n = board.size();
        let inner: u16 = ((1u32 << (n - 1)) - 2) as u16;
        let interior = |side| -> i32 {
            (1..n - 1)
                .map(|y| (board.row_bits(side, y) & inner).count_ones() as i32)
                .sum()
        };
        let corners: u16 = 1 | 1 << (n - 1);
        let corner = |side| -> i32 {
            ((board.row_bits(side, 0) & corners).count_ones()
                + (board.row_bits(side, n - 1) & corners).count_ones()) as i32
        };
        let summaries = board.capture_summaries();
        let (our_captures, their_pieces_hit) = summaries[us.index()];
        let (their_captures, our_pieces_hit) = summaries[them.index()];
        let steps = board.step_counts();
        let mobility = (steps[us.index()] + our_captures) as i32
            - (steps[them.index()] + their_captures) as i32;
        w.piece * (board.count(us) as i32 - board.count(them) as i32) + w.mobility * mobility
            - w.threatened * our_pieces_hit as i32
            + w.attacking * their_pieces_hit as i32
            + w.interior * (interior(us) - interior(them))
            + w.corner * (corner(us) - corner(them))
    }

    /// A side with several pieces nearly always has a harmless step, so passing rarely beats
    /// moving; with two pieces or fewer, endings turn on tempo and the search does not pass.
    fn pass(&self) -> Option<Position> {
        if self.board.count(self.current_player) <= 2 {
            return None;
        }
        let mut passed = self.clone();
        passed.current_player = self.current_player.opponent();
        Some(passed)
    }

    fn recaptures(&self, previous: Move, mv: Move) -> bool {
        mv.to() == previous.to() && self.is_capture(mv)
    }

    const PRUNING: Pruning = Pruning {
        late_move_depth: 3,
        ..Pruning::CAUTIOUS
    };

    fn max_plies(&self) -> u32 {
        // The no-capture rule ends every game; this is only a guard.
        2000
    }
}

/// Builds and writes the 6×6 tables (the only ones there are) for `arbiter tables`, keeping the
/// ones `dir` already holds.
fn build_tables(
    start: &Position,
    dir: &Path,
    span: TableSpan,
    progress: &mut dyn FnMut(&str),
) -> Result<String, String> {
    use arbiter_surakarta::endgame::{LIMIT, MAX_PIECES};
    if start.size() != 6 || start.max_no_capture_round != LIMIT {
        return Err(format!(
            "tables exist for size 6 with max_no_capture_round {LIMIT} only"
        ));
    }
    if !(1..=MAX_PIECES).contains(&span.max_pieces) {
        return Err(format!("--max-pieces must be 1 to {MAX_PIECES}"));
    }
    if span.max_total < 2 {
        return Err("--max-total must be at least 2 (1 against 1)".into());
    }
    let present = Tables::read_present(dir).map_err(|e| e.to_string())?;
    if present.iter().next().is_some() {
        progress(&format!(
            "{}: {} already there, kept",
            dir.display(),
            present.describe()
        ));
    }
    let kept = present.materials();
    let started = std::time::Instant::now();
    let tables = present.extend(span.max_pieces, span.max_total, progress);
    let seconds = started.elapsed().as_secs_f64();
    let bytes = tables.save_except(dir, &kept).map_err(|e| e.to_string())?;
    let memory: usize = tables.iter().map(|t| t.bytes()).sum();
    Ok(format!(
        "tables {}: solved in {seconds:.1} s, {bytes} bytes written to {}, {memory} bytes in \
memory",
        tables.describe(),
        dir.display()
    ))
}
