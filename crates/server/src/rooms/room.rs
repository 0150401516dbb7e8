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

use arbiter_core::{EndReason, MoveReason, Side};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::event::{log_message, send, ConnId, Peer, RoomEvent};
use super::{Refusal, RoomContext, RoomInfo, RoomPlayer};
use crate::games::{GameSettings, Match, Requested};
use crate::protocol::{self, Message, Winner};
use crate::storage::{GameEnd, NewGame, PlayedMove, StorageError};

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
    /// Its connection dropped during a game; the seat is held until `evict_at`.
    away: bool,
}

struct Running {
    game: Match,
    id: i64,
    /// Connection of the first and second player.
    players: [ConnId; 2],
    names: [String; 2],
    deadline: Option<Instant>,
    /// With a game clock: what each side has left when its turn starts, and when the turn
    /// of the side to move started.
    clocks: Option<[Duration; 2]>,
    turn_started: Instant,
}

impl Running {
    /// The clocks now, in milliseconds, the running one counted down.
    fn clocks_now(&self) -> Option<[u64; 2]> {
        let mut left = self.clocks?;
        if !self.game.is_over() {
            let side = self.game.to_move().index();
            left[side] = left[side].saturating_sub(self.turn_started.elapsed());
        }
        Some(left.map(|d| d.as_millis() as u64))
    }

    /// When the side to move runs out of time.
    fn turn_deadline(&self) -> Instant {
        let allowed = match self.clocks {
            Some(left) => left[self.game.to_move().index()],
            None => Duration::from_millis(self.game.settings.timeout_ms),
        };
        self.turn_started + allowed
    }

    /// The mover's move arrived now: its clock is charged and credited the increment.
    fn charge_mover(&mut self, mover: Side) {
        let now = Instant::now();
        if let (Some(clocks), Some(clock)) = (self.clocks.as_mut(), self.game.settings.clock) {
            let left = clocks[mover.index()].saturating_sub(now - self.turn_started);
            clocks[mover.index()] = left + Duration::from_millis(clock.increment_ms);
        }
        self.turn_started = now;
    }
}

pub(super) struct Room {
    id: u32,
    ctx: Arc<RoomContext>,
    members: Vec<Member>,
    spectators: HashMap<ConnId, Peer>,
    running: Option<Running>,
    ready_counter: u64,
    /// Connections that could not take a message: dropped after the current event.
    broken: Vec<ConnId>,
}

/// How often a move the database refused is tried again before the game is given up.
const STORE_ATTEMPTS: u32 = 3;

impl Room {
    /// An empty room.
    pub(super) fn new(id: u32, ctx: Arc<RoomContext>) -> Room {
        Room {
            id,
            ctx,
            members: Vec::new(),
            spectators: HashMap::new(),
            running: None,
            ready_counter: 0,
            broken: Vec::new(),
        }
    }

    pub(super) async fn run(
        mut self,
        mut rx: mpsc::UnboundedReceiver<RoomEvent>,
        me: mpsc::WeakUnboundedSender<RoomEvent>,
    ) {
        loop {
            let wake = self.next_deadline();
            let event = tokio::select! {
                event = rx.recv() => event,
                _ = async { tokio::time::sleep_until(wake.expect("guarded")).await }, if wake.is_some() => {
                    self.on_deadline().await;
                    self.drop_broken().await;
                    continue;
                }
            };
            let Some(event) = event else { break };
            self.handle(event).await;
            self.drop_broken().await;
            let empty = self.members.is_empty() && self.spectators.is_empty();
            if empty && self.ctx.hub.try_forget(self.id, &me, &rx) {
                break;
            }
        }
    }

    /// The clock of the running game or the first seat to expire, whichever comes first.
    fn next_deadline(&self) -> Option<Instant> {
        let clock = self.running.as_ref().and_then(|r| r.deadline);
        let seats = self.members.iter().filter_map(|m| m.evict_at);
        clock.into_iter().chain(seats).min()
    }

    async fn on_deadline(&mut self) {
        let now = Instant::now();
        if self
            .running
            .as_ref()
            .and_then(|r| r.deadline)
            .is_some_and(|d| d <= now)
        {
            self.time_out().await;
        }
        while let Some(i) = self
            .members
            .iter()
            .position(|m| m.evict_at.is_some_and(|t| t <= now))
        {
            self.evict(i).await;
        }
    }

    /// Frees a seat whose time ran out; the other member hears of it. A player who did not
    /// come back to a running game has left it: that is a resignation.
    async fn evict(&mut self, i: usize) {
        let quit_game =
            self.members[i].away && self.running.as_ref().is_some_and(|r| !r.game.is_over());
        if let Some(side) = self.members[i].side.filter(|_| quit_game) {
            self.finish(EndReason::Resign, Some(side.opponent()), None, None)
                .await;
        }
        let member = self.members.remove(i);
        tracing::info!(
            "room {}: {} ({}) lost its seat after waiting",
            self.id,
            member.name,
            member.peer.addr
        );
        member.peer.seated.store(false, AtomicOrdering::Relaxed);
        member.peer.changed.notify_one();
        if let Some(other) = self.members.first().map(|m| m.peer.clone()) {
            let note = Message::new(protocol::LEAVE, member.name, "left the room", "");
            self.send_to(&other, note);
        }
        if self.members.is_empty() {
            self.running = None;
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
        match event {
            RoomEvent::Ready {
                peer,
                message,
                name,
                colour,
                request,
                token,
            } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                let returning = token.as_ref().and_then(|t| {
                    self.members
                        .iter()
                        .position(|m| m.token.as_ref() == Some(t))
                });
                match returning {
                    Some(i) => self.resume(i, peer, name, colour, request).await,
                    None => self.ready(peer, name, colour, request, token).await,
                }
            }
            RoomEvent::Move { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                self.play(&peer, &message.data1, &message.data2).await;
            }
            RoomEvent::Resign { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                self.resign(&peer).await;
            }
            RoomEvent::Chat { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                self.chat(&peer, &message);
            }
            RoomEvent::Leave { peer, message } => {
                if let Some(m) = &message {
                    log_message(self.move_no(), "recv", &peer.addr, m);
                }
                self.leave(peer.id, message).await;
            }
            RoomEvent::Watch { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                let snapshot = self.snapshot();
                self.spectators.insert(peer.id, peer.clone());
                self.send_to(&peer, snapshot);
            }
            RoomEvent::Unwatch { conn } => {
                self.spectators.remove(&conn);
            }
            RoomEvent::Info { reply } => {
                let _ = reply.send(self.info());
            }
            RoomEvent::Shutdown { done } => {
                if self.running.as_ref().is_some_and(|r| !r.game.is_over()) {
                    self.interrupt("the server is shutting down").await;
                }
                let _ = done.send(());
            }
        }
    }

    async fn resign(&mut self, peer: &Peer) {
        let turn = self.running.as_ref().and_then(|r| {
            let side = r.game.to_move();
            (r.players[side.index()] == peer.id && !r.game.is_over()).then_some(side)
        });
        if let Some(side) = turn {
            self.finish(EndReason::Resign, Some(side.opponent()), None, None)
                .await;
        }
    }

    /// Relays chat from a member to the other member and the spectators (cut to a sane length).
    fn chat(&mut self, peer: &Peer, message: &Message) {
        const LONGEST_CHAT: usize = 4096;
        let Some(i) = self.member(peer.id) else {
            return;
        };
        let mut text = message.data2.clone();
        if text.len() > LONGEST_CHAT {
            let mut cut = LONGEST_CHAT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push('…');
        }
        let relay = Message::new(protocol::CHAT, self.members[i].name.clone(), text, "");
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

    async fn ready(
        &mut self,
        peer: Peer,
        name: String,
        colour: Option<Side>,
        request: Requested,
        token: Option<String>,
    ) {
        let settings = match self.refusal(&peer, colour, &request) {
            Ok(settings) => settings,
            Err(refusal) => {
                // A member's READY during its own game is a client's slip, not worth an answer.
                if self.member(peer.id).is_none() || refusal != Refusal::Playing {
                    self.reject(&peer, &name, &refusal.to_string());
                }
                return;
            }
        };
        self.ready_counter += 1;
        let order = self.ready_counter;
        let evict_at = Some(Instant::now() + self.ctx.setup.seats.wait_timeout);
        peer.seated.store(true, AtomicOrdering::Relaxed);
        match self.member(peer.id) {
            Some(i) => {
                let m = &mut self.members[i];
                m.name = name;
                m.colour = colour;
                m.ready = true;
                m.order = order;
                m.settings = settings;
                m.evict_at = evict_at;
                m.token = token.or(m.token.take());
            }
            None => self.members.push(Member {
                peer,
                name,
                colour,
                ready: true,
                order,
                settings,
                side: None,
                evict_at,
                token,
                away: false,
            }),
        }
        if self.members.len() == 2 && self.members.iter().all(|m| m.ready) {
            self.start().await;
        }
    }

    /// The settings a READY gets here, or why it cannot be taken.
    fn refusal(
        &self,
        peer: &Peer,
        colour: Option<Side>,
        request: &Requested,
    ) -> Result<GameSettings, Refusal> {
        if self.running.as_ref().is_some_and(|r| !r.game.is_over()) {
            return Err(Refusal::Playing);
        }
        if self.ctx.hub.is_closing() {
            return Err(Refusal::ShuttingDown);
        }
        if self.member(peer.id).is_none() && self.members.len() >= 2 {
            return Err(Refusal::Full);
        }
        let Some(other) = self
            .members
            .iter()
            .find(|m| m.peer.id != peer.id && m.ready)
        else {
            return Ok(request.fresh(&self.ctx.setup.defaults)?);
        };
        let settings = request.join(&other.settings)?;
        if colour.is_some() && other.colour == colour {
            return Err(Refusal::ColourTaken);
        }
        Ok(settings)
    }

    /// A member comes back with its seat token (a reloaded page, a new connection): it takes
    /// its seat again and, in a running game, hears the game so far.
    async fn resume(
        &mut self,
        i: usize,
        peer: Peer,
        name: String,
        colour: Option<Side>,
        request: Requested,
    ) {
        let old = std::mem::replace(&mut self.members[i].peer, peer.clone());
        if old.id != peer.id {
            old.outbox.close();
        }
        peer.seated.store(true, AtomicOrdering::Relaxed);
        let was_away = std::mem::replace(&mut self.members[i].away, false);
        let in_game = self.running.as_ref().is_some_and(|r| !r.game.is_over())
            && self.members[i].side.is_some();
        if !in_game {
            let token = self.members[i].token.clone();
            self.ready(peer, name, colour, request, token).await;
            return;
        }
        tracing::info!(
            "room {}: {} came back ({})",
            self.id,
            self.members[i].name,
            peer.addr
        );
        self.members[i].evict_at = None;
        let side = self.members[i].side.expect("a player");
        if let Some(running) = self.running.as_mut() {
            running.players[side.index()] = peer.id;
        }
        self.mark_awaited();
        let opponent = self
            .members
            .iter()
            .find(|m| m.peer.id != peer.id)
            .map(|m| m.name.clone());
        let settings = self
            .running
            .as_ref()
            .expect("in game")
            .game
            .settings
            .clone();
        let ready = ready_message(&settings, &opponent.unwrap_or_default(), side, self.id);
        self.send_to(&peer, ready);
        let snapshot = self.snapshot();
        self.send_to(&peer, snapshot);
        if was_away {
            let name = self.members[i].name.clone();
            self.notice("back", &name, 0);
        }
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

    async fn start(&mut self) {
        // Requested colours are honoured; with none, the first to be ready plays first.
        let (a, b) = if self.members[0].order < self.members[1].order {
            (0, 1)
        } else {
            (1, 0)
        };
        let first = match (self.members[a].colour, self.members[b].colour) {
            (Some(Side::First), _) | (None, Some(Side::Second)) | (None, None) => a,
            _ => b,
        };
        let second = 1 - first;
        let settings = self.members[first].settings.clone();
        let names = [
            self.members[first].name.clone(),
            self.members[second].name.clone(),
        ];
        let settings_json = serde_json::to_string(&settings).expect("settings serialise");
        let new_game = NewGame {
            room: self.id,
            game: settings.game().id.to_string(),
            settings: settings_json,
            players: names.clone(),
            owner: None,
        };
        let stored = self.ctx.store.start_game(new_game).await;
        let id = match stored {
            Ok(id) => id,
            Err(e) => {
                tracing::error!("room {}: cannot store a new game: {e}", self.id);
                let peers: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
                for peer in peers {
                    self.reject(&peer, "", "the server cannot store games right now");
                }
                self.members.iter_mut().for_each(|m| m.ready = false);
                return;
            }
        };
        for (i, side) in [(first, Side::First), (second, Side::Second)] {
            let m = &mut self.members[i];
            m.side = Some(side);
            m.ready = false;
            m.evict_at = None;
        }
        let clocks = settings
            .clock
            .map(|c| [Duration::from_millis(c.initial_ms); 2]);
        let mut running = Running {
            game: self.ctx.registry.start(&settings),
            id,
            players: [self.members[first].peer.id, self.members[second].peer.id],
            names: names.clone(),
            deadline: None,
            clocks,
            turn_started: Instant::now(),
        };
        running.deadline = Some(running.turn_deadline());
        self.running = Some(running);
        // Before anyone hears of the game, so the first move can never race the flag.
        self.mark_awaited();
        for (me, opponent) in [(first, second), (second, first)] {
            let peer = self.members[me].peer.clone();
            let side = self.members[me].side.expect("just set");
            let m = ready_message(&settings, &self.members[opponent].name, side, self.id);
            self.send_to(&peer, m);
        }
        let snapshot = self.snapshot();
        self.tell_spectators(&snapshot);
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

    async fn play(&mut self, peer: &Peer, from: &str, to: &str) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        if running.game.is_over() {
            return;
        }
        let Some(side) = running
            .players
            .iter()
            .position(|&c| c == peer.id)
            .map(Side::from_index)
        else {
            return;
        };
        let verdict = running.game.play(from, to, side);
        running.charge_mover(side);
        let ply = running.game.moves.len();
        let (id, text) = (running.id, running.game.moves[ply - 1].clone());
        // Stored before anyone hears of it: a move the database refuses is never forwarded.
        if let Err(e) = self.store_move(id, ply, &text, verdict.reason).await {
            tracing::error!("room {}: move {ply} of game {id} not stored: {e}", self.id);
            if let Some(r) = self.running.as_mut() {
                r.game.moves.pop();
            }
            // The database's own words stay in the log.
            self.interrupt(&format!("the server could not store move {ply}"))
                .await;
            return;
        }
        // Before the move is forwarded, so the answer can never race the flag.
        self.mark_awaited();
        let marker = if verdict.end.is_some() {
            protocol::END_MARKER
        } else {
            ""
        };
        let mut forward = Message::new(protocol::MOVE, from, to, marker);
        // The extension: each side's clock after the move, for pages that show it.
        if let Some(clocks) = self.running.as_ref().and_then(Running::clocks_now) {
            forward
                .extra
                .insert("clocks".into(), clocks.to_vec().into());
        }
        if let Some(opponent) = self.opponent_of(peer.id) {
            self.send_to(&opponent, forward.clone());
        }
        self.tell_spectators(&forward);
        match verdict.end {
            Some((reason, winner)) => {
                self.finish(reason, winner, Some(verdict.reason), None)
                    .await
            }
            None => {
                let running = self.running.as_mut().expect("still running");
                running.deadline = Some(running.turn_deadline());
            }
        }
    }

    /// Stores a move, trying again a few times when the database is busy or failing.
    async fn store_move(
        &self,
        id: i64,
        ply: usize,
        text: &str,
        reason: MoveReason,
    ) -> Result<(), StorageError> {
        let mut attempt = 0;
        loop {
            let played = PlayedMove {
                game_id: id,
                ply,
                text: text.to_string(),
                reason: reason.name().to_string(),
            };
            match self.ctx.store.record_move(played).await {
                Ok(()) => return Ok(()),
                Err(e) if attempt + 1 >= STORE_ATTEMPTS => return Err(e),
                Err(e) => tracing::warn!("room {}: move {ply} not stored yet: {e}", self.id),
            }
            attempt += 1;
            tokio::time::sleep(Duration::from_millis(100 << (2 * attempt))).await;
        }
    }

    /// Ends the running game without a result: the server cannot go on with it.
    async fn interrupt(&mut self, why: &str) {
        self.finish(EndReason::Interrupted, None, None, Some(why))
            .await;
    }

    async fn time_out(&mut self) {
        let Some(running) = self.running.as_ref() else {
            return;
        };
        if running.game.is_over() {
            return;
        }
        let late = running.game.to_move();
        self.finish(EndReason::Timeout, Some(late.opponent()), None, None)
            .await;
    }

    /// Ends the running game: the end stored and the record written, then END to both players
    /// and the spectators (with the server's reason when `error` is set).
    async fn finish(
        &mut self,
        reason: EndReason,
        winner: Option<Side>,
        move_reason: Option<MoveReason>,
        error: Option<&str>,
    ) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        running.game.finish(reason, winner);
        running.deadline = None;
        let (id, record, plies) = (running.id, running.game.record(), running.game.moves.len());
        let winner = Winner::of(winner);
        self.mark_awaited();
        let rematch_until = Instant::now() + self.ctx.setup.seats.rematch_window;
        for m in &mut self.members {
            m.evict_at = Some(rematch_until);
        }
        let end = GameEnd {
            game_id: id,
            end_reason: reason.name().to_string(),
            winner,
            record: record.clone(),
        };
        if let Err(e) = self.ctx.store.end_game(end).await {
            tracing::error!("room {}: end of game {id} not stored: {e}", self.id);
        }
        self.write_records(id, &record).await;
        let mut end = Message::new(
            protocol::END,
            move_reason.map_or(String::new(), |r| r.code().to_string()),
            reason.code().to_string(),
            winner.wire(),
        );
        // The extension: how many moves the game counted, so a client whose last move arrived
        // after its clock ran out can drop it from its own record.
        end.extra.insert("plies".into(), plies.into());
        if let Some(error) = error {
            end.extra.insert("error".into(), error.into());
        }
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for peer in players {
            self.send_to(&peer, end.clone());
        }
        self.tell_spectators(&end);
    }

    /// The record files: no final newline, as the course's own programs write them.
    async fn write_records(&self, id: i64, record: &str) {
        let records = &self.ctx.setup.records;
        let mut targets = Vec::new();
        if let Some(dir) = &records.dir {
            targets.push(dir.join(format!("{id:06}-room{}.txt", self.id)));
            targets.push(dir.join("latest.txt"));
        }
        targets.extend(records.course_file.clone());
        for target in targets {
            if let Err(e) = tokio::fs::write(&target, record).await {
                tracing::error!("cannot write the record {}: {e}", target.display());
            }
        }
    }

    async fn leave(&mut self, conn: ConnId, message: Option<Message>) {
        self.spectators.remove(&conn);
        let Some(i) = self.member(conn) else { return };
        if self.members[i].away {
            return;
        }
        let in_game = self
            .running
            .as_ref()
            .is_some_and(|r| !r.game.is_over() && r.players.contains(&conn));
        if in_game && message.is_none() && self.members[i].token.is_some() {
            self.hold_seat(i);
            return;
        }
        let leaver = self.members.remove(i);
        leaver.peer.seated.store(false, AtomicOrdering::Relaxed);
        leaver.peer.changed.notify_one();
        if let Some(opponent) = self.members.first().map(|m| m.peer.clone()) {
            let reason = message
                .as_ref()
                .map_or("disconnected".to_string(), |m| m.data2.clone());
            let note = Message::new(protocol::LEAVE, leaver.name.clone(), reason, "");
            self.send_to(&opponent, note);
        }
        if in_game {
            let side = leaver.side.expect("players have sides");
            self.finish(EndReason::Resign, Some(side.opponent()), None, None)
                .await;
        }
        if self.members.is_empty() {
            self.running = None;
        }
    }

    /// A player with a seat token lost its connection mid-game: the seat waits for it (the
    /// clock runs on), and the others hear so.
    fn hold_seat(&mut self, i: usize) {
        let grace = self.ctx.setup.seats.seat_grace;
        let member = &mut self.members[i];
        member.away = true;
        member.evict_at = Some(Instant::now() + grace);
        member.peer.seated.store(false, AtomicOrdering::Relaxed);
        let name = member.name.clone();
        tracing::info!(
            "room {}: {name} lost its connection; its seat is held for {} s",
            self.id,
            grace.as_secs()
        );
        self.notice("away", &name, grace.as_secs());
    }

    fn snapshot(&self) -> Message {
        let info = self.info();
        let json = serde_json::to_string(&info).expect("room info serialises");
        Message::new(protocol::STATE, json, "", self.id.to_string())
    }

    fn info(&self) -> RoomInfo {
        let status = match &self.running {
            Some(r) if !r.game.is_over() => "playing",
            Some(_) => "over",
            None => "waiting",
        };
        let settings = self
            .running
            .as_ref()
            .map(|r| r.game.settings.clone())
            .or_else(|| self.members.first().map(|m| m.settings.clone()));
        let mut players: Vec<RoomPlayer> = self
            .members
            .iter()
            .map(|m| RoomPlayer {
                name: m.name.clone(),
                colour: m
                    .side
                    .zip(settings.as_ref())
                    .map(|(s, st)| st.colour_word(s).to_string()),
                ready: m.ready,
            })
            .collect();
        if let Some(r) = &self.running {
            // Players of the game first, in playing order, even after one has left.
            players.sort_by_key(|p| r.names.iter().position(|n| *n == p.name).unwrap_or(2));
        }
        RoomInfo {
            room: self.id,
            status,
            settings,
            players,
            moves: self
                .running
                .as_ref()
                .map(|r| r.game.moves.clone())
                .unwrap_or_default(),
            spectators: self.spectators.len(),
            game_id: self.running.as_ref().map(|r| r.id),
            clocks: self.running.as_ref().and_then(Running::clocks_now),
            away: self
                .members
                .iter()
                .filter(|m| m.away)
                .map(|m| m.name.clone())
                .collect(),
        }
    }
}

/// The READY that starts a game: the opponent, the colour, the room, and (the extension) the
/// game with every option by name, so a client never has to guess a setting.
fn ready_message(settings: &GameSettings, opponent: &str, side: Side, room: u32) -> Message {
    let mut m = Message::new(
        protocol::READY,
        opponent,
        settings.colour_word(side),
        room.to_string(),
    );
    m.extra.insert("game".into(), settings.game().id.into());
    for (name, value) in settings.options.pairs() {
        m.extra.insert(name.into(), value.into());
    }
    m.extra
        .insert("timeout_ms".into(), settings.timeout_ms.into());
    if let Some(clock) = settings.clock {
        m.extra.insert("clock_ms".into(), clock.initial_ms.into());
        m.extra
            .insert("increment_ms".into(), clock.increment_ms.into());
    }
    m
}
