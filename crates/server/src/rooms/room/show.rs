//! How a room shows itself: the STATE snapshot for spectators and the API's room list.

use super::{Room, Running};
use crate::protocol::{self, Message};
use crate::rooms::{PendingOffer, RoomInfo, RoomPlayer};

impl Room {
    pub(in crate::rooms) fn snapshot(&self) -> Message {
        let info = self.info();
        let json = serde_json::to_string(&info).expect("room info serialises");
        Message::new(protocol::STATE, json, "", self.id.to_string())
    }

    pub(super) fn info(&self) -> RoomInfo {
        let status = match &self.running {
            Some(r) if !r.game.is_over() => "playing",
            Some(_) => "over",
            None => "waiting",
        };
        let settings = self
            .running
            .as_ref()
            .map(|r| r.game.settings.clone())
            .or_else(|| self.members.first().map(|m| m.settings.clone()));
        let mut players: Vec<RoomPlayer> = self
            .members
            .iter()
            .map(|m| RoomPlayer {
                name: m.name.clone(),
                colour: m
                    .side
                    .zip(settings.as_ref())
                    .map(|(s, st)| st.colour_word(s).to_string()),
                ready: m.ready,
            })
            .collect();
        if let Some(r) = &self.running {
            // Players of the game first, in playing order, even after one has left.
            players.sort_by_key(|p| r.names.iter().position(|n| *n == p.name).unwrap_or(2));
        }
        RoomInfo {
            room: self.id,
            status,
            settings,
            players,
            moves: self
                .running
                .as_ref()
                .map(|r| r.game.moves.clone())
                .unwrap_or_default(),
            spectators: self.spectators.len(),
            game_id: self.running.as_ref().map(|r| r.id),
            clocks: self.running.as_ref().and_then(Running::clocks_now),
            turn_left_ms: self.running.as_ref().and_then(Running::turn_left_ms),
            first_move_ms: self.running.as_ref().and_then(Running::first_move_ms),
            away: self
                .members
                .iter()
                .filter(|m| m.away)
                .map(|m| m.name.clone())
                .collect(),
            offer: self.running.as_ref().and_then(pending_offer),
        }
    }
}

/// The offer waiting for an answer in a game not over.
fn pending_offer(running: &Running) -> Option<PendingOffer> {
    let (kind, by) = running
        .offers
        .pending()
        .filter(|_| !running.game.is_over())?;
    Some(PendingOffer {
        kind: kind.word(),
        by: running.names[by.index()].clone(),
        colour: running.game.settings.colour_word(by).to_string(),
    })
}
