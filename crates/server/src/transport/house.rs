//! The server's own AI seat: a READY with `"opponent":"ai"` seats one of arbiter's players
//! opposite its sender. The AI plays as any course client does — `arbiter connect`'s client,
//! over an in-process pipe into a session of its own — so the room, its clock and its records
//! treat it exactly like a person, and nothing in the rooms knows it is there.

use std::sync::Arc;
use std::time::Duration;

use arbiter_ai::registry::Catalogue;
use arbiter_ai::PlayerSpec;
use futures_util::future::BoxFuture;

use super::session::ConnConfig;
use super::tcp::serve_lines;
use crate::api::gate::CpuGate;
use crate::client::{play_over, ClientError, ConnectOptions, ConnectOutcome, Connection};
use crate::protocol::{self, Message, ReadyCommand};
use crate::rooms::Hub;

/// How long the AI waits in its room for the game to start: its sender is already there, so
/// only a race with a third client (who took the seat first) leaves it waiting, and then it goes.
const WAIT_FOR_START: Duration = Duration::from_secs(15);
/// Bytes either way in the pipe between the AI and its session (a few moves' worth of lines).
const PIPE_BYTES: usize = 64 * 1024;

/// The levels a client may ask for (`"level"`), and what it gets without asking.
pub const LEVELS: [&str; 3] = ["easy", "medium", "hard"];
pub const DEFAULT_LEVEL: &str = "medium";

/// Plays one game over an open connection with the server's own catalogue of games.
type PlayOver = fn(
    Connection,
    Message,
    ConnectOptions,
) -> BoxFuture<'static, Result<ConnectOutcome, ClientError>>;

/// What the server needs to seat its AI: the CPU gate its searches wait at (the same one as the
/// page's AI and analysis), and the client, typed with the server's games.
#[derive(Clone)]
pub struct HouseAi {
    gate: Arc<CpuGate>,
    play: PlayOver,
}

impl std::fmt::Debug for HouseAi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HouseAi").field("gate", &self.gate).finish()
    }
}

impl HouseAi {
    pub fn new<C: Catalogue>(gate: Arc<CpuGate>) -> HouseAi {
        HouseAi {
            gate,
            play: |conn, ready, options| {
                Box::pin(async move { play_over::<C>(conn, &ready, &options).await })
            },
        }
    }
}

/// The AI's READY: its sender's, with the AI's name, no colour (it takes the one left) and none
/// of the keys that belong to a person (its token, secret, rating, the AI request itself).
pub fn ready_for_ai(theirs: &ReadyCommand, level: &str) -> Message {
    let mut ready = Message::new(
        protocol::READY,
        format!("arbiter_{level}"),
        "",
        &theirs.room,
    );
    ready.extra = theirs.extra.clone();
    ready.extra.retain(|key, _| {
        !protocol::is_client_key(key) && !matches!(key.as_str(), "opponent" | "level" | "rated")
    });
    ready
}

/// Seats the AI at `level` in room `room` with the READY `ready`, and lets it play one game.
pub fn seat(
    house: &HouseAi,
    hub: Arc<Hub>,
    config: ConnConfig,
    room: u32,
    level: &str,
    ready: Message,
) {
    let player: PlayerSpec = match level.parse() {
        Ok(player) => player,
        Err(e) => {
            tracing::error!("the server's AI cannot be {level}: {e}");
            return;
        }
    };
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let addr = format!("ai-{level}@room-{room}");
    let (server_reads, server_writes) = tokio::io::split(theirs);
    tokio::spawn(serve_lines(
        server_reads,
        server_writes,
        addr.clone(),
        hub,
        config,
        false,
    ));
    let (reads, writes) = tokio::io::split(ours);
    // Quiet: the session on the other end of the pipe logs every message already.
    let conn = Connection::over(Box::new(reads), Box::new(writes), addr, true);
    let options = ConnectOptions {
        host: String::new(),
        port: 0,
        colour: String::new(),
        name: ready.data1.clone(),
        room,
        game: ready
            .extra
            .get("game")
            .and_then(|g| g.as_str())
            .map(str::to_string),
        options: Vec::new(),
        player,
        record: None,
        seed: rand::random(),
        wait: WAIT_FOR_START,
        quiet: true,
        gate: Some(house.gate.clone()),
    };
    let play = house.play;
    tokio::spawn(async move {
        match play(conn, ready, options).await {
            Ok(outcome) => tracing::info!(
                "the server's AI finished its game in room {room} against {}",
                outcome.opponent
            ),
            Err(e) => tracing::info!("the server's AI left room {room}: {e}"),
        }
    });
}
