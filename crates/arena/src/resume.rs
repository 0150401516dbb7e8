//! Finishing a match that was stopped: the games its `games.tsv` lists count as played.

use std::path::Path;

use crate::record::record_moves;
use crate::tournament::schedule;
use crate::{ArenaError, Entrant, GameOutcome};

/// The games `dir/games.tsv` lists for a match of `entrants` with `games` games a pair, as
/// outcomes (the moves read back from their records).
pub fn finished_games(
    dir: &Path,
    entrants: &[Entrant],
    games: u32,
) -> Result<Vec<GameOutcome>, ArenaError> {
    let path = dir.join("games.tsv");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| ArenaError::Resume(format!("cannot read {}: {e}", path.display())))?;
    let jobs = schedule(entrants.len(), games as usize);
    let mut outcomes: Vec<GameOutcome> = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let at = |why: String| ArenaError::Resume(format!("{}:{}: {why}", path.display(), n + 1));
        let fields: Vec<&str> = line.split('\t').collect();
        let [number, first, second, winner, plies, reason, file] = fields[..] else {
            return Err(at("expected 7 tab-separated fields".into()));
        };
        let job = number
            .parse::<usize>()
            .ok()
            .and_then(|k| jobs.get(k.wrapping_sub(1)))
            .ok_or_else(|| at(format!("`{number}` is no game of this match")))?;
        let name = |i: usize| entrants[i].name.as_str();
        if (first, second) != (name(job.first), name(job.second)) {
            return Err(at(format!(
                "game {number} is {} vs {} in this match, not {first} vs {second}",
                name(job.first),
                name(job.second)
            )));
        }
        let winner = match winner {
            "draw" => None,
            w if w == first => Some(job.first),
            w if w == second => Some(job.second),
            w => return Err(at(format!("winner `{w}` is neither player"))),
        };
        let record_file = dir.join(file);
        let record = std::fs::read_to_string(&record_file).unwrap_or_default();
        if outcomes.iter().any(|o| o.index == job.index) {
            continue;
        }
        outcomes.push(GameOutcome {
            index: job.index,
            opening: job.opening,
            first: job.first,
            second: job.second,
            winner,
            reason: reason.to_string(),
            plies: plies.parse().map_err(|_| at(format!("`{plies}` plies")))?,
            moves: record_moves(&record),
            record,
            record_file: Some(record_file),
            stderr: Vec::new(),
        });
    }
    outcomes.sort_by_key(|o| o.index);
    Ok(outcomes)
}
