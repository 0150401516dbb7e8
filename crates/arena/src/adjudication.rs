//! Ending a game early on the players' own scores (`--resign`, `--draw`), as tournament
//! managers do so that a test spends its time on games whose result is still open. Off unless
//! asked: a game is then only ever decided by the rules, a forfeit or the ply cap.

use arbiter_ai::Score;
use arbiter_core::Side;

/// What a score of a forced win counts as, in centipawns: beyond any resign threshold.
pub const MATE_SCORE: i32 = 100_000;

/// The rules of adjudication; `None` leaves that kind of ending to the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
}

/// A side wins once every score of `plies` plies in a row, by both players, puts it at least
/// `score` centipawns ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub score: i32,
    pub plies: u32,
}

/// The game is drawn once every score of `plies` plies in a row, by both players, is within
/// `score` centipawns of level, counted after ply `after`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub score: i32,
    pub plies: u32,
    pub after: u32,
}

impl ResignRule {
    /// `CP,PLIES`, like `600,8`.
    pub fn parse(text: &str) -> Result<ResignRule, String> {
        let [score, plies] = numbers::<2>(text, "--resign takes CP,PLIES, like 600,8")?;
        if score == 0 || plies < 2 {
            return Err("--resign: CP must be above 0 and PLIES at least 2 (both players)".into());
        }
        Ok(ResignRule {
            score: score as i32,
            plies,
        })
    }
}

impl DrawRule {
    /// `CP,PLIES,AFTER`, like `10,20,80`.
    pub fn parse(text: &str) -> Result<DrawRule, String> {
        let [score, plies, after] =
            numbers::<3>(text, "--draw takes CP,PLIES,AFTER, like 10,20,80")?;
        if plies < 2 {
            return Err("--draw: PLIES must be at least 2 (both players)".into());
        }
        Ok(DrawRule {
            score: score as i32,
            plies,
            after,
        })
    }
}

/// `N` comma-separated non-negative integers below 2^31.
fn numbers<const N: usize>(text: &str, usage: &str) -> Result<[u32; N], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != N {
        return Err(usage.to_string());
    }
    let mut out = [0; N];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = part
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= i32::MAX as u32)
            .ok_or_else(|| format!("{usage}: `{part}` is not a whole number"))?;
    }
    Ok(out)
}

/// A search score in centipawns, a forced result counting as [`MATE_SCORE`].
pub fn centipawns(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp.clamp(-MATE_SCORE, MATE_SCORE),
        Score::Mate(plies) if plies < 0 => -MATE_SCORE,
        Score::Mate(_) => MATE_SCORE,
    }
}

/// The score in an engine's `info` line (`score cp X` or `score mate P`), in centipawns. As
/// in UCI, `string` makes the rest of the line free text, so a score named there is no score.
pub fn score_in_info(line: &str) -> Option<i32> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    words
        .find(|&w| w == "score" || w == "string")
        .filter(|&w| w == "score")?;
    let kind = words.next()?;
    let value: i32 = words.next()?.parse().ok()?;
    match kind {
        "cp" => Some(centipawns(Score::Cp(value))),
        "mate" => Some(centipawns(Score::Mate(value))),
        _ => None,
    }
}

/// How an adjudicated game ends: the winner (none for a draw) and why, for the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub winner: Option<Side>,
    pub why: String,
}

/// Follows a game's scores ply by ply.
#[derive(Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// The side every score of the current run puts ahead, and the run's length.
    leader: Option<(Side, u32)>,
    level_run: u32,
}

impl Adjudicator {
    pub fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            leader: None,
            level_run: 0,
        }
    }

    /// `mover` has just played the game's ply number `ply` (1 for the first) and reported
    /// `score` (its own view; `None` when it said none, which ends every run).
    pub fn after_move(&mut self, mover: Side, score: Option<i32>, ply: u32) -> Option<Verdict> {
        let Some(score) = score else {
            self.leader = None;
            self.level_run = 0;
            return None;
        };
        self.resign(mover, score).or_else(|| self.draw(score, ply))
    }

    fn resign(&mut self, mover: Side, score: i32) -> Option<Verdict> {
        let rule = self.rules.resign?;
        if score.abs() < rule.score {
            self.leader = None;
            return None;
        }
        let ahead = if score > 0 { mover } else { mover.opponent() };
        let run = match self.leader {
            Some((side, run)) if side == ahead => run + 1,
            _ => 1,
        };
        self.leader = Some((ahead, run));
        (run >= rule.plies).then(|| Verdict {
            winner: Some(ahead),
            why: format!(
                "adjudicated: both players put the winner at least {} centipawns ahead for {} plies",
                rule.score, rule.plies
            ),
        })
    }

    fn draw(&mut self, score: i32, ply: u32) -> Option<Verdict> {
        let rule = self.rules.draw?;
        if ply <= rule.after || score.abs() > rule.score {
            self.level_run = 0;
            return None;
        }
        self.level_run += 1;
        (self.level_run >= rule.plies).then(|| Verdict {
            winner: None,
            why: format!(
                "draw adjudicated: both players scored within {} centipawns of level for {} plies",
                rule.score, rule.plies
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Side = Side::First;
    const BLUE: Side = Side::Second;

    fn resign_after(plies: u32) -> Adjudicator {
        Adjudicator::new(Adjudication {
            resign: Some(ResignRule { score: 600, plies }),
            draw: None,
        })
    }

    #[test]
    fn a_side_wins_when_both_players_agree_long_enough() {
        let mut judge = resign_after(4);
        // Red sees itself ahead, blue sees itself behind: both put red ahead.
        assert_eq!(judge.after_move(RED, Some(700), 1), None);
        assert_eq!(judge.after_move(BLUE, Some(-650), 2), None);
        assert_eq!(judge.after_move(RED, Some(MATE_SCORE), 3), None);
        let verdict = judge
            .after_move(BLUE, Some(-900), 4)
            .expect("four plies agree");
        assert_eq!(verdict.winner, Some(RED));
    }

    #[test]
    fn a_disagreement_or_a_missing_score_starts_the_count_again() {
        let mut judge = resign_after(3);
        judge.after_move(RED, Some(700), 1);
        judge.after_move(BLUE, Some(-100), 2);
        judge.after_move(RED, Some(700), 3);
        judge.after_move(BLUE, Some(-700), 4);
        assert_eq!(judge.after_move(RED, None, 5), None);
        judge.after_move(BLUE, Some(-700), 6);
        judge.after_move(RED, Some(700), 7);
        // Blue now claims the lead: red's run ends, blue's begins.
        assert_eq!(judge.after_move(BLUE, Some(800), 8), None);
        assert_eq!(judge.after_move(RED, Some(-800), 9), None);
        let verdict = judge.after_move(BLUE, Some(800), 10).expect("three plies");
        assert_eq!(verdict.winner, Some(BLUE));
    }

    #[test]
    fn a_level_game_is_drawn_only_after_its_opening() {
        let rule = DrawRule {
            score: 10,
            plies: 4,
            after: 6,
        };
        let mut judge = Adjudicator::new(Adjudication {
            resign: None,
            draw: Some(rule),
        });
        let sides = [RED, BLUE];
        let ended: Vec<u32> = (1..=12)
            .filter(|&ply| {
                let mover = sides[(ply as usize + 1) % 2];
                judge.after_move(mover, Some(5), ply).is_some()
            })
            .collect();
        // Plies 7, 8, 9 and 10 are the first four after ply 6.
        assert_eq!(ended.first(), Some(&10));
    }

    #[test]
    fn engine_scores_are_read_from_info_lines() {
        assert_eq!(
            score_in_info("info depth 3 score cp -15 nodes 9"),
            Some(-15)
        );
        assert_eq!(
            score_in_info("info depth 9 score mate -4 pv A1"),
            Some(-MATE_SCORE)
        );
        assert_eq!(score_in_info("info depth 9 score mate 3"), Some(MATE_SCORE));
        assert_eq!(score_in_info("info depth 9 nodes 3"), None);
        assert_eq!(score_in_info("info score cp x"), None);
        assert_eq!(
            score_in_info("info string the score cp 900 was a guess"),
            None
        );
        assert_eq!(score_in_info("bestmove A1 score cp 5"), None);
    }

    #[test]
    fn rules_are_parsed_with_the_field_named() {
        assert_eq!(
            ResignRule::parse("600,8"),
            Ok(ResignRule {
                score: 600,
                plies: 8
            })
        );
        assert!(ResignRule::parse("600").unwrap_err().contains("CP,PLIES"));
        assert!(ResignRule::parse("600,x").unwrap_err().contains("`x`"));
        assert!(ResignRule::parse("600,1").is_err());
        assert_eq!(
            DrawRule::parse("10,20,80"),
            Ok(DrawRule {
                score: 10,
                plies: 20,
                after: 80
            })
        );
        assert!(DrawRule::parse("10,20")
            .unwrap_err()
            .contains("CP,PLIES,AFTER"));
    }
}
