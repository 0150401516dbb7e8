//! The table of whole-game analyses: one job per game, at most `cap` running at once, the
//! finished ones (run here or read from the store) kept in memory, the newest `kept`, so a page
//! polling or coming back is answered without a database read.
//! Each move is judged by how much of its player's chance to win it gave away.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use serde::Serialize;

use super::super::views::PositionEval;

/// A move that gives away this much of its player's chance to win (0 to 1) or more is an
/// inaccuracy, a mistake or a blunder: lichess's thresholds.
pub const INACCURACY: f64 = 0.10;
pub const MISTAKE: f64 = 0.20;
pub const BLUNDER: f64 = 0.30;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Done,
    Failed,
}

/// One game's analysis: the positions searched so far (position `i` is the one after `i`
/// moves), of `moves.len() + 1`.
#[derive(Clone, Debug)]
struct Job {
    status: Status,
    moves: Vec<String>,
    positions: Vec<PositionEval>,
    error: Option<String>,
}

/// A move as the analysis judges it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JudgedMove {
    pub ply: usize,
    #[serde(rename = "move")]
    pub text: String,
    /// Who played it: `first` or `second`.
    pub side: &'static str,
    /// How much of its player's chance to win the move gave away (0 when none).
    pub loss: f64,
    /// `inaccuracy`, `mistake` or `blunder`; none for a good move.
    pub judgement: Option<&'static str>,
    /// The move the search preferred in the position before.
    pub best: Option<String>,
}

/// What `GET /api/games/{id}/analysis` answers.
#[derive(Clone, Debug, Serialize)]
pub struct JobView {
    pub game_id: i64,
    pub status: Status,
    /// Positions searched, of `total`.
    pub done: usize,
    pub total: usize,
    pub positions: Vec<PositionEval>,
    /// The moves whose positions before and after are both searched.
    pub moves: Vec<JudgedMove>,
    pub thresholds: Thresholds,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Thresholds {
    pub inaccuracy: f64,
    pub mistake: f64,
    pub blunder: f64,
}

/// Why an analysis did not start.
#[derive(Debug, PartialEq, Eq)]
pub struct Full {
    pub cap: usize,
}

#[derive(Default)]
struct Table {
    jobs: HashMap<i64, Job>,
    /// Finished jobs, oldest first: the first to be forgotten.
    finished: VecDeque<i64>,
}

impl Table {
    /// Whether game `id`'s job runs or is done (a failed one may be run again).
    fn holds(&self, id: i64) -> bool {
        self.jobs
            .get(&id)
            .is_some_and(|j| j.status != Status::Failed)
    }
}

pub struct Jobs {
    table: Mutex<Table>,
    cap: usize,
    kept: usize,
}

impl Jobs {
    pub fn new(cap: usize, kept: usize) -> Jobs {
        Jobs {
            table: Mutex::new(Table::default()),
            cap,
            kept: kept.max(1),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts game `id`'s analysis: `Ok(true)` when a new job is to run, `Ok(false)` when one
    /// runs or is done already, `Err` when `cap` run.
    pub fn start(&self, id: i64, moves: Vec<String>) -> Result<bool, Full> {
        let mut table = self.table();
        if table.holds(id) {
            return Ok(false);
        }
        let running = table
            .jobs
            .values()
            .filter(|j| j.status == Status::Running)
            .count();
        if running >= self.cap {
            return Err(Full { cap: self.cap });
        }
        table.finished.retain(|&f| f != id);
        let job = Job {
            status: Status::Running,
            moves,
            positions: Vec::new(),
            error: None,
        };
        table.jobs.insert(id, job);
        Ok(true)
    }

    /// The next position of game `id` searched.
    pub fn record(&self, id: i64, position: PositionEval) {
        if let Some(job) = self.table().jobs.get_mut(&id) {
            job.positions.push(position);
        }
    }

    /// Game `id`'s job ended, done or with `error`; the oldest finished jobs beyond `kept` are
    /// forgotten.
    pub fn finish(&self, id: i64, error: Option<String>) {
        let mut table = self.table();
        let Some(job) = table.jobs.get_mut(&id) else {
            return;
        };
        job.status = if error.is_some() {
            Status::Failed
        } else {
            Status::Done
        };
        job.error = error;
        self.remember(&mut table, id);
    }

    /// Game `id` is among the finished jobs, the newest; the oldest beyond `kept` are forgotten.
    fn remember(&self, table: &mut Table, id: i64) {
        table.finished.retain(|&f| f != id);
        table.finished.push_back(id);
        while table.finished.len() > self.kept {
            if let Some(old) = table.finished.pop_front() {
                table.jobs.remove(&old);
            }
        }
    }

    /// Whether game `id`'s analysis runs or is done here.
    pub fn has(&self, id: i64) -> bool {
        self.table().holds(id)
    }

    /// Game `id`'s analysis, done elsewhere (a stored one), unless one runs or is done here.
    pub fn restore(&self, id: i64, moves: Vec<String>, positions: Vec<PositionEval>) {
        let mut table = self.table();
        if table.holds(id) {
            return;
        }
        let job = Job {
            status: Status::Done,
            moves,
            positions,
            error: None,
        };
        table.jobs.insert(id, job);
        self.remember(&mut table, id);
    }

    /// Game `id`'s moves and the positions searched, to store.
    pub fn result(&self, id: i64) -> Option<(Vec<String>, Vec<PositionEval>)> {
        let table = self.table();
        let job = table.jobs.get(&id)?;
        Some((job.moves.clone(), job.positions.clone()))
    }

    pub fn view(&self, id: i64) -> Option<JobView> {
        let table = self.table();
        let job = table.jobs.get(&id)?;
        Some(JobView {
            game_id: id,
            status: job.status,
            done: job.positions.len(),
            total: job.moves.len() + 1,
            positions: job.positions.clone(),
            moves: judged(job),
            thresholds: Thresholds {
                inaccuracy: INACCURACY,
                mistake: MISTAKE,
                blunder: BLUNDER,
            },
            error: job.error.clone(),
        })
    }
}

/// Each move whose positions before and after are searched, with what it gave away.
fn judged(job: &Job) -> Vec<JudgedMove> {
    job.positions
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let first = pair[0].first_to_move;
            let chance = |p: &PositionEval| if first { p.eval.win } else { 1.0 - p.eval.win };
            let loss = (chance(&pair[0]) - chance(&pair[1])).max(0.0);
            JudgedMove {
                ply: i + 1,
                text: job.moves[i].clone(),
                side: if first { "first" } else { "second" },
                loss: (loss * 1000.0).round() / 1000.0,
                judgement: judgement(loss),
                best: pair[0].best.clone(),
            }
        })
        .collect()
}

fn judgement(loss: f64) -> Option<&'static str> {
    if loss >= BLUNDER {
        Some("blunder")
    } else if loss >= MISTAKE {
        Some("mistake")
    } else if loss >= INACCURACY {
        Some("inaccuracy")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::views::Eval;
    use super::*;

    fn at(win: f64, best: &str, first_to_move: bool) -> PositionEval {
        PositionEval {
            first_to_move,
            depth: 3,
            eval: Eval {
                cp: Some(0),
                mate: None,
                win,
            },
            best: Some(best.into()),
            pv: vec![best.into()],
        }
    }

    fn moves(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("m{i}")).collect()
    }

    #[test]
    fn one_job_a_game_and_no_more_than_the_cap_at_once() {
        let jobs = Jobs::new(2, 10);
        let m = moves(3);
        assert_eq!(jobs.start(1, m.clone()), Ok(true));
        assert_eq!(
            jobs.start(1, m.clone()),
            Ok(false),
            "the same game: the same job"
        );
        assert_eq!(jobs.start(2, m.clone()), Ok(true));
        assert_eq!(jobs.start(3, m.clone()), Err(Full { cap: 2 }));
        jobs.finish(1, None);
        assert_eq!(jobs.start(3, m.clone()), Ok(true));
        assert_eq!(
            jobs.start(1, m.clone()),
            Ok(false),
            "done: kept, not run again"
        );
        // A failed job may be tried again.
        jobs.finish(2, Some("the server was too busy".into()));
        assert_eq!(jobs.view(2).unwrap().status, Status::Failed);
        assert_eq!(jobs.start(2, m), Ok(true));
        assert!(jobs.view(4).is_none());
    }

    #[test]
    fn the_oldest_finished_analyses_are_forgotten_beyond_the_kept_number() {
        let jobs = Jobs::new(5, 2);
        for id in 1..=3 {
            jobs.start(id, moves(1)).unwrap();
            jobs.finish(id, None);
        }
        assert!(jobs.view(1).is_none());
        assert!(jobs.view(2).is_some() && jobs.view(3).is_some());
    }

    /// A stored analysis is put in as done and judged like one run here; it never takes the
    /// place of a job running or done here.
    #[test]
    fn a_stored_analysis_is_restored_as_done_but_never_over_a_job() {
        let jobs = Jobs::new(2, 1);
        let positions = vec![at(0.5, "a", true), at(0.1, "b", false)];
        jobs.restore(1, moves(1), positions.clone());
        let view = jobs.view(1).unwrap();
        assert_eq!((view.status, view.done, view.total), (Status::Done, 2, 2));
        assert_eq!(view.moves[0].judgement, Some("blunder"));
        assert!(jobs.has(1));
        assert_eq!(jobs.start(1, moves(1)), Ok(false), "done: not run again");
        assert_eq!(jobs.start(2, moves(1)), Ok(true));
        jobs.restore(2, moves(1), positions.clone());
        assert_eq!(jobs.view(2).unwrap().status, Status::Running);
        jobs.finish(2, None);
        assert!(jobs.view(1).is_none(), "beyond the kept number");
        assert_eq!(jobs.result(2), Some((moves(1), Vec::new())));
    }

    #[test]
    fn moves_are_judged_by_the_chance_to_win_their_player_gave_away() {
        let jobs = Jobs::new(1, 1);
        jobs.start(7, moves(4)).unwrap();
        // The first player moves at plies 1 and 3, the second at 2 and 4.
        for (i, (win, best)) in [(0.5, "a"), (0.45, "b"), (0.7, "c"), (0.35, "d"), (0.1, "e")]
            .into_iter()
            .enumerate()
        {
            jobs.record(7, at(win, best, i % 2 == 0));
        }
        let view = jobs.view(7).unwrap();
        assert_eq!(
            (view.status, view.done, view.total),
            (Status::Running, 5, 5)
        );
        let judged: Vec<(f64, Option<&str>, Option<&str>)> = view
            .moves
            .iter()
            .map(|m| (m.loss, m.judgement, m.best.as_deref()))
            .collect();
        assert_eq!(
            judged,
            [
                (0.05, None, Some("a")),
                (0.25, Some("mistake"), Some("b")),
                (0.35, Some("blunder"), Some("c")),
                (0.0, None, Some("d")),
            ]
        );
    }
}
