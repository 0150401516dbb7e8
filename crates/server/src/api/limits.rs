//! The HTTP API's limits: how large a request may be, how many CPU-heavy requests run at once,
//! and how often one client (and one network) may write. `docs/security.md` lists each with its
//! default and its `arbiter serve` flag.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{NotUntil, Quota};

use super::ApiError;

/// The HTTP API's limits (`ServerConfig::api`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiLimits {
    /// Bytes of a request's body, on every route; a longer one is answered 413.
    pub max_body_bytes: usize,
    /// Bytes of a request's line and headers (hyper's read buffer; at least 8 KiB).
    pub max_head_bytes: usize,
    /// Bytes of input the judge visualiser takes.
    pub judge_max_input_bytes: usize,
    /// Bytes of the judge visualiser's answer: a longer trace is cut (`"truncated": true`).
    pub judge_max_answer_bytes: usize,
    /// CPU-heavy requests (AI, analysis, judge) computed at once.
    pub cpu_workers: usize,
    /// CPU-heavy requests that may wait for a worker; more are answered 503.
    pub cpu_queue: usize,
    /// How long a waiting request waits before it is answered 503.
    pub cpu_queue_wait: Duration,
    /// Writes (every request but GET and HEAD) from one address.
    pub writes_per_address: RateQuota,
    /// Writes from one network (a /24 of IPv4, a /64 of IPv6).
    pub writes_per_network: RateQuota,
    /// Bytes of any answer's body: lists are cut to fit, anything else over it is refused.
    pub max_response_bytes: usize,
    /// Whole-game analyses running at once (each takes one CPU worker at a time).
    pub analysis_jobs: usize,
    /// The search time of one whole-game analysis, shared by its positions.
    pub analysis_budget: Duration,
}

/// A rate: `per_second` on average, bursts of up to `burst` at once; 0 per second: no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateQuota {
    pub per_second: u32,
    pub burst: u32,
}

/// The most rooms one page of `GET /api/rooms` holds, and a page's size when none is asked.
pub const ROOMS_PAGE_MAX: usize = 200;
pub const ROOMS_PAGE_DEFAULT: usize = 100;

impl Default for ApiLimits {
    fn default() -> Self {
        let cpu_workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        ApiLimits {
            max_body_bytes: 256 << 10,
            max_head_bytes: 64 << 10,
            judge_max_input_bytes: 64 << 10,
            judge_max_answer_bytes: 4 << 20,
            cpu_workers,
            cpu_queue: 4 * cpu_workers,
            cpu_queue_wait: Duration::from_secs(10),
            writes_per_address: RateQuota {
                per_second: 20,
                burst: 100,
            },
            writes_per_network: RateQuota {
                per_second: 60,
                burst: 300,
            },
            max_response_bytes: 8 << 20,
            analysis_jobs: 2,
            analysis_budget: Duration::from_secs(60),
        }
    }
}

/// One rate limit keyed by address.
type Keyed = governor::DefaultKeyedRateLimiter<IpAddr>;

/// Writes per address and per network; `None` where the quota sets no limit.
pub struct WriteLimits {
    per_address: Option<Keyed>,
    per_network: Option<Keyed>,
    checks: AtomicU64,
}

/// Every this many checks, keys whose buckets are full again are forgotten, so the maps hold
/// only clients seen within a burst's time.
const FORGET_EVERY: u64 = 1024;

impl WriteLimits {
    pub fn new(limits: &ApiLimits) -> WriteLimits {
        let keyed = |q: RateQuota| {
            let per_second = NonZeroU32::new(q.per_second)?;
            let burst = NonZeroU32::new(q.burst.max(1)).unwrap_or(NonZeroU32::MIN);
            Some(Keyed::keyed(
                Quota::per_second(per_second).allow_burst(burst),
            ))
        };
        WriteLimits {
            per_address: keyed(limits.writes_per_address),
            per_network: keyed(limits.writes_per_network),
            checks: AtomicU64::new(0),
        }
    }

    /// Counts a write from `ip`: against its own bucket, then its network's.
    pub fn check(&self, ip: IpAddr) -> Result<(), ApiError> {
        let ip = ip.to_canonical();
        if self.checks.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
            for limiter in self.per_address.iter().chain(&self.per_network) {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        }
        let refuse = |scope: &'static str, not_until: NotUntil<_>| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::RateLimited {
                scope,
                retry_after: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            }
        };
        if let Some(limiter) = &self.per_address {
            limiter.check_key(&ip).map_err(|n| refuse("address", n))?;
        }
        if let Some(limiter) = &self.per_network {
            limiter
                .check_key(&network_of(ip))
                .map_err(|n| refuse("network", n))?;
        }
        Ok(())
    }
}

/// The network an address belongs to, for rate limits: its /24 (IPv4) or /64 (IPv6).
pub fn network_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(v4.to_bits() & !0xff)),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
    }
}

/// The client's address, as the HTTP transport recorded it.
fn client_address(request: &Request) -> IpAddr {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

/// Every request that writes or computes (all but GET, HEAD and OPTIONS) counts against its
/// address's and its network's rates; over either it is answered 429 with `Retry-After`.
pub async fn limit_writes(
    State(limits): State<Arc<WriteLimits>>,
    request: Request,
    next: Next,
) -> Response {
    let reads = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if !reads {
        if let Err(refused) = limits.check(client_address(&request)) {
            return refused.into_response();
        }
    }
    next.run(request).await
}

/// A request whose head announces a body over the limit is answered 413 before any of it is
/// read (a body without a length is cut at the limit by `DefaultBodyLimit`).
pub async fn limit_body(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > limit as u64) {
        return ApiError::BodyTooLarge { limit }.into_response();
    }
    next.run(request).await
}

/// No answer leaves larger than the bound: the lists cut themselves to fit it, so this is the
/// net under everything else (a single stored game of hundreds of thousands of moves).
pub async fn limit_response(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let size = http_body::Body::size_hint(response.body());
    let bytes = size.upper().unwrap_or(size.lower());
    if bytes > limit as u64 {
        tracing::warn!("an answer of {bytes} bytes was over the bound of {limit}");
        return ApiError::ResponseTooLarge { bytes, limit }.into_response();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_a_24_or_a_64() {
        let net = |s: &str| network_of(s.parse().unwrap()).to_string();
        assert_eq!(net("203.0.113.77"), "203.0.113.0");
        assert_eq!(net("::ffff:203.0.113.77"), "203.0.113.0");
        assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::");
    }

    #[test]
    fn a_burst_then_429_per_address_and_per_network() {
        let limits = WriteLimits::new(&ApiLimits {
            writes_per_address: RateQuota {
                per_second: 1,
                burst: 2,
            },
            writes_per_network: RateQuota {
                per_second: 1,
                burst: 3,
            },
            ..ApiLimits::default()
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limits.check(a).is_ok() && limits.check(a).is_ok());
        assert!(matches!(
            limits.check(a),
            Err(ApiError::RateLimited {
                scope: "address",
                retry_after: 1
            })
        ));
        assert!(limits.check(b).is_ok());
        assert!(matches!(
            limits.check(b),
            Err(ApiError::RateLimited {
                scope: "network",
                ..
            })
        ));
        assert!(limits.check("10.0.1.1".parse().unwrap()).is_ok());
        let none = WriteLimits::new(&ApiLimits {
            writes_per_address: RateQuota {
                per_second: 0,
                burst: 0,
            },
            writes_per_network: RateQuota {
                per_second: 0,
                burst: 0,
            },
            ..ApiLimits::default()
        });
        assert!((0..1000).all(|_| none.check(a).is_ok()));
    }
}
