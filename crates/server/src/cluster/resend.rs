//! Deliveries lost in NATS are sent again (docs/cluster.md, "NATS restarts"). Core NATS delivers
//! at most once: while nats-server restarts, an owner can publish a line before the client's
//! gateway has subscribed again, and a course client that missed its opponent's MOVE would wait
//! for ever. So each stand-in numbers what it sends (a stream drawn at random, and 1, 2, 3, …)
//! and keeps its recent deliveries; the gateway passes each stream's lines on in order, drops a
//! line it had, and on a gap — or when it has just connected to NATS again — asks the owner for
//! everything after the last line it passed on.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::wire::{ConnRef, Delivery};
use super::{lock, node_subject, room_subject, Cluster};
use crate::rooms::ConnId;

/// How many of a stand-in's latest deliveries its owner keeps to send again.
const KEPT: usize = 512;

/// The start of a request for deliveries again, on the room's subject.
pub(super) const RESEND: &[u8] = b"resend ";

/// What a stand-in sent, numbered, its latest [`KEPT`] kept.
pub(super) struct SentLog {
    stream: u64,
    next: u64,
    recent: VecDeque<Delivery>,
}

impl SentLog {
    pub(super) fn new() -> SentLog {
        SentLog {
            stream: rand::random(),
            next: 1,
            recent: VecDeque::new(),
        }
    }

    /// Numbers `delivery` and keeps it.
    pub(super) fn record(&mut self, mut delivery: Delivery) -> Delivery {
        delivery.stream = self.stream;
        delivery.seq = self.next;
        self.next += 1;
        if self.recent.len() == KEPT {
            self.recent.pop_front();
        }
        self.recent.push_back(delivery.clone());
        delivery
    }

    /// The deliveries of `stream` from number `from` on; `None` when they are not all kept.
    fn since(&self, stream: u64, from: u64) -> Option<Vec<Delivery>> {
        if stream != self.stream {
            return None;
        }
        let oldest = self.recent.front().map_or(self.next, |d| d.seq);
        if from < oldest {
            return None;
        }
        Some(
            self.recent
                .iter()
                .filter(|d| d.seq >= from)
                .cloned()
                .collect(),
        )
    }
}

/// A gateway's request for a stream's deliveries again.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ResendRequest {
    pub conn: ConnRef,
    pub stream: u64,
    pub from: u64,
}

/// What a gateway does with a delivery.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Admit {
    /// The next line of its stream: pass it on.
    Next,
    /// Passed on already.
    Again,
    /// Lines before it were lost: ask for the stream again from this number.
    Gap(u64),
}

/// The last delivery a gateway passed on, for each connection and stream.
#[derive(Default)]
pub(super) struct Received {
    last: HashMap<(ConnId, u64), Heard>,
}

#[derive(Clone, Copy)]
struct Heard {
    room: u32,
    seq: u64,
}

impl Received {
    pub(super) fn admit(&mut self, d: &Delivery) -> Admit {
        if d.seq == 0 {
            // From a node that numbers nothing.
            return Admit::Next;
        }
        let heard = self.last.entry((d.conn, d.stream)).or_insert(Heard {
            room: d.room,
            seq: 0,
        });
        if d.seq <= heard.seq {
            Admit::Again
        } else if d.seq > heard.seq + 1 {
            Admit::Gap(heard.seq + 1)
        } else {
            heard.seq = d.seq;
            Admit::Next
        }
    }

    /// Every stream heard of, with its room and the next number expected.
    fn expected(&self) -> Vec<(ConnId, u32, u64, u64)> {
        self.last
            .iter()
            .map(|(&(conn, stream), h)| (conn, h.room, stream, h.seq + 1))
            .collect()
    }

    /// Forgets the streams of connections that are gone.
    pub(super) fn retain(&mut self, alive: impl Fn(ConnId) -> bool) {
        self.last.retain(|(conn, _), _| alive(*conn));
    }
}

impl Cluster {
    /// A delivery that came after a gap: the owner is asked for the stream again (this one
    /// included), in the background.
    pub(super) fn ask_again(self: &Arc<Self>, conn: ConnId, room: u32, stream: u64, from: u64) {
        tracing::info!("room {room}: deliveries lost before number {from}; asked again");
        let me = self.clone();
        tokio::spawn(async move { me.request_again(conn, room, stream, from).await });
    }

    /// Just connected to NATS again: every stream's owner is asked for what came after the last
    /// line passed on (lines published while this node was away are lost).
    pub(super) async fn ask_every_stream_again(self: &Arc<Self>) {
        let streams = lock(&self.received).expected();
        tracing::info!(
            "connected to NATS again: {} streams of deliveries asked for what they missed",
            streams.len()
        );
        for (conn, room, stream, from) in streams {
            self.request_again(conn, room, stream, from).await;
        }
    }

    async fn request_again(&self, conn: ConnId, room: u32, stream: u64, from: u64) {
        let Some(peer) = lock(&self.local_peers).get(&conn).cloned() else {
            return;
        };
        let request = ResendRequest {
            conn: self.conn_ref(conn, Some(&peer)),
            stream,
            from,
        };
        let mut payload = RESEND.to_vec();
        payload.extend(serde_json::to_vec(&request).expect("requests serialise"));
        // Sent again until the owner is back (its answer is the deliveries themselves).
        for _ in 0..20 {
            match self
                .nats
                .request(room_subject(room), payload.clone().into())
                .await
            {
                Ok(_) => return,
                Err(e) => tracing::debug!("room {room}: deliveries not asked again yet: {e}"),
            }
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        }
        tracing::warn!("room {room}: the owner never answered for lost deliveries");
    }

    /// An owner asked for a stand-in's deliveries again: publishes them, in order.
    pub(super) async fn send_again(&self, room: u32, payload: &[u8]) {
        let Ok(request) = serde_json::from_slice::<ResendRequest>(payload) else {
            tracing::warn!("room {room}: a request for deliveries that is not one");
            return;
        };
        let key = (room, request.conn.node.clone(), request.conn.id);
        let log = lock(&self.sent_logs).get(&key).cloned();
        let again = log.and_then(|l| lock(&l).since(request.stream, request.from));
        let Some(again) = again else {
            tracing::warn!("room {room}: deliveries asked again are no longer kept");
            return;
        };
        let subject = node_subject(&request.conn.node);
        if !again.is_empty() {
            tracing::info!(
                "room {room}: {} deliveries sent again to {}",
                again.len(),
                request.conn.node
            );
        }
        for delivery in again {
            let payload = serde_json::to_vec(&delivery).expect("deliveries serialise");
            if let Err(e) = self.nats.publish(subject.clone(), payload.into()).await {
                tracing::warn!(
                    "a delivery sent again to {} was lost: {e}",
                    request.conn.node
                );
            }
        }
    }
}

/// A stand-in's log, shared by its sending task and the owner's answers.
pub(super) type SharedLog = Arc<Mutex<SentLog>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(line: &str) -> Delivery {
        Delivery {
            conn: 4,
            room: 7,
            line: Some(line.into()),
            lossy: false,
            awaited: false,
            seated: true,
            stream: 0,
            seq: 0,
        }
    }

    #[test]
    fn a_gateway_passes_each_line_on_once_in_order_and_asks_again_after_a_gap() {
        let mut log = SentLog::new();
        let sent: Vec<Delivery> = ["a", "b", "c", "d"]
            .iter()
            .map(|l| log.record(delivery(l)))
            .collect();
        let mut received = Received::default();
        assert_eq!(received.admit(&sent[0]), Admit::Next);
        assert_eq!(received.admit(&sent[0]), Admit::Again);
        // b was lost: c is not passed on before it.
        assert_eq!(received.admit(&sent[2]), Admit::Gap(2));
        let again = log.since(sent[0].stream, 2).unwrap();
        let lines: Vec<_> = again.iter().map(|d| d.line.clone().unwrap()).collect();
        assert_eq!(lines, ["b", "c", "d"]);
        for d in &again {
            assert_eq!(received.admit(d), Admit::Next);
        }
        assert_eq!(received.admit(&sent[3]), Admit::Again, "d, late");
        assert_eq!(received.expected(), [(4, 7, sent[0].stream, 5)]);
    }

    #[test]
    fn an_owner_says_when_it_no_longer_keeps_what_is_asked() {
        let mut log = SentLog::new();
        for i in 0..KEPT + 3 {
            log.record(delivery(&i.to_string()));
        }
        let stream = log.stream;
        assert!(log.since(stream, 3).is_none());
        assert_eq!(log.since(stream, 4).map(|d| d.len()), Some(KEPT));
        assert_eq!(log.since(stream, KEPT as u64 + 4).map(|d| d.len()), Some(0));
        assert!(log.since(stream + 1, 4).is_none(), "another stream");
    }
}
