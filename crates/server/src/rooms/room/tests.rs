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
    Message, Winner, CHAT, END, END_MARKER, LEAVE, MOVE, NOTICE, READY, REJECT, RESIGN, STATE,
    WATCH,
};
use crate::rooms::outbox::{outbox, Inbox};
use crate::rooms::{Hub, Peer, Records, RoomContext, RoomEvent, RoomSetup, SeatTimes};
use crate::storage::memory::MemoryStore;

const WAIT: Duration = Duration::from_secs(600);
const REMATCH: Duration = Duration::from_secs(120);
const GRACE: Duration = Duration::from_secs(30);
const MOVE_TIME: Duration = Duration::from_millis(3000);
const MS: Duration = Duration::from_millis(1);

/// A connection as the room sees it, and what the room queued for it.
struct Client {
    peer: Peer,
    inbox: Inbox,
    name: &'static str,
}

impl Client {
    fn new(id: u64, name: &'static str) -> Client {
        let (out, inbox) = outbox();
        let peer = Peer {
            id,
            addr: format!("test:{name}"),
            outbox: out,
            awaited: Default::default(),
            seated: Default::default(),
            changed: Arc::new(Notify::new()),
            extension: Default::default(),
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
        let store = Arc::new(MemoryStore::default());
        let registry = Registry::of::<arbiter_ai::Standard>();
        let setup = RoomSetup {
            records: Records::default(),
            seats: SeatTimes {
                wait_timeout: WAIT,
                rematch_window: REMATCH,
                seat_grace: GRACE,
            },
            defaults: SettingsDefaults {
                timeout_ms: MOVE_TIME.as_millis() as u64,
                max_no_capture_round: None,
            },
        };
        let hub = Hub::new(store.clone(), registry.clone(), setup.clone());
        let ctx = Arc::new(RoomContext {
            store: store.clone(),
            hub,
            registry,
            setup,
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
        }
    }

    async fn ready_with(
        &mut self,
        c: &Client,
        colour: Option<Side>,
        request: Requested,
        token: Option<&str>,
    ) {
        let word = colour.map_or("", |side| request.game.side(side).word);
        let message = Message::new(READY, c.name, word, "1");
        let event = RoomEvent::Ready {
            peer: c.peer.clone(),
            message,
            name: c.name.into(),
            colour,
            request,
            token: token.map(String::from),
        };
        self.room.step(event).await;
    }

    async fn ready(&mut self, c: &Client, colour: Option<Side>) {
        let request = self.request("surakarta", &[]);
        self.ready_with(c, colour, request, None).await;
    }

    async fn send(&mut self, c: &Client, op: i64, data1: &str, data2: &str) {
        let peer = c.peer.clone();
        let message = Message::new(op, data1, data2, "");
        let event = match op {
            MOVE => RoomEvent::Move { peer, message },
            RESIGN => RoomEvent::Resign { peer, message },
            CHAT => RoomEvent::Chat { peer, message },
            WATCH => RoomEvent::Watch { peer, message },
            LEAVE => RoomEvent::Leave {
                peer,
                message: Some(message),
            },
            other => panic!("no event for op {other}"),
        };
        self.room.step(event).await;
    }

    async fn play(&mut self, c: &Client, from: &str, to: &str) {
        self.send(c, MOVE, from, to).await;
    }

    /// The connection closed.
    async fn close(&mut self, c: &Client) {
        let event = RoomEvent::Leave {
            peer: c.peer.clone(),
            message: None,
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

#[tokio::test(start_paused = true)]
async fn two_ready_players_start_a_game_black_to_move() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    alice.silent();
    assert_eq!(t.status(), "waiting");
    assert!(alice.seated());
    t.ready(&bob, Some(Side::Second)).await;
    let to_alice = alice.one();
    assert_eq!(fields(&to_alice), (READY, "bob", "BLACK", "1"));
    assert_eq!(to_alice.extra_str("game"), Some("surakarta"));
    assert_eq!(to_alice.extra_u64("timeout_ms"), Some(Ok(3000)));
    assert_eq!(fields(&bob.one()), (READY, "alice", "WHITE", "1"));
    assert_eq!(t.status(), "playing");
    assert!(alice.awaited() && !bob.awaited());
    let games = t.store.games();
    assert_eq!(
        (games[0].first.as_str(), games[0].second.as_str()),
        ("alice", "bob")
    );
    assert_eq!(games[0].room, 1);
}

#[tokio::test(start_paused = true)]
async fn colours_follow_requests_else_the_first_ready_plays_black() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&bob, None).await;
    t.ready(&alice, None).await;
    assert_eq!(bob.one().data2, "BLACK");
    assert_eq!(alice.one().data2, "WHITE");

    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&bob, None).await;
    t.ready(&alice, Some(Side::First)).await;
    assert_eq!(alice.one().data2, "BLACK");
    assert_eq!(bob.one().data2, "WHITE");
}

#[tokio::test(start_paused = true)]
async fn a_taken_colour_or_other_settings_are_refused_to_the_later_player() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    t.ready(&bob, Some(Side::First)).await;
    assert_eq!(
        fields(&bob.one()),
        (REJECT, "bob", "that colour is taken", "")
    );
    let duck = t.request("duck", &[]);
    t.ready_with(&bob, None, duck, None).await;
    let refused = bob.one();
    assert_eq!(refused.op, REJECT);
    assert!(
        refused
            .data2
            .starts_with("the room is set up for surakarta"),
        "{refused:?}"
    );
    alice.silent();
    assert_eq!(t.status(), "waiting");
}

#[tokio::test(start_paused = true)]
async fn a_third_player_is_refused_while_a_game_runs_and_after_it() {
    let (mut t, alice, mut bob) = started().await;
    let mut carol = Client::new(3, "carol");
    t.ready(&carol, None).await;
    assert_eq!(carol.one().data2, "the room is playing a game");
    // A player's own READY during its game is a slip, left unanswered.
    t.ready(&bob, Some(Side::Second)).await;
    bob.silent();
    t.send(&bob, RESIGN, "", "").await;
    t.send(&alice, RESIGN, "", "").await;
    t.ready(&carol, None).await;
    assert_eq!(carol.heard().last().unwrap().data2, "the room is full");
}

#[tokio::test(start_paused = true)]
async fn a_legal_move_is_stored_then_forwarded_to_the_opponent_only() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&alice, "A2", "A3").await;
    assert_eq!(fields(&bob.one()), (MOVE, "A2", "A3", ""));
    alice.silent();
    let stored = &t.store.games()[0].moves;
    assert_eq!(
        (
            stored[0].ply,
            stored[0].text.as_str(),
            stored[0].reason.as_str()
        ),
        (1, "A2-A3", "LEGAL_NON_CAPTURE_MOVE")
    );
    assert!(bob.awaited() && !alice.awaited());
    t.play(&bob, "F5", "E4").await;
    assert_eq!(fields(&alice.one()), (MOVE, "F5", "E4", ""));
    assert_eq!(t.room.info().moves, ["A2-A3", "F5-E4"]);
}

#[tokio::test(start_paused = true)]
async fn an_illegal_move_is_forwarded_and_its_sender_loses() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&alice, "A2", "A4").await;
    let heard = bob.heard();
    assert_eq!(fields(&heard[0]), (MOVE, "A2", "A4", END_MARKER));
    let expected = end(
        Some(MoveReason::IllegalNonCaptureMove),
        EndReason::IllegalMove,
        Winner::Second,
    );
    assert_eq!(end_of(&heard[1]), expected);
    assert_eq!(end_of(&alice.one()), expected);
    let game = &t.store.games()[0];
    assert_eq!(game.end_reason.as_deref(), Some("ILLIGAL_MOVE"));
    assert_eq!(game.winner, Some(Winner::Second));
    assert_eq!(game.record.as_deref(), Some("A2-A4 I#"));
    assert_eq!(t.status(), "over");
}

#[tokio::test(start_paused = true)]
async fn a_move_out_of_turn_loses_for_its_sender() {
    let (mut t, mut alice, mut bob) = started().await;
    t.play(&bob, "F5", "E4").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (MOVE, "F5", "E4", END_MARKER));
    let expected = end(
        Some(MoveReason::NotPlayerTurn),
        EndReason::IllegalMove,
        Winner::First,
    );
    assert_eq!(end_of(&heard[1]), expected);
    assert_eq!(end_of(&bob.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn moves_from_spectators_and_after_the_end_are_ignored() {
    let (mut t, mut alice, mut bob) = started().await;
    let carol = Client::new(3, "carol");
    t.play(&carol, "A2", "A3").await;
    alice.silent();
    bob.silent();
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.play(&bob, "F5", "E4").await;
    alice.silent();
    assert!(t.store.games()[0].moves.is_empty());
}

#[tokio::test(start_paused = true)]
async fn the_side_to_move_loses_when_its_time_runs_out() {
    let (mut t, mut alice, mut bob) = started().await;
    t.advance(MOVE_TIME - MS).await;
    alice.silent();
    t.advance(MS).await;
    let expected = end(None, EndReason::Timeout, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
    assert_eq!(t.store.games()[0].end_reason.as_deref(), Some("TIMEOUT"));
}

#[tokio::test(start_paused = true)]
async fn each_move_gives_the_opponent_a_full_move_time() {
    let (mut t, mut alice, mut bob) = started().await;
    t.advance(MOVE_TIME - 100 * MS).await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    t.advance(MOVE_TIME - MS).await;
    bob.silent();
    t.advance(MS).await;
    assert_eq!(
        end_of(&alice.one()),
        end(None, EndReason::Timeout, Winner::First)
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_clock_runs_down_for_the_side_to_move_and_credits_the_increment() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    let clocked = || Requested {
        clock: Some(GameClock {
            initial_ms: 10_000,
            increment_ms: 1_000,
        }),
        ..t.request("surakarta", &[])
    };
    let (first, second) = (clocked(), clocked());
    t.ready_with(&alice, Some(Side::First), first, None).await;
    t.ready_with(&bob, Some(Side::Second), second, None).await;
    assert_eq!(alice.one().extra_u64("clock_ms"), Some(Ok(10_000)));
    bob.one();
    t.advance(Duration::from_secs(2)).await;
    assert_eq!(t.room.info().clocks, Some([8_000, 10_000]));
    t.play(&alice, "A2", "A3").await;
    let forwarded = bob.one();
    assert_eq!(
        forwarded.extra["clocks"],
        serde_json::json!([9_000, 10_000])
    );
    // Bob's ten seconds, not the three of a move.
    t.advance(Duration::from_secs(9)).await;
    bob.silent();
    t.advance(Duration::from_secs(1)).await;
    assert_eq!(
        end_of(&bob.one()),
        end(None, EndReason::Timeout, Winner::First)
    );
}

#[tokio::test(start_paused = true)]
async fn resigning_counts_only_on_ones_own_turn() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&bob, RESIGN, "", "").await;
    alice.silent();
    bob.silent();
    t.send(&alice, RESIGN, "", "").await;
    let expected = end(None, EndReason::Resign, Winner::Second);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
    assert_eq!(t.store.games()[0].record.as_deref(), Some("R#"));
}

#[tokio::test(start_paused = true)]
async fn a_game_drawn_by_the_no_capture_rule_has_no_winner() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    let quick = || t.request("surakarta", &[("max_no_capture_round", 1)]);
    let (first, second) = (quick(), quick());
    t.ready_with(&alice, Some(Side::First), first, None).await;
    t.ready_with(&bob, Some(Side::Second), second, None).await;
    alice.one();
    bob.one();
    let quiet = [("A2", "A3"), ("F5", "F4"), ("B2", "B3"), ("E5", "E4")];
    for (i, (from, to)) in quiet.iter().enumerate() {
        let mover = if i % 2 == 0 { &alice } else { &bob };
        t.play(mover, from, to).await;
        if t.status() == "over" {
            break;
        }
    }
    let last = alice.heard().pop().unwrap();
    assert_eq!(
        end_of(&last),
        end(
            Some(MoveReason::LegalNonCaptureMove),
            EndReason::Stalemate,
            Winner::Nobody
        )
    );
    assert_eq!(t.store.games()[0].winner, Some(Winner::Nobody));
}

#[tokio::test(start_paused = true)]
async fn both_ready_again_after_the_end_is_a_rematch_in_the_same_room() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.ready(&bob, None).await;
    bob.silent();
    t.ready(&alice, None).await;
    assert_eq!(fields(&bob.one()), (READY, "alice", "BLACK", "1"));
    assert_eq!(fields(&alice.one()), (READY, "bob", "WHITE", "1"));
    assert_eq!(t.store.games().len(), 2);
    assert!(t.room.info().moves.is_empty());
    t.play(&bob, "A2", "A3").await;
    assert_eq!(alice.one().op, MOVE);
}

#[tokio::test(start_paused = true)]
async fn seats_are_freed_when_nobody_asks_for_a_rematch_in_time() {
    let (mut t, mut alice, mut bob) = started().await;
    t.send(&alice, RESIGN, "", "").await;
    alice.one();
    bob.one();
    t.advance(REMATCH - MS).await;
    assert!(alice.seated() && bob.seated());
    t.advance(MS).await;
    assert!(!alice.seated() && !bob.seated());
    assert_eq!(fields(&bob.one()), (LEAVE, "alice", "left the room", ""));
    assert!(t.room.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_lone_player_loses_its_seat_after_waiting_too_long() {
    let mut t = Table::new();
    let alice = Client::new(1, "alice");
    t.ready(&alice, None).await;
    t.advance(WAIT - MS).await;
    assert!(alice.seated());
    t.advance(MS).await;
    assert!(!alice.seated());
    assert!(t.room.is_empty());
}

#[tokio::test(start_paused = true)]
async fn chat_goes_to_the_others_with_the_senders_name() {
    let (mut t, mut alice, mut bob) = started().await;
    let mut carol = Client::new(3, "carol");
    t.send(&carol, WATCH, "1", "").await;
    carol.one();
    t.send(&alice, CHAT, "", "good luck").await;
    assert_eq!(fields(&bob.one()), (CHAT, "alice", "good luck", ""));
    assert_eq!(fields(&carol.one()), (CHAT, "alice", "good luck", ""));
    alice.silent();
    // Spectators do not talk to the players.
    t.send(&carol, CHAT, "", "psst").await;
    bob.silent();
    let long = "é".repeat(3000);
    t.send(&bob, CHAT, "", &long).await;
    let cut = alice.one().data2;
    assert!(
        cut.len() <= 4096 + '…'.len_utf8() && cut.ends_with('…'),
        "{}",
        cut.len()
    );
}

#[tokio::test(start_paused = true)]
async fn a_spectator_sees_the_state_then_every_move_and_the_end() {
    let (mut t, alice, bob) = started().await;
    t.play(&alice, "A2", "A3").await;
    let mut carol = Client::new(3, "carol");
    t.send(&carol, WATCH, "1", "").await;
    let state = carol.one();
    assert_eq!(fields(&state).0, STATE);
    let info: serde_json::Value = serde_json::from_str(&state.data1).unwrap();
    assert_eq!(info["status"], "playing");
    assert_eq!(info["moves"], serde_json::json!(["A2-A3"]));
    t.play(&bob, "F5", "E4").await;
    assert_eq!(fields(&carol.one()), (MOVE, "F5", "E4", ""));
    t.send(&alice, RESIGN, "", "").await;
    assert_eq!(carol.one().op, END);
    t.room.step(RoomEvent::Unwatch { conn: 3 }).await;
    t.send(&alice, CHAT, "", "gg").await;
    carol.silent();
}

#[tokio::test(start_paused = true)]
async fn leaving_or_disconnecting_during_a_game_is_a_resignation() {
    let (mut t, mut alice, bob) = started().await;
    t.send(&bob, LEAVE, "bob", "bye").await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (LEAVE, "bob", "bye", ""));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Resign, Winner::First)
    );
    assert!(!bob.seated());

    let (mut t, mut alice, bob) = started().await;
    t.close(&bob).await;
    let heard = alice.heard();
    assert_eq!(fields(&heard[0]), (LEAVE, "bob", "disconnected", ""));
    assert_eq!(
        end_of(&heard[1]),
        end(None, EndReason::Resign, Winner::First)
    );
}

/// Alice and Bob, pages with seat tokens, in a started game.
async fn started_with_tokens() -> (Table, Client, Client) {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::page(1, "alice"), Client::page(2, "bob"));
    // Moves long enough that only the seat's grace can run out.
    let request = Requested {
        timeout_ms: Some(60_000),
        ..t.request("surakarta", &[])
    };
    t.ready_with(
        &alice,
        Some(Side::First),
        request.clone(),
        Some("alice-token"),
    )
    .await;
    t.ready_with(&bob, Some(Side::Second), request, Some("bob-token-1"))
        .await;
    alice.one();
    bob.one();
    (t, alice, bob)
}

#[tokio::test(start_paused = true)]
async fn a_player_with_a_token_keeps_its_seat_and_comes_back_to_its_game() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.close(&bob).await;
    assert_eq!(fields(&alice.one()), (NOTICE, "away", "bob", "30"));
    assert_eq!(t.room.info().away, ["bob"]);
    assert_eq!(t.status(), "playing");
    let mut again = Client::page(3, "bob");
    let request = t.request("surakarta", &[]);
    t.ready_with(&again, None, request, Some("bob-token-1"))
        .await;
    let heard = again.heard();
    assert_eq!(fields(&heard[0]), (READY, "alice", "WHITE", "1"));
    let state: serde_json::Value = serde_json::from_str(&heard[1].data1).unwrap();
    assert_eq!(state["moves"], serde_json::json!(["A2-A3"]));
    assert_eq!(fields(&alice.one()), (NOTICE, "back", "bob", "0"));
    assert!(again.awaited() && again.seated());
    t.play(&again, "F5", "E4").await;
    assert_eq!(fields(&alice.one()), (MOVE, "F5", "E4", ""));
}

#[tokio::test(start_paused = true)]
async fn a_player_who_does_not_come_back_in_time_has_resigned() {
    let (mut t, mut alice, bob) = started_with_tokens().await;
    t.play(&alice, "A2", "A3").await;
    t.close(&bob).await;
    alice.one();
    t.advance(GRACE - MS).await;
    alice.silent();
    t.advance(MS).await;
    let heard = alice.heard();
    assert_eq!(
        end_of(&heard[0]),
        end(None, EndReason::Resign, Winner::First)
    );
    assert_eq!(fields(&heard[1]), (LEAVE, "bob", "left the room", ""));
    assert!(t.room.info().away.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_move_the_store_refuses_is_never_forwarded_and_the_game_is_interrupted() {
    let (mut t, mut alice, mut bob) = started().await;
    t.store.failing.store(true, Ordering::Relaxed);
    t.play(&alice, "A2", "A3").await;
    let to_bob = bob.one();
    assert_eq!(
        end_of(&to_bob),
        end(None, EndReason::Interrupted, Winner::Nobody)
    );
    assert_eq!(
        to_bob.extra_str("error"),
        Some("the server could not store move 1")
    );
    assert_eq!(to_bob.extra_u64("plies"), Some(Ok(0)));
    assert_eq!(alice.one().op, END);
}

#[tokio::test(start_paused = true)]
async fn a_game_the_store_cannot_start_is_refused_to_both_players() {
    let mut t = Table::new();
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, None).await;
    t.store.failing.store(true, Ordering::Relaxed);
    t.ready(&bob, None).await;
    for c in [&mut alice, &mut bob] {
        let refused = c.one();
        assert_eq!(refused.op, REJECT);
        assert_eq!(refused.data2, "the server cannot store games right now");
    }
    assert_eq!(t.status(), "waiting");
}

#[tokio::test(start_paused = true)]
async fn shutting_down_interrupts_a_running_game() {
    let (mut t, mut alice, mut bob) = started().await;
    let (done, finished) = oneshot::channel();
    t.room.step(RoomEvent::Shutdown { done }).await;
    finished.await.unwrap();
    let expected = end(None, EndReason::Interrupted, Winner::Nobody);
    assert_eq!(end_of(&alice.one()), expected);
    assert_eq!(end_of(&bob.one()), expected);
}

#[tokio::test(start_paused = true)]
async fn a_player_whose_connection_cannot_take_messages_leaves_the_game() {
    let (mut t, mut alice, bob) = started().await;
    bob.peer.outbox.close();
    t.play(&alice, "A2", "A3").await;
    let heard = alice.heard();
    assert_eq!(
        end_of(heard.last().unwrap()),
        end(None, EndReason::Resign, Winner::First)
    );
}
