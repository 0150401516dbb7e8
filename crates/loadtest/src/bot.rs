//! One bot: joins a room, plays random legal moves of the game the server started, and
//! measures how long the opponent's moves took to arrive.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_ai::registry::{self, Catalogue, FullGame, GameVisitor};
use arbiter_core::outcome::record_with_end;
use arbiter_core::{EndReason, MoveList, Side};
use arbiter_server::client::{options_of_start, wait_for_start, ClientError, Connection};
use arbiter_server::protocol::{self, Message};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// What one bot saw.
pub(crate) struct BotResult {
    pub name: String,
    pub moves: Vec<String>,
    pub record: String,
}

/// The time each game's last MOVE was sent, so the receiving bot can measure the delay.
pub(crate) type SentAt = Arc<Mutex<Option<Instant>>>;

/// Who a bot is and where it plays.
pub(crate) struct BotSetup {
    pub addr: SocketAddr,
    pub name: String,
    pub colour: &'static str,
    pub room: u32,
    pub game: String,
    pub think: Duration,
    pub seed: u64,
    pub sent_at: SentAt,
    pub latencies: Arc<Mutex<Vec<Duration>>>,
}

/// Why a bot stopped before its game ended.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BotError {
    /// The connection, the wait for READY or the READY itself failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The server started a game this catalogue does not know.
    #[error("the server started {0}")]
    UnknownGame(String),
    #[error("closed before the game ended")]
    Closed,
    /// The server forwarded a move the bot's position does not accept.
    #[error("the server forwarded {text}: {reason}")]
    Forwarded { text: String, reason: String },
}

/// How long a bot waits for its opponent to arrive.
const WAIT_FOR_START: Duration = Duration::from_secs(600);

/// Joins the room, waits for the game to start and plays it to the end.
pub(crate) async fn play<C: Catalogue>(setup: BotSetup) -> Result<BotResult, BotError> {
    let mut conn = Connection::open(&setup.addr.ip().to_string(), setup.addr.port(), true).await?;
    let mut ready = Message::new(
        protocol::READY,
        setup.name.clone(),
        setup.colour,
        setup.room.to_string(),
    );
    ready.extra.insert("game".into(), setup.game.clone().into());
    conn.send(&ready).await?;
    let start = wait_for_start(&mut conn, WAIT_FOR_START).await?;
    let options = options_of_start::<C>(&start.message, Some(&setup.game), &[])?;
    let game = Game {
        conn,
        side: start.side,
        setup,
    };
    registry::with_game::<C, _>(&options, game)
        .map_err(|e| BotError::UnknownGame(e.to_string()))?
        .await
}

/// A started game, before the game's own type is known.
struct Game {
    conn: Connection,
    side: Side,
    setup: BotSetup,
}

type Playing = Pin<Box<dyn Future<Output = Result<BotResult, BotError>> + Send>>;

impl GameVisitor for Game {
    type Output = Playing;
    fn visit<G: FullGame>(self, start: G) -> Playing {
        Box::pin(play_game(start, self))
    }
}

/// A random legal move, `None` when there is none.
fn random_move<G: FullGame>(pos: &G, rng: &mut SmallRng) -> Option<G::Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.get(rng.gen_range(0..list.len().max(1))).copied()
}

/// Plays a random legal move and sends it, noting when; RESIGN (and false) when there is none.
async fn send_random_move<G: FullGame>(
    conn: &mut Connection,
    pos: &mut G,
    rng: &mut SmallRng,
    sent_at: &SentAt,
    moves: &mut Vec<String>,
) -> Result<bool, ClientError> {
    let Some(mv) = random_move(pos, rng) else {
        conn.send(&Message::new(protocol::RESIGN, "", "", ""))
            .await?;
        return Ok(false);
    };
    let text = pos.format_move(mv);
    *sent_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
    let (from, to) = arbiter_core::rules::split_move(&text);
    conn.send(&Message::new(protocol::MOVE, from, to, ""))
        .await?;
    moves.push(text);
    pos.play(mv);
    Ok(true)
}

async fn play_game<G: FullGame>(mut pos: G, game: Game) -> Result<BotResult, BotError> {
    let Game {
        mut conn,
        side,
        setup,
    } = game;
    let mut rng = SmallRng::seed_from_u64(setup.seed);
    let mut moves = Vec::new();
    let mut resigned = false;
    loop {
        if pos.side_to_move() == side && !pos.status().is_over() && !resigned {
            // People and programs do not all answer in lockstep: think 50-150% of `think`.
            tokio::time::sleep(setup.think.mul_f64(rng.gen_range(0.5..1.5))).await;
            resigned = !send_random_move(&mut conn, &mut pos, &mut rng, &setup.sent_at, &mut moves)
                .await?;
        }
        let m = conn.recv().await?.ok_or(BotError::Closed)?;
        match m.op {
            protocol::MOVE => {
                if let Some(at) = setup
                    .sent_at
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                {
                    let mut latencies = setup.latencies.lock().unwrap_or_else(|e| e.into_inner());
                    latencies.push(at.elapsed());
                }
                let text = format!("{}-{}", m.data1, m.data2);
                let mv = pos.parse_move(&text).map_err(|e| BotError::Forwarded {
                    text: text.clone(),
                    reason: e.to_string(),
                })?;
                pos.play(mv);
                moves.push(text);
            }
            protocol::END => {
                let reason = m.data2.parse::<u8>().ok().and_then(EndReason::from_code);
                let record = record_with_end(&moves, reason.unwrap_or(EndReason::None));
                return Ok(BotResult {
                    name: setup.name,
                    moves,
                    record,
                });
            }
            _ => {}
        }
    }
}
