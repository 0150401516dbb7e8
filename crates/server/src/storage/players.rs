//! Players' names and ratings, as every store keeps them.
//!
//! A name is kept by a secret the browser makes and keeps (not a password a person chooses): the
//! store holds the name and a SHA-256 of the secret, and a name is matched without regard to
//! case (`name_key`), so "Alice" cannot pass for "alice". Ratings are Glicko-2 (computed by the
//! `skillratings` crate), one per player, game and time-control class; a rated game updates both
//! players' ratings in one transaction.

use serde::Serialize;
use sha2::{Digest, Sha256};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use crate::protocol::Winner;

/// The longest name, in characters as people count them (grapheme clusters, not bytes or code
/// points: 中文 is two, and so is a pair of family emoji 👨‍👩‍👧👨‍👩‍👧).
pub const MAX_NAME_CHARS: usize = 20;

/// Why a name cannot be used, in the words its chooser reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("name: type a name")]
    Empty,
    #[error("name: at most {MAX_NAME_CHARS} characters, not {0}")]
    TooLong(usize),
    #[error("name: no control characters")]
    Control,
    #[error("name: no spaces at its start or end")]
    Padded,
}

/// A name as a player may choose it: any script, at most [`MAX_NAME_CHARS`] characters
/// (graphemes), no control or hidden characters, no spaces around it.
pub fn check_name(name: &str) -> Result<(), NameError> {
    use unicode_segmentation::UnicodeSegmentation;
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    let graphemes = name.graphemes(true).count();
    if graphemes > MAX_NAME_CHARS {
        return Err(NameError::TooLong(graphemes));
    }
    if hides_something(name) {
        return Err(NameError::Control);
    }
    if name.trim() != name {
        return Err(NameError::Padded);
    }
    Ok(())
}

/// Control and format characters (a right-to-left override, a zero-width space) would let one
/// name look like another; a zero-width joiner is kept only inside an emoji sequence (👨‍👩‍👧),
/// between two pictographs.
fn hides_something(name: &str) -> bool {
    let chars: Vec<char> = name.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        if c == '\u{200D}' {
            let before = i.checked_sub(1).map(|j| chars[j]);
            let after = chars.get(i + 1).copied();
            return !(before.is_some_and(pictographic) && after.is_some_and(pictographic));
        }
        c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}')
    })
}

/// A character an emoji sequence joins: a pictograph, a skin tone, or the emoji-style selector.
fn pictographic(c: char) -> bool {
    matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{FE0F}')
}

/// The key names are unique by: the name in lower case.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// What the store keeps of a secret: its SHA-256, in hex.
pub fn secret_hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A name looked up or claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameClaim {
    /// Nobody held it; it is now the secret's.
    Claimed,
    /// The secret's already.
    Confirmed,
    /// Nobody holds it (asked without a secret).
    Free,
    /// Another secret holds it.
    Taken,
}

/// A player's Glicko-2 rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
}

impl Default for Rating {
    fn default() -> Rating {
        let start = Glicko2Rating::new();
        Rating {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
            games: 0,
        }
    }
}

/// Both players' ratings after a game between them (`winner` as stored).
pub fn rate(before: [Rating; 2], winner: Winner) -> [Rating; 2] {
    let g = |r: Rating| Glicko2Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
    };
    let outcome = match winner {
        Winner::First => Outcomes::WIN,
        Winner::Second => Outcomes::LOSS,
        Winner::Nobody => Outcomes::DRAW,
    };
    let (a, b) = glicko2(
        &g(before[0]),
        &g(before[1]),
        &outcome,
        &Glicko2Config::new(),
    );
    let r = |n: Glicko2Rating, old: Rating| Rating {
        rating: n.rating,
        deviation: n.deviation,
        volatility: n.volatility,
        games: old.games + 1,
    };
    [r(a, before[0]), r(b, before[1])]
}

/// A rated game to count: its players' names and the class its ratings are kept under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatedGame {
    pub game_id: i64,
    /// `surakarta/blitz`: the game and the time-control class.
    pub class: String,
    pub players: [String; 2],
    pub winner: Winner,
}

/// One player's rating in one class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    pub name: String,
    pub class: String,
    #[serde(flatten)]
    pub rating: Rating,
}

/// What a lookup of a name finds, from the hash stored for it (if any) and the one asked with
/// (if any); on [`NameClaim::Claimed`] the store keeps the asked hash.
pub fn claim_outcome(stored: Option<&str>, asked: Option<&str>) -> NameClaim {
    match (stored, asked) {
        (Some(stored), Some(asked)) if stored == asked => NameClaim::Confirmed,
        (Some(_), _) => NameClaim::Taken,
        (None, Some(_)) => NameClaim::Claimed,
        (None, None) => NameClaim::Free,
    }
}

/// The SQL both databases run (parameters numbered in the order they appear, which SQLite reads
/// as named parameters in that same order).
pub(super) mod sql {
    pub const SECRET_OF: &str = "SELECT secret_hash FROM players WHERE name_key = $1";
    pub const NAME_OF: &str = "SELECT name FROM players WHERE name_key = $1";
    pub const RATING_OF: &str = "SELECT rating, deviation, volatility, games FROM ratings \
                                 WHERE name_key = $1 AND class = $2";
    pub const COUNTED: &str = "SELECT 1 FROM rated_games WHERE game_id = $1";
    pub const SET_RATING: &str =
        "INSERT INTO ratings (name_key, class, rating, deviation, volatility, games) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name_key, class) DO UPDATE SET \
         rating = excluded.rating, deviation = excluded.deviation, \
         volatility = excluded.volatility, games = excluded.games";
    pub const COUNT_GAME: &str =
        "INSERT INTO rated_games (game_id, class, first_rating, first_change, \
         second_rating, second_change) VALUES ($1, $2, $3, $4, $5, $6)";
    const RATINGS: &str = "SELECT p.name, r.class, r.rating, r.deviation, r.volatility, r.games \
                           FROM ratings r JOIN players p ON p.name_key = r.name_key";
    pub fn leaderboard() -> String {
        format!("{RATINGS} WHERE r.class = $1 ORDER BY r.rating DESC, p.name LIMIT $2")
    }
    pub fn ratings_of() -> String {
        format!("{RATINGS} WHERE r.name_key = $1 ORDER BY r.class")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are counted as people count them: three family emoji are three characters, twenty
    /// Chinese characters fit and twenty-one do not; a joiner outside an emoji, a right-to-left
    /// override or spaces around a name are refused.
    #[test]
    fn names_are_counted_in_graphemes() {
        let family = "👨\u{200D}👩\u{200D}👧";
        assert_eq!(check_name(&family.repeat(3)), Ok(()));
        assert_eq!(check_name(&format!("ana {family}")), Ok(()));
        assert_eq!(check_name(&"中".repeat(20)), Ok(()));
        assert_eq!(check_name(&"中".repeat(21)), Err(NameError::TooLong(21)));
        assert_eq!(check_name(&family.repeat(21)), Err(NameError::TooLong(21)));
        assert_eq!(check_name("an\u{200D}a"), Err(NameError::Control));
        assert_eq!(check_name("\u{200D}👩"), Err(NameError::Control));
        assert_eq!(check_name("a\u{202E}b"), Err(NameError::Control));
        assert_eq!(check_name(" ana"), Err(NameError::Padded));
        assert_eq!(check_name(""), Err(NameError::Empty));
    }
}
