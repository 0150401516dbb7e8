//! What nodes send each other over NATS, as JSON: a [`Command`] (a client's event for a room,
//! from the node the client is connected to, its gateway, to the room's owner) and a
//! [`Delivery`] (a line the owner's room wrote for that client, back to the gateway).
//!
//! A client's event travels as the typed command its gateway read (`protocol::ClientCommand`'s
//! parts, in their serde form), so nodes of one build share one definition of it.

use std::sync::atomic::Ordering;

use arbiter_core::Side;
use serde::{Deserialize, Serialize};

use crate::games::{GameClock, Registry, Requested};
use crate::protocol::{
    ChatCommand, LeaveCommand, MoveCommand, OfferCommand, ReadyCommand, ResignCommand, WatchCommand,
};
use crate::rooms::{ConnId, Peer, Ready, RoomEvent};

/// A client connection as another node knows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConnRef {
    /// The gateway node it is connected to.
    pub node: String,
    /// Its number on that node.
    pub id: ConnId,
    /// The client's address (the seat caps count it).
    pub addr: String,
    /// It speaks the project's extension.
    pub extension: bool,
}

/// A client's event for a room, as it travels to the room's owner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Command {
    pub room: u32,
    pub conn: ConnRef,
    pub event: WireEvent,
    /// Rising per connection, so an owner takes a command sent again only once; 0: not
    /// numbered (an attachment sent again).
    #[serde(default)]
    pub seq: u64,
    /// The owner's epoch the client was attached under when it sent the command (0: not
    /// known yet). A page's command from under a former owner is dropped: the page has heard
    /// the game again from the new owner's snapshot, which the command would contradict.
    #[serde(default)]
    pub epoch: u64,
}

impl Command {
    /// A page's command sent under another owner than `epoch`'s (see [`Command::epoch`]).
    pub fn stale_for_a_page(&self, epoch: u64) -> bool {
        self.conn.extension && !self.event.attaches() && self.epoch != 0 && self.epoch != epoch
    }
}

/// A [`RoomEvent`] as it travels: the client's typed command itself (its serde form), with
/// what the gateway checked of a READY.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WireEvent {
    Ready {
        sent: ReadyCommand,
        name: String,
        colour: Option<usize>,
        request: WireRequest,
        token: Option<String>,
        #[serde(default)]
        resume: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<String>,
        /// Set by a gateway seating a course client again (see [`crate::rooms::Peer::moves_known`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        known_moves: Option<usize>,
    },
    Move {
        mv: MoveCommand,
        /// See [`RoomEvent::Move`]'s `ply`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<usize>,
    },
    Resign {
        resign: ResignCommand,
    },
    Chat {
        chat: ChatCommand,
    },
    Offer {
        offer: OfferCommand,
    },
    Leave {
        leave: Option<LeaveCommand>,
    },
    Watch {
        watch: WatchCommand,
    },
    Unwatch,
}

/// A room's settings as a READY asked for them, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRequest {
    pub game: String,
    pub options: Vec<(String, u32)>,
    pub timeout_ms: Option<u64>,
    pub clock: Option<(u64, u64)>,
    pub opening_timeout_ms: Option<u64>,
    #[serde(default)]
    pub training: bool,
    #[serde(default)]
    pub rated: bool,
}

/// A line for a client from its room's owner, with the flags the gateway's connection keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    pub conn: ConnId,
    /// The room whose owner sent it (asked again when lines were lost).
    #[serde(default)]
    pub room: u32,
    /// The stand-in's numbering: its stream, and the line's number in it from 1 (0: none).
    #[serde(default)]
    pub stream: u64,
    #[serde(default)]
    pub seq: u64,
    /// The line (no newline); `None` when only the flags changed.
    pub line: Option<String>,
    /// May be dropped for a slow client (chat).
    pub lossy: bool,
    pub awaited: bool,
    pub seated: bool,
}

/// Why a command could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("not a command: {0}")]
    Json(#[from] serde_json::Error),
    #[error("a game this node does not host: {0}")]
    Game(#[from] crate::games::UnknownGame),
    #[error("the option `{0}` is not one of the game's")]
    Option(String),
    #[error("an event for no one ({0})")]
    NoPeer(&'static str),
}

impl WireRequest {
    pub(super) fn of(r: &Requested) -> WireRequest {
        WireRequest {
            game: r.game.id.to_string(),
            options: r.options.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            timeout_ms: r.timeout_ms,
            clock: r.clock.map(|c| (c.initial_ms, c.increment_ms)),
            opening_timeout_ms: r.opening_timeout_ms,
            training: r.training,
            rated: r.rated,
        }
    }

    fn requested(&self, registry: &Registry) -> Result<Requested, WireError> {
        let game = registry.definition(&self.game)?;
        let options = self
            .options
            .iter()
            .map(|(name, value)| {
                let def = game.options.iter().find(|o| o.name == name);
                def.map(|o| (o.name, *value))
                    .ok_or_else(|| WireError::Option(name.clone()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Requested {
            game,
            options,
            timeout_ms: self.timeout_ms,
            clock: self.clock.map(|(initial_ms, increment_ms)| GameClock {
                initial_ms,
                increment_ms,
            }),
            opening_timeout_ms: self.opening_timeout_ms,
            training: self.training,
            rated: self.rated,
        })
    }
}

impl WireEvent {
    /// The wire form of a client's event, with the peer it came from; `None` for the hub's
    /// own events (they never leave their node).
    pub fn of(event: RoomEvent) -> Option<(Option<Peer>, WireEvent)> {
        Some(match event {
            RoomEvent::Ready { peer, ready } => (Some(peer), WireEvent::ready(ready)),
            RoomEvent::Move { peer, mv, ply } => (Some(peer), WireEvent::Move { mv, ply }),
            RoomEvent::Resign { peer, resign } => (Some(peer), WireEvent::Resign { resign }),
            RoomEvent::Chat { peer, chat } => (Some(peer), WireEvent::Chat { chat }),
            RoomEvent::Offer { peer, offer } => (Some(peer), WireEvent::Offer { offer }),
            RoomEvent::Leave { peer, leave } => (Some(peer), WireEvent::Leave { leave }),
            RoomEvent::Watch { peer, watch } => (Some(peer), WireEvent::Watch { watch }),
            RoomEvent::Unwatch { .. } => (None, WireEvent::Unwatch),
            RoomEvent::Reach { .. } | RoomEvent::Info { .. } | RoomEvent::Shutdown { .. } => {
                return None
            }
        })
    }

    /// A READY's wire form.
    pub fn ready(ready: Ready) -> WireEvent {
        WireEvent::Ready {
            sent: ready.sent,
            name: ready.name,
            colour: ready.colour.map(Side::index),
            request: WireRequest::of(&ready.request),
            token: ready.token,
            resume: ready.resume,
            secret: ready.secret,
            known_moves: None,
        }
    }

    /// The room event on the owner, for `peer` (the owner's stand-in for the client).
    pub fn into_event(self, peer: Peer, registry: &Registry) -> Result<RoomEvent, WireError> {
        Ok(match self {
            WireEvent::Ready {
                sent,
                name,
                colour,
                request,
                token,
                resume,
                secret,
                known_moves,
            } => {
                // The stand-in knows what its client knows (the room reads it on its return).
                if let Some(known) = known_moves {
                    peer.moves_known.store(known, Ordering::Relaxed);
                }
                let ready = Ready {
                    sent,
                    name,
                    colour: colour.filter(|&c| c < 2).map(Side::from_index),
                    request: request.requested(registry)?,
                    token,
                    resume,
                    secret,
                };
                RoomEvent::Ready { peer, ready }
            }
            WireEvent::Move { mv, ply } => RoomEvent::Move { peer, mv, ply },
            WireEvent::Resign { resign } => RoomEvent::Resign { peer, resign },
            WireEvent::Chat { chat } => RoomEvent::Chat { peer, chat },
            WireEvent::Offer { offer } => RoomEvent::Offer { peer, offer },
            WireEvent::Leave { leave } => RoomEvent::Leave { peer, leave },
            WireEvent::Watch { watch } => RoomEvent::Watch { peer, watch },
            WireEvent::Unwatch => RoomEvent::Unwatch { conn: peer.id },
        })
    }

    /// A READY or a WATCH: it seats the client, or sets it watching.
    pub fn attaches(&self) -> bool {
        matches!(self, WireEvent::Ready { .. } | WireEvent::Watch { .. })
    }

    /// A player's command: it means something only from a seated client.
    pub fn needs_a_seat(&self) -> bool {
        matches!(
            self,
            WireEvent::Move { .. }
                | WireEvent::Resign { .. }
                | WireEvent::Chat { .. }
                | WireEvent::Offer { .. }
        )
    }

    /// The client left the room or stopped watching it: the owner may forget its stand-in.
    pub fn leaves_the_room(&self) -> bool {
        matches!(self, WireEvent::Leave { .. } | WireEvent::Unwatch)
    }

    /// The client's connection closed: the owner forgets its stand-in.
    pub fn ends_the_stand_in(&self) -> bool {
        matches!(self, WireEvent::Leave { leave: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientCommand, Message, OFFER};

    /// A command crosses the wire and comes back the same, unknown offer words included.
    #[test]
    fn client_commands_survive_the_wire() {
        let offer = Message::new(OFFER, "draw", "perhaps", "x");
        let Ok(ClientCommand::Offer(offer)) = ClientCommand::read(offer) else {
            panic!("an offer")
        };
        let events = [
            WireEvent::Offer { offer },
            WireEvent::Move {
                mv: MoveCommand::new("A2", "A3"),
                ply: Some(3),
            },
            WireEvent::Leave { leave: None },
            WireEvent::Chat {
                chat: ChatCommand {
                    name: "bob".into(),
                    text: "hi".into(),
                    room: "5".into(),
                },
            },
        ];
        for event in events {
            let json = serde_json::to_string(&event).unwrap();
            let back: WireEvent = serde_json::from_str(&json).unwrap();
            assert_eq!(back, event, "{json}");
        }
    }
}
