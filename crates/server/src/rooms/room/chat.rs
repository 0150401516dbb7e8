//! Chat in a room, in two channels as on lichess: the players' (each player's line goes to the
//! other player and to the spectators) and the spectators' own (a spectator's line goes to the
//! other spectators only: the players never see it, marked `spectators` in CHAT's data3). A line
//! is at most [`LONGEST_CHAT`] characters: a longer one is refused, its sender told why.

use super::Room;
use crate::protocol::{self, ChatCommand, Message};
use crate::rooms::Peer;

/// The longest chat line, in characters.
pub const LONGEST_CHAT: usize = 500;
/// The longest name a spectator chats under, in characters.
const LONGEST_NAME: usize = 32;
/// CHAT's data3 on a line of the spectators' channel.
pub const SPECTATORS: &str = "spectators";

impl Room {
    /// A chat line from a player (the players' channel) or a spectator (the spectators').
    pub(super) fn chat(&mut self, peer: &Peer, chat: &ChatCommand) {
        let length = chat.text.chars().count();
        if length > LONGEST_CHAT {
            let why = format!(
                "a chat message has at most {LONGEST_CHAT} characters; this one has {length}"
            );
            self.send_to(peer, Message::new(protocol::NOTICE, "error", "", why));
            return;
        }
        if let Some(i) = self.member(peer.id) {
            let relay = Message::new(
                protocol::CHAT,
                self.members[i].name.clone(),
                chat.text.clone(),
                "",
            );
            let others: Vec<Peer> = self
                .members
                .iter()
                .filter(|m| m.peer.id != peer.id)
                .map(|m| m.peer.clone())
                .collect();
            for other in others {
                self.send_to(&other, relay.clone());
            }
            self.tell_spectators(&relay);
        } else if self.spectators.contains_key(&peer.id) {
            let relay = Message::new(
                protocol::CHAT,
                spectator_name(&chat.name),
                chat.text.clone(),
                SPECTATORS,
            );
            let others: Vec<Peer> = self
                .spectators
                .values()
                .filter(|p| p.id != peer.id && self.member(p.id).is_none())
                .cloned()
                .collect();
            for other in others {
                self.send_to(&other, relay.clone());
            }
        }
    }
}

/// The name a spectator chats under: the one it gives, trimmed and shortened, or "a spectator".
fn spectator_name(given: &str) -> String {
    let name: String = given
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(LONGEST_NAME)
        .collect();
    if name.is_empty() {
        "a spectator".into()
    } else {
        name
    }
}
