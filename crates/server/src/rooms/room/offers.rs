//! What the two players of a running game may ask of each other (the extension's OFFER; a
//! course client never sends one and is never sent one): a draw, a takeback, an abort before
//! both have moved, and the game when the opponent left. Offers cannot be used to pester: one
//! is pending at a time, a move cancels it, a declined or withdrawn kind cannot be offered again
//! by the same side until a move is played, and each side makes at most [`MAX_OFFERS`] of a kind
//! a game.

use std::time::Duration;

use arbiter_core::{EndReason, Side};
use tokio::time::Instant;

use super::{Room, Running};
use crate::protocol::{self, Message, OfferAction, OfferCommand, OfferKind, Word};
use crate::rooms::Peer;

/// Offers of one kind one side may make in a game.
pub(super) const MAX_OFFERS: u8 = 3;
/// A player whose connection dropped must have been away this long (or for the whole seat
/// grace, if shorter) before the opponent may claim the game.
pub(super) const CLAIM_AFTER: Duration = Duration::from_secs(10);

/// An offer that waits for the other player's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Question {
    Draw,
    Takeback,
}

impl Question {
    pub(super) fn word(self) -> &'static str {
        match self {
            Question::Draw => "draw",
            Question::Takeback => "takeback",
        }
    }
}

/// The offers of one game.
#[derive(Debug, Default)]
pub(super) struct Offers {
    pending: Option<(Question, Side)>,
    /// Per side, per kind: offers made.
    made: [[u8; 2]; 2],
    /// Per side, per kind: the ply count the game must pass before the side may offer again.
    blocked_until: [[usize; 2]; 2],
}

/// Why an OFFER was refused, in the words its sender gets.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(super) enum OfferRefusal {
    #[error("there is no game running")]
    NoGame,
    #[error("only a player of this game may do that")]
    NotAPlayer,
    #[error("your opponent's client cannot answer offers")]
    OpponentCannotAnswer,
    #[error("an offer is already waiting for an answer")]
    AlreadyPending,
    #[error("there is no such offer to answer")]
    NothingToAnswer,
    #[error("you made this offer; your opponent answers it")]
    OwnOffer,
    #[error("play a move before offering that again")]
    TooSoon,
    #[error("you have made that offer {MAX_OFFERS} times this game")]
    TooMany,
    #[error("you have no move to take back")]
    NoMoveToTakeBack,
    #[error("a game can be aborted only before both players have moved")]
    TooLateToAbort,
    #[error("your opponent has not been away long enough to claim the game")]
    NothingToClaim,
    #[error("the server could not store the takeback")]
    NotStored,
    #[error("unknown offer `{0}`")]
    Unknown(String),
}

impl OfferRefusal {
    /// The refusal's code, sent beside its words (OFFER's `code`): a client decides by it,
    /// never by the words.
    pub(super) fn code(&self) -> &'static str {
        match self {
            OfferRefusal::NoGame => "no_game",
            OfferRefusal::NotAPlayer => "not_a_player",
            OfferRefusal::OpponentCannotAnswer => "opponent_cannot_answer",
            OfferRefusal::AlreadyPending => "already_pending",
            OfferRefusal::NothingToAnswer => "nothing_to_answer",
            OfferRefusal::OwnOffer => "own_offer",
            OfferRefusal::TooSoon => "too_soon",
            OfferRefusal::TooMany => "too_many",
            OfferRefusal::NoMoveToTakeBack => "no_move_to_take_back",
            OfferRefusal::TooLateToAbort => "too_late_to_abort",
            OfferRefusal::NothingToClaim => "nothing_to_claim",
            OfferRefusal::NotStored => "not_stored",
            OfferRefusal::Unknown(_) => "unknown",
        }
    }
}

enum Request {
    Offer(Question),
    Accept(Question),
    Decline(Question),
    Withdraw(Question),
    Abort,
    Claim,
}

fn request_of(offer: &OfferCommand) -> Result<Request, OfferRefusal> {
    let question = match &offer.kind {
        Word::Known(OfferKind::Draw) => Question::Draw,
        Word::Known(OfferKind::Takeback) => Question::Takeback,
        Word::Known(OfferKind::Abort) => return Ok(Request::Abort),
        Word::Known(OfferKind::Claim) => return Ok(Request::Claim),
        other => return Err(OfferRefusal::Unknown(other.text().to_string())),
    };
    match &offer.action {
        Word::Known(OfferAction::Offer) => Ok(Request::Offer(question)),
        Word::Known(OfferAction::Accept) => Ok(Request::Accept(question)),
        Word::Known(OfferAction::Decline) => Ok(Request::Decline(question)),
        Word::Known(OfferAction::Withdraw) => Ok(Request::Withdraw(question)),
        Word::Unknown(other) => Err(OfferRefusal::Unknown(format!(
            "{} {other}",
            question.word()
        ))),
    }
}

impl Offers {
    /// The offer waiting for an answer: its kind, and who made it.
    pub(super) fn pending(&self) -> Option<(Question, Side)> {
        self.pending
    }

    /// A move was played: a pending offer lapses (its kind, and who made it).
    pub(super) fn lapse(&mut self) -> Option<(Question, Side)> {
        self.pending.take()
    }

    fn open(&mut self, kind: Question, by: Side, ply: usize) -> Result<(), OfferRefusal> {
        let (s, k) = (by.index(), kind as usize);
        if self.pending.is_some() {
            return Err(OfferRefusal::AlreadyPending);
        }
        if ply < self.blocked_until[s][k] {
            return Err(OfferRefusal::TooSoon);
        }
        if self.made[s][k] >= MAX_OFFERS {
            return Err(OfferRefusal::TooMany);
        }
        self.made[s][k] += 1;
        self.pending = Some((kind, by));
        Ok(())
    }

    /// The pending offer of `kind` answered by `by` (its receiver); `Ok` with who made it.
    fn answer(&mut self, kind: Question, by: Side) -> Result<Side, OfferRefusal> {
        match self.pending {
            Some((k, maker)) if k == kind && maker != by => {
                self.pending = None;
                Ok(maker)
            }
            Some((k, _)) if k == kind => Err(OfferRefusal::OwnOffer),
            _ => Err(OfferRefusal::NothingToAnswer),
        }
    }

    /// The pending offer of `kind` taken back by its maker.
    fn withdraw(&mut self, kind: Question, by: Side) -> Result<(), OfferRefusal> {
        match self.pending {
            Some((k, maker)) if k == kind && maker == by => {
                self.pending = None;
                Ok(())
            }
            _ => Err(OfferRefusal::NothingToAnswer),
        }
    }

    /// `side` may not offer `kind` again before the game passes this ply.
    fn block(&mut self, side: Side, kind: Question, ply: usize) {
        self.blocked_until[side.index()][kind as usize] = ply + 1;
    }
}

impl Room {
    /// An OFFER from `peer`: done, or refused with the reason (to the sender alone).
    pub(super) async fn offer(&mut self, peer: &Peer, offer: &OfferCommand) {
        if offer.kind == Word::Known(OfferKind::Rematch) {
            return self.answer_rematch(peer, &offer.action);
        }
        if let Err(why) = self.try_offer(peer, offer).await {
            let kind = offer.kind.text();
            let mut refusal = Message::new(protocol::OFFER, kind, "refused", why.to_string());
            refusal.extra.insert("code".into(), why.code().into());
            self.send_to(peer, refusal);
        }
    }

    async fn try_offer(&mut self, peer: &Peer, offer: &OfferCommand) -> Result<(), OfferRefusal> {
        let request = request_of(offer)?;
        let side = self.playing_side(peer)?;
        let opponent_speaks = self
            .opponent_of(peer.id)
            .is_some_and(|p| p.extension.load(std::sync::atomic::Ordering::Relaxed));
        if !matches!(request, Request::Claim) && !opponent_speaks {
            return Err(OfferRefusal::OpponentCannotAnswer);
        }
        let name = self.name_of(peer.id);
        let running = self.running.as_mut().expect("checked by playing_side");
        let ply = running.game.moves.len();
        match request {
            Request::Offer(kind) => {
                if running.offers.pending.is_some() {
                    return Err(OfferRefusal::AlreadyPending);
                }
                if kind == Question::Takeback {
                    takeback_plies(running, side)?;
                }
                running.offers.open(kind, side, ply)?;
                self.announce(kind.word(), "offer", &name);
            }
            Request::Decline(kind) => {
                let maker = running.offers.answer(kind, side)?;
                running.offers.block(maker, kind, ply);
                self.announce(kind.word(), "decline", &name);
            }
            Request::Withdraw(kind) => {
                running.offers.withdraw(kind, side)?;
                running.offers.block(side, kind, ply);
                self.announce(kind.word(), "withdraw", &name);
            }
            Request::Accept(kind) => self.accept(kind, side, &name).await?,
            Request::Abort => self.abort(&name).await?,
            Request::Claim => self.claim(side, &name).await?,
        }
        Ok(())
    }

    /// The side `peer` plays in the running game.
    fn playing_side(&self, peer: &Peer) -> Result<Side, OfferRefusal> {
        let running = self.running.as_ref().filter(|r| !r.game.is_over());
        let running = running.ok_or(OfferRefusal::NoGame)?;
        let index = running.players.iter().position(|&c| c == peer.id);
        index.map(Side::from_index).ok_or(OfferRefusal::NotAPlayer)
    }

    fn name_of(&self, conn: u64) -> String {
        let i = self.member(conn);
        i.map_or_else(String::new, |i| self.members[i].name.clone())
    }

    /// `OFFER(kind, action, name)` to both players and the spectators.
    pub(super) fn announce(&mut self, kind: &str, action: &str, name: &str) {
        let m = Message::new(protocol::OFFER, kind, action, name);
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for peer in players {
            self.send_to(&peer, m.clone());
        }
        self.tell_spectators(&m);
    }

    async fn accept(&mut self, kind: Question, side: Side, name: &str) -> Result<(), OfferRefusal> {
        let running = self.running.as_mut().expect("a running game");
        let maker = running.offers.answer(kind, side)?;
        self.announce(kind.word(), "accept", name);
        match kind {
            Question::Draw => self.finish(EndReason::Agreed, None, None, None).await,
            Question::Takeback => self.take_back(maker).await?,
        }
        Ok(())
    }

    /// Takes back `maker`'s last move (and the opponent's answer to it, if any): stored first,
    /// then everyone gets the game as it is now.
    async fn take_back(&mut self, maker: Side) -> Result<(), OfferRefusal> {
        let running = self.running.as_ref().expect("a running game");
        let keep = running.game.moves.len() - takeback_plies(running, maker)?;
        let id = running.id;
        if let Err(e) = self.ctx.journal.take_back(self.id, id, keep).await {
            tracing::error!("room {}: takeback of game {id} not stored: {e}", self.id);
            return Err(OfferRefusal::NotStored);
        }
        let registry = self.ctx.registry.clone();
        let running = self.running.as_mut().expect("a running game");
        running.clock.took_back(keep, Instant::now());
        running.game = running.game.truncated(&registry, keep);
        self.mark_awaited();
        let snapshot = self.snapshot();
        let players: Vec<Peer> = self.members.iter().map(|m| m.peer.clone()).collect();
        for peer in players {
            self.send_to(&peer, snapshot.clone());
        }
        self.tell_spectators(&snapshot);
        self.told_to_move();
        Ok(())
    }

    async fn abort(&mut self, name: &str) -> Result<(), OfferRefusal> {
        let running = self.running.as_ref().expect("a running game");
        if running.game.moves.len() >= 2 {
            return Err(OfferRefusal::TooLateToAbort);
        }
        self.announce("abort", "", name);
        self.finish(EndReason::Aborted, None, None, None).await;
        Ok(())
    }

    /// The opponent has been away long enough: it loses as if its seat had run out.
    async fn claim(&mut self, side: Side, name: &str) -> Result<(), OfferRefusal> {
        let grace = self.ctx.setup.seats.seat_grace;
        let claimable_after = grace.saturating_sub(CLAIM_AFTER.min(grace));
        let away_long = self.members.iter().any(|m| {
            m.side == Some(side.opponent())
                && m.away
                && m.evict_at
                    .is_some_and(|t| t.saturating_duration_since(Instant::now()) <= claimable_after)
        });
        if !away_long {
            return Err(OfferRefusal::NothingToClaim);
        }
        self.announce("claim", "", name);
        self.finish(EndReason::Left, Some(side), None, None).await;
        Ok(())
    }

    /// A move was played: a pending offer lapses, and both players and the spectators hear so.
    pub(super) fn offers_lapse(&mut self) {
        let lapsed = self.running.as_mut().and_then(|r| r.offers.lapse());
        if let Some((kind, _)) = lapsed {
            self.announce(kind.word(), "lapse", "");
        }
    }
}

/// How many plies a takeback asked by `side` undoes: its last move, and the opponent's answer
/// if one was played since.
fn takeback_plies(running: &Running, side: Side) -> Result<usize, OfferRefusal> {
    let plies = running.game.moves.len();
    let undo = if running.game.to_move() == side { 2 } else { 1 };
    if plies < undo {
        return Err(OfferRefusal::NoMoveToTakeBack);
    }
    Ok(undo)
}
