//! A room tells nothing its journal did not record: a cluster's journal that hands the room
//! over (docs/cluster.md, "PostgreSQL restarts") leaves the move unforwarded and the end
//! untold, and the game is not interrupted here — the next owner carries it on.

use futures_util::future::BoxFuture;

use super::*;
use crate::rooms::journal::{Journal, LocalJournal, NotRecorded};
use crate::storage::{GameEnd, NewGame, PlayedMove};

/// A journal that records new games (and moves, unless `moves_too`), and hands the room over
/// at every other write.
struct HandsOver {
    inner: Arc<LocalJournal>,
    moves_too: bool,
}

impl Journal for HandsOver {
    fn start_game(&self, room: u32, game: NewGame) -> BoxFuture<'_, Result<i64, NotRecorded>> {
        self.inner.start_game(room, game)
    }

    fn record_move(&self, room: u32, played: PlayedMove) -> BoxFuture<'_, Result<(), NotRecorded>> {
        if self.moves_too {
            return Box::pin(async { Err(NotRecorded::HandedOver) });
        }
        self.inner.record_move(room, played)
    }

    fn take_back(&self, _: u32, _: i64, _: usize) -> BoxFuture<'_, Result<(), NotRecorded>> {
        Box::pin(async { Err(NotRecorded::HandedOver) })
    }

    fn record_end(&self, _: u32, _: GameEnd) -> BoxFuture<'_, Result<(), NotRecorded>> {
        Box::pin(async { Err(NotRecorded::HandedOver) })
    }
}

async fn started_handing_over(moves_too: bool) -> (Table, Client, Client) {
    let store = Arc::new(MemoryStore::default());
    let journal = Arc::new(HandsOver {
        inner: LocalJournal::new(store.clone()),
        moves_too,
    });
    let mut t = Table::with_journal(store, journal);
    let (mut alice, mut bob) = (Client::new(1, "alice"), Client::new(2, "bob"));
    t.ready(&alice, Some(Side::First)).await;
    t.ready(&bob, Some(Side::Second)).await;
    alice.one();
    bob.one();
    (t, alice, bob)
}

#[tokio::test(start_paused = true)]
async fn a_move_the_journal_handed_over_is_never_told_nor_interrupts_the_game() {
    let (mut t, mut alice, mut bob) = started_handing_over(true).await;
    t.play(&alice, "A2", "A3").await;
    bob.silent();
    alice.silent();
    assert!(t.room.info().moves.is_empty(), "{:?}", t.room.info());
    let game = &t.store.games()[0];
    assert!(
        game.moves.is_empty() && game.end_reason.is_none(),
        "{game:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_end_the_journal_handed_over_is_never_told() {
    let (mut t, mut alice, mut bob) = started_handing_over(false).await;
    t.play(&alice, "A2", "A3").await;
    bob.one();
    t.send(&bob, RESIGN, "", "").await;
    alice.silent();
    bob.silent();
    let game = &t.store.games()[0];
    assert!(game.end_reason.is_none(), "{game:?}");
}
