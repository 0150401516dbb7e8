//! Deadlines by construction for HTTP connections (HTTP/1 and HTTP/2 alike):
//!
//! * [`Counted`] is the socket itself, holding its place in the connection budget: the place is
//!   given back only when the socket is dropped, also after it became a WebSocket.
//! * [`TimedBody`] is a request body that fails when it has not all arrived by its deadline.
//! * [`InFlight`] counts a connection's requests until their responses are written, so a
//!   watchdog can close a connection that carries no request for a while — whatever else
//!   (HTTP/2 pings, settings) it sends.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

use super::limits::Admitted;

/// A socket and its place in the connection budget.
pub struct Counted<T> {
    io: T,
    _admitted: Admitted,
}

impl<T> Counted<T> {
    pub fn new(io: T, admitted: Admitted) -> Counted<T> {
        Counted {
            io,
            _admitted: admitted,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// A request body that did not arrive in time.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {} ms", .0.as_millis())]
pub struct BodyTimeout(Duration);

/// A request body with a deadline; `late` is set when it passed.
pub struct TimedBody<B> {
    inner: B,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
    late: Arc<AtomicBool>,
}

impl<B> TimedBody<B> {
    /// `inner` must have arrived within `limit` from now.
    pub fn new(inner: B, limit: Duration, late: Arc<AtomicBool>) -> TimedBody<B> {
        TimedBody {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
            late,
        }
    }
}

impl<B> Body for TimedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.late.store(true, Ordering::Relaxed);
            return Poll::Ready(Some(Err(BodyTimeout(this.limit).into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A connection's requests under way, and since when it has had none.
#[derive(Clone, Copy, Debug)]
struct Idle {
    in_flight: usize,
    since: Instant,
}

/// Counts one connection's requests; [`Requests::idle_for`] resolves once the connection has
/// carried none for a while.
pub struct Requests {
    state: Arc<watch::Sender<Idle>>,
    seen: watch::Receiver<Idle>,
}

impl Default for Requests {
    fn default() -> Requests {
        Requests::new()
    }
}

/// Counts the requests of one connection.
#[derive(Clone)]
pub struct Counter {
    state: Arc<watch::Sender<Idle>>,
}

impl Counter {
    /// Counts a request that has just begun.
    pub fn begin(&self) -> InFlight {
        self.state.send_modify(|s| s.in_flight += 1);
        InFlight {
            state: self.state.clone(),
        }
    }
}

/// One request under way, until its response body has been written (or dropped).
pub struct InFlight {
    state: Arc<watch::Sender<Idle>>,
}

impl Requests {
    pub fn new() -> Requests {
        let (state, seen) = watch::channel(Idle {
            in_flight: 0,
            since: Instant::now(),
        });
        Requests {
            state: Arc::new(state),
            seen,
        }
    }

    /// What the connection's service counts its requests with.
    pub fn counter(&self) -> Counter {
        Counter {
            state: self.state.clone(),
        }
    }

    /// Resolves when no request has been under way for `limit`.
    pub async fn idle_for(&mut self, limit: Duration) {
        loop {
            let now = *self.seen.borrow_and_update();
            if now.in_flight == 0 {
                tokio::select! {
                    _ = tokio::time::sleep_until(now.since + limit) => return,
                    _ = self.seen.changed() => {}
                }
            } else {
                let _ = self.seen.changed().await;
            }
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.state.send_modify(|s| {
            s.in_flight -= 1;
            s.since = Instant::now();
        });
    }
}

/// A response body that keeps its request counted until it has been written or dropped.
pub struct Tracked<B> {
    inner: B,
    _in_flight: InFlight,
}

impl<B> Tracked<B> {
    pub fn new(inner: B, in_flight: InFlight) -> Tracked<B> {
        Tracked {
            inner,
            _in_flight: in_flight,
        }
    }
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
