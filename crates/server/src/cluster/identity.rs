//! Who else is on this NATS, asked once before a node joins. Every node answers on
//! `arbiter.name.<its --node name>` with its incarnation, so a node started under a name a live
//! node already uses hears that node and warns (it still starts: the two do not collide on
//! NATS, each using its own incarnation, and a node that hung under the name must not keep its
//! replacement from starting — but logs, `/api/rooms` and the balancer's names would mix up
//! the two).

use std::sync::Arc;
use std::time::Duration;

use async_nats::RequestErrorKind;

use super::{Cluster, ClusterError};

/// How long a node waits for the others' answers at start: a live node answers in
/// milliseconds, and no answer at all comes back at once ("no responders").
const ASK_WITHIN: Duration = Duration::from_secs(1);

fn name_subject(name: &str) -> String {
    format!("arbiter.name.{name}")
}

/// The answer to `request` on `subject`, or `None` when nobody answered.
async fn ask(nats: &async_nats::Client, subject: String) -> Option<async_nats::Message> {
    let request = async_nats::Request::new().timeout(Some(ASK_WITHIN));
    match nats.send_request(subject.clone(), request).await {
        Ok(answer) => Some(answer),
        Err(e) if matches!(e.kind(), RequestErrorKind::NoResponders) => None,
        Err(e) => {
            tracing::debug!("{subject}: no answer ({e})");
            None
        }
    }
}

/// Warns when a live node already answers to this node's name `name`.
pub(super) async fn warn_if_name_taken(nats: &async_nats::Client, name: &str) {
    let Some(answer) = ask(nats, name_subject(name)).await else {
        return;
    };
    let other = String::from_utf8_lossy(&answer.payload);
    tracing::warn!(
        "another running node is named `{name}` already ({other}): every node needs a --node \
         name of its own, or logs, /api/rooms and the balancer mix the two up; stop one or \
         start this one under another name"
    );
}

impl Cluster {
    /// Answers to this node's name, so that a second node started under it hears of this one.
    pub(super) async fn answer_to_name(self: &Arc<Self>, name: &str) -> Result<(), ClusterError> {
        self.on_each(name_subject(name), |me, message| async move {
            if let Some(reply) = message.reply {
                let _ = me.nats.publish(reply, me.node.clone().into()).await;
            }
        })
        .await
    }
}
