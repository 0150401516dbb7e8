//! What one address may do to seats, across every room: how many seats it (and its network)
//! holds at once, and how long it must wait after wrong seat tokens. Memory stays bounded: the
//! seat counts only hold addresses with a seat, and the back-off tables have a fixed size.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// Limits on seats, per address and per network.
#[derive(Clone, Copy, Debug)]
pub struct SeatLimits {
    /// Seats one address holds at once, in all rooms.
    pub per_ip: usize,
    /// Seats one network (an IPv4 /24, an IPv6 /64) holds at once.
    pub per_net: usize,
}

impl Default for SeatLimits {
    fn default() -> Self {
        SeatLimits {
            per_ip: 16,
            per_net: 64,
        }
    }
}

/// Wrong seat tokens tried before the back-off starts.
const FREE_FAILURES: u32 = 3;
/// The first wait after the free tries; each further failure doubles it.
const FIRST_WAIT: Duration = Duration::from_secs(1);
/// The longest wait for an address, and for a room. A room's wait applies only to addresses
/// that have guessed wrong themselves, so it never holds up a rightful player.
const LONGEST_WAIT_IP: Duration = Duration::from_secs(15 * 60);
const LONGEST_WAIT_ROOM: Duration = Duration::from_secs(30);
/// Addresses and rooms remembered at once in each back-off table.
const BACKOFF_ENTRIES: usize = 4096;

/// The network an address belongs to: its /24 (IPv4) or /64 (IPv6).
pub fn network_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            IpAddr::from([a, b, c, 0])
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::from(std::net::Ipv6Addr::from(bits))
        }
    }
}

/// A peer's address as a transport wrote it (`1.2.3.4:5678`, `[::1]:80`); `None` for anything
/// else (tests), which no limit counts.
pub fn ip_of(addr: &str) -> Option<IpAddr> {
    addr.parse::<std::net::SocketAddr>()
        .ok()
        .map(|a| a.ip().to_canonical())
}

/// Failures and the wait they earned, per key, in a table of bounded size.
struct Backoff<K> {
    entries: HashMap<K, Failures>,
    longest: Duration,
}

#[derive(Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    until: Instant,
}

impl<K: Hash + Eq + Copy> Backoff<K> {
    fn new(longest: Duration) -> Self {
        Backoff {
            entries: HashMap::new(),
            longest,
        }
    }

    /// How long `key` must still wait.
    fn wait(&self, key: K, now: Instant) -> Option<Duration> {
        let f = self.entries.get(&key)?;
        (f.until > now).then(|| f.until - now)
    }

    /// One more failure for `key`: past the free tries, a wait that doubles each time.
    fn fail(&mut self, key: K, now: Instant) {
        if !self.entries.contains_key(&key) && self.entries.len() >= BACKOFF_ENTRIES {
            self.make_room(now);
        }
        let forget_after = self.longest * 2;
        let f = self.entries.entry(key).or_insert(Failures {
            count: 0,
            last: now,
            until: now,
        });
        if now.duration_since(f.last) > forget_after {
            f.count = 0;
        }
        f.count += 1;
        f.last = now;
        if f.count > FREE_FAILURES {
            let doublings = (f.count - FREE_FAILURES - 1).min(20);
            f.until = now + (FIRST_WAIT * (1 << doublings)).min(self.longest);
        }
    }

    /// Drops the entries whose wait is over, or else the one whose last failure is oldest.
    fn make_room(&mut self, now: Instant) {
        self.entries.retain(|_, f| f.until > now);
        if self.entries.len() >= BACKOFF_ENTRIES {
            if let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, f)| f.last)
                .map(|(k, _)| *k)
            {
                self.entries.remove(&oldest);
            }
        }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[derive(Default)]
struct SeatCounts {
    per_ip: HashMap<IpAddr, usize>,
    per_net: HashMap<IpAddr, usize>,
}

fn decrement(map: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(n) = map.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            map.remove(&key);
        }
    }
}

/// The guard every room of a hub shares.
pub struct Guard {
    limits: SeatLimits,
    seats: Mutex<SeatCounts>,
    by_ip: Mutex<Backoff<IpAddr>>,
    by_room: Mutex<Backoff<u32>>,
    /// When a host was last told that a seat cap refused someone.
    host_told: Mutex<Option<Instant>>,
}

/// A host hears of seat caps refusing players at most this often.
const HOST_TOLD_EVERY: Duration = Duration::from_secs(60);

/// Why the guard refuses a seat.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GuardRefusal {
    #[error("too many seats held from your address (at most {0} at once)")]
    SeatsPerIp(usize),
    #[error("too many seats held from your network (at most {0} at once)")]
    SeatsPerNet(usize),
    #[error("too many wrong seat tokens: try again in {0} s")]
    TokenBackoff(u64),
}

/// A seat counted against its address and network until dropped.
pub struct SeatClaim {
    guard: Arc<Guard>,
    ip: IpAddr,
}

impl Drop for SeatClaim {
    fn drop(&mut self) {
        let mut seats = self.guard.seats.lock().unwrap_or_else(|e| e.into_inner());
        decrement(&mut seats.per_ip, self.ip);
        decrement(&mut seats.per_net, network_of(self.ip));
    }
}

impl Guard {
    pub fn new(limits: SeatLimits) -> Arc<Guard> {
        Arc::new(Guard {
            limits,
            seats: Mutex::default(),
            by_ip: Mutex::new(Backoff::new(LONGEST_WAIT_IP)),
            by_room: Mutex::new(Backoff::new(LONGEST_WAIT_ROOM)),
            host_told: Mutex::new(None),
        })
    }

    /// A seat for `addr`, counted until the claim is dropped; refused over the limits. An
    /// address that is not an IP address (tests) is not counted.
    pub fn claim(self: &Arc<Self>, addr: &str) -> Result<Option<SeatClaim>, GuardRefusal> {
        let Some(ip) = ip_of(addr) else {
            return Ok(None);
        };
        let net = network_of(ip);
        let mut seats = self.seats.lock().unwrap_or_else(|e| e.into_inner());
        if seats.per_ip.get(&ip).copied().unwrap_or(0) >= self.limits.per_ip {
            return Err(self.tell_host(ip, GuardRefusal::SeatsPerIp(self.limits.per_ip)));
        }
        if seats.per_net.get(&net).copied().unwrap_or(0) >= self.limits.per_net {
            return Err(self.tell_host(ip, GuardRefusal::SeatsPerNet(self.limits.per_net)));
        }
        *seats.per_ip.entry(ip).or_default() += 1;
        *seats.per_net.entry(net).or_default() += 1;
        Ok(Some(SeatClaim {
            guard: self.clone(),
            ip,
        }))
    }

    /// A cap that refuses players is what a host must raise when many share one address (a
    /// school's NAT, a test machine): the log names the flag, at most once a minute.
    fn tell_host(&self, ip: IpAddr, refusal: GuardRefusal) -> GuardRefusal {
        let now = Instant::now();
        let mut told = self.host_told.lock().unwrap_or_else(|e| e.into_inner());
        if told.is_none_or(|at| now.duration_since(at) >= HOST_TOLD_EVERY) {
            *told = Some(now);
            let (shared, flag) = match refusal {
                GuardRefusal::SeatsPerNet(_) => ("network", "--max-seats-per-network"),
                _ => ("address", "--max-seats-per-ip"),
            };
            tracing::warn!(
                "a seat refused to {ip}: {refusal}; if many players share that {shared}, raise \
                 {flag} (said at most once a minute)"
            );
        }
        refusal
    }

    /// Refused while `addr` or `room` waits out wrong seat tokens.
    pub fn may_try_token(&self, addr: &str, room: u32) -> Result<(), GuardRefusal> {
        let now = Instant::now();
        let (by_ip, has_failed) = match ip_of(addr) {
            Some(ip) => {
                let table = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
                (table.wait(ip, now), table.entries.contains_key(&ip))
            }
            None => (None, true),
        };
        let by_room = has_failed
            .then(|| {
                let table = self.by_room.lock().unwrap_or_else(|e| e.into_inner());
                table.wait(room, now)
            })
            .flatten();
        match by_ip.max(by_room) {
            Some(wait) => Err(GuardRefusal::TokenBackoff(wait.as_secs_f64().ceil() as u64)),
            None => Ok(()),
        }
    }

    /// A READY with a seat token took no seat: a guess, as far as the guard knows.
    pub fn token_failed(&self, addr: &str, room: u32) {
        let now = Instant::now();
        if let Some(ip) = ip_of(addr) {
            let mut table = self.by_ip.lock().unwrap_or_else(|e| e.into_inner());
            table.fail(ip, now);
        }
        let mut table = self.by_room.lock().unwrap_or_else(|e| e.into_inner());
        table.fail(room, now);
    }

    /// Addresses and rooms in the back-off tables (for tests of the bound).
    pub fn remembered(&self) -> (usize, usize) {
        let by_ip = self.by_ip.lock().unwrap_or_else(|e| e.into_inner()).len();
        let by_room = self.by_room.lock().unwrap_or_else(|e| e.into_inner()).len();
        (by_ip, by_room)
    }
}

/// Compares two seat tokens in time that does not depend on where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}
