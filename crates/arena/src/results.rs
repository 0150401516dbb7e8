//! The finished games as they come in: their records and stderr written, `games.tsv` kept up
//! to date, the progress told, and the SPRT asked after each.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::report::{live_line, sprt_report};
use crate::tournament::{index_line, record_file_name};
use crate::{ArenaConfig, ArenaError, Entrant, GameOutcome, Progress, SprtReport, SprtVerdict};

/// The finished games as they arrive, in the order they finish.
pub(crate) struct Results<'a, 'p> {
    pub(crate) entrants: &'a [Entrant],
    pub(crate) config: &'a ArenaConfig,
    pub(crate) total: usize,
    /// Set to stop the workers: a record could not be written, or the SPRT decided.
    pub(crate) halt: &'a AtomicBool,
    pub(crate) progress: &'p mut dyn FnMut(&Progress),
    pub(crate) outcomes: Vec<GameOutcome>,
    /// The SPRT's state when it decided: the first decision stands, games still running then
    /// do not change it.
    pub(crate) sprt_decided: Option<SprtReport>,
    pub(crate) record_error: Option<ArenaError>,
}

impl Results<'_, '_> {
    /// Writes the game's record file (and its engines' stderr), reports progress and asks the
    /// SPRT.
    pub(crate) fn receive(&mut self, mut outcome: GameOutcome) {
        if let Some(dir) = &self.config.out_dir {
            let path = dir.join(record_file_name(self.entrants, &outcome));
            match std::fs::write(&path, format!("{}\n", outcome.record)) {
                // Named and indexed only once its record is there.
                Ok(()) => {
                    self.write_stderr(&path, &outcome);
                    outcome.record_file = Some(path);
                    self.append_to_index(dir, &outcome);
                }
                Err(error) => self.stop_on_write_error(path, error),
            }
        }
        self.outcomes.push(outcome);
        self.ask_sprt();
        let last = self.outcomes.last().expect("just pushed");
        let sprt = self.sprt_now();
        (self.progress)(&Progress {
            done: self.outcomes.len(),
            total: self.total,
            outcome: last,
            live: live_line(self.entrants, &self.outcomes, sprt.as_ref()),
        });
    }

    /// The SPRT's state now: as it decided, or on the games so far.
    fn sprt_now(&self) -> Option<SprtReport> {
        self.sprt_decided.clone().or_else(|| {
            let sprt = self.config.sprt?;
            Some(sprt_report(sprt, &self.outcomes))
        })
    }

    /// Stops the run once the SPRT decides.
    pub(crate) fn ask_sprt(&mut self) {
        let Some(sprt) = self.config.sprt else { return };
        if self.sprt_decided.is_some() || self.entrants.len() != 2 {
            return;
        }
        let report = sprt_report(sprt, &self.outcomes);
        if report.verdict != SprtVerdict::Continue {
            self.sprt_decided = Some(report);
            self.halt.store(true, Ordering::Relaxed);
        }
    }

    /// `game-0007-a-vs-b.stderr` beside the record: what its engines wrote on standard error
    /// during the game, a line each with the engine's name (no file when they wrote nothing).
    fn write_stderr(&mut self, record: &Path, outcome: &GameOutcome) {
        if outcome.stderr.is_empty() {
            return;
        }
        let path = record.with_extension("stderr");
        let text: String = outcome.stderr.iter().map(|l| format!("{l}\n")).collect();
        if let Err(error) = std::fs::write(&path, text) {
            self.stop_on_write_error(path, error);
        }
    }

    /// Adds a finished game to `games.tsv` at once, so a run stopped early (an SPRT cut short,
    /// Ctrl-C) still leaves an index of every game it finished; the end rewrites it in
    /// schedule order.
    fn append_to_index(&mut self, dir: &Path, outcome: &GameOutcome) {
        use std::io::Write;
        let path = dir.join("games.tsv");
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(index_line(self.entrants, outcome).as_bytes()));
        if let Err(error) = appended {
            self.stop_on_write_error(path, error);
        }
    }

    /// Keeps the first file that could not be written as the run's error and stops the run.
    fn stop_on_write_error(&mut self, path: PathBuf, error: std::io::Error) {
        self.record_error
            .get_or_insert(ArenaError::Records { path, error });
        self.halt.store(true, Ordering::Relaxed);
    }

    /// The outcomes in schedule order and the SPRT's state; the first record that could not
    /// be written is an error.
    pub(crate) fn finish(self) -> Result<(Vec<GameOutcome>, Option<SprtReport>), ArenaError> {
        if let Some(error) = self.record_error {
            return Err(error);
        }
        let sprt = self.sprt_now();
        let mut outcomes = self.outcomes;
        outcomes.sort_by_key(|o| o.index);
        Ok((outcomes, sprt))
    }
}
