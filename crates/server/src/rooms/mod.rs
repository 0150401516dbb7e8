//! The rooms: up to two players and any number of spectators each, one game at a time. A room
//! is a state machine driven by messages ([`RoomEvent`]); it knows no sockets: a transport
//! hands it [`Peer`]s whose outboxes it fills, and it stores games through [`crate::storage`].

mod error;
mod event;
pub mod guard;
mod hub;
pub mod journal;
pub mod outbox;
mod room;
mod setup;

pub use error::Refusal;
pub use event::{
    log_command, log_fields, log_message, next_conn_id, send, ConnId, Peer, Ready, RoomEvent,
};
pub use guard::SeatLimits;
pub use hub::{Elsewhere, Hub, RoomsPage};
pub use room::{RestoreError, RestoredGame};
pub use setup::{PendingOffer, Records, RoomContext, RoomInfo, RoomPlayer, RoomSetup, SeatTimes};
