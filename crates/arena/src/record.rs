//! A game's record file: PGN-like header lines (`[Name "value"]`: the game, the players by
//! side, the date, the round, the opening, the clock, the result and how the game ended), a
//! blank line, then the moves in the game's notation closed by the course's end mark
//! (`… C#`). Readers of the moves skip the lines starting with `[`.

use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, Side};

use crate::contestant::Forfeit;
use crate::Ending;

/// What the header of one record says.
pub(crate) struct Header<'a> {
    /// `surakarta`, and its options spelled out (`size 6 max_no_capture_round 40`).
    pub game: &'a str,
    pub options: String,
    /// The side names (`black`, `white`) and the entrants playing them.
    pub sides: [(&'a str, &'a str); 2],
    /// The game's number in the match, from 1.
    pub round: usize,
    pub opening: &'a [String],
    pub time_control: Option<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    pub termination: &'a str,
}

/// `1-0` when the first side won, `0-1` the second, `1/2-1/2` a draw.
pub(crate) fn result_text(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::First) => "1-0",
        Some(Side::Second) => "0-1",
        None => "1/2-1/2",
    }
}

/// The whole record: header, blank line, moves with the end mark.
pub(crate) fn record_text(header: &Header, moves: &[String], end: &Ending) -> String {
    let mut text = String::new();
    let mut tag = |name: &str, value: &str| {
        let value = value.replace(['"', '\n'], "'");
        text.push_str(&format!("[{name} \"{value}\"]\n"));
    };
    tag("Game", header.game);
    if !header.options.is_empty() {
        tag("Options", &header.options);
    }
    for (side, player) in header.sides {
        tag(&capitalised(side), player);
    }
    tag("Date", &today());
    tag("Round", &header.round.to_string());
    tag("Opening", &header.opening.join(" "));
    if let Some(tc) = &header.time_control {
        tag("TimeControl", tc);
    }
    tag("Result", header.result);
    tag("Termination", header.termination);
    text.push('\n');
    text.push_str(&record_with_end(moves, end_reason(end)));
    text
}

/// The course's end reason a game's record ends with: every game ends with a mark, the
/// arena's own draws (the ply cap, `--draw`) with `D#` as agreed ones.
fn end_reason(end: &Ending) -> EndReason {
    match end {
        Ending::Rules { reason, .. } => *reason,
        Ending::Forfeit {
            forfeit: Forfeit::Illegal(_),
            ..
        } => EndReason::IllegalMove,
        Ending::Forfeit {
            forfeit: Forfeit::TimedOut | Forfeit::OutOfTime { .. },
            ..
        } => EndReason::Timeout,
        Ending::Forfeit { .. } => EndReason::Resign,
        Ending::Adjudicated { winner: None, .. } => EndReason::Agreed,
        Ending::Adjudicated { .. } => EndReason::Resign,
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// Today's date in UTC, `2026.01.31` as PGN writes it.
fn today() -> String {
    let date = time::OffsetDateTime::now_utc().date();
    format!(
        "{:04}.{:02}.{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

/// The moves of a record's text: the words of its lines not starting with `[`, up to the end
/// mark (`X#`).
pub fn record_moves(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('['))
        .flat_map(str::split_whitespace)
        .take_while(|word| !word.ends_with('#'))
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_has_its_header_and_its_end_mark() {
        let moves = vec!["A2-B3".to_string(), "F5-E4".to_string()];
        let header = Header {
            game: "surakarta",
            options: "size 6".into(),
            sides: [("black", "a"), ("white", "b")],
            round: 3,
            opening: &moves[..1],
            time_control: Some("1+0".into()),
            result: result_text(None),
            termination: "draw adjudicated",
        };
        let end = Ending::Adjudicated {
            winner: None,
            why: "draw adjudicated".into(),
        };
        let text = record_text(&header, &moves, &end);
        assert!(text.starts_with("[Game \"surakarta\"]\n[Options \"size 6\"]\n[Black \"a\"]\n[White \"b\"]\n[Date \"20"), "{text}");
        assert!(text.contains("\n[Round \"3\"]\n[Opening \"A2-B3\"]\n[TimeControl \"1+0\"]\n[Result \"1/2-1/2\"]\n[Termination \"draw adjudicated\"]\n\nA2-B3 F5-E4 D#"), "{text}");
        assert_eq!(record_moves(&text), moves);
    }
}
