//! A room: up to two players and any number of spectators, one game at a time, run as its own
//! task so rooms never wait on each other.
//!
//! Deadlines: the clock of the running game; a member waiting for an opponent keeps its seat for
//! `wait_timeout`, and after a game for `rematch_window` unless it asks for a rematch — then the
//! seat is freed, so silent or frozen clients cannot hold rooms forever.

use std::collections::HashMap;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::Duration;

use arbiter_core::Side;
use tokio::sync::mpsc;
use tokio::time::Instant;

mod chat;
mod clock;
mod game;
mod names;
mod offers;
mod reach;
mod rematch;
mod restore;
mod seats;
mod show;
#[cfg(test)]
mod tests;

use super::event::{log_command, send, ConnId, Peer, RoomEvent};
use super::guard::SeatClaim;
use super::RoomContext;
use crate::games::{GameSettings, Match};
use crate::protocol::{self, Message};
use clock::{Expiry, GameClocks};
pub use restore::{RestoreError, RestoredGame};

struct Member {
    peer: Peer,
    name: String,
    colour: Option<Side>,
    ready: bool,
    order: u64,
    settings: GameSettings,
    /// The side played in the current or last game.
    side: Option<Side>,
    /// When the member loses its seat unless something happens first.
    evict_at: Option<Instant>,
    token: Option<String>,
    /// The seat counted against the address that took it (see [`super::guard`]).
    _claim: Option<SeatClaim>,
    /// Its connection dropped during a game; the seat is held until `evict_at`.
    away: bool,
}

struct Running {
    game: Match,
    id: i64,
    /// Connection of the first and second player.
    players: [ConnId; 2],
    names: [String; 2],
    /// Every second the game charges or forgives goes through here.
    clock: GameClocks,
    offers: offers::Offers,
}

impl Running {
    /// The game clocks now, in milliseconds, the running one counted down.
    fn clocks_now(&self) -> Option<[u64; 2]> {
        self.clock.shown_ms(Instant::now())
    }

    /// What the side to move has left now for its move, in milliseconds, while the game runs.
    fn turn_left_ms(&self) -> Option<u64> {
        (!self.game.is_over()).then(|| self.clock.turn_left_ms(Instant::now()))
    }

    /// While the side to act plays its first move off the clock (a page's): what it has left
    /// for it, in milliseconds.
    fn first_move_ms(&self) -> Option<u64> {
        let side = self.game.to_move();
        let pending = !self.game.is_over() && self.clock.first_move_pending(side);
        pending.then(|| self.clock.turn_left_ms(Instant::now()))
    }

    /// A move arrived now: the mover's time stops (charged when it was its turn; the other
    /// side's starts once it is told). The clocks as they were, for a move the store refuses.
    fn move_arrived(&mut self, in_turn: bool) -> GameClocks {
        let arrived = Instant::now();
        let mut before = self.clock.clone();
        before.pause(arrived);
        if in_turn {
            self.clock.moved(arrived);
        } else {
            self.clock.pause(arrived);
        }
        before
    }

    /// When the side to act runs out of time (and what that means), while the game runs.
    fn deadline(&self) -> Option<(Instant, Expiry)> {
        self.clock.deadline().filter(|_| !self.game.is_over())
    }
}

pub(in crate::rooms) struct Room {
    id: u32,
    ctx: Arc<RoomContext>,
    members: Vec<Member>,
    spectators: HashMap<ConnId, Peer>,
    running: Option<Running>,
    ready_counter: u64,
    /// Connections that could not take a message: dropped after the current event.
    broken: Vec<ConnId>,
    /// The running game was taken over from a node that stopped: players who come back hear so.
    restored: bool,
    /// Players whose node the owner cannot hear ([`RoomEvent::Reach`]): their time stands.
    out_of_reach: std::collections::HashSet<ConnId>,
}

impl Room {
    /// An empty room.
    pub(in crate::rooms) fn new(id: u32, ctx: Arc<RoomContext>) -> Room {
        Room {
            id,
            ctx,
            members: Vec::new(),
            spectators: HashMap::new(),
            running: None,
            ready_counter: 0,
            broken: Vec::new(),
            restored: false,
            out_of_reach: Default::default(),
        }
    }

    /// The room with spectators that watched it before it started.
    pub(in crate::rooms) fn with_spectators(mut self, peers: Vec<Peer>) -> Room {
        self.spectators.extend(peers.into_iter().map(|p| (p.id, p)));
        self
    }

    /// The room's task: the state machine fed with its messages and woken at its deadlines,
    /// until it is empty and forgotten by the hub.
    pub(in crate::rooms) async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<RoomEvent>,
        me: mpsc::WeakUnboundedSender<RoomEvent>,
    ) {
        self.settle().await;
        loop {
            let wake = self.next_deadline();
            let event = tokio::select! {
                event = rx.recv() => event,
                _ = async { tokio::time::sleep_until(wake.expect("guarded")).await }, if wake.is_some() => {
                    self.tick().await;
                    continue;
                }
            };
            // None: the hub dropped the room (a cluster node gave it to another).
            let Some(event) = event else { break };
            self.step(event).await;
            if self.is_empty() && self.ctx.hub.try_forget(self.id, &me, &rx) {
                break;
            }
        }
    }

    /// One message, and the connections it found broken dropped: a transition of the state
    /// machine, with no sockets involved (tests drive the room with this).
    async fn step(&mut self, event: RoomEvent) {
        self.handle(event).await;
        self.drop_broken().await;
    }

    /// What is due by now on the room's clock (a move's time, a seat's), done.
    async fn tick(&mut self) {
        self.on_deadline().await;
        self.drop_broken().await;
    }

    fn is_empty(&self) -> bool {
        self.members.is_empty() && self.spectators.is_empty()
    }

    /// The clock of the running game or the first seat to expire, whichever comes first.
    fn next_deadline(&self) -> Option<Instant> {
        let clock = self
            .running
            .as_ref()
            .and_then(Running::deadline)
            .map(|d| d.0);
        let seats = self.members.iter().filter_map(|m| m.evict_at);
        clock.into_iter().chain(seats).min()
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        let due = self.running.as_ref().and_then(Running::deadline);
        if let Some((_, expiry)) = due.filter(|(at, _)| *at <= now) {
            self.time_up(expiry).await;
        }
        while let Some(i) = self
            .members
            .iter()
            .position(|m| m.evict_at.is_some_and(|t| t <= now))
        {
            self.evict(i).await;
        }
    }

    fn move_no(&self) -> Option<usize> {
        self.running.as_ref().map(|r| r.game.moves.len())
    }

    fn send_to(&mut self, peer: &Peer, m: Message) {
        if !send(peer, m, self.move_no()) {
            self.broken.push(peer.id);
        }
    }

    /// Sends to every spectator that is not also a member (members get their own copy).
    fn tell_spectators(&mut self, m: &Message) {
        let peers: Vec<Peer> = self
            .spectators
            .values()
            .filter(|p| self.member(p.id).is_none())
            .cloned()
            .collect();
        for peer in peers {
            self.send_to(&peer, m.clone());
        }
    }

    fn member(&self, conn: ConnId) -> Option<usize> {
        self.members.iter().position(|m| m.peer.id == conn)
    }

    async fn handle(&mut self, event: RoomEvent) {
        let move_no = self.move_no();
        match event {
            RoomEvent::Ready { peer, ready } => {
                log_command(move_no, &peer.addr, &ready.sent);
                self.on_ready(peer, ready).await;
            }
            RoomEvent::Move { peer, mv, ply } => {
                log_command(move_no, &peer.addr, &mv);
                self.play(&peer, &mv.from, &mv.to, ply).await;
            }
            RoomEvent::Resign { peer, resign } => {
                log_command(move_no, &peer.addr, &resign);
                self.resign(&peer).await;
            }
            RoomEvent::Chat { peer, chat } => {
                log_command(move_no, &peer.addr, &chat);
                self.chat(&peer, &chat);
            }
            RoomEvent::Offer { peer, offer } => {
                log_command(move_no, &peer.addr, &offer);
                self.offer(&peer, &offer).await;
            }
            RoomEvent::Leave { peer, leave } => {
                if let Some(leave) = &leave {
                    log_command(move_no, &peer.addr, leave);
                }
                self.leave(peer.id, leave).await;
            }
            RoomEvent::Watch { peer, watch } => {
                log_command(move_no, &peer.addr, &watch);
                let snapshot = self.snapshot();
                self.spectators.insert(peer.id, peer.clone());
                self.send_to(&peer, snapshot);
            }
            RoomEvent::Unwatch { conn } => {
                self.spectators.remove(&conn);
            }
            RoomEvent::Reach {
                conn,
                unheard_since,
            } => self.reach(conn, unheard_since),
            RoomEvent::Info { reply } => {
                let _ = reply.send(self.info());
            }
            RoomEvent::Shutdown { done } => {
                if self.running.as_ref().is_some_and(|r| !r.game.is_over()) {
                    self.interrupt("the server is shutting down").await;
                }
                self.flush_everyone().await;
                let _ = done.send(());
            }
        }
    }

    /// Waits (a bounded time) until every member and spectator has been written what was
    /// queued for them, so a stopping server does not end before its END messages leave.
    async fn flush_everyone(&self) {
        const LONGEST_FLUSH: Duration = Duration::from_secs(2);
        let peers = self.members.iter().map(|m| &m.peer);
        let everyone = peers.chain(self.spectators.values());
        let flushed = futures_util::future::join_all(everyone.map(|p| p.outbox.flushed()));
        if tokio::time::timeout(LONGEST_FLUSH, flushed).await.is_err() {
            tracing::warn!("a client of a stopping room did not read its last messages");
        }
    }

    async fn drop_broken(&mut self) {
        while let Some(conn) = self.broken.pop() {
            if let Some(peer) = self.spectators.remove(&conn) {
                peer.outbox.close();
            }
            if let Some(i) = self.member(conn) {
                self.members[i].peer.outbox.close();
                self.leave(conn, None).await;
            }
        }
    }

    fn reject(&mut self, peer: &Peer, name: &str, reason: &str) {
        let m = Message::new(protocol::REJECT, name, reason, "");
        self.send_to(peer, m);
    }

    /// Tells the extension clients in the room (players and spectators) that a player's
    /// connection dropped (`away`, with the seconds its seat is held) or came back.
    fn notice(&mut self, what: &str, name: &str, seconds: u64) {
        let m = Message::new(protocol::NOTICE, what, name, seconds.to_string());
        let peers: Vec<Peer> = self
            .members
            .iter()
            .map(|m| m.peer.clone())
            .chain(self.spectators.values().cloned())
            .filter(|p| p.extension.load(AtomicOrdering::Relaxed) && !p.outbox.is_closed())
            .collect();
        for peer in peers {
            self.send_to(&peer, m.clone());
        }
    }

    /// Flags the player whose move the running game waits for, and only that one.
    fn mark_awaited(&self) {
        let to_move = self
            .running
            .as_ref()
            .filter(|r| !r.game.is_over())
            .map(|r| r.game.to_move());
        for m in &self.members {
            let awaited = to_move.is_some() && m.side == to_move;
            m.peer.awaited.store(awaited, AtomicOrdering::Relaxed);
        }
    }

    fn opponent_of(&self, conn: ConnId) -> Option<Peer> {
        self.members
            .iter()
            .find(|m| m.peer.id != conn)
            .map(|m| m.peer.clone())
    }
}
