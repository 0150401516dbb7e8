//! Seats: taking one with READY (or back with a token), refusals, holding a seat for a player
//! whose connection dropped, leaving, and freeing seats whose time ran out.

use std::sync::atomic::Ordering as AtomicOrdering;

use arbiter_core::{EndReason, Side};
use tokio::time::Instant;

use super::game::{end_message, end_told_to, ready_message};
use super::{Member, Room};
use crate::games::{GameSettings, Requested};
use crate::protocol::{self, LeaveCommand, Message, Winner};
use crate::rooms::guard::same_token;
use crate::rooms::{ConnId, Peer, Ready, Refusal};

/// What a READY asks of its seat.
pub(super) struct SeatRequest {
    name: String,
    colour: Option<Side>,
    request: Requested,
    /// Only take back a seat this token holds (the extension key `resume`): a page
    /// reconnecting never seeks a game on its own.
    only_back: bool,
}

impl Room {
    /// A READY whose name may take a seat: with a seat token, or without.
    pub(super) async fn on_ready(&mut self, peer: Peer, ready: Ready) {
        let secret = ready.secret.as_deref();
        if !self
            .name_allowed(&peer, &ready.name, secret, &ready.request)
            .await
        {
            return;
        }
        let seat = SeatRequest {
            name: ready.name,
            colour: ready.colour,
            request: ready.request,
            only_back: ready.resume,
        };
        match ready.token {
            Some(token) => self.ready_with_token(peer, seat, token).await,
            None => {
                self.ready(peer, seat.name, seat.colour, seat.request, None)
                    .await
            }
        }
    }

    /// A READY with a seat token: refused while its address (or this room, for an address that
    /// guessed wrong before) backs off; the member whose token it is takes its seat back;
    /// otherwise an ordinary READY, and a refusal counts as a wrong guess.
    async fn ready_with_token(&mut self, peer: Peer, seat: SeatRequest, token: String) {
        if let Err(wait) = self.ctx.guard.may_try_token(&peer.addr, self.id) {
            self.reject(&peer, &seat.name, &wait.to_string());
            return;
        }
        // Every member's token is compared, each in constant time.
        let returning = self.members.iter().fold(None, |found, m| {
            let same = m.token.as_deref().is_some_and(|t| same_token(t, &token));
            found.or(same.then_some(m.peer.id))
        });
        if let Some(i) = returning.and_then(|id| self.member(id)) {
            return self.resume(i, peer, seat).await;
        }
        if seat.only_back {
            // A page coming back to a seat it no longer has: it hears so, and seeks nothing.
            return self.tell_unseated(&peer, "your seat in this room is gone");
        }
        let refused = self.member(peer.id).is_none()
            && matches!(
                self.refusal(&peer, seat.colour, &seat.request),
                Err(Refusal::Playing | Refusal::Full)
            );
        if refused {
            self.ctx.guard.token_failed(&peer.addr, self.id);
        }
        let SeatRequest {
            name,
            colour,
            request,
            ..
        } = seat;
        self.ready(peer, name, colour, request, Some(token)).await;
    }

    /// An extension client hears that it holds no seat here (any more) and why, with the room
    /// as it is: its page stops and asks its player before seeking again.
    fn tell_unseated(&mut self, peer: &Peer, why: &str) {
        if !peer.extension.load(AtomicOrdering::Relaxed) {
            return;
        }
        let snapshot = self.snapshot();
        self.send_to(peer, snapshot);
        self.send_to(peer, Message::new(protocol::NOTICE, "unseated", "", why));
    }

    pub(super) async fn ready(
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
        let claim = match self.member(peer.id) {
            Some(_) => None,
            None => match self.ctx.guard.claim(&peer.addr) {
                Ok(claim) => claim,
                Err(refusal) => return self.reject(&peer, &name, &refusal.to_string()),
            },
        };
        self.ready_counter += 1;
        let order = self.ready_counter;
        let evict_at = Some(Instant::now() + self.ctx.setup.seats.wait_timeout);
        peer.seated.store(true, AtomicOrdering::Relaxed);
        let conn = peer.id;
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
                _claim: claim,
                away: false,
            }),
        }
        self.start_or_offer(conn).await;
    }

    /// Both members are ready: the game starts; else a READY after a game asks the other
    /// player for a rematch.
    async fn start_or_offer(&mut self, conn: ConnId) {
        if self.members.len() == 2 && self.members.iter().all(|m| m.ready) {
            self.start().await;
        } else {
            self.offer_rematch(conn);
        }
    }

    /// The settings a READY gets here, or why it cannot be taken.
    pub(super) fn refusal(
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

    /// A member comes back with its seat token (a reloaded page, a new connection, another tab
    /// of the same browser): it takes its seat again and, in a running game, hears the game so
    /// far; the tab it replaces, if still open, watches from now on and is told so.
    async fn resume(&mut self, i: usize, peer: Peer, seat: SeatRequest) {
        let old = std::mem::replace(&mut self.members[i].peer, peer.clone());
        if old.id != peer.id {
            self.replaced_tab(old);
        }
        peer.seated.store(true, AtomicOrdering::Relaxed);
        let was_away = std::mem::replace(&mut self.members[i].away, false);
        let played = self.running.is_some() && self.members[i].side.is_some();
        let over = self.running.as_ref().is_some_and(|r| r.game.is_over());
        if !seat.only_back && (!played || (over && !was_away)) {
            // Asked anew (a rematch, a seek): ready again.
            let token = self.members[i].token.clone();
            self.ready(peer, seat.name, seat.colour, seat.request, token)
                .await;
            return;
        }
        if !played {
            // A seeker back after a dropped connection: still waiting, nothing to tell.
            let snapshot = self.snapshot();
            self.send_to(&peer, snapshot);
            return;
        }
        tracing::info!(
            "room {}: {} came back ({})",
            self.id,
            self.members[i].name,
            peer.addr
        );
        let side = self.members[i].side.expect("a player");
        if let Some(running) = self.running.as_mut() {
            running.players[side.index()] = peer.id;
        }
        if over {
            // Its game ended (maybe while it was away): it hears how, and keeps its seat for a
            // rematch.
            self.tell_the_game_so_far(&peer, side);
            self.tell_the_end(&peer);
            return;
        }
        self.members[i].evict_at = None;
        self.resume_clock(side);
        self.mark_awaited();
        self.tell_the_game_so_far(&peer, side);
        if was_away {
            let name = self.members[i].name.clone();
            self.notice("back", &name, 0);
        }
    }

    /// A player's seat moved to another connection of the same browser: a page still open
    /// there watches the room from now on (NOTICE `moved`); a closed one is let go.
    fn replaced_tab(&mut self, old: Peer) {
        old.seated.store(false, AtomicOrdering::Relaxed);
        old.changed.notify_one();
        if old.outbox.is_closed() || !old.extension.load(AtomicOrdering::Relaxed) {
            old.outbox.close();
            return;
        }
        self.send_to(&old, Message::new(protocol::NOTICE, "moved", "", ""));
        self.spectators.insert(old.id, old);
    }

    /// A course client seated again after its room changed owner: the opponent's moves it has
    /// not heard (played while it moved over), as they were forwarded.
    fn tell_missed_moves(&mut self, peer: &Peer, side: Side) {
        let known = peer.moves_known.load(AtomicOrdering::Relaxed);
        let Some(running) = self.running.as_ref() else {
            return;
        };
        let missed: Vec<Message> = running
            .game
            .moves_since(known, side.opponent())
            .map(|(from, to)| Message::new(protocol::MOVE, from, to, ""))
            .collect();
        for m in missed {
            self.send_to(peer, m);
        }
    }

    /// A player that came back: a page hears its READY, the snapshot and, if the game moved to
    /// another server, that it did (the pause cost no one time); a course client attached again
    /// by its cluster gateway knows its game already, would not understand a snapshot, and hears
    /// only the moves it missed.
    fn tell_the_game_so_far(&mut self, peer: &Peer, side: Side) {
        if !peer.extension.load(AtomicOrdering::Relaxed) {
            return self.tell_missed_moves(peer, side);
        }
        let Some(running) = self.running.as_ref() else {
            return;
        };
        let settings = running.game.settings.clone();
        let opponent = running.names[side.opponent().index()].clone();
        let mut ready = ready_message(&settings, &opponent, side, self.id);
        // The moves so far: a page draws nothing until the snapshot brings them, instead of
        // showing the starting position of a game already under way.
        ready
            .extra
            .insert("plies".into(), running.game.moves.len().into());
        self.send_to(peer, ready);
        self.tell_the_snapshot(peer);
    }

    /// The END of the room's last game, to a player that missed it.
    fn tell_the_end(&mut self, peer: &Peer) {
        let Some(running) = self.running.as_ref() else {
            return;
        };
        if let Some((reason, winner)) = running.game.end {
            let plies = running.game.moves.len();
            let end = end_message(reason, Winner::of(winner), None, plies);
            self.send_to(peer, end_told_to(peer, &end));
        }
    }

    fn tell_the_snapshot(&mut self, peer: &Peer) {
        let snapshot = self.snapshot();
        self.send_to(peer, snapshot);
        if self.restored {
            let m = Message::new(protocol::NOTICE, "restored", "", "");
            self.send_to(peer, m);
        }
    }

    pub(super) async fn leave(&mut self, conn: ConnId, leave: Option<LeaveCommand>) {
        self.spectators.remove(&conn);
        // A connection that left is never heard again: nothing more to wait for from it.
        self.out_of_reach.remove(&conn);
        let Some(i) = self.member(conn) else { return };
        if self.members[i].away {
            return;
        }
        let (in_game, after_game) = match &self.running {
            Some(r) if r.players.contains(&conn) => (!r.game.is_over(), r.game.is_over()),
            _ => (false, false),
        };
        let page_dropped = leave.is_none() && self.members[i].token.is_some();
        if page_dropped && in_game {
            self.hold_seat(i);
            return;
        }
        if page_dropped && after_game {
            // A reloaded page after its game keeps its seat for the rest of the rematch window.
            let member = &mut self.members[i];
            member.away = true;
            member.peer.seated.store(false, AtomicOrdering::Relaxed);
            return;
        }
        let leaver = self.members.remove(i);
        leaver.peer.seated.store(false, AtomicOrdering::Relaxed);
        leaver.peer.changed.notify_one();
        if let Some(opponent) = self.members.first().map(|m| m.peer.clone()) {
            let reason = leave.map_or("disconnected".to_string(), |l| l.reason);
            let note = Message::new(protocol::LEAVE, leaver.name.clone(), reason, "");
            self.send_to(&opponent, note);
        }
        if in_game {
            let side = leaver.side.expect("players have sides");
            self.finish(EndReason::Left, Some(side.opponent()), None, None)
                .await;
        }
        if self.members.is_empty() {
            self.running = None;
        }
    }

    /// A player with a seat token lost its connection mid-game: the seat waits for it (the
    /// clock runs on), and the others hear so.
    pub(super) fn hold_seat(&mut self, i: usize) {
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

    /// Frees a seat whose time ran out; the member (a page) and the other member hear of it.
    /// A player who did not come back to a running game has left it (LEFT), and when its
    /// opponent is gone too, nobody finished it (ABANDONED, no result).
    pub(super) async fn evict(&mut self, i: usize) {
        let quit_game =
            self.members[i].away && self.running.as_ref().is_some_and(|r| !r.game.is_over());
        if let Some(side) = self.members[i].side.filter(|_| quit_game) {
            // The other seat's player cannot come back either.
            let now = Instant::now();
            let both_gone = self
                .members
                .iter()
                .all(|m| m.away && m.evict_at.is_some_and(|t| t <= now));
            if both_gone {
                self.finish(EndReason::Abandoned, None, None, None).await;
            } else {
                self.finish(EndReason::Left, Some(side.opponent()), None, None)
                    .await;
            }
        }
        let why = match (self.members[i].away, &self.running) {
            (true, _) => "you did not come back in time",
            (false, Some(_)) => "the time to ask for a rematch is over",
            (false, None) => "nobody came to play: the wait is over",
        };
        let evicted = self.members[i].peer.clone();
        self.tell_unseated(&evicted, why);
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
}
