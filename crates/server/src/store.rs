//! Games in SQLite: one writer thread that commits in groups, so a move is on disk before it
//! is forwarded without one disk sync per move; reads for the HTTP API on their own connection.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

/// A write the store performs; each carries the channel its completion is reported on.
enum Write {
    StartGame {
        room: u32,
        game: String,
        settings: String,
        first: String,
        second: String,
        done: oneshot::Sender<Result<i64, String>>,
    },
    Move {
        game_id: i64,
        ply: usize,
        text: String,
        reason: String,
        done: oneshot::Sender<Result<(), String>>,
    },
    EndGame {
        game_id: i64,
        end_reason: String,
        winner: Option<u8>,
        record: String,
        done: oneshot::Sender<Result<(), String>>,
    },
}

/// The game store: cheap to clone, shared by every room.
#[derive(Clone)]
pub struct Store {
    writes: mpsc::UnboundedSender<Write>,
    reader: Arc<Mutex<Connection>>,
}

/// A stored game, as the HTTP API lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredGame {
    pub id: i64,
    pub room: u32,
    pub game: String,
    pub settings: serde_json::Value,
    pub first: String,
    pub second: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub end_reason: Option<String>,
    /// 0 first player, 1 second, 2 nobody; absent while the game runs.
    pub winner: Option<u8>,
    pub record: Option<String>,
    pub moves: Vec<StoredMove>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StoredMove {
    pub ply: usize,
    #[serde(rename = "move")]
    pub text: String,
    pub reason: String,
    pub at: i64,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    room INTEGER NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    first_player TEXT NOT NULL,
    second_player TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT,
    winner INTEGER,
    record TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE INDEX IF NOT EXISTS games_by_player ON games (first_player, second_player);
";

impl Store {
    /// Opens (or creates) the database file and starts the writer thread.
    pub fn open(path: &Path) -> Result<Store, String> {
        let open = || {
            let conn = Connection::open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            conn.busy_timeout(std::time::Duration::from_secs(5))
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(conn)
        };
        let writer = open()?;
        writer
            .execute_batch(SCHEMA)
            .map_err(|e| format!("cannot set up {}: {e}", path.display()))?;
        let reader = open()?;
        let (writes, rx) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("arbiter-store".into())
            .spawn(move || write_loop(writer, rx))
            .map_err(|e| e.to_string())?;
        Ok(Store {
            writes,
            reader: Arc::new(Mutex::new(reader)),
        })
    }

    async fn request<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, String>>) -> Write,
    ) -> Result<T, String> {
        let (done, wait) = oneshot::channel();
        self.writes
            .send(make(done))
            .map_err(|_| "the store has shut down".to_string())?;
        wait.await
            .map_err(|_| "the store has shut down".to_string())?
    }

    pub async fn start_game(
        &self,
        room: u32,
        game: &str,
        settings: &str,
        first: &str,
        second: &str,
    ) -> Result<i64, String> {
        self.request(|done| Write::StartGame {
            room,
            game: game.into(),
            settings: settings.into(),
            first: first.into(),
            second: second.into(),
            done,
        })
        .await
    }

    /// Returns once the move is committed.
    pub async fn record_move(
        &self,
        game_id: i64,
        ply: usize,
        text: &str,
        reason: &str,
    ) -> Result<(), String> {
        self.request(|done| Write::Move {
            game_id,
            ply,
            text: text.into(),
            reason: reason.into(),
            done,
        })
        .await
    }

    pub async fn end_game(
        &self,
        game_id: i64,
        end_reason: &str,
        winner: Option<u8>,
        record: &str,
    ) -> Result<(), String> {
        self.request(|done| Write::EndGame {
            game_id,
            end_reason: end_reason.into(),
            winner,
            record: record.into(),
            done,
        })
        .await
    }

    /// Waits until every write sent so far is committed (for shutdown).
    pub async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        // A move to an unknown game is a no-op that still goes through the queue in order.
        if self
            .writes
            .send(Write::EndGame {
                game_id: -1,
                end_reason: String::new(),
                winner: None,
                record: String::new(),
                done,
            })
            .is_ok()
        {
            let _ = wait.await;
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        let conn = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        f(&conn).map_err(|e| e.to_string())
    }

    /// The most recent games first; `player` keeps those where that name played.
    pub fn list_games(
        &self,
        limit: u32,
        offset: u32,
        player: Option<&str>,
    ) -> Result<Vec<StoredGame>, String> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                 FROM games WHERE (?3 IS NULL OR first_player = ?3 OR second_player = ?3)
                 ORDER BY id DESC LIMIT ?1 OFFSET ?2",
            )?;
            let rows = stmt.query_map(params![limit, offset, player], game_row)?;
            rows.collect()
        })
    }

    /// One game with its moves.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, String> {
        self.read(|conn| {
            let game = conn
                .query_row(
                    "SELECT id, room, game, settings, first_player, second_player, started_at, ended_at, end_reason, winner, record
                     FROM games WHERE id = ?1",
                    params![id],
                    game_row,
                )
                .optional()?;
            let Some(mut game) = game else { return Ok(None) };
            let mut stmt = conn.prepare("SELECT ply, text, reason, at FROM moves WHERE game_id = ?1 ORDER BY ply")?;
            game.moves = stmt
                .query_map(params![id], |r| {
                    Ok(StoredMove { ply: r.get::<_, i64>(0)? as usize, text: r.get(1)?, reason: r.get(2)?, at: r.get(3)? })
                })?
                .collect::<rusqlite::Result<_>>()?;
            Ok(Some(game))
        })
    }
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredGame> {
    let settings: String = r.get(3)?;
    Ok(StoredGame {
        id: r.get(0)?,
        room: r.get::<_, i64>(1)? as u32,
        game: r.get(2)?,
        settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
        first: r.get(4)?,
        second: r.get(5)?,
        started_at: r.get(6)?,
        ended_at: r.get(7)?,
        end_reason: r.get(8)?,
        winner: r.get::<_, Option<i64>>(9)?.map(|w| w as u8),
        record: r.get(10)?,
        moves: Vec::new(),
    })
}

/// Takes every queued write, commits them in one transaction, then reports each.
fn write_loop(mut conn: Connection, mut rx: mpsc::UnboundedReceiver<Write>) {
    while let Some(first) = rx.blocking_recv() {
        let mut batch = vec![first];
        while batch.len() < 512 {
            match rx.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let outcome = (|| -> rusqlite::Result<Vec<Option<i64>>> {
            let tx = conn.transaction()?;
            let mut ids = Vec::with_capacity(batch.len());
            for w in &batch {
                ids.push(match w {
                    Write::StartGame { room, game, settings, first, second, .. } => {
                        tx.execute(
                            "INSERT INTO games (room, game, settings, first_player, second_player, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                            params![room, game, settings, first, second, now_ms()],
                        )?;
                        Some(tx.last_insert_rowid())
                    }
                    Write::Move { game_id, ply, text, reason, .. } => {
                        tx.execute(
                            "INSERT OR REPLACE INTO moves (game_id, ply, text, reason, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                            params![game_id, *ply as i64, text, reason, now_ms()],
                        )?;
                        None
                    }
                    Write::EndGame { game_id, end_reason, winner, record, .. } => {
                        if *game_id >= 0 {
                            tx.execute(
                                "UPDATE games SET ended_at = ?2, end_reason = ?3, winner = ?4, record = ?5 WHERE id = ?1",
                                params![game_id, now_ms(), end_reason, winner, record],
                            )?;
                        }
                        None
                    }
                });
            }
            tx.commit()?;
            Ok(ids)
        })();
        for (i, w) in batch.into_iter().enumerate() {
            let error = outcome
                .as_ref()
                .err()
                .map(|e| format!("storage failed: {e}"));
            match w {
                Write::StartGame { done, .. } => {
                    let _ = done.send(match &outcome {
                        Ok(ids) => Ok(ids[i].unwrap_or_default()),
                        Err(_) => Err(error.unwrap_or_default()),
                    });
                }
                Write::Move { done, .. } | Write::EndGame { done, .. } => {
                    let _ = done.send(error.map_or(Ok(()), Err));
                }
            }
        }
    }
}
