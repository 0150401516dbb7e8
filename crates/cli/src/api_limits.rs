//! `arbiter serve`'s flags for the HTTP API's limits (docs/security.md, "HTTP API limits");
//! their defaults are the server's own.

use std::time::Duration;

use arbiter_server::api::{ApiLimits, RateQuota};
use clap::Args;

fn defaults() -> ApiLimits {
    ApiLimits::default()
}

#[derive(Args)]
pub struct ApiLimitArgs {
    /// The largest request body the HTTP API reads, in KiB; a longer one is answered 413.
    #[arg(long, value_name = "KIB", default_value_t = defaults().max_body_bytes >> 10)]
    max_body_kib: usize,
    /// The largest request line and headers, in KiB (at least 8).
    #[arg(long, value_name = "KIB", default_value_t = defaults().max_head_bytes >> 10)]
    max_head_kib: usize,
    /// The most input the judge visualiser (POST /api/judge/GAME) takes, in KiB.
    #[arg(long, value_name = "KIB", default_value_t = defaults().judge_max_input_bytes >> 10)]
    judge_max_input_kib: usize,
    /// The largest answer of the judge visualiser, in KiB: a longer trace loses its last steps
    /// (`"truncated": true`).
    #[arg(long, value_name = "KIB", default_value_t = defaults().judge_max_answer_bytes >> 10)]
    judge_max_answer_kib: usize,
    /// The largest answer the HTTP API sends, in KiB: lists are cut to fit, anything else
    /// larger (one very long game) is answered 413. At least the judge's answer bound.
    #[arg(long, value_name = "KIB", default_value_t = defaults().max_response_bytes >> 10)]
    max_response_kib: usize,
    /// AI, analysis and judge requests computed at once [default: the number of cores].
    #[arg(long, value_name = "N")]
    cpu_workers: Option<usize>,
    /// Such requests that may wait for a worker [default: 4 per worker]; more are answered 503.
    #[arg(long, value_name = "N")]
    cpu_queue: Option<usize>,
    /// How long such a request waits for a worker before it is answered 503.
    #[arg(long, value_name = "SECONDS", default_value_t = defaults().cpu_queue_wait.as_secs())]
    cpu_queue_wait: u64,
    /// Whole-game analyses (POST /api/games/ID/analysis) running at once; more are answered 503.
    #[arg(long, value_name = "N", default_value_t = defaults().analysis_jobs)]
    analysis_jobs: usize,
    /// Seconds of search one whole-game analysis spends, shared by its positions (each gets
    /// 20 ms to 1 s).
    #[arg(long, value_name = "SECONDS", default_value_t = defaults().analysis_budget.as_secs())]
    analysis_seconds: u64,
    /// Writes (every request but GET and HEAD) one address may make per second on average;
    /// 0: no limit. More are answered 429 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = defaults().writes_per_address.per_second)]
    writes_per_second: u32,
    /// Writes one address may make at once, in a burst.
    #[arg(long, value_name = "N", default_value_t = defaults().writes_per_address.burst)]
    write_burst: u32,
    /// Writes one network (a /24 of IPv4, a /64 of IPv6) may make per second; 0: no limit.
    #[arg(long, value_name = "N", default_value_t = defaults().writes_per_network.per_second)]
    network_writes_per_second: u32,
    /// Writes one network may make at once, in a burst.
    #[arg(long, value_name = "N", default_value_t = defaults().writes_per_network.burst)]
    network_write_burst: u32,
}

impl ApiLimitArgs {
    pub fn limits(&self) -> ApiLimits {
        let kib = |n: usize| n.saturating_mul(1 << 10);
        let cpu_workers = self.cpu_workers.unwrap_or(defaults().cpu_workers).max(1);
        ApiLimits {
            max_body_bytes: kib(self.max_body_kib),
            max_head_bytes: kib(self.max_head_kib.max(8)),
            judge_max_input_bytes: kib(self.judge_max_input_kib),
            judge_max_answer_bytes: kib(self.judge_max_answer_kib),
            cpu_workers,
            cpu_queue: self.cpu_queue.unwrap_or(4 * cpu_workers),
            cpu_queue_wait: Duration::from_secs(self.cpu_queue_wait),
            writes_per_address: RateQuota {
                per_second: self.writes_per_second,
                burst: self.write_burst,
            },
            writes_per_network: RateQuota {
                per_second: self.network_writes_per_second,
                burst: self.network_write_burst,
            },
            max_response_bytes: kib(self.max_response_kib.max(self.judge_max_answer_kib)),
            analysis_jobs: self.analysis_jobs.max(1),
            analysis_budget: Duration::from_secs(self.analysis_seconds.max(1)),
        }
    }
}
