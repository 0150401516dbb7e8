//! What the page reads once: the catalogue of hosted games (`GET /api/catalogue`) — names,
//! sides, options with their allowed values, and how each game is drawn and explained (its
//! definition's [`Look`]) — and the course protocol's constants (`GET /api/protocol`).

use std::collections::BTreeMap;

use arbiter_core::look::{BoardLook, Look};
use arbiter_core::outcome::outside_end_text;
use arbiter_core::{Allowed, EndReason, GameDef, MoveReason};
use serde::Serialize;

/// One game of the catalogue, for the page: names, sides, options with their allowed values,
/// and how it is drawn and explained.
#[derive(Clone, Debug, Serialize)]
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
    /// Pieces, sides, the example move and the alternative glyphs, from the game's definition.
    pub look: Look,
    /// The board of each size (of its one size), with its lines, arcs and labels.
    pub boards: Vec<BoardLook>,
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
            look: def.look,
            boards: def.boards(),
        })
        .collect()
}

/// READY's keys and values that ask for a time control.
type ReadyKeys = &'static [(&'static str, u64)];

/// The time controls a page offers when it opens a room: an id for links, the words, and the
/// READY keys that ask for it (a time per move, or a game clock and its increment).
const TIME_CONTROLS: [(&str, &str, ReadyKeys); 5] = [
    (
        "20s",
        "20 s a move (as THUPC's toy)",
        &[("timeout_ms", 20_000)],
    ),
    ("60s", "1 min a move", &[("timeout_ms", 60_000)]),
    (
        "3+2",
        "3 min + 2 s a game",
        &[("clock_ms", 180_000), ("increment_ms", 2_000)],
    ),
    (
        "10+5",
        "10 min + 5 s a game",
        &[("clock_ms", 600_000), ("increment_ms", 5_000)],
    ),
    (
        "3s",
        "3 s a move (the course's bots)",
        &[("timeout_ms", 3_000)],
    ),
];

/// The course protocol's constants, its game (the page's first choice), the words for ends
/// from outside the board (`{loser}` stands for the losing side's name) and the time controls
/// a room is opened with, as the page reads them (`GET /api/protocol`).
pub fn protocol() -> serde_json::Value {
    use crate::protocol as p;
    let ops = p::Op::ALL.map(|op| (op.name(), op.code()));
    let move_reasons: Vec<&str> = (0..=u8::MAX)
        .map_while(MoveReason::from_code)
        .map(MoveReason::name)
        .collect();
    let end_reasons: Vec<&str> = (0..=u8::MAX)
        .map_while(EndReason::from_code)
        .map(EndReason::name)
        .collect();
    let outside = [
        EndReason::Resign,
        EndReason::Timeout,
        EndReason::IllegalMove,
        EndReason::Interrupted,
        EndReason::Agreed,
        EndReason::Aborted,
    ];
    serde_json::json!({
        "ops": ops.into_iter().collect::<BTreeMap<_, _>>(),
        "end_marker": p::END_MARKER,
        "default_game": p::COURSE_GAME,
        "move_reasons": move_reasons,
        "end_reasons": end_reasons,
        "end_texts": outside
            .into_iter()
            .map(|r| (r.name(), outside_end_text(r, "{loser}")))
            .collect::<BTreeMap<_, _>>(),
        "time_controls": TIME_CONTROLS
            .iter()
            .map(|(id, label, keys)| serde_json::json!({
                "id": id,
                "label": label,
                "keys": keys.iter().copied().collect::<BTreeMap<_, _>>(),
            }))
            .collect::<Vec<_>>(),
    })
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
