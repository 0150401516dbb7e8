//! The room as a state machine, driven message by message: no sockets, no task, an in-memory
//! store, and tokio's paused clock for move times and seats.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use arbiter_core::{EndReason, MoveReason, Side};
use tokio::sync::{oneshot, Notify};

use super::Room;
use crate::games::{GameClock, Registry, Requested, SettingsDefaults};
use crate::protocol::{
    ClientCommand, Message, MoveCommand, Winner, CHAT, END, END_MARKER, LEAVE, MOVE, NOTICE, OFFER,
    READY, REJECT, RESIGN, STATE, WATCH,
};
use crate::rooms::journal::{Journal, LocalJournal};
use crate::rooms::outbox::{outbox, Inbox};
use crate::rooms::{
    Hub, Peer, Ready, Records, RoomContext, RoomEvent, RoomSetup, SeatLimits, SeatTimes,
};
use crate::storage::memory::MemoryStore;

mod cluster_writes;
mod failures;
mod guard;
mod joining;
mod names;
mod offers;
mod playing;
mod reach;
mod rematch;
mod restoring;
mod seats;
mod watching;

const WAIT: Duration = Duration::from_secs(600);
const REMATCH: Duration = Duration::from_secs(120);
const GRACE: Duration = Duration::from_secs(30);
const MOVE_TIME: Duration = Duration::from_millis(3000);
const FIRST_MOVE: Duration = Duration::from_secs(20);
const MS: Duration = Duration::from_millis(1);

/// A connection as the room sees it, and what the room queued for it.
struct Client {
    peer: Peer,
    inbox: Inbox,
    name: &'static str,
}

impl Client {
    fn new(id: u64, name: &'static str) -> Client {
        Client::at(id, name, format!("test:{name}"))
    }

    /// A client from a real address (counted by the seat limits and the token back-off).
    fn at(id: u64, name: &'static str, addr: String) -> Client {
        let (out, inbox) = outbox();
        let peer = Peer {
            id,
            addr,
            outbox: out,
            awaited: Default::default(),
            seated: Default::default(),
            changed: Arc::new(Notify::new()),
            extension: Default::default(),
            moves_known: Default::default(),
            game_over: Default::default(),
        };
        Client { peer, inbox, name }
    }

    /// A client of the project's extension (a page): it also hears NOTICEs.
    fn page(id: u64, name: &'static str) -> Client {
        let client = Client::new(id, name);
        client.peer.extension.store(true, Ordering::Relaxed);
        client
    }

    /// Every message queued for it since the last look.
    fn heard(&mut self) -> Vec<Message> {
        std::iter::from_fn(|| self.inbox.try_next())
            .map(|line| Message::parse(&line).expect("the room sends messages"))
            .collect()
    }

    /// The one message queued since the last look.
    fn one(&mut self) -> Message {
        let mut heard = self.heard();
        assert_eq!(heard.len(), 1, "{}: {heard:?}", self.name);
        heard.remove(0)
    }

    fn silent(&mut self) {
        let heard = self.heard();
        assert!(heard.is_empty(), "{} heard {heard:?}", self.name);
    }

    fn awaited(&self) -> bool {
        self.peer.awaited.load(Ordering::Relaxed)
    }

    fn seated(&self) -> bool {
        self.peer.seated.load(Ordering::Relaxed)
    }
}

fn fields(m: &Message) -> (i64, &str, &str, &str) {
    (m.op, m.data1.as_str(), m.data2.as_str(), m.data3.as_str())
}

/// END's fields as course clients read them.
fn end(move_reason: Option<MoveReason>, reason: EndReason, winner: Winner) -> (String, String) {
    let move_reason = move_reason.map_or(String::new(), |r| r.code().to_string());
    (
        format!("{move_reason}/{}", reason.code()),
        winner.wire().to_string(),
    )
}

fn end_of(m: &Message) -> (String, String) {
    assert_eq!(m.op, END, "{m:?}");
    (format!("{}/{}", m.data1, m.data2), m.data3.clone())
}

/// Room 1 with an in-memory store.
struct Table {
    room: Room,
    store: Arc<MemoryStore>,
}

impl Table {
    fn new() -> Table {
        Table::with_limits(SeatLimits::default())
    }

    fn with_limits(seat_limits: SeatLimits) -> Table {
        let store = Arc::new(MemoryStore::default());
        Table::on(store.clone(), LocalJournal::new(store), seat_limits)
    }

    /// A room whose writes go through `journal` (a cluster's, say).
    fn with_journal(store: Arc<MemoryStore>, journal: Arc<dyn Journal>) -> Table {
        Table::on(store, journal, SeatLimits::default())
    }

    fn on(store: Arc<MemoryStore>, journal: Arc<dyn Journal>, seat_limits: SeatLimits) -> Table {
        let registry = Registry::of::<arbiter_ai::Standard>();
        let setup = RoomSetup {
            records: Records::default(),
            seats: SeatTimes {
                first_move: FIRST_MOVE,
                wait_timeout: WAIT,
                rematch_window: REMATCH,
                seat_grace: GRACE,
            },
            defaults: SettingsDefaults {
                timeout_ms: MOVE_TIME.as_millis() as u64,
                max_no_capture_round: None,
            },
            seat_limits,
        };
        let hub = Hub::new(store.clone(), registry.clone(), setup.clone());
        let guard = hub.guard().expect("a hub with a context");
        let ctx = Arc::new(RoomContext {
            journal,
            store: store.clone(),
            hub,
            registry,
            setup,
            guard,
        });
        Table {
            room: Room::new(1, ctx),
            store,
        }
    }

    fn request(&self, game: &str, options: &[(&'static str, u32)]) -> Requested {
        Requested {
            game: self.room.ctx.registry.definition(game).unwrap(),
            options: options.to_vec(),
            timeout_ms: None,
            clock: None,
            opening_timeout_ms: None,
            training: false,
            rated: false,
        }
    }

    async fn ready_with(
        &mut self,
        c: &Client,
        colour: Option<Side>,
        request: Requested,
        token: Option<&str>,
    ) {
        let ready = Ready {
            token: token.map(String::from),
            ..Ready::for_tests(c.name, "1", colour, request)
        };
        let event = RoomEvent::Ready {
            peer: c.peer.clone(),
            ready,
        };
        self.room.step(event).await;
    }

    /// A page coming back with its token that only takes its seat back (READY's `resume`).
    async fn come_back(&mut self, c: &Client, token: &str) {
        let request = self.request("surakarta", &[]);
        let ready = Ready {
            token: Some(token.into()),
            resume: true,
            ..Ready::for_tests(c.name, "1", None, request)
        };
        let event = RoomEvent::Ready {
            peer: c.peer.clone(),
            ready,
        };
        self.room.step(event).await;
    }

    async fn ready(&mut self, c: &Client, colour: Option<Side>) {
        let request = self.request("surakarta", &[]);
        self.ready_with(c, colour, request, None).await;
    }

    /// A client's message, read as its connection reads it.
    async fn send(&mut self, c: &Client, op: i64, data1: &str, data2: &str) {
        let peer = c.peer.clone();
        let message = Message::new(op, data1, data2, "");
        let event = match ClientCommand::read(message).expect("a client's command") {
            ClientCommand::Move(mv) => RoomEvent::Move {
                peer,
                mv,
                ply: None,
            },
            ClientCommand::Resign(resign) => RoomEvent::Resign { peer, resign },
            ClientCommand::Chat(chat) => RoomEvent::Chat { peer, chat },
            ClientCommand::Offer(offer) => RoomEvent::Offer { peer, offer },
            ClientCommand::Watch(watch) => RoomEvent::Watch { peer, watch },
            ClientCommand::Leave(leave) => RoomEvent::Leave {
                peer,
                leave: Some(leave),
            },
            other => panic!("no event for {other:?}"),
        };
        self.room.step(event).await;
    }

    async fn play(&mut self, c: &Client, from: &str, to: &str) {
        self.send(c, MOVE, from, to).await;
    }

    /// A move a cluster gateway sends with the ply its course client meant it as.
    async fn play_as_ply(&mut self, c: &Client, from: &str, to: &str, ply: usize) {
        let event = RoomEvent::Move {
            peer: c.peer.clone(),
            mv: MoveCommand::new(from, to),
            ply: Some(ply),
        };
        self.room.step(event).await;
    }

    /// The connection closed.
    async fn close(&mut self, c: &Client) {
        let event = RoomEvent::Leave {
            peer: c.peer.clone(),
            leave: None,
        };
        self.room.step(event).await;
    }

    /// Lets `by` pass on the paused clock, then does what fell due.
    async fn advance(&mut self, by: Duration) {
        tokio::time::advance(by).await;
        self.room.tick().await;
    }

    fn status(&self) -> &'static str {
        self.room.info().status
    }
}

/// Alice (Black) and Bob (White) in a started Surakarta game, the READYs read.
async fn started() -> (Table, Client, Client) {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    t.ready(&bob, Some(Side::Second)).await;
    alice.one();
    bob.one();
    (t, alice, bob)
}
