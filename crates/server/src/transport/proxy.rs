//! Behind a load balancer every connection comes from the balancer's address, so the limits per
//! address and per network would lump all clients together. A balancer the server is told to
//! trust (`--trusted-proxy`) sends the PROXY protocol header (haproxy's `send-proxy` or
//! `send-proxy-v2`) first; the client's address is read from it before the connection is
//! admitted, and is the address every limit, log line and seat sees. Connections from any
//! other address are never read for a header, so no client can claim another's address.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The longest version 1 header (the specification's bound).
const V1_LONGEST: usize = 107;
/// The fixed part of a version 2 header; the rest is as long as its last two bytes say.
const V2_FIXED: usize = 16;
const V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";
/// A version 2 header carries addresses and options; more than this is not a balancer's.
const V2_LONGEST_REST: usize = 512;

/// Why a trusted proxy's connection was dropped.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("no PROXY protocol header within {0:?}")]
    Late(Duration),
    #[error("the connection closed before its PROXY header ended")]
    Closed(#[from] std::io::Error),
    #[error("not a PROXY protocol header: {0}")]
    Invalid(String),
}

/// The balancers whose connections start with a PROXY header.
#[derive(Clone, Debug, Default)]
pub struct Proxies {
    trusted: Arc<[IpAddr]>,
    /// A trusted balancer's header must arrive this soon.
    within: Duration,
}

impl Proxies {
    pub fn new(trusted: &[IpAddr], within: Duration) -> Proxies {
        Proxies {
            trusted: trusted.iter().map(|ip| ip.to_canonical()).collect(),
            within,
        }
    }

    /// Where a connection comes from: `peer` itself, or for a trusted balancer the client its
    /// header names; `None` (the connection is dropped) when that header is bad or late.
    pub async fn origin(&self, stream: &mut TcpStream, peer: SocketAddr) -> Option<Origin> {
        let client = |addr| Origin { addr, check: false };
        if !self.trusted.contains(&peer.ip().to_canonical()) {
            return Some(client(peer));
        }
        match tokio::time::timeout(self.within, read_header(stream)).await {
            Ok(Ok(header)) => match source_of(&header) {
                // haproxy's checks name the check's own connection (seen with haproxy 2.6).
                Ok(Some(addr)) if addr != peer => Some(client(addr)),
                Ok(_) => Some(Origin {
                    addr: peer,
                    check: true,
                }),
                Err(e) => dropped(peer, e),
            },
            Ok(Err(e)) => dropped(peer, e),
            Err(_) => dropped(peer, ProxyError::Late(self.within)),
        }
    }
}

fn dropped(peer: SocketAddr, e: ProxyError) -> Option<Origin> {
    tracing::warn!("dropped a connection from the balancer {peer}: {e}");
    None
}

/// Who a connection is for the limits and the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub addr: SocketAddr,
    /// The balancer speaking for itself — a header naming no client (`PROXY UNKNOWN`, version
    /// 2's `LOCAL`) or naming the connection's own source, as haproxy's `check-send-proxy`
    /// does: its health check, made every second per node, logged at debug level only, or it
    /// would bury the log.
    pub check: bool,
}

/// Reads the PROXY header a trusted balancer sends first; the client's address, or the
/// balancer's own (`peer`) for its health checks (`PROXY UNKNOWN`, `LOCAL`).
pub async fn client_address(
    stream: &mut TcpStream,
    peer: SocketAddr,
    within: Duration,
) -> Result<SocketAddr, ProxyError> {
    let header = tokio::time::timeout(within, read_header(stream))
        .await
        .map_err(|_| ProxyError::Late(within))??;
    Ok(source_of(&header)?.unwrap_or(peer))
}

/// Reads exactly the header's bytes, so what follows is left for the protocol.
async fn read_header(stream: &mut TcpStream) -> Result<Vec<u8>, ProxyError> {
    let mut header = vec![0u8; 5];
    stream.read_exact(&mut header).await?;
    if header == b"PROXY" {
        while !header.ends_with(b"\r\n") {
            if header.len() >= V1_LONGEST {
                return Err(ProxyError::Invalid(
                    "a version 1 line over 107 bytes".into(),
                ));
            }
            header.push(stream.read_u8().await?);
        }
        return Ok(header);
    }
    header.resize(V2_FIXED, 0);
    stream.read_exact(&mut header[5..]).await?;
    if &header[..12] != V2_SIGNATURE {
        return Err(ProxyError::Invalid("neither version 1 nor 2".into()));
    }
    let rest = usize::from(u16::from_be_bytes([header[14], header[15]]));
    if rest > V2_LONGEST_REST {
        return Err(ProxyError::Invalid(format!(
            "a version 2 header of {rest} bytes"
        )));
    }
    header.resize(V2_FIXED + rest, 0);
    stream.read_exact(&mut header[V2_FIXED..]).await?;
    Ok(header)
}

/// The source address a whole header names; `None` when it names none (the balancer's own
/// connection: a health check).
fn source_of(header: &[u8]) -> Result<Option<SocketAddr>, ProxyError> {
    use ppp::{v1, v2, HeaderResult};
    let invalid = |e: &dyn std::fmt::Display| ProxyError::Invalid(e.to_string());
    match HeaderResult::parse(header) {
        HeaderResult::V1(Ok(h)) => Ok(match h.addresses {
            v1::Addresses::Tcp4(a) => Some(SocketAddr::new(a.source_address.into(), a.source_port)),
            v1::Addresses::Tcp6(a) => Some(SocketAddr::new(a.source_address.into(), a.source_port)),
            v1::Addresses::Unknown => None,
        }),
        HeaderResult::V2(Ok(h)) => Ok(match h.addresses {
            v2::Addresses::IPv4(a) => Some(SocketAddr::new(a.source_address.into(), a.source_port)),
            v2::Addresses::IPv6(a) => Some(SocketAddr::new(a.source_address.into(), a.source_port)),
            v2::Addresses::Unspecified | v2::Addresses::Unix(_) => None,
        }),
        HeaderResult::V1(Err(e)) => Err(invalid(&e)),
        HeaderResult::V2(Err(e)) => Err(invalid(&e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpListener;

    /// Sends `bytes` over a real socket; the address read, and what the protocol reads after.
    async fn through(bytes: Vec<u8>) -> (Result<SocketAddr, ProxyError>, Vec<u8>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let to = listener.local_addr().unwrap();
        let sender = tokio::spawn(async move {
            let mut s = TcpStream::connect(to).await.unwrap();
            s.write_all(&bytes).await.unwrap();
            s.shutdown().await.unwrap();
        });
        let (mut stream, peer) = listener.accept().await.unwrap();
        let read = client_address(&mut stream, peer, Duration::from_secs(2)).await;
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest).await;
        sender.await.unwrap();
        (read, rest)
    }

    #[tokio::test]
    async fn version_1_and_2_name_the_client_and_leave_the_rest() {
        let v1 = b"PROXY TCP4 203.0.113.7 10.0.0.1 40000 8080\r\n{\"op\":1}\n".to_vec();
        let (addr, rest) = through(v1).await;
        assert_eq!(addr.unwrap(), "203.0.113.7:40000".parse().unwrap());
        assert_eq!(rest, b"{\"op\":1}\n");
        let mut v2 = V2_SIGNATURE.to_vec();
        v2.extend([
            0x21, 0x11, 0, 12, 198, 51, 100, 9, 10, 0, 0, 1, 0x9c, 0x40, 0x1f, 0x90,
        ]);
        v2.extend(b"GET /");
        let (addr, rest) = through(v2).await;
        assert_eq!(addr.unwrap(), "198.51.100.9:40000".parse().unwrap());
        assert_eq!(rest, b"GET /");
    }

    #[tokio::test]
    async fn anything_else_is_refused() {
        for bad in [
            b"GET / HTTP/1.1\r\n\r\n".to_vec(),
            b"PROXY TCP4 nonsense\r\n".to_vec(),
            [b"PROXY ".as_slice(), &[b'x'; 200]].concat(),
            b"PROX".to_vec(),
        ] {
            assert!(through(bad).await.0.is_err());
        }
        let (health, _) = through(b"PROXY UNKNOWN\r\n".to_vec()).await;
        assert_eq!(health.unwrap().ip(), "127.0.0.1".parse::<IpAddr>().unwrap());
    }
}
