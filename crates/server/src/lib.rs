//! Network play: the course's Surakarta protocol over TCP, the same JSON messages over a
//! WebSocket, the project's extension (Duck Chess and RC-02 games, spectators), rooms with
//! clocks, every game in SQLite, an HTTP JSON API and the headless client (`arbiter connect`;
//! the load test is the `arbiter-loadtest` crate). The protocol is documented in `docs/protocol.md`.
//!
//! The server is built in layers; arrows point down only:
//!
//! * [`transport`] — accept loops for TCP, HTTP and WebSocket, per-connection limits; each
//!   connection turns the lines it reads into messages for a room.
//! * [`api`] — the HTTP JSON endpoints, over rooms and storage, with one error type.
//! * [`rooms`] — the rooms: a state machine per room, driven by messages, with no sockets.
//! * [`storage`] — one interface for stored games, SQLite or PostgreSQL behind it.
//!
//! Beside them: [`protocol`] (the message format every layer speaks), [`games`] (a room's game
//! whatever game it is), [`server`] (starting and stopping the whole) and [`logging`].

pub mod api;
pub mod client;
pub mod cluster;
pub mod games;
pub mod logging;
pub mod protocol;
pub mod rooms;
pub mod server;
pub mod storage;
pub mod transport;

pub use logging::{init_logging, LogGuards};
pub use rooms::{Hub, Records, RoomInfo, RoomSetup, SeatLimits, SeatTimes};
pub use server::{
    parse_serving_announcement, serving_announcement, start, RunningServer, ServerConfig,
};
pub use storage::{Store, StoreOptions};
pub use transport::ConnConfig;
