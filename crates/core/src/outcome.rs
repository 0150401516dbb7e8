//! The words every game's outcomes are told in: the course protocol's move reasons and end
//! reasons (with their codes and the record notation's end letters).
//!
//! They began as Surakarta's, because the course protocol was written for it; the server, the
//! records and the page use them for every game, and each game maps its own ends onto them
//! (a Duck Chess captain capture is a `CHECKMATE`, the no-capture limit a `STALEMATE`).
//! `ILLIGAL` is the course's spelling and stays as it is on the wire; the Rust names spell it
//! `Illegal`.

use std::fmt;
use std::str::FromStr;

/// How the course judges a proposed move, with its protocol code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveReason {
    Legal = 0,
    LegalCaptureMove = 1,
    LegalNonCaptureMove = 2,
    Illegal = 3,
    NotPlayerTurn = 4,
    OutOfBoard = 5,
    NotPiece = 6,
    NotPlayerPiece = 7,
    IllegalCaptureMove = 8,
    IllegalNonCaptureMove = 9,
    GameAlreadyEnd = 10,
    GameNotStart = 11,
}

/// Why a game ended, with its protocol code. The project's extensions: `Interrupted` (code 7),
/// the server stopped or crashed while the game ran; `Agreed` (8), a draw both players agreed
/// to; `Aborted` (9), a game stopped before both players moved, without a result. The last two
/// only end games between clients of the extension (they are offered with OFFER). `Left` (10),
/// a player left the game (a LEAVE, a dropped course client, a seat not taken back in time or
/// claimed by the opponent): the course counts it as a resignation, and a course client is told
/// `RESIGN`, but it is stored and shown as what happened; `Abandoned` (11), both players were
/// gone (no result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    None = 0,
    Stalemate = 1,
    Checkmate = 2,
    Trapped = 3,
    Resign = 4,
    Timeout = 5,
    IllegalMove = 6,
    Interrupted = 7,
    Agreed = 8,
    Aborted = 9,
    Left = 10,
    Abandoned = 11,
}

macro_rules! named_enum {
    ($ty:ident { $($variant:ident => $name:literal),* $(,)? }) => {
        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];

            /// The name the course uses (`LEGAL_CAPTURE_MOVE`, `ILLIGAL_MOVE`, …).
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }

            /// The protocol's number for this value.
            pub fn code(self) -> u8 {
                self as u8
            }

            pub fn from_code(code: u8) -> Option<$ty> {
                Self::ALL.iter().copied().find(|v| v.code() == code)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<$ty, String> {
                Self::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| {
                    let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
                    format!("`{s}` is not one of {}", names.join(", "))
                })
            }
        }
    };
}

named_enum!(MoveReason {
    Legal => "LEGAL",
    LegalCaptureMove => "LEGAL_CAPTURE_MOVE",
    LegalNonCaptureMove => "LEGAL_NON_CAPTURE_MOVE",
    Illegal => "ILLIGAL",
    NotPlayerTurn => "NOT_PLAYER_TURN",
    OutOfBoard => "OUT_OF_BOARD",
    NotPiece => "NOT_PIECE",
    NotPlayerPiece => "NOT_PLAYER_PIECE",
    IllegalCaptureMove => "ILLIGAL_CAPTURE_MOVE",
    IllegalNonCaptureMove => "ILLIGAL_NON_CAPTURE_MOVE",
    GameAlreadyEnd => "GAME_ALREADY_END",
    GameNotStart => "GAME_NOT_START",
});

named_enum!(EndReason {
    None => "NONE",
    Stalemate => "STALEMATE",
    Checkmate => "CHECKMATE",
    Trapped => "TRAPPED",
    Resign => "RESIGN",
    Timeout => "TIMEOUT",
    IllegalMove => "ILLIGAL_MOVE",
    Interrupted => "INTERRUPTED",
    Agreed => "AGREED",
    Aborted => "ABORTED",
    Left => "LEFT",
    Abandoned => "ABANDONED",
});

impl MoveReason {
    /// The course reference's `IsLegalMoveReason`.
    pub fn is_legal(self) -> bool {
        matches!(
            self,
            MoveReason::Legal | MoveReason::LegalCaptureMove | MoveReason::LegalNonCaptureMove
        )
    }

    /// The reason of a legal move: a capture or not.
    pub fn legal(captured: bool) -> MoveReason {
        if captured {
            MoveReason::LegalCaptureMove
        } else {
            MoveReason::LegalNonCaptureMove
        }
    }
}

impl EndReason {
    /// The record notation's end letter (`S`, `C`, `R`, `T`, `I`; the project's own: `X` for
    /// an interrupted game, `D` for a draw the players agreed, `A` for an aborted one, `L` for a
    /// game a player left, `N` for one nobody finished); `None`
    /// while the game goes on. A trapped side is recorded as resigning: the course expects
    /// it to resign.
    pub fn letter(self) -> Option<char> {
        match self {
            EndReason::None => None,
            EndReason::Stalemate => Some('S'),
            EndReason::Checkmate => Some('C'),
            EndReason::Resign | EndReason::Trapped => Some('R'),
            EndReason::Timeout => Some('T'),
            EndReason::IllegalMove => Some('I'),
            EndReason::Interrupted => Some('X'),
            EndReason::Agreed => Some('D'),
            EndReason::Aborted => Some('A'),
            EndReason::Left => Some('L'),
            EndReason::Abandoned => Some('N'),
        }
    }

    /// The code a course client is told in END: the course has no word for leaving (a player
    /// who leaves resigns, by its protocol), so `Left` is told as `RESIGN`; every other reason
    /// by its own code.
    pub fn course_code(self) -> u8 {
        match self {
            EndReason::Left => EndReason::Resign.code(),
            other => other.code(),
        }
    }

    /// The reason a record's end letter stands for.
    pub fn from_letter(letter: char) -> Option<EndReason> {
        Some(match letter {
            'S' => EndReason::Stalemate,
            'C' => EndReason::Checkmate,
            'R' => EndReason::Resign,
            'T' => EndReason::Timeout,
            'I' => EndReason::IllegalMove,
            'X' => EndReason::Interrupted,
            'D' => EndReason::Agreed,
            'A' => EndReason::Aborted,
            'L' => EndReason::Left,
            'N' => EndReason::Abandoned,
            _ => return None,
        })
    }
}

/// The words for an end that does not come from the board, with the name of the side that lost
/// (a resignation, a clock, an illegal move, a stopped server).
pub fn outside_end_text(reason: EndReason, loser: &str) -> String {
    match reason {
        EndReason::Resign => format!("{loser} resigned"),
        EndReason::Timeout => format!("{loser} ran out of time"),
        EndReason::IllegalMove => format!("{loser} made an illegal move"),
        EndReason::Interrupted => "the game was interrupted: the server stopped".into(),
        EndReason::Agreed => "drawn by agreement".into(),
        EndReason::Aborted => "the game was aborted".into(),
        EndReason::Left => format!("{loser} left the game"),
        EndReason::Abandoned => "both players left: no result".into(),
        other => other.name().to_lowercase().replace('_', " "),
    }
}

/// Appends the end mark (` C#`) of the record notation to a move list.
pub fn record_with_end(moves: &[String], end: EndReason) -> String {
    let mut text = moves.join(" ");
    if let Some(letter) = end.letter() {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push(letter);
        text.push('#');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_names_and_letters_round_trip() {
        for &r in EndReason::ALL {
            assert_eq!(EndReason::from_code(r.code()), Some(r));
            assert_eq!(r.name().parse::<EndReason>(), Ok(r));
            if let Some(letter) = r.letter().filter(|_| r != EndReason::Trapped) {
                assert_eq!(EndReason::from_letter(letter), Some(r));
            }
        }
        for &r in MoveReason::ALL {
            assert_eq!(MoveReason::from_code(r.code()), Some(r));
        }
        assert_eq!(
            record_with_end(&["A2-A3".into()], EndReason::Checkmate),
            "A2-A3 C#"
        );
        assert_eq!(record_with_end(&[], EndReason::Resign), "R#");
    }
}
