//! A room taken over from a node that died (docs/cluster.md, "Failover"): its game is rebuilt
//! from the store, both seats wait for their players to come back with their seat tokens, and
//! the clocks stand as they were at the last stored move — the outage is charged to no one.

use std::sync::Arc;
use std::time::Duration;

use arbiter_core::Side;
use tokio::time::Instant;

use super::clock::GameClocks;
use super::{Member, Room, Running};
use crate::games::{GameSettings, Registry, StoredSettingsError};
use crate::rooms::outbox::outbox;
use crate::rooms::{next_conn_id, Peer, RoomContext};
use crate::storage::LiveGame;

/// A game that was running when its room's owner stopped, as the store kept it.
#[derive(Clone, Debug)]
pub struct RestoredGame {
    pub game_id: i64,
    pub settings: GameSettings,
    /// First and second player.
    pub names: [String; 2],
    pub tokens: [Option<String>; 2],
    /// When the game started, in ms since the epoch (the stored clock).
    pub started_at_ms: i64,
    /// Every stored move (`FROM-TO`) with when it was stored, in ms since the epoch.
    pub moves: Vec<(String, i64)>,
    /// Whether a seat without a token (a course client's) can be taken back: in a cluster its
    /// gateway seats the client again; after one server restarted its socket is gone, and its
    /// game ends as a disconnect does.
    pub course_clients_return: bool,
}

impl RestoredGame {
    /// A stored game without an end, as a room takes it over.
    pub fn from_live(
        live: LiveGame,
        registry: &Registry,
        course_clients_return: bool,
    ) -> Result<RestoredGame, RestoreError> {
        let settings = GameSettings::from_stored(registry, &live.settings).map_err(|source| {
            RestoreError::Settings {
                game: live.id,
                json: live.settings.clone(),
                source,
            }
        })?;
        Ok(RestoredGame {
            game_id: live.id,
            settings,
            names: live.players,
            tokens: live.seat_tokens,
            started_at_ms: live.started_at,
            moves: live.moves.into_iter().map(|m| (m.text, m.at)).collect(),
            course_clients_return,
        })
    }
}

/// Why a stored game cannot be taken over.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("game {game}: stored move {ply} `{text}` {why}")]
    Move {
        game: i64,
        ply: usize,
        text: String,
        why: &'static str,
    },
    #[error("game {game}: stored settings {json}: {source}")]
    Settings {
        game: i64,
        json: String,
        source: StoredSettingsError,
    },
}

impl Room {
    /// The room of a running game restored from the store: both players are away and have the
    /// seat grace to come back (a page with its token; a course client's node that died cannot).
    pub(in crate::rooms) fn restored(
        id: u32,
        ctx: Arc<RoomContext>,
        stored: RestoredGame,
    ) -> Result<Room, RestoreError> {
        let (game, movers) = replay(&ctx, &stored)?;
        let grace = ctx.setup.seats.seat_grace;
        let members: Vec<Member> = [Side::First, Side::Second]
            .into_iter()
            .map(|side| away_member(&stored, side, grace))
            .collect();
        // Nobody's time runs until the side to move is back (`resume_clock`).
        let clock = GameClocks::restored(
            &stored.settings,
            stored.tokens.clone().map(|t| t.is_some()),
            ctx.setup.seats.first_move,
            stored.moves.len(),
            clocks_at_last_move(&stored, &movers),
        );
        let running = Running {
            players: [members[0].peer.id, members[1].peer.id],
            names: stored.names.clone(),
            clock,
            game,
            id: stored.game_id,
            offers: Default::default(),
        };
        let mut room = Room::new(id, ctx);
        room.members = members;
        room.ready_counter = 2;
        room.running = Some(running);
        room.restored = true;
        tracing::info!(
            "room {id}: game {} taken over at move {}; seats held for {} s",
            stored.game_id,
            stored.moves.len(),
            grace.as_secs()
        );
        Ok(room)
    }
}

impl Room {
    /// A game taken over whose last stored move ended it: its end is stored here (the node that
    /// stored the move stopped first), and its players hear it when they come back.
    pub(in crate::rooms) async fn settle(&mut self) {
        let over = self.running.as_ref().is_some_and(|r| r.game.is_over());
        if self.restored && over {
            self.conclude(None, None).await;
        }
    }

    /// In a taken-over game, the side to move's clock starts again once it is back.
    pub(super) fn resume_clock(&mut self, side: Side) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.game.to_move() == side)
        {
            self.told_to_move();
        }
    }
}

/// The game replayed move by move, and who made each move; each stored move was made by the
/// side to move and was legal, but for one that ended the game: its owner stored that move and
/// stopped before it could store the end (the room then stores it, [`Room::settle`]).
fn replay(
    ctx: &RoomContext,
    stored: &RestoredGame,
) -> Result<(crate::games::Match, Vec<Side>), RestoreError> {
    let mut game = ctx.registry.start(&stored.settings);
    let mut movers = Vec::with_capacity(stored.moves.len());
    for (ply, (text, _)) in stored.moves.iter().enumerate() {
        let refused = |why| RestoreError::Move {
            game: stored.game_id,
            ply: ply + 1,
            text: text.clone(),
            why,
        };
        let (from, to) = text
            .split_once('-')
            .ok_or_else(|| refused("is not FROM-TO"))?;
        let side = game.to_move();
        movers.push(side);
        if game.is_over() {
            return Err(refused("follows the move that ended the game"));
        }
        let verdict = game.play(from, to, side);
        let last = ply + 1 == stored.moves.len();
        // An illegal move is stored, and loses: it can only be the last.
        if !verdict.reason.is_legal() && !last {
            return Err(refused("is not legal in the replayed game"));
        }
    }
    Ok((game, movers))
}

/// A seat whose player is not connected: a closed stand-in that the player's READY with its
/// token replaces.
fn away_member(stored: &RestoredGame, side: Side, grace: Duration) -> Member {
    let token = stored.tokens[side.index()].clone();
    // A course client that cannot come back has left: its seat ends at once.
    let grace = match token.is_some() || stored.course_clients_return {
        true => grace,
        false => Duration::ZERO,
    };
    let (out, _) = outbox();
    out.close();
    let peer = Peer {
        id: next_conn_id(),
        addr: String::new(),
        outbox: out,
        awaited: Default::default(),
        seated: Default::default(),
        changed: Default::default(),
        extension: Default::default(),
        moves_known: Default::default(),
        game_over: Default::default(),
    };
    Member {
        peer,
        name: stored.names[side.index()].clone(),
        colour: Some(side),
        ready: false,
        order: side.index() as u64,
        settings: stored.settings.clone(),
        side: Some(side),
        evict_at: Some(Instant::now() + grace),
        token,
        _claim: None,
        away: true,
    }
}

/// Each side's game clock as of the last stored move: the time between stored moves is charged
/// to the side that was to move, with the increment (a page's first move is off the clock); the
/// time since is not charged at all.
fn clocks_at_last_move(stored: &RestoredGame, movers: &[Side]) -> Option<[Duration; 2]> {
    let clock = stored.settings.clock?;
    let mut left = [clock.initial_ms as i64; 2];
    let mut turn_started = stored.started_at_ms;
    for (ply, ((_, at), side)) in stored.moves.iter().zip(movers).enumerate() {
        let mover = side.index();
        let free_first_move = ply < 2 && stored.tokens[mover].is_some();
        if !free_first_move {
            left[mover] = left[mover] - (at - turn_started).max(0) + clock.increment_ms as i64;
        }
        turn_started = *at;
    }
    Some(left.map(|ms| Duration::from_millis(ms.max(0) as u64)))
}
