//! One pair of games at a time, for a worker that plays the pairs of a match handed to it
//! (`arbiter worker`): the same openings, colours and seeds as [`crate::run`] gives them, so
//! a pair played anywhere ends exactly as it would in a local run of the whole match.

use arbiter_ai::FullGame;

use crate::tournament::{check_entrants, run_job, Job, Openings};
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
    openings: Openings<G>,
    max_plies: u32,
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
        check_entrants(&start, &entrants, &config)?;
        let openings = Openings::new(&start, &config)?;
        let max_plies = config.max_plies.unwrap_or_else(|| start.max_plies());
        Ok(PairRunner {
            start,
            entrants,
            config,
            openings,
            max_plies,
        })
    }
}

impl<G: FullGame> PairSource for PairRunner<G> {
    fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    fn play(&self, pair: usize) -> [GameOutcome; 2] {
        let game = |index: usize, first: usize| {
            let job = Job {
                index,
                first,
                second: 1 - first,
                opening: pair,
            };
            let (start, entrants, config) = (&self.start, &self.entrants, &self.config);
            run_job(
                start,
                entrants,
                config,
                &self.openings,
                &job,
                self.max_plies,
            )
        };
        [game(2 * pair, 0), game(2 * pair + 1, 1)]
    }
}
