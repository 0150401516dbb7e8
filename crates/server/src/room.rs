//! A room: up to two players and any number of spectators, one game at a time, run as its own
//! task so rooms never wait on each other.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::Duration;

use arbiter_core::{EndReason, MoveReason, Side};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::games::{GameSettings, Match, Registry};
use crate::protocol::{self, Message};
use crate::store::Store;

pub type ConnId = u64;

/// What a connection's writer sends.
#[derive(Debug)]
pub enum Outgoing {
    Message(Message),
    /// Close the connection.
    Close,
}

/// A connection as rooms see it.
#[derive(Clone, Debug)]
pub struct Peer {
    pub id: ConnId,
    pub addr: String,
    pub tx: mpsc::Sender<Outgoing>,
    /// Set while the room waits for this peer's move. Such a move is paced by the game itself,
    /// so the connection lets it past the rate limit: a fast bot in a long game must never lose
    /// a legal move to flood protection.
    pub awaited: Arc<AtomicBool>,
}

/// Writes the log line of one message.
pub fn log_message(move_no: Option<usize>, direction: &str, peer: &str, m: &Message) {
    let move_no = move_no.map_or("-".to_string(), |n| n.to_string());
    tracing::info!(
        target: "arbiter::message",
        "move={move_no} {direction} peer={peer} op={} data1={:?} data2={:?} data3={:?}",
        m.op_name(),
        m.data1,
        m.data2,
        m.data3
    );
}

/// Sends a message and logs it; false when the connection cannot take it (gone or too slow).
pub fn send(peer: &Peer, m: Message, move_no: Option<usize>) -> bool {
    log_message(move_no, "sent", &peer.addr, &m);
    peer.tx.try_send(Outgoing::Message(m)).is_ok()
}

/// An event for a room.
#[derive(Debug)]
pub enum RoomEvent {
    Ready {
        peer: Peer,
        message: Message,
        name: String,
        colour: Option<Side>,
        settings: GameSettings,
    },
    Move {
        peer: Peer,
        message: Message,
    },
    Resign {
        peer: Peer,
        message: Message,
    },
    Chat {
        peer: Peer,
        message: Message,
    },
    /// A LEAVE message, or the connection closed (`message` is `None`).
    Leave {
        peer: Peer,
        message: Option<Message>,
    },
    Watch {
        peer: Peer,
        message: Message,
    },
    Unwatch {
        conn: ConnId,
    },
    Info {
        reply: oneshot::Sender<RoomInfo>,
    },
}

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
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RoomPlayer {
    pub name: String,
    pub colour: Option<String>,
    pub ready: bool,
}

/// What every room shares.
pub struct RoomContext {
    pub store: Store,
    pub records_dir: Option<PathBuf>,
    pub hub: Arc<Hub>,
    pub registry: Arc<Registry>,
}

struct Member {
    peer: Peer,
    name: String,
    colour: Option<Side>,
    ready: bool,
    order: u64,
    settings: GameSettings,
    /// The side played in the current or last game.
    side: Option<Side>,
}

struct Running {
    game: Match,
    id: i64,
    /// Connection of the first and second player.
    players: [ConnId; 2],
    names: [String; 2],
    deadline: Option<Instant>,
}

struct Room {
    id: u32,
    ctx: Arc<RoomContext>,
    members: Vec<Member>,
    spectators: HashMap<ConnId, Peer>,
    running: Option<Running>,
    ready_counter: u64,
    /// Connections that could not take a message: dropped after the current event.
    broken: Vec<ConnId>,
}

/// Routes events to rooms, starting a room's task on first use and forgetting it once empty.
#[derive(Default)]
pub struct Hub {
    rooms: std::sync::Mutex<HashMap<u32, mpsc::Sender<RoomEvent>>>,
    weak_self: std::sync::OnceLock<std::sync::Weak<Hub>>,
    context: std::sync::OnceLock<(Store, Option<PathBuf>, Arc<Registry>)>,
}

impl Hub {
    pub fn new(store: Store, records_dir: Option<PathBuf>, registry: Arc<Registry>) -> Arc<Hub> {
        let hub = Arc::new(Hub::default());
        let _ = hub.weak_self.set(Arc::downgrade(&hub));
        let _ = hub.context.set((store, records_dir, registry));
        hub
    }

    fn spawn_room(&self, id: u32) -> mpsc::Sender<RoomEvent> {
        let (tx, rx) = mpsc::channel(1024);
        let hub = self
            .weak_self
            .get()
            .and_then(|w| w.upgrade())
            .expect("hub alive while used");
        let (store, records_dir, registry) =
            self.context.get().cloned().expect("hub has a context");
        let ctx = Arc::new(RoomContext {
            store,
            records_dir,
            hub,
            registry,
        });
        let room = Room {
            id,
            ctx,
            members: Vec::new(),
            spectators: HashMap::new(),
            running: None,
            ready_counter: 0,
            broken: Vec::new(),
        };
        let me = tx.clone();
        tokio::spawn(room.run(rx, me));
        tx
    }

    /// Delivers an event to room `id`, starting the room if needed.
    pub async fn send(&self, id: u32, event: RoomEvent) {
        let mut event = event;
        for _ in 0..2 {
            let tx = {
                let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
                rooms
                    .entry(id)
                    .or_insert_with(|| self.spawn_room(id))
                    .clone()
            };
            match tx.send(event).await {
                Ok(()) => return,
                Err(mpsc::error::SendError(back)) => {
                    // The room just closed: forget it and start a fresh one.
                    let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
                    if rooms.get(&id).is_some_and(|t| t.same_channel(&tx)) {
                        rooms.remove(&id);
                    }
                    event = back;
                }
            }
        }
    }

    /// Removes a room that has emptied, unless a newer task already took its number.
    fn forget(&self, id: u32, tx: &mpsc::Sender<RoomEvent>) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|e| e.into_inner());
        if rooms.get(&id).is_some_and(|t| t.same_channel(tx)) {
            rooms.remove(&id);
        }
    }

    /// Every open room's state.
    pub async fn rooms(&self) -> Vec<RoomInfo> {
        let senders: Vec<mpsc::Sender<RoomEvent>> = self
            .rooms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        let mut out = Vec::new();
        for tx in senders {
            let (reply, wait) = oneshot::channel();
            if tx.send(RoomEvent::Info { reply }).await.is_ok() {
                if let Ok(Ok(info)) = tokio::time::timeout(Duration::from_secs(2), wait).await {
                    out.push(info);
                }
            }
        }
        out.sort_by_key(|r| r.room);
        out
    }
}

fn winner_code(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::First) => "0",
        Some(Side::Second) => "1",
        None => "2",
    }
}

impl Room {
    async fn run(mut self, mut rx: mpsc::Receiver<RoomEvent>, me: mpsc::Sender<RoomEvent>) {
        loop {
            let deadline = self.running.as_ref().and_then(|r| r.deadline);
            let event = tokio::select! {
                event = rx.recv() => event,
                _ = async { tokio::time::sleep_until(deadline.expect("guarded")).await }, if deadline.is_some() => {
                    self.time_out().await;
                    self.drop_broken().await;
                    continue;
                }
            };
            let Some(event) = event else { break };
            self.handle(event).await;
            self.drop_broken().await;
            if self.members.is_empty() && self.spectators.is_empty() {
                self.ctx.hub.forget(self.id, &me);
                // Anything that raced in before we were forgotten is still served.
                rx.close();
                while let Some(event) = rx.recv().await {
                    self.handle(event).await;
                }
                if self.members.is_empty() && self.spectators.is_empty() {
                    break;
                }
            }
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

    fn tell_spectators(&mut self, m: &Message) {
        let peers: Vec<Peer> = self.spectators.values().cloned().collect();
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
                settings,
            } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                self.ready(peer, name, colour, settings).await;
            }
            RoomEvent::Move { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                self.play(&peer, &message.data1, &message.data2).await;
            }
            RoomEvent::Resign { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                let turn = self.running.as_ref().and_then(|r| {
                    let side = r.game.to_move();
                    (r.players[side.index()] == peer.id && !r.game.is_over()).then_some(side)
                });
                if let Some(side) = turn {
                    self.finish(EndReason::Resign, Some(side.opponent()), None)
                        .await;
                }
            }
            RoomEvent::Chat { peer, message } => {
                log_message(self.move_no(), "recv", &peer.addr, &message);
                if let Some(i) = self.member(peer.id) {
                    let name = self.members[i].name.clone();
                    let relay = Message::new(protocol::CHAT, name, message.data2.clone(), "");
                    for other in self
                        .members
                        .iter()
                        .filter(|m| m.peer.id != peer.id)
                        .map(|m| m.peer.clone())
                        .collect::<Vec<_>>()
                    {
                        self.send_to(&other, relay.clone());
                    }
                    self.tell_spectators(&relay);
                }
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
        }
    }

    async fn drop_broken(&mut self) {
        while let Some(conn) = self.broken.pop() {
            if let Some(peer) = self.spectators.remove(&conn) {
                let _ = peer.tx.try_send(Outgoing::Close);
            }
            if let Some(i) = self.member(conn) {
                let _ = self.members[i].peer.tx.try_send(Outgoing::Close);
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
        settings: GameSettings,
    ) {
        if self.running.as_ref().is_some_and(|r| !r.game.is_over()) {
            if self.member(peer.id).is_none() {
                self.reject(&peer, &name, "the room is playing a game");
            }
            return;
        }
        let me = self.member(peer.id);
        if me.is_none() && self.members.len() >= 2 {
            self.reject(&peer, &name, "the room is full");
            return;
        }
        if let Some(other) = self
            .members
            .iter()
            .find(|m| m.peer.id != peer.id && m.ready)
        {
            if other.settings != settings {
                let reason = format!("the room is set up for {}", other.settings.describe());
                self.reject(&peer, &name, &reason);
                return;
            }
            if colour.is_some() && other.colour == colour {
                self.reject(&peer, &name, "that colour is taken");
                return;
            }
        }
        self.ready_counter += 1;
        let order = self.ready_counter;
        match me {
            Some(i) => {
                let m = &mut self.members[i];
                m.name = name;
                m.colour = colour;
                m.ready = true;
                m.order = order;
                m.settings = settings;
            }
            None => self.members.push(Member {
                peer,
                name,
                colour,
                ready: true,
                order,
                settings,
                side: None,
            }),
        }
        if self.members.len() == 2 && self.members.iter().all(|m| m.ready) {
            self.start().await;
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
        let id = match self
            .ctx
            .store
            .start_game(
                self.id,
                settings.game().id,
                &settings_json,
                &names[0],
                &names[1],
            )
            .await
        {
            Ok(id) => id,
            Err(e) => {
                tracing::error!("room {}: cannot store a new game: {e}", self.id);
                for peer in self
                    .members
                    .iter()
                    .map(|m| m.peer.clone())
                    .collect::<Vec<_>>()
                {
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
        }
        let timeout = Duration::from_millis(settings.timeout_ms);
        self.running = Some(Running {
            game: self.ctx.registry.start(&settings),
            id,
            players: [self.members[first].peer.id, self.members[second].peer.id],
            names: names.clone(),
            deadline: Some(Instant::now() + timeout),
        });
        // Before anyone hears of the game, so the first move can never race the flag.
        self.mark_awaited();
        for (me, opponent) in [(first, second), (second, first)] {
            let peer = self.members[me].peer.clone();
            let colour = settings.colour_word(self.members[me].side.expect("just set"));
            let mut m = Message::new(
                protocol::READY,
                self.members[opponent].name.clone(),
                colour,
                self.id.to_string(),
            );
            // The extension: what is being played, every option by name (course clients
            // ignore unknown keys), so a client never has to guess a setting.
            m.extra.insert("game".into(), settings.game().id.into());
            for (name, value) in settings.options.pairs() {
                m.extra.insert(name.into(), value.into());
            }
            m.extra
                .insert("timeout_ms".into(), settings.timeout_ms.into());
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
        let ply = running.game.moves.len();
        let (id, text) = (running.id, running.game.moves[ply - 1].clone());
        // Before the move is forwarded, so the answer can never race the flag.
        self.mark_awaited();
        // Stored before anyone hears of it.
        if let Err(e) = self
            .ctx
            .store
            .record_move(id, ply, &text, verdict.reason.name())
            .await
        {
            tracing::error!("room {}: move {ply} of game {id} not stored: {e}", self.id);
        }
        let marker = if verdict.end.is_some() {
            protocol::END_MARKER
        } else {
            ""
        };
        let forward = Message::new(protocol::MOVE, from, to, marker);
        if let Some(opponent) = self.opponent_of(peer.id) {
            self.send_to(&opponent, forward.clone());
        }
        self.tell_spectators(&forward);
        match verdict.end {
            Some((reason, winner)) => self.finish(reason, winner, Some(verdict.reason)).await,
            None => {
                let running = self.running.as_mut().expect("still running");
                running.deadline =
                    Some(Instant::now() + Duration::from_millis(running.game.settings.timeout_ms));
            }
        }
    }

    async fn time_out(&mut self) {
        let Some(running) = self.running.as_ref() else {
            return;
        };
        if running.game.is_over() {
            return;
        }
        let late = running.game.to_move();
        self.finish(EndReason::Timeout, Some(late.opponent()), None)
            .await;
    }

    /// Ends the running game: END to both players and the spectators, the end stored, the record
    /// written.
    async fn finish(
        &mut self,
        reason: EndReason,
        winner: Option<Side>,
        move_reason: Option<MoveReason>,
    ) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        running.game.finish(reason, winner);
        running.deadline = None;
        let (id, record, plies) = (running.id, running.game.record(), running.game.moves.len());
        let winner_digit = winner_code(winner);
        self.mark_awaited();
        if let Err(e) = self
            .ctx
            .store
            .end_game(
                id,
                reason.name(),
                Some(winner_digit.parse().expect("a digit")),
                &record,
            )
            .await
        {
            tracing::error!("room {}: end of game {id} not stored: {e}", self.id);
        }
        if let Some(dir) = &self.ctx.records_dir {
            // No final newline: the course's own programs write none, and its check compares files.
            let text = record.clone();
            let path = dir.join(format!("{id:06}-room{}.txt", self.id));
            for target in [path, dir.join("latest.txt")] {
                if let Err(e) = tokio::fs::write(&target, &text).await {
                    tracing::error!("cannot write the record {}: {e}", target.display());
                }
            }
        }
        let mut end = Message::new(
            protocol::END,
            move_reason.map_or(String::new(), |r| r.code().to_string()),
            reason.code().to_string(),
            winner_digit,
        );
        // The extension: how many moves the game counted, so a client whose last move arrived
        // after its clock ran out can drop it from its own record.
        end.extra.insert("plies".into(), plies.into());
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for peer in players {
            self.send_to(&peer, end.clone());
        }
        self.tell_spectators(&end);
    }

    async fn leave(&mut self, conn: ConnId, message: Option<Message>) {
        self.spectators.remove(&conn);
        let Some(i) = self.member(conn) else { return };
        let in_game = self
            .running
            .as_ref()
            .is_some_and(|r| !r.game.is_over() && r.players.contains(&conn));
        let leaver = self.members.remove(i);
        if let Some(opponent) = self.members.first().map(|m| m.peer.clone()) {
            let reason = message
                .as_ref()
                .map_or("disconnected".to_string(), |m| m.data2.clone());
            let note = Message::new(protocol::LEAVE, leaver.name.clone(), reason, "");
            self.send_to(&opponent, note);
        }
        if in_game {
            let side = leaver.side.expect("players have sides");
            self.finish(EndReason::Resign, Some(side.opponent()), None)
                .await;
        }
        if self.members.is_empty() {
            self.running = None;
        }
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
        }
    }
}
