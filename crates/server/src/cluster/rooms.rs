//! The room list of a cluster: every node answers with its own rooms on one subject, the asking
//! node merges the answers that arrive within a short window.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::{Cluster, ClusterError};
use crate::rooms::RoomsPage;

/// The subject every node answers room lists on.
const ROOMS_SUBJECT: &str = "arbiter.rooms";
/// How long the asking node waits for the other nodes' pages.
const ANSWER_WINDOW: Duration = Duration::from_millis(250);

#[derive(Serialize, Deserialize)]
struct PageAsked {
    after: Option<u32>,
    limit: usize,
}

#[derive(Serialize, Deserialize)]
struct PageAnswer {
    rooms: Vec<serde_json::Value>,
    next: Option<u32>,
}

impl Cluster {
    /// Answers other nodes' questions for this node's rooms.
    pub(super) async fn answer_room_lists(self: &Arc<Self>) -> Result<(), ClusterError> {
        self.on_each(ROOMS_SUBJECT.to_string(), |me, message| async move {
            let Some(reply) = message.reply else { return };
            let Ok(page) = serde_json::from_slice::<PageAsked>(&message.payload) else {
                return;
            };
            let Some(hub) = me.hub() else { return };
            let (rooms, next) = hub.rooms_json(page.after, page.limit).await;
            let answer = serde_json::to_vec(&PageAnswer { rooms, next }).expect("serialises");
            let _ = me.nats.publish(reply, answer.into()).await;
        })
        .await
    }

    /// One page of every node's rooms (this node's included: it answers too).
    pub(super) fn rooms_of_all(
        &self,
        after: Option<u32>,
        limit: usize,
    ) -> BoxFuture<'_, RoomsPage> {
        Box::pin(async move {
            let inbox = self.nats.new_inbox();
            let Ok(mut answers) = self.nats.subscribe(inbox.clone()).await else {
                return (Vec::new(), None);
            };
            let asked = serde_json::to_vec(&PageAsked { after, limit }).expect("serialises");
            let sent = self
                .nats
                .publish_with_reply(ROOMS_SUBJECT, inbox, asked.into())
                .await;
            if sent.is_err() {
                return (Vec::new(), None);
            }
            let mut pages = Vec::new();
            let window = tokio::time::sleep(ANSWER_WINDOW);
            tokio::pin!(window);
            loop {
                tokio::select! {
                    answer = answers.next() => match answer {
                        Some(m) => pages.extend(serde_json::from_slice::<PageAnswer>(&m.payload).ok()),
                        None => break,
                    },
                    _ = &mut window => break,
                }
            }
            merge(pages, limit)
        })
    }
}

impl Cluster {
    /// What every node says of its rooms' state (`waiting`, `playing`, `over`), page after page.
    /// A room no node described in time is missing: the caller decides what that means.
    pub(super) async fn room_states(&self) -> std::collections::HashMap<u32, String> {
        const PAGE: usize = 500;
        const MOST_PAGES: usize = 400;
        let mut states = std::collections::HashMap::new();
        let mut after = None;
        for _ in 0..MOST_PAGES {
            let (rooms, next) = self.rooms_of_all(after, PAGE).await;
            for room in &rooms {
                if let (Some(n), Some(state)) = (room["room"].as_u64(), room["status"].as_str()) {
                    states.insert(n as u32, state.to_string());
                }
            }
            match next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
        states
    }
}

/// The first `limit` rooms of the nodes' pages, in order, and where the next page starts.
fn merge(pages: Vec<PageAnswer>, limit: usize) -> RoomsPage {
    let more_somewhere = pages.iter().any(|p| p.next.is_some());
    let mut rooms: Vec<(u64, serde_json::Value)> = pages
        .into_iter()
        .flat_map(|p| p.rooms)
        .map(|r| (r["room"].as_u64().unwrap_or(0), r))
        .collect();
    rooms.sort_by_key(|(n, _)| *n);
    rooms.dedup_by_key(|(n, _)| *n);
    let more = more_somewhere || rooms.len() > limit;
    rooms.truncate(limit);
    let next = rooms.last().map(|(n, _)| *n as u32).filter(|_| more);
    (rooms.into_iter().map(|(_, r)| r).collect(), next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_several_nodes_merge_in_order() {
        let page = |rooms: &[u64], next: Option<u32>| PageAnswer {
            rooms: rooms
                .iter()
                .map(|n| serde_json::json!({ "room": n }))
                .collect(),
            next,
        };
        let (rooms, next) = merge(vec![page(&[1, 5, 9], None), page(&[2, 3], None)], 4);
        let numbers: Vec<u64> = rooms.iter().map(|r| r["room"].as_u64().unwrap()).collect();
        assert_eq!((numbers, next), (vec![1, 2, 3, 5], Some(5)));
        let (rooms, next) = merge(vec![page(&[1], None), page(&[2], None)], 4);
        assert_eq!((rooms.len(), next), (2, None));
        let (_, next) = merge(vec![page(&[1, 2], Some(2))], 4);
        assert_eq!(next, Some(2), "a node with more rooms than it sent");
    }
}
