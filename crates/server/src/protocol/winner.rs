//! Who won a game, in the course's wire form and the project's JSON.

use arbiter_core::Side;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who won a game. On the course's wire (END's third field) it is the colour code as a string,
/// `"0"` first player, `"1"` second, `"2"` nobody, exactly as course clients expect; in the
/// project's JSON (stored games) it is a name, `first`, `second` or `none`, so a reader needs
/// no code table. Reading takes any of these forms and the numbers older servers wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Winner {
    First,
    Second,
    Nobody,
}

impl Winner {
    /// The winner of a game whose winning side (if any) is `side`.
    pub fn of(side: Option<Side>) -> Winner {
        match side {
            Some(Side::First) => Winner::First,
            Some(Side::Second) => Winner::Second,
            None => Winner::Nobody,
        }
    }

    /// The winning side; `None` for a draw or a game without a result.
    pub fn side(self) -> Option<Side> {
        match self {
            Winner::First => Some(Side::First),
            Winner::Second => Some(Side::Second),
            Winner::Nobody => None,
        }
    }

    /// The course's colour code: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            Winner::First => 0,
            Winner::Second => 1,
            Winner::Nobody => 2,
        }
    }

    pub fn from_code(code: u64) -> Option<Winner> {
        match code {
            0 => Some(Winner::First),
            1 => Some(Winner::Second),
            2 => Some(Winner::Nobody),
            _ => None,
        }
    }

    /// END's third field: `"0"`, `"1"` or `"2"`.
    pub fn wire(self) -> &'static str {
        ["0", "1", "2"][self.code() as usize]
    }

    /// `first`, `second` or `none`.
    pub fn name(self) -> &'static str {
        ["first", "second", "none"][self.code() as usize]
    }

    /// Reads the wire's digit or a name.
    pub fn parse(text: &str) -> Option<Winner> {
        match text {
            "first" => Some(Winner::First),
            "second" => Some(Winner::Second),
            "none" | "nobody" => Some(Winner::Nobody),
            digit => digit.parse().ok().and_then(Winner::from_code),
        }
    }
}

impl std::fmt::Display for Winner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Winner {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Winner {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Winner, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let winner = match &value {
            Value::Number(n) => n.as_u64().and_then(Winner::from_code),
            Value::String(s) => Winner::parse(s),
            _ => None,
        };
        winner.ok_or_else(|| {
            serde::de::Error::custom(format!(
                "not a winner: {value} (0, 1, 2, first, second or none)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_keeps_its_course_form_and_reads_every_form() {
        for (winner, wire) in [
            (Winner::First, "0"),
            (Winner::Second, "1"),
            (Winner::Nobody, "2"),
        ] {
            assert_eq!(winner.wire(), wire);
            assert_eq!(Winner::parse(wire), Some(winner));
            assert_eq!(Winner::parse(winner.name()), Some(winner));
            assert_eq!(Winner::of(winner.side()), winner);
            let json = serde_json::to_value(winner).unwrap();
            assert_eq!(json, serde_json::json!(winner.name()));
            let old_json = serde_json::json!(winner.code());
            for form in [json, old_json, wire.into(), winner.name().into()] {
                assert_eq!(serde_json::from_value::<Winner>(form).unwrap(), winner);
            }
        }
        assert_eq!(Winner::parse("3"), None);
        assert!(serde_json::from_str::<Winner>("true").is_err());
    }
}
