//! Pentanomial statistics of paired games, as fishtest keeps them.
//!
//! The arena plays every opening twice, once with each colour. The two games of a pair are not
//! independent: an opening that favours one side tends to give one win to each player (a
//! "WL" pair), a drawish one two draws. Counting a pair by its total score — 0, ½, 1, 1½ or 2
//! points for the first-named player, the counts `LL`, `LD`, `DD`+`WL`, `WD`, `WW` — and taking
//! each pair as one sample removes that correlation from the variance: the same games give a
//! tighter Elo interval and an SPRT that decides sooner, and an opening's own bias no longer
//! counts as noise. On uncorrelated games the pentanomial numbers equal the trinomial ones
//! (the tests check it).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::stats::{
    elo_of_score, erf, gsprt_llr, normalized_elo, score_of_elo, score_of_normalized_elo,
};
use crate::GameOutcome;

/// How many pairs of games scored 0, ½, 1, 1½ and 2 points for the first-named player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial {
    /// `counts[k]`: pairs where the player scored `k / 2` points (`LL`, `LD`, `DD`/`WL`, `WD`,
    /// `WW`).
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Adds a pair whose two games scored `first` and `second` for the player (0, ½ or 1 each).
    pub fn add(&mut self, first: f64, second: f64) {
        let k = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[k] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// The mean score per game, 0 to 1 (0.5 before any pair).
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let points: f64 = (0..5).map(|k| self.counts[k] as f64 * k as f64 / 4.0).sum();
        points / n as f64
    }

    /// The variance of one pair's mean score (its two games' points over 2).
    pub fn variance(&self) -> f64 {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let mean = self.score();
        (0..5)
            .map(|k| self.counts[k] as f64 * (k as f64 / 4.0 - mean).powi(2))
            .sum::<f64>()
            / n
    }

    /// The standard error of the mean score.
    fn standard_error(&self) -> f64 {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return f64::INFINITY;
        }
        (self.variance() / n).sqrt()
    }

    /// The Elo difference, or `None` when the score is 0% or 100% or no pair was played.
    pub fn finite_elo(&self) -> Option<f64> {
        let p = self.score();
        (self.pairs() > 0 && p > 0.0 && p < 1.0).then(|| elo_of_score(p))
    }

    /// Half the width of the 95% interval of the Elo difference, from the pentanomial
    /// variance: the Elo of `score ± 1.96 · sqrt(variance / pairs)`.
    pub fn elo_error(&self) -> f64 {
        let se = self.standard_error();
        if !se.is_finite() {
            return f64::INFINITY;
        }
        let p = self.score();
        (elo_of_score(p + 1.96 * se) - elo_of_score(p - 1.96 * se)) / 2.0
    }

    /// The likelihood of superiority: the chance that the player is the stronger, from the
    /// normal approximation of the mean pair score (0.5 with no spread).
    pub fn likelihood_of_superiority(&self) -> f64 {
        let se = self.standard_error();
        if !se.is_finite() || se == 0.0 {
            return match self.score() {
                p if p > 0.5 => 1.0,
                p if p < 0.5 => 0.0,
                _ => 0.5,
            };
        }
        0.5 * (1.0 + erf((self.score() - 0.5) / (se * std::f64::consts::SQRT_2)))
    }

    /// The log-likelihood ratio of "the Elo difference is `elo1`" against "is `elo0`", each
    /// pair one sample: [`gsprt_llr`] with `n` = pairs, the mean score per game and the
    /// variance of a pair's mean score. As for [`crate::Tally`], the variance gets half an
    /// `LL` and half a `WW` pair of pseudo-count, so a match of only won (or lost) pairs, whose
    /// variance is zero, still decides:
    ///
    /// ```text
    /// σ² = (n · variance + ½ (1 − score)² + ½ score²) / (n + 1)
    /// LLR = n · (s1 − s0) · (2 · score − s0 − s1) / (2σ²),   s = 1 / (1 + 10^(−elo / 400))
    /// ```
    pub fn log_likelihood_ratio(&self, elo0: f64, elo1: f64) -> f64 {
        self.llr_of_scores(|_| (score_of_elo(elo0), score_of_elo(elo1)))
    }

    /// [`Self::log_likelihood_ratio`] with the hypotheses in normalized Elo: each turned into
    /// a score by the pairs' own (regularised) variance, as fastchess's normalized model does.
    pub fn log_likelihood_ratio_normalized(&self, nelo0: f64, nelo1: f64) -> f64 {
        self.llr_of_scores(|variance| {
            (
                score_of_normalized_elo(nelo0, variance),
                score_of_normalized_elo(nelo1, variance),
            )
        })
    }

    /// The GSPRT's ratio for the two hypotheses' scores, which `scores` gives from the
    /// regularised variance.
    fn llr_of_scores(&self, scores: impl Fn(f64) -> (f64, f64)) -> f64 {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let variance = self.regularised_variance();
        let (s0, s1) = scores(variance);
        gsprt_llr(n, self.score(), variance, s0, s1)
    }

    /// The variance of a pair's mean score with half an `LL` and half a `WW` pair of
    /// pseudo-count, so that pairs that all scored alike still have some.
    fn regularised_variance(&self) -> f64 {
        let n = self.pairs() as f64;
        let p = self.score();
        (self.variance() * n + 0.5 * (1.0 - p).powi(2) + 0.5 * p.powi(2)) / (n + 1.0)
    }

    /// The normalized Elo of the pairs (`nElo`), `None` before any pair or without spread.
    pub fn normalized_elo(&self) -> Option<f64> {
        (self.pairs() > 0 && self.variance() > 0.0)
            .then(|| normalized_elo(self.score(), self.variance()))
    }

    /// `LL 3, LD 5, DD/WL 10, WD 4, WW 2`.
    pub fn text(&self) -> String {
        let c = self.counts;
        format!(
            "LL {}, LD {}, DD/WL {}, WD {}, WW {}",
            c[0], c[1], c[2], c[3], c[4]
        )
    }
}

/// The pairs entrants `a` and `b` completed — their two games on one opening of the schedule —
/// counted from `a`'s side, and how many of their games have no partner (yet).
pub fn between(outcomes: &[GameOutcome], a: usize, b: usize) -> (Pentanomial, u32) {
    let mut by_opening: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for o in outcomes
        .iter()
        .filter(|o| (o.first == a && o.second == b) || (o.first == b && o.second == a))
    {
        let points = match o.winner {
            Some(w) if w == a => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        by_opening.entry(o.opening).or_default().push(points);
    }
    let mut pairs = Pentanomial::default();
    let mut unpaired = 0;
    for points in by_opening.values() {
        match points[..] {
            [x, y] => pairs.add(x, y),
            _ => unpaired += points.len() as u32,
        }
    }
    (pairs, unpaired)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tally;

    fn penta(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    #[test]
    fn pairs_are_counted_by_their_total() {
        let mut p = Pentanomial::default();
        for (a, b) in [
            (0.0, 0.0),
            (0.0, 0.5),
            (1.0, 0.0),
            (0.5, 0.5),
            (0.5, 1.0),
            (1.0, 1.0),
        ] {
            p.add(a, b);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        assert_eq!(p.pairs(), 6);
        assert!((p.score() - 0.5).abs() < 1e-12);
        assert_eq!(p.text(), "LL 1, LD 1, DD/WL 2, WD 1, WW 1");
    }

    /// Numbers worked by hand: counts 2, 6, 20, 8, 4 (40 pairs).
    #[test]
    fn hand_computed_values() {
        let p = penta([2, 6, 20, 8, 4]);
        // score = (6·¼ + 20·½ + 8·¾ + 4·1) / 40 = 21.5 / 40
        assert!((p.score() - 0.5375).abs() < 1e-12);
        // Σ n_k (k/4 − 0.5375)² / 40
        //   = (2·0.28890625 + 6·0.08265625 + 20·0.00140625 + 8·0.04515625 + 4·0.21390625) / 40
        //   = 2.31875 / 40
        assert!((p.variance() - 0.057_968_75).abs() < 1e-12);
        // se = sqrt(0.05796875 / 40) = 0.0380686; Elo(0.5375 + 1.96 se) = +79.25,
        // Elo(0.5375 − 1.96 se) = −25.84: ± 52.54 around Elo(0.5375) = +26.11
        assert!((p.elo_error() - 52.54).abs() < 0.01, "{}", p.elo_error());
        assert!((p.finite_elo().unwrap() - 26.11).abs() < 0.01);
        // LOS = Φ(0.0375 / 0.0380686) = Φ(0.98506) = 0.8377
        assert!((p.likelihood_of_superiority() - 0.8377).abs() < 1e-3);
        // σ² = (2.31875 + ½·0.4625² + ½·0.5375²) / 41 = 2.57015625 / 41 = 0.0626867;
        // s0 = ½, s1 = 1 / (1 + 10^(−10/400)) = 0.5143872;
        // LLR = 40 · 0.0143872 · (1.075 − 1.0143872) / (2 · 0.0626867) = 0.27822
        let llr = p.log_likelihood_ratio(0.0, 10.0);
        assert!((llr - 0.27822).abs() < 1e-4, "{llr}");
    }

    /// Two independent games with the chances `w`, `d`, `l` give pairs distributed as the
    /// convolution: LL = l², LD = 2ld, DD/WL = d² + 2wl, WD = 2wd, WW = w².
    fn independent_pairs(w: f64, d: f64, l: f64, pairs: f64) -> ([f64; 5], Tally) {
        let counts =
            [l * l, 2.0 * l * d, d * d + 2.0 * w * l, 2.0 * w * d, w * w].map(|c| c * pairs);
        let games = 2.0 * pairs;
        let tally = Tally {
            wins: (w * games).round() as u32,
            draws: (d * games).round() as u32,
            losses: (l * games).round() as u32,
        };
        (counts, tally)
    }

    #[test]
    fn without_correlation_the_pentanomial_llr_is_the_trinomial_one() {
        // Exact counts (w, d, l in tenths, 10 000 pairs): the bare GSPRT formula agrees exactly.
        for (w, d, l) in [
            (0.4, 0.3, 0.3),
            (0.2, 0.7, 0.1),
            (0.5, 0.1, 0.4),
            (0.3, 0.3, 0.4),
        ] {
            let (counts, tally) = independent_pairs(w, d, l, 10_000.0);
            let p = penta(counts.map(|c| c.round() as u32));
            assert_eq!(p.pairs(), 10_000);
            let (s0, s1) = (score_of_elo(0.0), score_of_elo(5.0));
            let trinomial_variance = w * (1.0 - tally.score()).powi(2)
                + d * (0.5 - tally.score()).powi(2)
                + l * tally.score().powi(2);
            let penta_llr = gsprt_llr(10_000.0, p.score(), p.variance(), s0, s1);
            let tri_llr = gsprt_llr(20_000.0, tally.score(), trinomial_variance, s0, s1);
            assert!((p.score() - tally.score()).abs() < 1e-12);
            assert!((p.variance() - trinomial_variance / 2.0).abs() < 1e-12);
            assert!((penta_llr - tri_llr).abs() < 1e-9, "{penta_llr} {tri_llr}");
            // With the pseudo-counts the two differ by a part in n; their Elo intervals agree.
            let (a, b) = (
                p.log_likelihood_ratio(0.0, 5.0),
                tally.log_likelihood_ratio(0.0, 5.0),
            );
            assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "{a} {b}");
            assert!((p.elo_error() - tally.elo_error()).abs() < 1e-6 * tally.elo_error());
        }
    }

    #[test]
    fn correlated_pairs_decide_sooner() {
        // 100 pairs, each one win and one loss but for 10 won outright: the trinomial view sees
        // 110 wins and 90 losses, a noisy +35 Elo; the pairs see a steady edge.
        let p = penta([0, 0, 90, 0, 10]);
        let t = Tally {
            wins: 110,
            draws: 0,
            losses: 90,
        };
        assert!((p.score() - t.score()).abs() < 1e-12);
        assert!(p.elo_error() < t.elo_error() / 2.0);
        assert!(p.log_likelihood_ratio(0.0, 20.0) > 2.0 * t.log_likelihood_ratio(0.0, 20.0));
    }

    #[test]
    fn one_sided_matches_still_decide() {
        let all_won = penta([0, 0, 0, 0, 15]);
        assert!(all_won.finite_elo().is_none());
        assert_eq!(all_won.likelihood_of_superiority(), 1.0);
        assert!(all_won.log_likelihood_ratio(0.0, 10.0) > 3.0);
        let all_lost = penta([15, 0, 0, 0, 0]);
        assert!(all_lost.log_likelihood_ratio(0.0, 10.0) < -3.0);
        assert_eq!(Pentanomial::default().log_likelihood_ratio(0.0, 10.0), 0.0);
    }
}
