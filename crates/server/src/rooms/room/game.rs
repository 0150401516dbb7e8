//! The running game: starting it, judging and storing moves, clocks, resignation and the end.

use arbiter_core::{EndReason, MoveReason, Side};
use tokio::time::Instant;

use super::clock::{Expiry, GameClocks};
use super::{Room, Running};
use crate::games::GameSettings;
use crate::protocol::{self, Message, Winner};
use crate::rooms::journal::NotRecorded;
use crate::rooms::Peer;
use crate::storage::{GameEnd, NewGame, PlayedMove};

impl Room {
    /// Both members are ready: the game is stored, then each player hears its READY and the
    /// spectators the new state. A game the store refuses does not start.
    pub(super) async fn start(&mut self) {
        let (first, second) = self.seating();
        let settings = self.members[first].settings.clone();
        let names = [
            self.members[first].name.clone(),
            self.members[second].name.clone(),
        ];
        let tokens = [
            self.members[first].token.clone(),
            self.members[second].token.clone(),
        ];
        let Some(id) = self.store_new_game(&settings, &names, tokens).await else {
            return;
        };
        for (i, side) in [(first, Side::First), (second, Side::Second)] {
            let m = &mut self.members[i];
            m.side = Some(side);
            m.ready = false;
            m.evict_at = None;
        }
        // A page holds its seat with a token: its first move is off the clock.
        let pages = [first, second].map(|i| self.members[i].token.is_some());
        let clock = GameClocks::new(&settings, pages, self.ctx.setup.seats.first_move);
        self.running = Some(Running {
            game: self.ctx.registry.start(&settings),
            id,
            players: [self.members[first].peer.id, self.members[second].peer.id],
            names,
            clock,
            offers: Default::default(),
        });
        self.restored = false;
        // Before anyone hears of the game, so the first move can never race the flag.
        self.mark_awaited();
        for (me, opponent) in [(first, second), (second, first)] {
            let peer = self.members[me].peer.clone();
            let side = self.members[me].side.expect("just set");
            let mut m = ready_message(&settings, &self.members[opponent].name, side, self.id);
            with_first_move(&mut m, self.running.as_ref());
            self.send_to(&peer, m);
        }
        let snapshot = self.snapshot();
        self.tell_spectators(&snapshot);
        self.told_to_move();
    }

    /// The side to move has been told it may: its time runs from now — unless the owner cannot
    /// hear its node, and then from when it is heard again.
    pub(super) fn told_to_move(&mut self) {
        let reachable = self.to_move_is_reachable();
        if let Some(running) = self
            .running
            .as_mut()
            .filter(|r| !r.game.is_over() && reachable)
        {
            running.clock.told(Instant::now());
        }
    }

    /// The members who play first and second: requested colours are honoured; with none, a
    /// rematch swaps the colours of the last game, and otherwise the first to be ready plays
    /// first.
    fn seating(&self) -> (usize, usize) {
        let rematch = self
            .members
            .iter()
            .all(|m| m.colour.is_none() && m.side.is_some());
        let last_second = self
            .members
            .iter()
            .position(|m| m.side == Some(Side::Second));
        if let Some(first) = last_second.filter(|_| rematch) {
            return (first, 1 - first);
        }
        let (a, b) = if self.members[0].order < self.members[1].order {
            (0, 1)
        } else {
            (1, 0)
        };
        let first = match (self.members[a].colour, self.members[b].colour) {
            (Some(Side::First), _) | (None, Some(Side::Second)) | (None, None) => a,
            _ => b,
        };
        (first, 1 - first)
    }

    /// The new game's number; `None` (and both players told, their READYs undone) when the
    /// store refuses it.
    async fn store_new_game(
        &mut self,
        settings: &GameSettings,
        names: &[String; 2],
        seat_tokens: [Option<String>; 2],
    ) -> Option<i64> {
        let new_game = NewGame {
            room: self.id,
            game: settings.game().id.to_string(),
            settings: serde_json::to_string(settings).expect("settings serialise"),
            players: names.clone(),
            owner: None,
            seat_tokens,
            fence: None,
        };
        match self.ctx.journal.start_game(self.id, new_game).await {
            Ok(id) => Some(id),
            Err(NotRecorded::HandedOver) => None,
            Err(e) => {
                tracing::error!("room {}: cannot store a new game: {e}", self.id);
                let peers: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
                for peer in peers {
                    self.reject(&peer, "", "the server cannot store games right now");
                }
                self.members.iter_mut().for_each(|m| m.ready = false);
                None
            }
        }
    }

    pub(super) async fn play(&mut self, peer: &Peer, from: &str, to: &str, ply: Option<usize>) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        // A move meant as another ply than the next: stored already, or not this game's.
        let not_next = ply.is_some_and(|p| p != running.game.moves.len() + 1);
        if running.game.is_over() || not_next {
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
        // A game taken over from a node that died: the move that node stored last may come
        // again from a gateway that never heard it was taken. It is not a second move.
        let repeated = running.game.moves.last() == Some(&format!("{from}-{to}"));
        if self.restored && repeated && running.game.to_move() != side {
            return;
        }
        let in_turn = running.game.to_move() == side;
        let verdict = running.game.play(from, to, side);
        let clock_before = running.move_arrived(in_turn);
        let ply = running.game.moves.len();
        let (id, text) = (running.id, running.game.moves[ply - 1].clone());
        // Stored before anyone hears of it: a move the database refuses is never forwarded.
        let played = PlayedMove {
            game_id: id,
            ply,
            text,
            reason: verdict.reason.name().to_string(),
            fence: None,
        };
        if let Err(e) = self.ctx.journal.record_move(self.id, played).await {
            return self.move_not_stored(id, ply, e, clock_before).await;
        }
        // Before the move is forwarded, so the answer can never race the flag.
        self.mark_awaited();
        let forward = self.forwarded(from, to, verdict.end.is_some());
        if let Some(opponent) = self.opponent_of(peer.id) {
            self.send_to(&opponent, forward.clone());
        }
        self.tell_spectators(&forward);
        self.offers_lapse();
        match verdict.end {
            Some((reason, winner)) => {
                self.finish(reason, winner, Some(verdict.reason), None)
                    .await
            }
            None => self.told_to_move(),
        }
    }

    /// The MOVE forwarded to the opponent and the spectators, with (the extension) each side's
    /// clock after it and the next side's first-move time.
    fn forwarded(&self, from: &str, to: &str, ends: bool) -> Message {
        let marker = if ends { protocol::END_MARKER } else { "" };
        let mut forward = Message::new(protocol::MOVE, from, to, marker);
        if let Some(clocks) = self.running.as_ref().and_then(Running::clocks_now) {
            forward
                .extra
                .insert("clocks".into(), clocks.to_vec().into());
        }
        with_first_move(&mut forward, self.running.as_ref());
        forward
    }

    /// The journal did not record move `ply`: it never happened for anyone. A room handed to
    /// another node says nothing (that node carries the game on from the store, without this
    /// move); one server cannot go on with the game.
    async fn move_not_stored(
        &mut self,
        id: i64,
        ply: usize,
        e: NotRecorded,
        clock_before: GameClocks,
    ) {
        tracing::error!("room {}: move {ply} of game {id} not stored: {e}", self.id);
        if let Some(r) = self.running.as_mut() {
            r.game.forget_last();
            // The mover's turn goes on; the time the store took is charged to no one.
            r.clock = clock_before;
        }
        if let NotRecorded::Refused(_) = e {
            // The database's own words stay in the log.
            self.interrupt(&format!("the server could not store move {ply}"))
                .await;
        }
    }

    /// Ends the running game without a result: the server cannot go on with it.
    pub(super) async fn interrupt(&mut self, why: &str) {
        self.finish(EndReason::Interrupted, None, None, Some(why))
            .await;
    }

    /// The side to act's time is up: it loses on time, or, when it was its first move off the
    /// clock (a page's), the game is aborted without a result.
    pub(super) async fn time_up(&mut self, expiry: Expiry) {
        if self.running.as_ref().is_none_or(|r| r.game.is_over()) {
            return;
        }
        match expiry {
            Expiry::Timeout(late) => {
                self.finish(EndReason::Timeout, Some(late.opponent()), None, None)
                    .await
            }
            Expiry::Abort(late) => {
                let name = self.running.as_ref().expect("running").names[late.index()].clone();
                let why = format!("{name} did not play a first move");
                self.finish(EndReason::Aborted, None, None, Some(&why))
                    .await
            }
        }
    }

    /// Ends the running game: the end stored and the record written, then END to both players
    /// and the spectators (with the server's reason when `error` is set).
    pub(super) async fn finish(
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
        self.conclude(move_reason, error).await;
    }

    /// The running game is over: its end stored, then the record written and END told. A
    /// cluster's room whose end cannot be stored tells nothing and is handed over.
    pub(super) async fn conclude(&mut self, move_reason: Option<MoveReason>, error: Option<&str>) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        let Some((reason, winner)) = running.game.end else {
            return;
        };
        running.clock.pause(Instant::now());
        let (id, record, plies) = (running.id, running.game.record(), running.game.moves.len());
        let winner = Winner::of(winner);
        let rematch_until = Instant::now() + self.ctx.setup.seats.rematch_window;
        for m in &mut self.members {
            m.evict_at = Some(rematch_until);
        }
        let end = GameEnd {
            game_id: id,
            end_reason: reason.name().to_string(),
            winner,
            record: record.clone(),
            fence: None,
        };
        // A room handed over tells no one: its next owner ends the game from the store.
        if self.ctx.journal.record_end(self.id, end).await.is_err() {
            return;
        }
        self.mark_awaited();
        let ratings = self.count_rating(reason, winner).await;
        self.write_records(id, &record).await;
        let mut end = end_message(reason, winner, move_reason, plies);
        if let Some(clocks) = self.running.as_ref().and_then(Running::clocks_now) {
            end.extra.insert("clocks".into(), clocks.to_vec().into());
        }
        if let Some(error) = error {
            end.extra.insert("error".into(), error.into());
        }
        if let Some(ratings) = ratings {
            end.extra.insert("ratings".into(), ratings);
        }
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for peer in players {
            self.send_to(&peer, end_told_to(&peer, &end));
        }
        self.tell_spectators(&end);
    }

    /// The record files: no final newline, as the course's own programs write them.
    pub(super) async fn write_records(&self, id: i64, record: &str) {
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

    /// A player resigns: a course client on its own turn only (off turn the course ignores it),
    /// a page (the extension) at any time, as on lichess.
    pub(super) async fn resign(&mut self, peer: &Peer) {
        let any_time = peer.extension.load(std::sync::atomic::Ordering::Relaxed);
        let resigning = self.running.as_ref().and_then(|r| {
            let side = Side::BOTH
                .into_iter()
                .find(|s| r.players[s.index()] == peer.id)?;
            let may = any_time || side == r.game.to_move();
            (may && !r.game.is_over()).then_some(side)
        });
        if let Some(side) = resigning {
            self.finish(EndReason::Resign, Some(side.opponent()), None, None)
                .await;
        }
    }
}

/// The extension key `first_move_ms` when the side to act now plays its first move off the
/// clock: the time it has for it before the game is aborted.
fn with_first_move(m: &mut Message, running: Option<&Running>) {
    if let Some(ms) = running.and_then(Running::first_move_ms) {
        m.extra.insert("first_move_ms".into(), ms.into());
    }
}

/// END as `peer` reads it: a course client is told a reason its protocol has no word for in
/// the course's words (a player who left resigned); the extension's clients get it as it is.
pub(super) fn end_told_to(peer: &Peer, end: &Message) -> Message {
    let mut end = end.clone();
    if !peer.extension.load(std::sync::atomic::Ordering::Relaxed) {
        let reason = end.data2.parse().ok().and_then(EndReason::from_code);
        if let Some(reason) = reason {
            end.data2 = reason.course_code().to_string();
        }
    }
    end
}

/// The END of a game that ended for `reason` after `plies` moves.
pub(super) fn end_message(
    reason: EndReason,
    winner: Winner,
    move_reason: Option<MoveReason>,
    plies: usize,
) -> Message {
    let mut end = Message::new(
        protocol::END,
        move_reason.map_or(String::new(), |r| r.code().to_string()),
        reason.code().to_string(),
        winner.wire(),
    );
    // The extension: how many moves the game counted, so a client whose last move arrived
    // after its clock ran out can drop it from its own record.
    end.extra.insert("plies".into(), plies.into());
    end
}

/// The READY that starts a game: the opponent, the colour, the room, and (the extension) the
/// game with every option by name, so a client never has to guess a setting.
pub(super) fn ready_message(
    settings: &GameSettings,
    opponent: &str,
    side: Side,
    room: u32,
) -> Message {
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
    if settings.training {
        m.extra.insert("training".into(), 1.into());
    }
    if settings.rated {
        m.extra.insert("rated".into(), 1.into());
    }
    m
}
