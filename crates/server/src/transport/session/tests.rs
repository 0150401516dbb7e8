//! A session's checks, driven line by line: what is refused before any room hears of it.

use std::sync::Arc;
use std::time::Duration;

use super::{ConnConfig, Next, Session};
use crate::games::Registry;
use crate::protocol::{Message, MOVE, NOTICE, READY, REJECT, WATCH};
use crate::rooms::outbox::Inbox;
use crate::rooms::{Hub, RoomSetup};
use crate::storage::memory::MemoryStore;

fn session() -> (Session, Inbox) {
    let registry = Registry::of::<arbiter_ai::Standard>();
    let setup = RoomSetup::for_tests();
    let hub = Hub::new(Arc::new(MemoryStore::default()), registry.clone(), setup);
    let config = ConnConfig {
        registry,
        idle_timeout: Duration::from_secs(60),
        watch_idle_timeout: Duration::from_secs(300),
        rate_limit: 1000,
        opening_timeout_ms: None,
        house: None,
    };
    Session::new("test".into(), hub, config)
}

/// The REJECT a READY line gets.
async fn refusal(line: &str) -> String {
    let (mut session, mut inbox) = session();
    assert_eq!(session.line(line), Next::Continue);
    let answer = Message::parse(&inbox.try_next().expect("an answer")).unwrap();
    assert_eq!(answer.op, REJECT, "{answer:?}");
    answer.data2
}

fn ready(name: &str, colour: &str, room: &str, extra: &str) -> String {
    format!(r#"{{"op":{READY},"data1":"{name}","data2":"{colour}","data3":"{room}"{extra}}}"#)
}

#[tokio::test]
async fn a_bad_ready_is_refused_with_the_reason() {
    for (line, expected) in bad_readies() {
        let reason = refusal(&line).await;
        assert!(reason.contains(expected), "{line}: {reason}");
    }
}

/// READY lines each refused, with a part of the reason the client must read.
fn bad_readies() -> Vec<(String, &'static str)> {
    let token = |t: &str| ready("ann", "", "", &format!(r#","token":"{t}""#));
    vec![
        (ready("a b", "", "", ""), "bad username"),
        (ready("ann", "GREEN", "", ""), "bad colour `GREEN`"),
        (
            ready("ann", "", "256", ""),
            "bad room `256`: a number from 0 to 255",
        ),
        (
            ready("ann", "", "x", r#","game":"duck""#),
            "a number from 0 to 1000000",
        ),
        (
            ready("ann", "", "", r#","game":"chess""#),
            "unknown game `chess`",
        ),
        (
            ready("ann", "", "", r#","game":7"#),
            "`game` must be a string",
        ),
        (token("short"), "bad token"),
        // Eight characters were once enough; now only 128 random bits in hex.
        (token("abcdefgh"), "bad token"),
        (token("0123456789abcdef0123456789abcdeg"), "bad token"),
        (token("0123456789ABCDEF0123456789ABCDEF"), "bad token"),
        (
            ready("ann", "", "", r#","timeout_ms":5"#),
            "timeout_ms must be from 100",
        ),
        (
            ready("ann", "", "", r#","increment_ms":5"#),
            "increment_ms needs clock_ms",
        ),
        (
            ready("ann", "", "", r#","clock_ms":5"#),
            "clock_ms must be from 1000",
        ),
        (ready("ann", "", "", r#","size":7"#), "size"),
        // A field of the wrong type is named (the line was dropped in silence before).
        (
            format!(r#"{{"op":{READY},"data1":"ann","data2":"","data3":1}}"#),
            "data3: a string, not 1",
        ),
    ]
}

#[tokio::test]
async fn a_good_ready_goes_to_its_room_unanswered() {
    let (mut session, mut inbox) = session();
    session.line(&ready("ann", "BLACK", "7", ""));
    assert!(inbox.try_next().is_none());
    assert_eq!(session.room, Some(7));
    let token = r#","token":"0123456789abcdef0123456789abcdef""#;
    session.line(&ready("ann", "BLACK", "8", token));
    assert!(inbox.try_next().is_none());
    assert_eq!(session.room, Some(8));
}

#[tokio::test]
async fn watching_is_capped_per_connection() {
    let (mut session, mut inbox) = session();
    for room in 0..super::MAX_WATCHED {
        session.line(&format!(r#"{{"op":{WATCH},"data1":"{room}"}}"#));
    }
    session.line(&format!(r#"{{"op":{WATCH},"data1":"999"}}"#));
    // The rooms answer on their own tasks; the refusal comes from the session at once.
    let refused = std::iter::from_fn(|| inbox.try_next())
        .map(|l| Message::parse(&l).unwrap())
        .find(|m| m.op == REJECT)
        .expect("a refusal");
    assert!(refused.data2.contains("at most 64 rooms"), "{refused:?}");
}

#[tokio::test]
async fn lines_that_are_not_messages_are_counted_then_the_connection_closed() {
    let (mut session, _inbox) = session();
    for _ in 0..super::MAX_BAD_LINES {
        assert_eq!(session.line("not json"), Next::Continue);
    }
    assert_eq!(session.line("{}"), Next::Close);
}

/// A client's mistake is answered, never met with silence: a MOVE before READY, a line that
/// is no message, an op clients do not send — each with the extension's NOTICE (course clients
/// ignore it) saying why.
#[tokio::test]
async fn a_clients_mistake_is_answered_with_a_notice_saying_why() {
    let cases = [
        (
            format!(r#"{{"op":{MOVE},"data1":"A2","data2":"A3"}}"#),
            "MOVE needs a seat: send READY first",
        ),
        ("not json".to_string(), "not JSON"),
        (
            format!(r#"{{"op":{MOVE},"data1":7}}"#),
            "data1: a string, not 7",
        ),
        (
            r#"{"op":123}"#.to_string(),
            "op 123 is not one a client sends",
        ),
    ];
    for (line, expected) in cases {
        let (mut session, mut inbox) = session();
        session.line(&line);
        let answer = Message::parse(&inbox.try_next().expect("an answer")).unwrap();
        assert_eq!(
            (answer.op, answer.data1.as_str()),
            (NOTICE, "error"),
            "{line}"
        );
        assert!(answer.data3.contains(expected), "{line}: {answer:?}");
    }
}
