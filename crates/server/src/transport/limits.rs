//! How many connections the server holds: in all, from one network and from one address, so
//! one host — or a few dozen hosts of one network — cannot lock everybody else out by opening
//! sockets and sitting on them.
//!
//! A network is an IPv4 /24 or an IPv6 /64 (what one customer of a provider usually gets); an
//! IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`, a dual-stack listener) counts as IPv4.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

// The same networks as the API's write rates.
use crate::api::network_of;

/// The server's connection budget (TCP, HTTP and WebSocket together).
#[derive(Debug)]
pub struct Admissions {
    caps: Caps,
    open: Mutex<Open>,
}

/// The three limits: in all, per network, per address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub total: usize,
    pub per_network: usize,
    pub per_ip: usize,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_network: HashMap<IpAddr, usize>,
    per_ip: HashMap<IpAddr, usize>,
}

/// Why a connection is refused: the text goes to the client (a REJECT or a 503).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Crowded {
    #[error("the server holds {0} connections, its limit; try again later")]
    Server(usize),
    #[error("the network {0} already has {1} connections open, the limit per network")]
    Network(String, usize),
    #[error("{0} already has {1} connections open, the limit per address")]
    Address(IpAddr, usize),
}

/// A connection counted against the budget until it is dropped.
#[derive(Debug)]
pub struct Admitted {
    admissions: Arc<Admissions>,
    ip: IpAddr,
}

/// How a network is written: `10.1.2.0/24`, `2001:db8::/64`.
fn network_name(network: IpAddr) -> String {
    match network {
        IpAddr::V4(_) => format!("{network}/24"),
        IpAddr::V6(_) => format!("{network}/64"),
    }
}

fn count_down(map: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(n) = map.get_mut(&key) {
        *n -= 1;
        if *n == 0 {
            map.remove(&key);
        }
    }
}

impl Admissions {
    /// A budget with these caps; each is at least 1, and a smaller cap never exceeds a larger
    /// one (per address ≤ per network ≤ in all).
    pub fn new(caps: Caps) -> Arc<Admissions> {
        let total = caps.total.max(1);
        let per_network = caps.per_network.clamp(1, total);
        let caps = Caps {
            total,
            per_network,
            per_ip: caps.per_ip.clamp(1, per_network),
        };
        Arc::new(Admissions {
            caps,
            open: Mutex::new(Open::default()),
        })
    }

    /// Counts a new connection from `ip`, or says why it is refused.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Admitted, Crowded> {
        let ip = ip.to_canonical();
        let network = network_of(ip);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let caps = self.caps;
        if open.total >= caps.total {
            return Err(Crowded::Server(caps.total));
        }
        if open.per_network.get(&network).copied().unwrap_or(0) >= caps.per_network {
            return Err(Crowded::Network(network_name(network), caps.per_network));
        }
        if open.per_ip.get(&ip).copied().unwrap_or(0) >= caps.per_ip {
            return Err(Crowded::Address(ip, caps.per_ip));
        }
        open.total += 1;
        *open.per_network.entry(network).or_insert(0) += 1;
        *open.per_ip.entry(ip).or_insert(0) += 1;
        Ok(Admitted {
            admissions: self.clone(),
            ip,
        })
    }

    /// Connections open now.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self
            .admissions
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        count_down(&mut open.per_network, network_of(self.ip));
        count_down(&mut open.per_ip, self.ip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(total: usize, per_network: usize, per_ip: usize) -> Caps {
        Caps {
            total,
            per_network,
            per_ip,
        }
    }

    #[test]
    fn per_address_and_total_limits() {
        let a = Admissions::new(caps(3, 3, 2));
        let ip1: IpAddr = "10.0.0.1".parse().unwrap();
        let ip2: IpAddr = "10.0.1.2".parse().unwrap();
        let x = a.admit(ip1).unwrap();
        let _y = a.admit(ip1).unwrap();
        assert!(a
            .admit(ip1)
            .unwrap_err()
            .to_string()
            .contains("per address"));
        let _z = a.admit(ip2).unwrap();
        assert!(a.admit(ip2).unwrap_err().to_string().contains("its limit"));
        drop(x);
        assert_eq!(a.open(), 2);
        assert!(a.admit(ip1).is_ok());
    }

    #[test]
    fn one_network_cannot_take_every_connection() {
        let a = Admissions::new(caps(100, 4, 1));
        let held: Vec<_> = (1..=4)
            .map(|i| a.admit(format!("10.0.0.{i}").parse().unwrap()).unwrap())
            .collect();
        let refused = a.admit("10.0.0.99".parse().unwrap()).unwrap_err();
        assert_eq!(refused, Crowded::Network("10.0.0.0/24".into(), 4));
        assert!(a.admit("10.0.1.1".parse().unwrap()).is_ok());
        // IPv6: one /64; the mapped form of an IPv4 address is that address.
        let v6 = |s: &str| a.admit(s.parse().unwrap());
        let _v6: Vec<_> = (1..=4)
            .map(|i| v6(&format!("2001:db8:0:1::{i}")).unwrap())
            .collect();
        assert!(v6("2001:db8:0:1:ffff::1").is_err());
        assert!(v6("2001:db8:0:2::1").is_ok());
        assert!(v6("::ffff:10.0.0.7").is_err());
        drop(held);
        assert!(v6("::ffff:10.0.0.7").is_ok());
    }

    #[test]
    fn caps_are_ordered() {
        let a = Admissions::new(caps(10, 50, 100));
        assert_eq!(a.caps, caps(10, 10, 10));
    }
}
