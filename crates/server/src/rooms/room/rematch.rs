//! Rematches (the extension's OFFER of kind `rematch`): a player of the finished game who is
//! ready again is a rematch offer, told to the other player's page with the name of who asked;
//! the other accepts with its own READY or declines with `OFFER(rematch, decline)`. Without
//! colour requests, the rematch swaps the colours (see `Room::seating`). A course client asks
//! for a rematch with READY as before and is never sent an OFFER.

use std::sync::atomic::Ordering as AtomicOrdering;

use super::Room;
use crate::protocol::{self, Message, OfferAction, Word};
use crate::rooms::{ConnId, Peer};

/// Why a rematch answer was refused, in the words its sender gets.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(super) enum RematchRefusal {
    #[error("nobody asked you for a rematch")]
    NotAsked,
    #[error("unknown rematch answer `{0}`: accept with READY, or decline")]
    Unknown(String),
}

impl Room {
    /// `conn` is ready again after a game it played: the other player of that game, if it
    /// speaks the extension and is not ready yet, hears the offer.
    pub(super) fn offer_rematch(&mut self, conn: ConnId) {
        let finished = self.running.as_ref().is_some_and(|r| r.game.is_over());
        let Some(i) = self.member(conn).filter(|_| finished) else {
            return;
        };
        if self.members[i].side.is_none() {
            return;
        }
        let asked = self.members.iter().find(|m| {
            m.peer.id != conn
                && m.side.is_some()
                && !m.ready
                && m.peer.extension.load(AtomicOrdering::Relaxed)
        });
        let Some(other) = asked.map(|m| m.peer.clone()) else {
            return;
        };
        let name = self.members[i].name.clone();
        self.send_to(
            &other,
            Message::new(protocol::OFFER, "rematch", "offer", name),
        );
    }

    /// An `OFFER(rematch, …)` from a member: only a decline needs one (an accept is a READY);
    /// both players hear it, and the one who asked keeps its seat until the rematch window ends.
    pub(super) fn answer_rematch(&mut self, peer: &Peer, action: &Word<OfferAction>) {
        let answer = self.decline_rematch(peer, action);
        if let Err(why) = answer {
            let refusal = Message::new(protocol::OFFER, "rematch", "refused", why.to_string());
            self.send_to(peer, refusal);
        }
    }

    fn decline_rematch(
        &mut self,
        peer: &Peer,
        action: &Word<OfferAction>,
    ) -> Result<(), RematchRefusal> {
        if *action != Word::Known(OfferAction::Decline) {
            return Err(RematchRefusal::Unknown(action.text().to_string()));
        }
        let i = self.member(peer.id).ok_or(RematchRefusal::NotAsked)?;
        let asker = self
            .members
            .iter()
            .any(|m| m.peer.id != peer.id && m.ready && m.side.is_some());
        if !asker || self.members[i].ready {
            return Err(RematchRefusal::NotAsked);
        }
        let decline = Message::new(
            protocol::OFFER,
            "rematch",
            "decline",
            self.members[i].name.clone(),
        );
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for player in players {
            self.send_to(&player, decline.clone());
        }
        Ok(())
    }
}
