//! Time on a game clock by the nodes a second: the player learns the game's usual rate, and
//! with `pace` a search well under it may go past its share of the clock
//! ([`AlphaBetaConfig::pace`](super::AlphaBetaConfig::pace), off by default: docs/strength.md has why).

use std::time::{Duration, Instant};

use super::AlphaBeta;
use crate::eval::Evaluate;
use crate::player::Limits;

/// A search below this share of its usual nodes a second is slowed by something else; above
/// it, positions just differ in cost.
const SLOWED_RATE: f64 = 0.8;
/// How much of the usual rate a search's own rate replaces: much when it ran at about the usual
/// rate (positions grow cheaper as pieces leave), little when it was slowed (the usual rate is
/// the idle core's; a load that stays becomes usual in time).
const RATE_LEARNING: f64 = 0.25;
const SLOWED_RATE_LEARNING: f64 = 0.02;
/// Searches shorter than this tell nothing of the rate (setting up costs as much as searching).
const RATE_MIN_TIME: Duration = Duration::from_millis(20);

impl<G: Evaluate> AlphaBeta<G> {
    /// Takes a finished search's nodes a second into the usual rate.
    pub(super) fn learn_rate(&mut self, nodes: u64, elapsed: Duration) {
        if elapsed < RATE_MIN_TIME || nodes == 0 {
            return;
        }
        let rate = nodes as f64 / elapsed.as_secs_f64();
        self.usual_rate = Some(match self.usual_rate {
            Some(usual) if rate < usual * SLOWED_RATE => {
                usual + (rate - usual) * SLOWED_RATE_LEARNING
            }
            Some(usual) => usual + (rate - usual) * RATE_LEARNING,
            None => rate,
        });
    }

    /// On a game clock with a usual rate known: the nodes that rate buys in the move's time
    /// (well short of it, a slowed search may go on to the cap).
    pub(super) fn pace(&self, limits: &Limits, start: Instant) -> Option<Pace> {
        let (time, cap) = limits.time.zip(limits.time_cap)?;
        let rate = self.usual_rate.filter(|_| self.config.pace)?;
        Some(Pace {
            nodes: (rate * SLOWED_RATE * time.as_secs_f64()) as u64,
            cap: start + cap,
        })
    }
}

/// How far a slowed search on a game clock may go past its time.
pub(super) struct Pace {
    /// It goes on while it has searched fewer nodes than this …
    pub(super) nodes: u64,
    /// … until this time.
    pub(super) cap: Instant,
}

#[cfg(test)]
mod tests {
    use super::super::AlphaBetaConfig;
    use super::*;
    use std::sync::atomic::AtomicBool;

    type Duck = arbiter_duck::Position;

    /// A search of the start on a game clock of 20 ms a move, slowed up to 600 ms, by a player
    /// that believes its core usually gives `usual_rate` nodes a second.
    fn clock_search(usual_rate: f64, pace: bool) -> Duration {
        let config = AlphaBetaConfig {
            pace,
            ..AlphaBetaConfig::default()
        };
        let mut player = AlphaBeta::<Duck>::new(Default::default(), config);
        player.usual_rate = Some(usual_rate);
        let limits = Limits {
            time: Some(Duration::from_millis(20)),
            time_cap: Some(Duration::from_millis(600)),
            ..Limits::default()
        };
        let started = Instant::now();
        let found = player.search(
            &Duck::initial(),
            &limits,
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert!(found.best.is_some());
        started.elapsed()
    }

    #[test]
    fn a_search_slower_than_usual_goes_on_to_the_cap() {
        // No core gives 10^12 nodes a second: every search is slowed, and goes on until an
        // iteration ends in the last few percent before the cap, or the cap stops it.
        let last_iteration_start = Duration::from_millis(600) * Duck::ITERATION_START_PERCENT / 100;
        assert!(clock_search(1e12, true) >= last_iteration_start);
    }

    #[test]
    fn a_search_at_its_usual_rate_keeps_to_its_share() {
        assert!(clock_search(1.0, true) < Duration::from_millis(600));
        assert!(clock_search(1e12, false) < Duration::from_millis(600));
    }

    #[test]
    fn the_usual_rate_follows_searches_at_about_it_and_slowed_ones_slowly() {
        let mut player = AlphaBeta::<Duck>::new(Default::default(), AlphaBetaConfig::default());
        player.learn_rate(1_000, Duration::from_millis(5));
        assert_eq!(player.usual_rate, None, "too short to tell");
        let second = Duration::from_secs(1);
        player.learn_rate(1_000_000, second);
        assert_eq!(player.usual_rate, Some(1e6));
        player.learn_rate(500_000, second);
        assert_eq!(player.usual_rate, Some(1e6 - 0.5e6 * SLOWED_RATE_LEARNING));
        player.usual_rate = Some(1e6);
        player.learn_rate(900_000, second);
        assert_eq!(player.usual_rate, Some(1e6 - 0.1e6 * RATE_LEARNING));
        player.usual_rate = Some(1e6);
        player.learn_rate(3_000_000, second);
        assert_eq!(player.usual_rate, Some(1e6 + 2e6 * RATE_LEARNING));
        player.clear();
        assert_eq!(player.usual_rate, None, "a new game learns its own");
    }
}
