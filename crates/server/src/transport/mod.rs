//! The transports: accept loops for the course's TCP protocol and for HTTP (the JSON API, the
//! page and the WebSocket), deadlines and per-connection limits. A connection turns what it
//! reads into messages for a room ([`crate::rooms::RoomEvent`]) and writes what the room queues
//! for it; nothing here knows a game's rules.

mod bare;
pub mod deadline;
pub mod house;
pub mod http;
pub mod limits;
pub mod proxy;
pub mod session;
pub mod tcp;
pub mod ws;

pub use limits::{Admissions, Admitted};
pub use session::{ConnConfig, Next, Session};
