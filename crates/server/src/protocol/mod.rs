//! The course protocol's messages: one compact JSON object per line, `op` and `data1..3`
//! ([`Message`]); its ops ([`Op`]); and what a client's message means, read once where the
//! connection reads it ([`ClientCommand`]), so nothing past the transport reads fields by
//! position.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod command;
mod op;
mod winner;
mod words;

pub use command::{
    ChatCommand, ClientCommand, Command, LeaveCommand, MoveCommand, OfferCommand, ReadyCommand,
    ResignCommand, Unread, UnwatchCommand, WatchCommand,
};
pub use op::*;
pub use winner::Winner;
pub use words::{Closed, OfferAction, OfferKind, Word};

/// The game of a READY without the extension's `game` key: the course protocol is Surakarta's.
pub const COURSE_GAME: &str = "surakarta";

/// Extension keys of a READY that are not game options (a client's own information).
pub fn is_client_key(key: &str) -> bool {
    matches!(key, "token" | "client" | "secret" | "resume")
}

/// The `data3` of a MOVE that ends the game.
pub const END_MARKER: &str = "998244353";

/// The longest line the server reads; longer ones are dropped.
pub const MAX_LINE: usize = 64 * 1024;

/// A protocol message. Extension keys (`game`, `size`, …) ride along in `extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub op: i64,
    #[serde(default)]
    pub data1: String,
    #[serde(default)]
    pub data2: String,
    #[serde(default)]
    pub data3: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a line is not a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("not a message object: {0}")]
    Shape(String),
    /// A field of a message whose op could be read: the answer names it.
    #[error("{field}: {why}")]
    Field {
        op: i64,
        field: &'static str,
        why: String,
    },
}

impl ParseError {
    /// The op of a message whose other fields were wrong.
    pub fn op(&self) -> Option<i64> {
        match self {
            ParseError::Field { op, .. } => Some(*op),
            _ => None,
        }
    }
}

/// A JSON value as an answer shows it: short.
fn shown(value: &Value) -> String {
    arbiter_core::text::shorten(&value.to_string())
}

/// Why an extension field cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    #[error("{0} must be a non-negative integer")]
    NotInteger(String),
    #[error("{0} must be a number")]
    NotNumber(String),
}

impl Message {
    pub fn new(
        op: i64,
        data1: impl Into<String>,
        data2: impl Into<String>,
        data3: impl Into<String>,
    ) -> Message {
        Message {
            op,
            data1: data1.into(),
            data2: data2.into(),
            data3: data3.into(),
            extra: Map::new(),
        }
    }

    /// Reads one line (without its newline). `data1..3` default to `""` when missing; a
    /// present one must be a string, `op` an integer.
    pub fn parse(line: &str) -> Result<Message, ParseError> {
        let value: Value =
            serde_json::from_str(line).map_err(|e| ParseError::NotJson(e.to_string()))?;
        let Value::Object(mut map) = value else {
            return Err(ParseError::Shape("expected a JSON object".into()));
        };
        let op = match map.remove("op") {
            Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or_default(),
            Some(other) => return Err(ParseError::Shape(format!("op: an integer, not {other}"))),
            None => return Err(ParseError::Shape("op: missing".into())),
        };
        let mut text = |field: &'static str| match map.remove(field) {
            None => Ok(String::new()),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(ParseError::Field {
                op,
                field,
                why: format!("a string, not {}", shown(&other)),
            }),
        };
        let (data1, data2, data3) = (text("data1")?, text("data2")?, text("data3")?);
        Ok(Message {
            op,
            data1,
            data2,
            data3,
            extra: map,
        })
    }

    /// The compact JSON line, without a newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("messages serialise")
    }

    /// Whether a line made by [`Message::to_line`] carries `op` (its first field), without
    /// reading the rest of it.
    /// Every line a room sends passes here, so nothing is allocated.
    pub fn line_has_op(line: &str, op: i64) -> bool {
        let Some(rest) = line.strip_prefix("{\"op\":") else {
            return false;
        };
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        rest[..end].parse() == Ok(op)
    }

    /// An extension string field.
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.get(key).and_then(Value::as_str)
    }

    /// An extension integer field (a JSON number or a decimal string).
    pub fn extra_u64(&self, key: &str) -> Option<Result<u64, FieldError>> {
        extra_u64(&self.extra, key)
    }

    pub fn op_name(&self) -> &'static str {
        op_name(self.op)
    }
}

/// An extension integer key of a message (a JSON number or a decimal string).
fn extra_u64(extra: &Map<String, Value>, key: &str) -> Option<Result<u64, FieldError>> {
    let not_integer = || FieldError::NotInteger(key.to_string());
    extra.get(key).map(|v| match v {
        Value::Number(n) => n.as_u64().ok_or_else(not_integer),
        Value::String(s) => s.parse().map_err(|_| not_integer()),
        _ => Err(FieldError::NotNumber(key.to_string())),
    })
}

/// Splits a byte stream into lines of at most [`MAX_LINE`] bytes: several per read, or one
/// across reads. Overlong lines are reported and skipped up to their newline.
#[derive(Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Inside an overlong line, discarding until its end.
    skipping: bool,
}

/// One item from a [`LineBuffer`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    /// A line longer than [`MAX_LINE`] (skipped), or not UTF-8.
    Bad(&'static str),
}

impl LineBuffer {
    /// Adds bytes read from the network; returns the complete lines they finish.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Line> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' {
                if self.skipping {
                    self.skipping = false;
                } else {
                    let raw = std::mem::take(&mut self.buf);
                    let raw = raw.strip_suffix(b"\r").unwrap_or(&raw).to_vec();
                    match String::from_utf8(raw) {
                        Ok(text) if text.trim().is_empty() => {}
                        Ok(text) => out.push(Line::Text(text)),
                        Err(_) => out.push(Line::Bad("the line is not UTF-8")),
                    }
                }
            } else if !self.skipping {
                self.buf.push(b);
                if self.buf.len() > MAX_LINE {
                    self.buf = Vec::new();
                    self.skipping = true;
                    out.push(Line::Bad("the line is longer than 64 KiB"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_known_by_its_op_without_being_read() {
        let line = Message::new(MOVE, "A2", "A3", "").to_line();
        assert!(Message::line_has_op(&line, MOVE));
        assert!(!Message::line_has_op(&line, CHAT));
        // One op is not read as the beginning of a longer one.
        assert!(!Message::line_has_op("{\"op\":2000011}", MOVE));
        assert!(!Message::line_has_op("not a message", MOVE));
    }

    #[test]
    fn messages_round_trip() {
        let line = r#"{"op":200001,"data1":"A2","data2":"B3","data3":""}"#;
        let m = Message::parse(line).unwrap();
        assert_eq!(m, Message::new(MOVE, "A2", "B3", ""));
        assert_eq!(m.to_line(), line);
        let with_extra = Message::parse(
            r#"{"op":200000,"data1":"a","data2":"","data3":"1","game":"duck","size":8}"#,
        )
        .unwrap();
        assert_eq!(with_extra.extra_str("game"), Some("duck"));
        assert_eq!(with_extra.extra_u64("size"), Some(Ok(8)));
        assert!(Message::parse("{").is_err());
        assert!(Message::parse("[1,2]").is_err());
        assert!(Message::parse(r#"{"op":"x"}"#).is_err());
        assert!(Message::parse(r#"{"op":1,"data1":5}"#).is_err());
        assert_eq!(
            Message::parse(r#"{"op":200002}"#).unwrap(),
            Message::new(RESIGN, "", "", "")
        );
    }

    #[test]
    fn lines_split_and_join_across_reads() {
        let mut lb = LineBuffer::default();
        assert_eq!(
            lb.push(b"{\"op\":1}\n{\"op"),
            vec![Line::Text("{\"op\":1}".into())]
        );
        assert_eq!(
            lb.push(b"\":2}\r\n\n"),
            vec![Line::Text("{\"op\":2}".into())]
        );
        let long = vec![b'x'; MAX_LINE + 10];
        let mut lines = lb.push(&long);
        lines.extend(lb.push(b"yyy\nok\n"));
        assert_eq!(
            lines,
            vec![
                Line::Bad("the line is longer than 64 KiB"),
                Line::Text("ok".into())
            ]
        );
        assert_eq!(
            lb.push(b"\xff\xfe\n"),
            vec![Line::Bad("the line is not UTF-8")]
        );
    }
}
