//! The closed sets of words a client's command names (an offer's kind and action), each word
//! read once into its enum; an unknown word is kept, since the room answers naming it.

use serde::{Deserialize, Serialize};

/// A word of a closed set (an offer's kind, its action), or the text a client sent instead:
/// the room answers an unknown word naming it, so it is kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Word<T> {
    Known(T),
    Unknown(String),
}

/// The words of a closed set.
pub trait Closed: Copy + 'static {
    const ALL: &'static [Self];
    fn word(self) -> &'static str;
}

impl<T: Closed> Word<T> {
    pub fn read(text: String) -> Word<T> {
        match T::ALL.iter().find(|k| k.word() == text) {
            Some(&known) => Word::Known(known),
            None => Word::Unknown(text),
        }
    }

    /// The word as sent.
    pub fn text(&self) -> &str {
        match self {
            Word::Known(known) => known.word(),
            Word::Unknown(text) => text,
        }
    }
}

/// The kinds of OFFER (`data1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OfferKind {
    Draw,
    Takeback,
    /// Before both players have moved: no result.
    Abort,
    /// The game, from an opponent whose connection dropped.
    Claim,
    /// Declining a rematch (a READY accepts one).
    Rematch,
}

impl Closed for OfferKind {
    const ALL: &'static [OfferKind] = &[
        OfferKind::Draw,
        OfferKind::Takeback,
        OfferKind::Abort,
        OfferKind::Claim,
        OfferKind::Rematch,
    ];

    fn word(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
            OfferKind::Abort => "abort",
            OfferKind::Claim => "claim",
            OfferKind::Rematch => "rematch",
        }
    }
}

/// What an OFFER does with its kind (`data2`); `abort` and `claim` take none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OfferAction {
    Offer,
    Accept,
    Decline,
    Withdraw,
}

impl Closed for OfferAction {
    const ALL: &'static [OfferAction] = &[
        OfferAction::Offer,
        OfferAction::Accept,
        OfferAction::Decline,
        OfferAction::Withdraw,
    ];

    fn word(self) -> &'static str {
        match self {
            OfferAction::Offer => "offer",
            OfferAction::Accept => "accept",
            OfferAction::Decline => "decline",
            OfferAction::Withdraw => "withdraw",
        }
    }
}
