//! Hyper answers a request head it cannot parse (bad syntax, a head over the size limit, an
//! unknown version) by itself, with a bare status and no body, before any handler runs. So that
//! no error leaves the server as anything but JSON, [`JsonErrors`] sits between hyper and the
//! socket and rewrites exactly those answers: a 4xx or 5xx with `content-length: 0` and no
//! content type. The server's own errors always carry a JSON body, so they never match.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A socket whose bare error answers from hyper are rewritten as JSON.
pub struct JsonErrors<T> {
    io: T,
    /// A rewritten answer still to be written, and how much of it is written.
    pending: Vec<u8>,
    written: usize,
}

impl<T> JsonErrors<T> {
    pub fn new(io: T) -> JsonErrors<T> {
        JsonErrors {
            io,
            pending: Vec::new(),
            written: 0,
        }
    }
}

/// The JSON version of a bare error answer, or `None` when `head` is not one.
pub fn rewrite(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let (status_line, headers) = text.strip_suffix("\r\n\r\n")?.split_once("\r\n")?;
    let status: u16 = status_line
        .strip_prefix("HTTP/1.1 ")?
        .get(..3)?
        .parse()
        .ok()?;
    let lower = headers.to_ascii_lowercase();
    let bare =
        lower.split("\r\n").any(|h| h == "content-length: 0") && !lower.contains("content-type:");
    if !(400..600).contains(&status) || !bare {
        return None;
    }
    let body = serde_json::json!({ "error": why(status) }).to_string();
    let kept: String = headers
        .split("\r\n")
        .filter(|h| !h.to_ascii_lowercase().starts_with("content-length:"))
        .map(|h| format!("{h}\r\n"))
        .collect();
    let answer = format!(
        "{status_line}\r\n{kept}content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    Some(answer.into_bytes())
}

fn why(status: u16) -> &'static str {
    match status {
        400 => "the request is not valid HTTP/1.1 (its head could not be parsed)",
        408 => "the request head did not arrive in time",
        413 | 431 => "the request head is too large",
        414 => "the request target is too long",
        505 => "this HTTP version is not supported",
        _ => "the request could not be handled",
    }
}

impl<T: AsyncWrite + Unpin> JsonErrors<T> {
    /// Writes what is left of a rewritten answer; ready once it is all written.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while self.written < self.pending.len() {
            let rest = &self.pending[self.written..];
            match Pin::new(&mut self.io).poll_write(cx, rest) {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()))
                }
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if this.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        if let Some(answer) = rewrite(buf) {
            this.pending = answer;
            // The whole original is taken; the rewritten answer goes out by drain.
            let _ = this.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.drain(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_bare_errors_become_json_and_others_pass() {
        let bare = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let json = String::from_utf8(rewrite(bare).unwrap()).unwrap();
        let (head, body) = json.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ndate: x\r\n"));
        assert!(head.contains("content-type: application/json"));
        assert!(head.ends_with(&format!("content-length: {}", body.len())));
        let parsed: serde_json::Value = serde_json::from_str(body).unwrap();
        assert!(parsed["error"].as_str().unwrap().contains("not valid HTTP"));
        let ours = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(rewrite(ours), None);
        let fine = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(rewrite(fine), None);
        assert_eq!(
            rewrite(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n"),
            None
        );
    }
}
