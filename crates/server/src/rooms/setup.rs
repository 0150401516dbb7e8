//! How rooms are set up (seat times, records, defaults) and how a room is shown to the API.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::guard::{Guard, SeatLimits};
use super::Hub;
use crate::games::{GameSettings, Registry, SettingsDefaults};
use crate::storage::Storage;

/// A room as the HTTP API shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RoomInfo {
    pub room: u32,
    /// `waiting`, `playing` or `over`.
    pub status: &'static str,
    pub settings: Option<GameSettings>,
    pub players: Vec<RoomPlayer>,
    pub moves: Vec<String>,
    pub spectators: usize,
    /// The stored game now shown (playing or just over).
    pub game_id: Option<i64>,
    /// With a game clock: what each side has left now, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks: Option<[u64; 2]>,
    /// While a game runs: what the side to move has left now for its move, in milliseconds
    /// (the clock per move, or its game clock), so a page that joins mid-move shows the time
    /// left, not the whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_left_ms: Option<u64>,
    /// While the side to move plays its first move off the clock (a page's seat): what it has
    /// left for it before the game is aborted, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_move_ms: Option<u64>,
    /// Players whose connection dropped and whose seats are held.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub away: Vec<String>,
    /// While a game runs: the offer waiting for an answer, so a page that reloads, reconnects
    /// or starts watching sees it (the OFFER that made it went by before it came).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer: Option<PendingOffer>,
}

/// An offer waiting for its answer, as the STATE snapshot shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PendingOffer {
    /// `draw` or `takeback`, as in `OFFER`.
    pub kind: &'static str,
    /// The maker's name (as `OFFER` says it) and colour word (names may be equal).
    pub by: String,
    pub colour: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RoomPlayer {
    pub name: String,
    pub colour: Option<String>,
    pub ready: bool,
}

/// How long seats are kept.
#[derive(Clone, Copy, Debug)]
pub struct SeatTimes {
    /// A ready member waiting for an opponent.
    pub wait_timeout: Duration,
    /// A member after a game, unless it asks for a rematch.
    pub rematch_window: Duration,
    /// A player with a seat token whose connection drops during a game keeps its seat this
    /// long (its clock running) to come back, before that counts as leaving.
    pub seat_grace: Duration,
    /// A page's first move is off the clock (lichess's rule): it has this long for it, and
    /// missing it aborts the game (docs/protocol.md, "Clocks").
    pub first_move: Duration,
}

/// How rooms are run: where records go, how long seats are kept, the settings' defaults.
#[derive(Clone, Debug)]
pub struct RoomSetup {
    pub records: Records,
    pub seats: SeatTimes,
    pub defaults: SettingsDefaults,
    /// Seats held at once per address and per network.
    pub seat_limits: SeatLimits,
}

#[cfg(test)]
impl RoomSetup {
    /// Seats kept a minute, a 5 s grace, 3 s a move and the default seat limits: the rooms the
    /// hub's and the sessions' unit tests run.
    pub(crate) fn for_tests() -> RoomSetup {
        RoomSetup {
            records: Records::default(),
            seats: SeatTimes {
                wait_timeout: Duration::from_secs(60),
                rematch_window: Duration::from_secs(60),
                seat_grace: Duration::from_secs(5),
                first_move: Duration::from_secs(30),
            },
            defaults: SettingsDefaults {
                timeout_ms: 3000,
                max_no_capture_round: None,
            },
            seat_limits: SeatLimits::default(),
        }
    }
}

/// What every room shares.
pub struct RoomContext {
    pub store: Storage,
    /// Where the room's writes go (one server's, or a cluster's that fences and hands over).
    pub journal: Arc<dyn super::journal::Journal>,
    pub hub: Arc<Hub>,
    pub registry: Arc<Registry>,
    pub setup: RoomSetup,
    /// What one address may do to seats across all rooms.
    pub guard: Arc<Guard>,
}

/// Where finished games' records are written, besides the database.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// `DIR/NNNNNN-roomR.txt` and `DIR/latest.txt`.
    pub dir: Option<PathBuf>,
    /// The course harness's file, `record/server/Team_X.txt`.
    pub course_file: Option<PathBuf>,
}
