//! The match in words and numbers: the final table, the live line after each game, the
//! SPRT's state, and `--json`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::pentanomial::between as pentanomial_between;
use crate::stats::{EloModel, Sprt, SprtVerdict, Tally};
use crate::{Entrant, GameOutcome, Pentanomial, PentanomialTotals, Report};

/// The SPRT's settings and where it stands, as `--json` gives them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `logistic` or `normalized`: how `elo0` and `elo1` are read.
    pub model: EloModel,
    /// The pentanomial log-likelihood ratio, and the bounds at which it decides.
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `H1`, `H0` or `none` (yet).
    pub decision: &'static str,
    #[serde(skip)]
    pub verdict: SprtVerdict,
    pub games: usize,
    pub pairs: u32,
    /// The pairs' normalized Elo (`null` without spread).
    pub nelo: Option<f64>,
}

/// The SPRT on the games so far (between entrants 0 and 1).
pub(crate) fn sprt_report(sprt: Sprt, outcomes: &[GameOutcome]) -> SprtReport {
    let (pairs, _) = pentanomial_between(outcomes, 0, 1);
    let llr = sprt.llr(&pairs);
    let (lower, upper) = sprt.bounds();
    let verdict = sprt.verdict_of_llr(llr);
    SprtReport {
        elo0: sprt.elo0,
        elo1: sprt.elo1,
        alpha: sprt.alpha,
        beta: sprt.beta,
        model: sprt.model,
        llr,
        lower,
        upper,
        decision: match verdict {
            SprtVerdict::AcceptH1 => "H1",
            SprtVerdict::AcceptH0 => "H0",
            SprtVerdict::Continue => "none",
        },
        verdict,
        games: outcomes.len(),
        pairs: pairs.pairs(),
        nelo: pairs.normalized_elo(),
    }
}

impl SprtReport {
    /// `LLR 1.23 (-2.94, 2.94)`.
    fn llr_text(&self) -> String {
        format!("LLR {:.2} ({:.2}, {:.2})", self.llr, self.lower, self.upper)
    }

    /// The table's line: decision, games, LLR and bounds, the test's settings.
    fn line(&self) -> String {
        let decided = match self.verdict {
            SprtVerdict::AcceptH1 => "H1 accepted",
            SprtVerdict::AcceptH0 => "H0 accepted",
            SprtVerdict::Continue => "no decision",
        };
        let mut line = format!(
            "SPRT: {decided} after {} games, {} pairs: pentanomial {}; H0 {} vs H1 {} in {} Elo, alpha {}, beta {}",
            self.games,
            self.pairs,
            self.llr_text(),
            self.elo0,
            self.elo1,
            self.model.name(),
            self.alpha,
            self.beta
        );
        if self.model == EloModel::Normalized {
            match self.nelo {
                Some(nelo) => {
                    let _ = write!(line, "; nElo {}", signed(nelo));
                }
                None => line.push_str("; nElo unknown (no spread yet)"),
            }
        }
        line
    }
}

/// A signed whole number without `-0`: `+35`, `0`, `-12`.
fn signed(value: f64) -> String {
    let rounded = value.round();
    if rounded == 0.0 {
        "0".into()
    } else {
        format!("{rounded:+.0}")
    }
}

/// `+35 ± 40`; `+inf` or `-inf` (a score of 100% or 0%); `+12 (no interval: every game
/// scored alike)` when the results have no spread to estimate one from; `+1200` when the
/// interval is too wide to say anything.
pub fn elo_text(elo: Option<f64>, error: Option<f64>, ahead: bool) -> String {
    match (elo, error) {
        (None, _) => format!("{}inf", if ahead { "+" } else { "-" }),
        (Some(elo), None) => format!(
            "{} (no interval: no spread in the results yet)",
            signed(elo)
        ),
        (Some(elo), Some(error)) if error < 1500.0 => {
            format!("{} ± {}", signed(elo), error.round().max(1.0))
        }
        (Some(elo), _) => signed(elo),
    }
}

/// `pairs: 20 (LL 1, LD 2, DD/WL 10, WD 5, WW 2), Elo +35 ± 40, LOS 95.0%`.
fn pentanomial_line(p: &PentanomialTotals) -> String {
    let counts = Pentanomial { counts: p.counts };
    let mut line = format!("pairs: {} ({})", p.pairs, counts.text());
    if p.pairs > 0 {
        let elo = elo_text(p.elo, p.elo_error, counts.score() > 0.5);
        let _ = write!(line, ", Elo {elo}, LOS {:.1}%", 100.0 * p.los);
    }
    if p.unpaired > 0 {
        let games = if p.unpaired == 1 { "game" } else { "games" };
        let _ = write!(line, "; {} {games} unpaired", p.unpaired);
    }
    line
}

/// After each game of a two-player match: `a vs b +3 =1 -0 (87.5%), Elo +338 ± 400, LLR …`
/// (the Elo by pairs once there is one, by games before).
pub(crate) fn live_line(
    entrants: &[Entrant],
    outcomes: &[GameOutcome],
    sprt: Option<&SprtReport>,
) -> Option<String> {
    if entrants.len() != 2 {
        return None;
    }
    let tally = crate::tournament::tally_between(outcomes, 0, 1);
    let (pairs, unpaired) = pentanomial_between(outcomes, 0, 1);
    let totals = PentanomialTotals::new(&pairs, unpaired);
    let elo = if pairs.pairs() > 0 {
        elo_text(totals.elo, totals.elo_error, pairs.score() > 0.5)
    } else {
        elo_text(tally.finite_elo(), tally_error(&tally), tally.score() > 0.5)
    };
    let mut line = format!(
        "{} vs {} +{} ={} -{} ({:.1}%), Elo {elo}",
        entrants[0].name,
        entrants[1].name,
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.score()
    );
    if let Some(sprt) = sprt {
        let _ = write!(line, ", {}", sprt.llr_text());
    }
    Some(line)
}

/// The games' Elo interval, `None` when there is no finite Elo or no spread to estimate it.
pub(crate) fn tally_error(t: &Tally) -> Option<f64> {
    t.finite_elo()
        .filter(|_| t.has_spread())
        .map(|_| t.elo_error())
}

impl Report {
    /// The JSON summary of `--json`.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serialises")
    }

    /// The human table printed at the end.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let width = self
            .players
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(4)
            .max(6);
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>6}",
            "player", "games", "wins", "draws", "losses", "score"
        );
        for p in &self.players {
            let _ = writeln!(
                out,
                "{:<width$}  {:>5}  {:>5}  {:>5}  {:>6}  {:>5.1}%",
                p.name,
                p.games,
                p.wins,
                p.draws,
                p.losses,
                100.0 * p.score
            );
        }
        let _ = writeln!(out);
        for pair in &self.pairs {
            let games = pair.wins + pair.draws + pair.losses;
            let tally = Tally {
                wins: pair.wins,
                draws: pair.draws,
                losses: pair.losses,
            };
            let elo = elo_text(pair.elo, pair.elo_error, tally.score() > 0.5);
            let _ = writeln!(
                out,
                "{} vs {}: {games} games, +{} ={} -{} ({:.1}%), Elo {elo}, LOS {:.1}%",
                pair.a,
                pair.b,
                pair.wins,
                pair.draws,
                pair.losses,
                100.0 * tally.score(),
                100.0 * pair.los
            );
            let _ = writeln!(out, "  {}", pentanomial_line(&pair.pentanomial));
        }
        out.push_str(&self.footer());
        out
    }

    /// The SPRT's line, and what an interrupted match played.
    fn footer(&self) -> String {
        let mut out = String::new();
        if let Some(sprt) = &self.sprt {
            let _ = writeln!(out, "{}", sprt.line());
        }
        if self.interrupted {
            let (games, planned) = (self.games, self.planned);
            let _ = writeln!(out, "interrupted: {games} of {planned} games played");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_is_never_minus_zero_nor_plus_or_minus_zero() {
        assert_eq!(elo_text(Some(-0.3), Some(120.0), false), "0 ± 120");
        assert_eq!(elo_text(Some(-0.6), Some(0.2), false), "-1 ± 1");
        assert_eq!(
            elo_text(Some(0.0), None, false),
            "0 (no interval: no spread in the results yet)"
        );
        assert_eq!(elo_text(None, None, true), "+inf");
        assert_eq!(elo_text(Some(35.4), Some(40.2), true), "+35 ± 40");
    }
}
