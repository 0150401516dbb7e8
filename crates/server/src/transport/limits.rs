//! How many connections the server holds: in all, and from one address, so one host cannot
//! lock everybody else out by opening sockets and sitting on them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The server's connection budget (TCP, HTTP and WebSocket together).
#[derive(Debug)]
pub struct Admissions {
    per_ip: usize,
    total: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// Why a connection is refused: the text goes to the client (a REJECT or a 503).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Crowded {
    #[error("the server holds {0} connections, its limit; try again later")]
    Server(usize),
    #[error("{0} already has {1} connections open, the limit per address")]
    Address(IpAddr, usize),
}

/// A connection counted against the budget until it is dropped.
#[derive(Debug)]
pub struct Admitted {
    admissions: Arc<Admissions>,
    ip: IpAddr,
}

impl Admissions {
    pub fn new(total: usize, per_ip: usize) -> Arc<Admissions> {
        Arc::new(Admissions {
            per_ip: per_ip.max(1),
            total: total.max(1),
            open: Mutex::new((0, HashMap::new())),
        })
    }

    /// Counts a new connection from `ip`, or says why it is refused.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Admitted, Crowded> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.0 >= self.total {
            return Err(Crowded::Server(self.total));
        }
        let from_ip = open.1.entry(ip).or_insert(0);
        if *from_ip >= self.per_ip {
            return Err(Crowded::Address(ip, self.per_ip));
        }
        *from_ip += 1;
        open.0 += 1;
        Ok(Admitted {
            admissions: self.clone(),
            ip,
        })
    }

    /// Connections open now.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).0
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self
            .admissions
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        open.0 -= 1;
        if let Some(n) = open.1.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.1.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_address_and_total_limits() {
        let a = Admissions::new(3, 2);
        let ip1: IpAddr = "10.0.0.1".parse().unwrap();
        let ip2: IpAddr = "10.0.0.2".parse().unwrap();
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
}
