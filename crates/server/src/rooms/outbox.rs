//! A connection's outgoing lines: a queue bounded in bytes, and a close signal that does not
//! wait behind the queue, so a client that stops reading is let go at once instead of holding
//! memory and a writer forever.
//!
//! What a client must receive (moves, ends, READY, STATE) is *essential*: when essential lines
//! pile up past [`ESSENTIAL_LIMIT`] the client is not reading at all and is disconnected. Chat
//! is *lossy*: it is dropped for a client whose queue already holds [`LOSSY_LIMIT`] bytes, so
//! an opponent flooding chat can never get a thinking player disconnected.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Notify};

/// Bytes of essential lines a client may leave unread before it is disconnected.
pub const ESSENTIAL_LIMIT: usize = 1 << 20;
/// What a queued line costs beyond its text and newline, counted against the limits: the
/// `Arc`'s counts, the allocator's rounding and the queue's slot. Without it a client sent many
/// short lines held several times the limit.
pub const LINE_OVERHEAD: usize = 64;
/// Above this many queued bytes, lossy lines (chat) are dropped for that client.
pub const LOSSY_LIMIT: usize = 64 << 10;
/// What a connection's socket may hold besides its outbox: the kernel's send buffer (TCP) and
/// the WebSocket's write buffer.
pub const SOCKET_BUFFER: usize = 64 << 10;
/// A single write that takes longer than this means the client stopped reading.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(20);

/// Whether a line may be dropped for a slow client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Essential,
    Lossy,
}

/// The sending side, shared by everyone who writes to the connection.
#[derive(Clone, Debug)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<Arc<str>>,
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    queued: AtomicUsize,
    closed: AtomicBool,
    close_now: Notify,
    /// Woken when the queue empties or the writer stops, for [`Outbox::flushed`].
    drained: Notify,
    dropped: AtomicU64,
}

/// The writing side: the lines to write, in order, until the outbox is closed.
pub struct Inbox {
    rx: mpsc::UnboundedReceiver<Arc<str>>,
    shared: Arc<Shared>,
}

/// A new outbox and the writer's end of it.
pub fn outbox() -> (Outbox, Inbox) {
    let (tx, rx) = mpsc::unbounded_channel();
    let shared = Arc::new(Shared::default());
    (
        Outbox {
            tx,
            shared: shared.clone(),
        },
        Inbox { rx, shared },
    )
}

/// The bytes a queued line is counted for.
fn cost(line: &str) -> usize {
    line.len() + 1 + LINE_OVERHEAD
}

impl Outbox {
    /// Queues a line (without its newline); false when the connection is gone or was just
    /// closed for not reading.
    pub fn send(&self, line: Arc<str>, kind: Kind) -> bool {
        if self.is_closed() {
            return false;
        }
        let size = cost(&line);
        let queued = self.shared.queued.load(Ordering::Relaxed);
        if kind == Kind::Lossy && queued > LOSSY_LIMIT {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        if queued + size > ESSENTIAL_LIMIT {
            tracing::warn!("a client left {queued} bytes unread: disconnecting it");
            self.close();
            return false;
        }
        self.shared.queued.fetch_add(size, Ordering::Relaxed);
        self.tx.send(line).is_ok()
    }

    /// Closes the connection without waiting for what is queued.
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Relaxed);
        self.shared.close_now.notify_one();
    }

    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Relaxed) || self.tx.is_closed()
    }

    /// Lossy lines dropped so far for this client.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Resolves once every queued line is written or the connection is gone: a stopping server
    /// waits for it so its last words (END) reach the client before the process ends.
    pub async fn flushed(&self) {
        loop {
            let drained = self.shared.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            if self.is_closed() || self.shared.queued.load(Ordering::Relaxed) == 0 {
                return;
            }
            drained.await;
        }
    }
}

impl Inbox {
    /// The next line to write; `None` once the outbox is closed (or every sender is gone).
    pub async fn next(&mut self) -> Option<Arc<str>> {
        if self.shared.closed.load(Ordering::Relaxed) {
            return None;
        }
        tokio::select! {
            biased;
            _ = self.shared.close_now.notified() => None,
            line = self.rx.recv() => line,
        }
    }

    /// The next line already queued, if any (for tests that read a peer's messages in place).
    #[cfg(test)]
    pub fn try_next(&mut self) -> Option<Arc<str>> {
        let line = self.rx.try_recv().ok()?;
        self.written(&line);
        Some(line)
    }

    /// Marks a line as written (its bytes leave the queue).
    pub fn written(&self, line: &str) {
        let size = cost(line);
        if self.shared.queued.fetch_sub(size, Ordering::Relaxed) == size {
            self.shared.drained.notify_waiters();
        }
    }

    /// The writer has stopped: nothing more can be sent.
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::Relaxed);
        self.shared.drained.notify_waiters();
    }
}

/// A writer dropped without `close` has stopped too. `drop` runs before the receiver goes, so
/// the flag (not the channel) is what tells a woken [`Outbox::flushed`] the writer is gone.
impl Drop for Inbox {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(bytes: usize) -> Arc<str> {
        Arc::from("x".repeat(bytes))
    }

    #[tokio::test]
    async fn chat_is_dropped_for_a_slow_reader_and_moves_are_not() {
        let (out, mut inbox) = outbox();
        for _ in 0..2 {
            assert!(out.send(line(40_000), Kind::Lossy));
        }
        // 80 kB queued: more chat is dropped, a move still goes in.
        assert!(out.send(line(100), Kind::Lossy));
        assert_eq!(out.dropped(), 1);
        assert!(out.send(line(100), Kind::Essential));
        let first = inbox.next().await.unwrap();
        inbox.written(&first);
        assert_eq!(first.len(), 40_000);
    }

    /// What a queued line really holds in memory, at least: its text, the `Arc`'s two counts
    /// and the queue's slot (a fat pointer).
    fn held(text: usize) -> usize {
        text + 2 * std::mem::size_of::<usize>() + std::mem::size_of::<Arc<str>>()
    }

    #[tokio::test]
    async fn a_spectator_that_never_reads_small_lines_is_dropped_by_the_bytes_they_hold() {
        // A spectator of a fast game queues many short lines; each costs more than its text.
        for text in [1, 60, 400] {
            let (out, _inbox) = outbox();
            let mut lines = 0;
            while out.send(line(text), Kind::Essential) {
                lines += 1;
            }
            assert!(
                lines * held(text) <= ESSENTIAL_LIMIT,
                "{lines} lines of {text} bytes hold {} bytes",
                lines * held(text)
            );
            assert!(lines * (text + 1 + LINE_OVERHEAD) > ESSENTIAL_LIMIT - 1000);
        }
    }

    #[tokio::test]
    async fn flushed_waits_for_the_writer_and_not_for_a_writer_that_is_gone() {
        let (out, mut inbox) = outbox();
        out.send(line(10), Kind::Essential);
        out.send(line(20), Kind::Essential);
        let waiting = tokio::spawn({
            let out = out.clone();
            async move { out.flushed().await }
        });
        let first = inbox.next().await.unwrap();
        inbox.written(&first);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "flushed with a line still queued");
        let second = inbox.next().await.unwrap();
        inbox.written(&second);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("flushed once both lines are written")
            .unwrap();
        out.send(line(5), Kind::Essential);
        let gone = tokio::spawn(async move { out.flushed().await });
        drop(inbox);
        tokio::time::timeout(Duration::from_secs(5), gone)
            .await
            .expect("flushed once the writer is gone")
            .unwrap();
    }

    #[tokio::test]
    async fn a_reader_that_never_reads_is_closed_without_waiting_in_the_queue() {
        let (out, mut inbox) = outbox();
        while out.send(line(60_000), Kind::Essential) {}
        assert!(out.is_closed());
        // The writer learns it at once, however much is still queued.
        assert_eq!(inbox.next().await, None);
        assert!(!out.send(line(10), Kind::Essential));
    }
}
