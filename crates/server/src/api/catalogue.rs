//! The catalogue of hosted games as the page reads it (`GET /api/catalogue`): names, sides, and
//! options with their allowed values.

use arbiter_core::{Allowed, GameDef};
use serde::Serialize;

/// One game of the catalogue, for the page: names, sides, options with their allowed values.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GameInfo {
    pub id: &'static str,
    pub title: &'static str,
    pub sides: Vec<SideInfo>,
    pub options: Vec<OptionInfo>,
    /// The board sizes to choose from (empty: one board).
    pub sizes: Vec<u32>,
    pub notation: &'static str,
    /// The judge's input format, for games with a judge.
    pub judge: Option<&'static str>,
    /// A short judge input to try.
    pub judge_example: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SideInfo {
    pub name: &'static str,
    pub word: &'static str,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OptionInfo {
    pub name: &'static str,
    pub help: &'static str,
    pub default: u32,
    /// The values allowed, when they are a list.
    pub values: Option<&'static [u32]>,
    pub min: Option<u32>,
    pub max: Option<u32>,
}

/// The catalogue as the page reads it (`GET /api/catalogue`).
pub fn catalogue(games: &[&'static GameDef]) -> Vec<GameInfo> {
    games
        .iter()
        .map(|def| GameInfo {
            id: def.id,
            title: def.title,
            sides: def
                .sides
                .iter()
                .map(|s| SideInfo {
                    name: s.name,
                    word: s.word,
                })
                .collect(),
            options: def.options.iter().map(option_info).collect(),
            sizes: def.sizes(),
            notation: def.notation,
            judge: def.judge.map(|j| j.input),
            judge_example: def.judge.map(|j| j.example),
        })
        .collect()
}

fn option_info(o: &arbiter_core::OptionDef) -> OptionInfo {
    let (values, min, max) = match o.allowed {
        Allowed::OneOf(values) => (Some(values), None, None),
        Allowed::Range { min, max } => (None, Some(min), Some(max)),
    };
    OptionInfo {
        name: o.name,
        help: o.help,
        default: o.default,
        values,
        min,
        max,
    }
}
