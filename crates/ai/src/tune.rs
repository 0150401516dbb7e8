//! Texel-style tuning: fits an evaluation's weights to the results of played games.
//!
//! Each quiet position of a game (the side to move has no capture and is not in danger, so the
//! static evaluation is what a quiescence search would return) is labelled with the game's
//! result for the side to move. A logistic curve `1 / (1 + 10^(-k·eval/400))` turns the
//! evaluation into an expected score; the tuner first fits `k` to the default weights, then
//! moves one weight at a time by a step while the mean squared difference between expected and
//! real results falls, halving the step when no weight can move. The arena's `--out` folders
//! are the input (`arbiter tune`); the result is a player spec to check in the arena, since a
//! better fit to results is a hypothesis about strength, not a measurement of it.

use arbiter_core::{MoveList, Side};

use crate::eval::{EvalWeights, Evaluate};

/// A position and the result its game had for the side to move there (1 win, ½ draw, 0 loss).
#[derive(Clone, Debug)]
pub struct Sample<G> {
    pub position: G,
    pub result: f64,
}

/// The quiet positions of one game, from ply `skip` on: `moves` played from `start`, won by
/// `winner` (`None`: drawn).
pub fn quiet_samples<G: Evaluate>(
    start: &G,
    moves: &[G::Move],
    winner: Option<Side>,
    skip: usize,
) -> Vec<Sample<G>> {
    quiet_positions(start, moves, skip)
        .into_iter()
        .map(|(_, position)| {
            let result = match winner {
                None => 0.5,
                Some(side) if side == position.side_to_move() => 1.0,
                Some(_) => 0.0,
            };
            Sample { position, result }
        })
        .collect()
}

/// The quiet positions of `moves` played from `start`, from ply `skip` on, each with the number
/// of moves that led to it (so another engine can be shown the same position).
pub fn quiet_positions<G: Evaluate>(start: &G, moves: &[G::Move], skip: usize) -> Vec<(usize, G)> {
    let mut position = start.clone();
    let mut out = Vec::new();
    for (ply, &mv) in moves.iter().enumerate() {
        if ply >= skip && is_quiet(&position) {
            out.push((ply, position.clone()));
        }
        position.play(mv);
    }
    out
}

/// A position whose static evaluation is what quiescence would return: the game goes on, the
/// side to move is not in danger and has no capture.
pub fn is_quiet<G: Evaluate>(position: &G) -> bool {
    let mut captures = MoveList::new();
    if position.status().is_over() || position.in_danger() {
        return false;
    }
    position.capture_moves(&mut captures);
    captures.is_empty()
}

/// The expected score of an evaluation `eval` (centipawns) under scale `k`.
fn expected(eval: i32, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * f64::from(eval) / 400.0))
}

/// The mean squared difference between expected and real results.
pub fn mean_error<G: Evaluate>(samples: &[Sample<G>], weights: &G::Weights, k: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let diff = s.result - expected(s.position.evaluate(weights), k);
            diff * diff
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The scale `k` that fits `weights` best (golden-section search over 0.01 ..= 10).
pub fn fit_scale<G: Evaluate>(samples: &[Sample<G>], weights: &G::Weights) -> f64 {
    let evals: Vec<(i32, f64)> = samples
        .iter()
        .map(|s| (s.position.evaluate(weights), s.result))
        .collect();
    let error = |k: f64| -> f64 {
        evals
            .iter()
            .map(|&(e, r)| (r - expected(e, k)).powi(2))
            .sum()
    };
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut low, mut high) = (0.01f64, 10.0f64);
    for _ in 0..60 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if error(a) < error(b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// What the tuner reports after each round over the weights.
#[derive(Clone, Debug)]
pub struct Progress<'a, W> {
    pub round: u32,
    pub step: i32,
    /// The scale, fitted again after the round.
    pub k: f64,
    pub error: f64,
    pub weights: &'a W,
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// The weights to move; the others keep their values (one, usually the piece value, must
    /// stay fixed, or the tuner could only rescale everything).
    pub names: Vec<String>,
    /// The first step, halved down to 1 whenever no weight can move by it.
    pub first_step: i32,
    /// Stops after this many rounds in all.
    pub max_rounds: u32,
}

/// Moves each weight of `config.names` up or down by the step while that lowers the error,
/// fitting the scale `k` (first `k`) again after each round; returns the best weights found,
/// their scale and their error. The scale is refitted because one weight stays fixed: with `k`
/// held where the starting weights put it, weights that judge better than those would have to
/// grow around the fixed one to express the same confidence (a fit to another engine's scores
/// multiplied every piece value but the fixed guard's by 2.4 to 4.8).
pub fn tune<G: Evaluate>(
    samples: &[Sample<G>],
    start: &G::Weights,
    mut k: f64,
    config: &TuneConfig,
    report: &mut dyn FnMut(&Progress<G::Weights>),
) -> (G::Weights, f64, f64) {
    let mut best = start.clone();
    let mut best_error = mean_error(samples, &best, k);
    let mut step = config.first_step.max(1);
    for round in 1..=config.max_rounds {
        let mut improved = false;
        for name in &config.names {
            let value = best.get(name).unwrap_or(0);
            for candidate in [value + step, value - step] {
                let mut trial = best.clone();
                if trial.set(name, candidate).is_err() {
                    break;
                }
                let error = mean_error(samples, &trial, k);
                if error < best_error {
                    (best, best_error, improved) = (trial, error, true);
                    break;
                }
            }
        }
        let refitted = fit_scale(samples, &best);
        let error = mean_error(samples, &best, refitted);
        if error < best_error {
            (k, best_error) = (refitted, error);
        }
        report(&Progress {
            round,
            step,
            k,
            error: best_error,
            weights: &best,
        });
        if !improved {
            if step == 1 {
                break;
            }
            step /= 2;
        }
    }
    (best, k, best_error)
}

#[cfg(test)]
mod tests {
    use arbiter_core::{Game, Rules};
    use arbiter_surakarta::Position;
    use rand::{rngs::StdRng, SeedableRng};

    use super::*;
    use crate::eval::SurakartaWeights;

    /// Positions a few random plies into Surakarta games (seeded).
    fn positions(count: usize) -> Vec<Position> {
        let start = Position::start(&Position::definition().defaults());
        let mut rng = StdRng::seed_from_u64(7);
        let mut scratch = MoveList::new();
        let mut out = Vec::new();
        while out.len() < count {
            let mut pos = start.clone();
            for _ in 0..out.len() % 60 + 4 {
                match pos.random_move(&mut rng, &mut scratch) {
                    Some(mv) => pos.play(mv),
                    None => break,
                }
            }
            if !pos.status().is_over() {
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn tuning_recovers_the_weights_the_results_were_drawn_from() {
        let truth = SurakartaWeights {
            interior: 30,
            mobility: 6,
            ..SurakartaWeights::default()
        };
        let samples: Vec<Sample<Position>> = positions(600)
            .into_iter()
            .map(|position| Sample {
                result: expected(position.evaluate(&truth), 1.0),
                position,
            })
            .collect();
        let defaults = SurakartaWeights::default();
        let k = fit_scale(&samples, &truth);
        assert!((k - 1.0).abs() < 0.01, "k = {k}");
        let config = TuneConfig {
            names: vec!["mobility".into(), "interior".into()],
            first_step: 8,
            max_rounds: 100,
        };
        let mut errors = Vec::new();
        // Started from the scale the defaults fit, which is not the truth's: the refitted
        // scale lets the weights land on the truth, not around the fixed piece value.
        let start_k = fit_scale(&samples, &defaults);
        assert!((start_k - 1.0).abs() > 0.05, "start k = {start_k}");
        let (fitted, k, error) = tune(&samples, &defaults, start_k, &config, &mut |p| {
            errors.push(p.error)
        });
        assert!(errors.windows(2).all(|w| w[1] <= w[0]), "{errors:?}");
        assert_eq!((fitted.interior, fitted.mobility), (30, 6), "{fitted:?}");
        assert!(error < 1e-9, "{error}");
        assert!((k - 1.0).abs() < 0.01, "k = {k}");
        assert_eq!(fitted.corner, defaults.corner, "an unnamed weight stays");
    }

    #[test]
    fn samples_are_the_quiet_positions_labelled_for_the_side_to_move() {
        let start = Position::start(&Position::definition().defaults());
        let mut moves = Vec::new();
        let mut pos = start.clone();
        let mut rng = StdRng::seed_from_u64(3);
        let mut scratch = MoveList::new();
        while let Some(mv) = pos.random_move(&mut rng, &mut scratch) {
            pos.play(mv);
            moves.push(mv);
        }
        let samples = quiet_samples(&start, &moves, Some(Side::First), 4);
        assert!(!samples.is_empty());
        for s in &samples {
            assert!(s.position.ply() >= 4);
            let mut captures = MoveList::new();
            s.position.capture_moves(&mut captures);
            assert!(captures.is_empty());
            let won = s.position.side_to_move() == Side::First;
            assert_eq!(s.result, if won { 1.0 } else { 0.0 });
        }
        let drawn = quiet_samples(&start, &moves, None, 0);
        assert!(drawn.iter().all(|s| s.result == 0.5));
        assert!(drawn.len() >= samples.len());
    }
}
