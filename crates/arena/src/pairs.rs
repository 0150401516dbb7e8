//! One pair of games at a time, for a worker that plays the pairs of a match handed to it
//! (`arbiter worker`): the same openings, colours and seeds as [`crate::run`] gives them, so
//! a pair played anywhere ends exactly as it would in a local run of the whole match.

use arbiter_ai::FullGame;

use crate::game::{run_job, RunContext, Slot};
use crate::tournament::{check_entrants, Job};
use crate::{ArenaConfig, ArenaError, Entrant, GameOutcome};

/// Plays pairs of a two-player match by number; behind a trait so that a caller holding many
/// matches of different games needs no type parameter.
pub trait PairSource: Send + Sync {
    /// The two entrants, in the match's order.
    fn entrants(&self) -> &[Entrant];
    /// Plays pair `pair`: the games numbered `2·pair` (entrant 0 first) and `2·pair + 1`
    /// (entrant 1 first) on opening number `pair`, as a local run numbers them.
    fn play(&self, pair: usize) -> [GameOutcome; 2];
}

/// The [`PairSource`] of one game type.
pub struct PairRunner<G: FullGame> {
    start: G,
    entrants: Vec<Entrant>,
    config: ArenaConfig,
}

impl<G: FullGame> PairRunner<G> {
    /// Checks the two entrants like [`crate::run`] does (an engine must start and answer) and
    /// prepares the openings.
    pub fn new(
        start: G,
        entrants: Vec<Entrant>,
        config: ArenaConfig,
    ) -> Result<PairRunner<G>, ArenaError> {
        if entrants.len() != 2 {
            return Err(ArenaError::NotTwoPlayers(entrants.len()));
        }
        check_entrants(&RunContext::new(&start, &entrants, &config)?)?;
        Ok(PairRunner {
            start,
            entrants,
            config,
        })
    }
}

impl<G: FullGame> PairSource for PairRunner<G> {
    fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    /// The two games share one slot: each outside engine is started once for the pair.
    fn play(&self, pair: usize) -> [GameOutcome; 2] {
        let ctx = RunContext::new(&self.start, &self.entrants, &self.config)
            .expect("checked when the runner was made");
        let mut slot = Slot::new(self.entrants.len());
        let mut game = |index: usize, first: usize| {
            let job = Job {
                index,
                first,
                second: 1 - first,
                opening: pair,
            };
            run_job(&ctx, &mut slot, &job).expect("a worker's games are not interrupted")
        };
        [game(2 * pair, 0), game(2 * pair + 1, 1)]
    }
}
