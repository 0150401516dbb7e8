//! Who else is on this NATS, asked once before a node joins.
//!
//! * Every node answers on `arbiter.cluster` with its cluster's identity (the id its database
//!   holds, and that database). A node whose NATS already carries another cluster's id refuses
//!   to start, naming both ids and both databases: a node on another database would store the
//!   rooms it claims there, and two clusters would share every subject. (Two nodes of two
//!   clusters starting in the same second both hear nobody; the check is at start only.)
//! * Every node answers on `arbiter.name.<its --node name>` with its incarnation, so a node
//!   started under a name a live node already uses hears that node and warns (it still
//!   starts: the two do not collide on NATS, each using its own incarnation, and a node that
//!   hung under the name must not keep its replacement from starting — but logs, `/api/rooms`
//!   and the balancer's names would mix up the two).

use std::sync::Arc;
use std::time::Duration;

use async_nats::RequestErrorKind;

use super::{Cluster, ClusterError, ClusterIdentity, OtherCluster};

/// Where nodes announce their cluster's identity.
const CLUSTER_SUBJECT: &str = "arbiter.cluster";

/// A node's answer on [`CLUSTER_SUBJECT`].
#[derive(serde::Serialize, serde::Deserialize)]
struct Announcement {
    cluster: ClusterIdentity,
    node: String,
}

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

/// Refuses to join a NATS (at `url`) whose nodes announce a cluster other than `ours`.
pub(super) async fn refuse_other_cluster(
    nats: &async_nats::Client,
    url: &str,
    ours: &ClusterIdentity,
) -> Result<(), ClusterError> {
    let Some(answer) = ask(nats, CLUSTER_SUBJECT.to_string()).await else {
        return Ok(());
    };
    let Ok(theirs) = serde_json::from_slice::<Announcement>(&answer.payload) else {
        return Ok(());
    };
    if theirs.cluster.id == ours.id {
        return Ok(());
    }
    Err(ClusterError::OtherCluster(Box::new(OtherCluster {
        nats: url.to_string(),
        ours: ours.clone(),
        theirs: theirs.cluster,
        node: theirs.node,
    })))
}

impl Cluster {
    /// Answers every node that asks which cluster this NATS carries.
    pub(super) async fn announce(
        self: &Arc<Self>,
        ours: ClusterIdentity,
    ) -> Result<(), ClusterError> {
        self.on_each(CLUSTER_SUBJECT.to_string(), move |me, message| {
            let cluster = ours.clone();
            async move {
                let Some(reply) = message.reply else { return };
                let node = me.node.clone();
                let answer = serde_json::to_vec(&Announcement { cluster, node });
                let answer = answer.expect("an announcement serialises");
                let _ = me.nats.publish(reply, answer.into()).await;
            }
        })
        .await
    }

    /// Answers to this node's name, so that a second node started under it hears of this one
    /// — unless this node drains: its replacement may start under its name at once.
    pub(super) async fn answer_to_name(self: &Arc<Self>, name: &str) -> Result<(), ClusterError> {
        self.on_each(name_subject(name), |me, message| async move {
            if me.is_draining() {
                return;
            }
            if let Some(reply) = message.reply {
                let _ = me.nats.publish(reply, me.node.clone().into()).await;
            }
        })
        .await
    }
}
