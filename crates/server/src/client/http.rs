//! The one HTTP request a client makes (the server's list of games), without an HTTP crate.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::ClientError;

/// Fetches `path` from `http` with a bare HTTP/1.1 GET; the body of a 200 answer.
pub async fn http_get(http: std::net::SocketAddr, path: &str) -> Result<String, ClientError> {
    let mut stream = TcpStream::connect(http).await.map_err(ClientError::Http)?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(ClientError::Http)?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .map_err(ClientError::Http)?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or(ClientError::HttpMalformed)?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(ClientError::HttpStatus {
            path: path.to_string(),
            status: head.lines().next().unwrap_or("").to_string(),
        });
    }
    Ok(body.to_string())
}
