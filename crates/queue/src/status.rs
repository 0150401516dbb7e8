//! Each test as it stands, for `arbiter arena status` and the server's `/tests` page: games,
//! W/D/L, pentanomial counts, Elo ± error, the conditions (time, openings, adjudication), the
//! SPRT's LLR with its bounds, the state, and the workers holding a live lease on one of its
//! batches.

use std::fmt::Write as _;

use arbiter_arena::{Pentanomial, Sprt};

use crate::store::pentanomial;
use crate::{schema, Queue, QueueResult, TestSpec};

/// One test's standing.
#[derive(Clone, Debug)]
pub struct TestStatus {
    pub id: i64,
    pub spec: TestSpec,
    /// `running`, `finished`, `H0 accepted` or `H1 accepted`.
    pub state: String,
    /// How it ended, in words.
    pub verdict: Option<String>,
    /// Games counted, and the first player's wins, draws and losses in them.
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub pentanomial: Pentanomial,
    /// Workers holding a batch of it under a live lease.
    pub workers: Vec<WorkerSeen>,
}

/// A worker playing a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerSeen {
    pub id: i64,
    pub name: String,
    pub batches: u32,
}

impl Queue {
    /// Every test (newest first), or only test `id`; an empty list when the database has no
    /// queue yet.
    pub async fn status(&self, id: Option<i64>) -> QueueResult<Vec<TestStatus>> {
        if schema::version(&self.client, &self.target).await?.is_none() {
            return match id {
                Some(id) => Err(crate::QueueError::NoSuchTest(id)),
                None => Ok(Vec::new()),
            };
        }
        let rows = self
            .client
            .query(
                "SELECT id, state, verdict FROM arena_tests
                 WHERE $1::BIGINT IS NULL OR id = $1 ORDER BY id DESC",
                &[&id],
            )
            .await?;
        if let (Some(id), true) = (id, rows.is_empty()) {
            return Err(crate::QueueError::NoSuchTest(id));
        }
        let mut out = Vec::new();
        for row in rows {
            out.push(self.test_status(row.get(0), row.get(1), row.get(2)).await?);
        }
        Ok(out)
    }

    async fn test_status(
        &self,
        id: i64,
        state: String,
        verdict: Option<String>,
    ) -> QueueResult<TestStatus> {
        let totals = self
            .client
            .query_one(
                "SELECT count(*), coalesce(sum(wins), 0), coalesce(sum(draws), 0),
                        coalesce(sum(losses), 0)
                 FROM arena_results WHERE test_id = $1",
                &[&id],
            )
            .await?;
        let total = |i: usize| totals.get::<_, i64>(i) as u32;
        let workers = self
            .client
            .query(
                "SELECT w.id, w.name, count(*) FROM arena_batches b
                 JOIN arena_workers w ON w.id = b.worker_id
                 WHERE b.test_id = $1 AND b.state = 'claimed'
                   AND b.lease_until >= clock_timestamp()
                 GROUP BY w.id, w.name ORDER BY w.id",
                &[&id],
            )
            .await?
            .iter()
            .map(|r| WorkerSeen {
                id: r.get(0),
                name: r.get(1),
                batches: r.get::<_, i64>(2) as u32,
            })
            .collect();
        Ok(TestStatus {
            id,
            spec: self.spec(id).await?,
            state,
            verdict,
            games: 2 * total(0),
            wins: total(1),
            draws: total(2),
            losses: total(3),
            pentanomial: pentanomial(&self.client, id).await?,
            workers,
        })
    }
}

impl TestStatus {
    /// `a vs b`.
    pub fn title(&self) -> String {
        let names: Vec<&str> = self.spec.players.iter().map(|p| p.name.as_str()).collect();
        format!("{} ({})", names.join(" vs "), self.spec.game)
    }

    /// `+35 ± 40` from the pairs; `-` before any, `±inf` at 0% or 100%.
    pub fn elo(&self) -> String {
        let p = &self.pentanomial;
        match p.finite_elo() {
            _ if p.pairs() == 0 => "-".into(),
            Some(elo) => format!("{elo:+.1} ± {:.1}", p.elo_error()),
            None if p.score() > 0.5 => "+inf".into(),
            None => "-inf".into(),
        }
    }

    /// `LLR 1.23 (-2.94, 2.94) [0, 5]`, or `-` for a test of a fixed number of games.
    pub fn llr(&self) -> String {
        let Some((elo0, elo1)) = self.spec.sprt else {
            return "-".into();
        };
        let (lower, upper) = Sprt::new(elo0, elo1).bounds();
        let llr = self.pentanomial.log_likelihood_ratio(elo0, elo1);
        format!("{llr:.2} ({lower:.2}, {upper:.2}) [{elo0}, {elo1}]")
    }

    /// The workers playing it: `w1 (2 batches), w2`; `none`.
    pub fn workers_text(&self) -> String {
        if self.workers.is_empty() {
            return "none".into();
        }
        let each: Vec<String> = self
            .workers
            .iter()
            .map(|w| match w.batches {
                1 => format!("{} (#{})", w.name, w.id),
                n => format!("{} (#{}, {n} batches)", w.name, w.id),
            })
            .collect();
        each.join(", ")
    }

    /// The lines `arbiter arena status` prints.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "test {}: {}  [{}]", self.id, self.title(), self.state);
        let _ = writeln!(
            out,
            "  games: {} of {}, +{} ={} -{} (from {}'s side)",
            self.games,
            self.spec.games,
            self.wins,
            self.draws,
            self.losses,
            self.spec.players[0].name
        );
        let _ = writeln!(
            out,
            "  pairs: {} ({}), Elo {}",
            self.pentanomial.pairs(),
            self.pentanomial.text(),
            self.elo()
        );
        let _ = writeln!(out, "  conditions: {}", self.spec.conditions());
        if self.spec.sprt.is_some() {
            let _ = writeln!(out, "  LLR {}", self.llr());
        }
        if let Some(verdict) = &self.verdict {
            let _ = writeln!(out, "  result: {verdict}");
        }
        let _ = writeln!(out, "  workers playing: {}", self.workers_text());
        out
    }
}

/// The tests as an HTML page (the server's `/tests`): a table, refreshed every few seconds.
pub fn html_page(tests: &[TestStatus]) -> String {
    let mut out = String::from(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"5\"><title>Arena tests</title></head><body>\n\
         <h1>Arena tests</h1>\n",
    );
    if tests.is_empty() {
        out.push_str("<p>No tests yet: submit one with <code>arbiter arena … --queue postgres://…</code>.</p>\n");
    } else {
        out.push_str(
            "<table border=\"1\"><tr><th>test</th><th>players</th><th>conditions</th><th>state</th><th>games</th>\
             <th>W/D/L</th><th>pentanomial</th><th>Elo</th><th>LLR (bounds) [Elo0, Elo1]</th>\
             <th>workers playing</th></tr>\n",
        );
        for t in tests {
            let cells = [
                t.id.to_string(),
                t.title(),
                t.spec.conditions(),
                t.verdict.clone().unwrap_or_else(|| t.state.clone()),
                format!("{} of {}", t.games, t.spec.games),
                format!("+{} ={} -{}", t.wins, t.draws, t.losses),
                t.pentanomial.text(),
                t.elo(),
                t.llr(),
                t.workers_text(),
            ];
            out.push_str("<tr>");
            for cell in cells {
                let _ = write!(out, "<td>{}</td>", escape(&cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// Text safe inside an HTML element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
