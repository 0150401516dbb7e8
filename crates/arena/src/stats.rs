//! Match statistics: score, Elo difference with its 95% interval, likelihood of superiority, SPRT.

use serde::Serialize;

/// Wins, draws and losses of one player against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The Elo difference for an expected score `p` (0 to 1).
pub fn elo_of_score(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The expected score for an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game, 0 to 1 (0.5 before any game).
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// Whether the games' scores differ at all (else no interval can be estimated).
    pub fn has_spread(&self) -> bool {
        self.variance() > 0.0
    }

    /// The variance of one game's score.
    fn variance(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let p = self.score();
        (self.wins as f64 * (1.0 - p).powi(2)
            + self.draws as f64 * (0.5 - p).powi(2)
            + self.losses as f64 * p.powi(2))
            / n
    }

    /// The Elo difference implied by the score.
    pub fn elo(&self) -> f64 {
        elo_of_score(self.score())
    }

    /// The Elo difference, or `None` when the score is 0% or 100% (or no game was played):
    /// those scores imply an infinite difference, not the clamped ±2400.
    pub fn finite_elo(&self) -> Option<f64> {
        let p = self.score();
        (self.games() > 0 && p > 0.0 && p < 1.0).then(|| self.elo())
    }

    /// Half the width of the 95% confidence interval of the Elo difference.
    pub fn elo_error(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return f64::INFINITY;
        }
        let se = (self.variance() / n).sqrt();
        let p = self.score();
        (elo_of_score(p + 1.96 * se) - elo_of_score(p - 1.96 * se)) / 2.0
    }

    /// The likelihood that the first player is the stronger one (draws ignored).
    pub fn likelihood_of_superiority(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
    }

    /// The log-likelihood ratio of "Elo difference is `elo1`" against "is `elo0`" (normal
    /// approximation of the per-game score). The variance gets half a win and half a loss of
    /// pseudo-count, so an all-win or all-loss match still decides.
    pub fn log_likelihood_ratio(&self, elo0: f64, elo1: f64) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        let p = self.score();
        let n = self.games() as f64;
        let variance =
            (self.variance() * n + 0.5 * (1.0 - p).powi(2) + 0.5 * p.powi(2)) / (n + 1.0);
        let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
        gsprt_llr(n, p, variance, s0, s1)
    }
}

/// The log-likelihood ratio of "the mean score is `s1`" against "it is `s0`" after `n`
/// independent samples whose mean is `mean` and variance `variance` (the generalised SPRT's
/// normal approximation, as fishtest computes it).
///
/// Each sample `x_j` (a game's score, or a pair's mean score) is taken as normal with the
/// observed variance `σ²` under both hypotheses, so its log-likelihood ratio is
/// `((x_j − s0)² − (x_j − s1)²) / (2σ²)`. Summed over the samples the squares of `x_j` cancel:
///
/// ```text
/// LLR = n · ((x̄ − s0)² − (x̄ − s1)²) / (2σ²) = n · (s1 − s0) · (2x̄ − s0 − s1) / (2σ²)
/// ```
///
/// It grows with `n` when `x̄` lies nearer `s1` than `s0` and falls otherwise; a smaller
/// variance (for paired games, the correlation between the two games of a pair removed from
/// it) makes every sample count for more. Zero when the variance is zero.
pub fn gsprt_llr(n: f64, mean: f64, variance: f64, s0: f64, s1: f64) -> f64 {
    if variance <= 0.0 || n <= 0.0 {
        return 0.0;
    }
    n * ((mean - s0).powi(2) - (mean - s1).powi(2)) / (2.0 * variance)
}

/// How the SPRT's Elo hypotheses are read, as fastchess's `model=`: logistic Elo (the score
/// `1 / (1 + 10^(−elo/400))`, what the tables print) or normalized Elo (the score's distance
/// from 50% in units of its standard deviation, `nElo`: independent of the draw rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    Logistic,
    Normalized,
}

impl EloModel {
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        }
    }
}

impl std::str::FromStr for EloModel {
    type Err = String;
    fn from_str(text: &str) -> Result<EloModel, String> {
        match text {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" => Ok(EloModel::Normalized),
            other => Err(format!(
                "the Elo model is `logistic` or `normalized`, not `{other}`"
            )),
        }
    }
}

/// A sequential probability ratio test between two Elo hypotheses, with error rates `alpha`
/// (accepting H1 when H0 holds) and `beta` (the reverse).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
}

/// What an SPRT concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// Not enough games yet.
    Continue,
    /// The difference is at least `elo1`.
    AcceptH1,
    /// The difference is at most `elo0`.
    AcceptH0,
}

/// `800 / ln 10`: normalized Elo per unit of `t = (score − ½) / σ`.
const NELO_PER_T: f64 = 347.435_585_522_601_5;

impl Sprt {
    /// The defaults: 5% error rates and logistic Elo.
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        }
    }

    /// The log-likelihood ratios at which it accepts H0 and H1: `ln(β / (1 − α))` and
    /// `ln((1 − β) / α)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, tally: &Tally) -> SprtVerdict {
        self.verdict_of_llr(tally.log_likelihood_ratio(self.elo0, self.elo1))
    }

    /// The pentanomial log-likelihood ratio of the pairs `p`, by the test's Elo model.
    pub fn llr(&self, p: &crate::Pentanomial) -> f64 {
        match self.model {
            EloModel::Logistic => p.log_likelihood_ratio(self.elo0, self.elo1),
            EloModel::Normalized => p.log_likelihood_ratio_normalized(self.elo0, self.elo1),
        }
    }

    /// What a log-likelihood ratio (of [`Tally`] or of [`crate::Pentanomial`]) decides.
    pub fn verdict_of_llr(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

/// The score a normalized Elo difference `nelo` stands for when one pair's mean score has the
/// variance `variance` (fastchess's `neloToScorePenta`).
pub fn score_of_normalized_elo(nelo: f64, variance: f64) -> f64 {
    0.5 + nelo / NELO_PER_T * (2.0 * variance).sqrt()
}

/// The normalized Elo of a mean pair score with that variance (0 with no spread).
pub fn normalized_elo(score: f64, variance: f64) -> f64 {
    if variance <= 0.0 {
        return 0.0;
    }
    (score - 0.5) / (2.0 * variance).sqrt() * NELO_PER_T
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-400.0, -50.0, 0.0, 120.0, 800.0] {
            assert!((elo_of_score(score_of_elo(elo)) - elo).abs() < 1e-6);
        }
        assert!((score_of_elo(400.0) - 10.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn tallies() {
        let even = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert_eq!(even.score(), 0.5);
        assert!(even.elo().abs() < 1e-9);
        assert!((even.likelihood_of_superiority() - 0.5).abs() < 1e-9);
        let strong = Tally {
            wins: 190,
            draws: 6,
            losses: 4,
        };
        assert!(strong.score() > 0.96);
        assert!(strong.elo() > 500.0);
        assert!(strong.likelihood_of_superiority() > 0.999);
        assert!(strong.elo_error() > 0.0 && strong.elo_error().is_finite());
        assert!((erf(0.5) - 0.520_499_877_8).abs() < 1e-6);
    }

    #[test]
    fn sprt_decides_clear_cases() {
        let sprt = Sprt::new(0.0, 50.0);
        assert_eq!(
            sprt.verdict(&Tally {
                wins: 5,
                draws: 0,
                losses: 5
            }),
            SprtVerdict::Continue
        );
        assert_eq!(
            sprt.verdict(&Tally {
                wins: 150,
                draws: 10,
                losses: 40
            }),
            SprtVerdict::AcceptH1
        );
        assert_eq!(
            sprt.verdict(&Tally {
                wins: 60,
                draws: 20,
                losses: 120
            }),
            SprtVerdict::AcceptH0
        );
        assert_eq!(
            sprt.verdict(&Tally {
                wins: 30,
                draws: 0,
                losses: 0
            }),
            SprtVerdict::AcceptH1
        );
        assert_eq!(
            sprt.verdict(&Tally {
                wins: 0,
                draws: 0,
                losses: 30
            }),
            SprtVerdict::AcceptH0
        );
    }
}
