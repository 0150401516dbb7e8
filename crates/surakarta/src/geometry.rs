//! The circuits of an `n × n` board, precomputed once per size.
//!
//! Circuit `k` (`1 ..= n/2 - 1`) is walked as one track of `4n` points made of four lines, each
//! crossed edge to edge, joined by the four arcs:
//!
//! | segment | line | direction |
//! |---|---|---|
//! | 0 | row `y = k` | `x` from 0 to `n-1` |
//! | 1 | column `x = n-1-k` | `y` from 0 to `n-1` (after the arc at corner `(n-1, 0)`) |
//! | 2 | row `y = n-1-k` | `x` from `n-1` to 0 (after the arc at corner `(n-1, n-1)`) |
//! | 3 | column `x = k` | `y` from `n-1` to 0 (after the arc at corner `(0, n-1)`) |
//!
//! and back to segment 0 through the arc at corner `(0, 0)`. So an arc lies exactly between
//! track index `s·n - 1` and `s·n`: travel crosses an arc iff it crosses a segment boundary.

use std::sync::OnceLock;

use arrayvec::ArrayVec;

use crate::point::Point;

/// Board sizes the project supports.
pub const SIZES: [u8; 4] = [6, 8, 10, 12];
/// The largest board side.
pub const MAX_SIZE: usize = 12;
/// The most circuits of any supported board (`12 / 2 - 1`).
pub const MAX_CIRCUITS: usize = MAX_SIZE / 2 - 1;

/// Where a point lies on a circuit's track.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub circuit: u8,
    pub index: u8,
    /// The point's other index on the same track (it crosses itself there), or `index`.
    pub twin: u8,
    /// The track indices of the line (segment) `index` lies on: travel that finds its first
    /// piece inside this mask has crossed no arc.
    pub segment: u64,
}

/// The precomputed circuits of one board size.
#[derive(Debug)]
pub struct Geometry {
    pub n: u8,
    /// `tracks[c]`: the `4n` points of circuit `c + 1` in travel order.
    pub tracks: Vec<Vec<Point>>,
    /// The same tracks in fixed-size arrays, for the move generator's inner loop.
    pub(crate) flat_tracks: [[Point; 4 * MAX_SIZE]; MAX_CIRCUITS],
    /// `twins[c][t]`: the other track index of the point at index `t` (it lies on a crossing of
    /// the circuit with itself), or `t`.
    pub(crate) twins: [[u8; 4 * MAX_SIZE]; MAX_CIRCUITS],
    /// For each point (`y * n + x`), its places on the tracks: at most two, since a point lies
    /// on one row and one column.
    pub occurrences: Vec<ArrayVec<Occurrence, 2>>,
}

impl Geometry {
    fn build(n: u8) -> Geometry {
        let m = n - 1;
        let circuits = n / 2 - 1;
        let mut tracks = Vec::new();
        let mut occurrences = vec![ArrayVec::new(); n as usize * n as usize];
        for c in 0..circuits {
            let k = c + 1;
            let track: Vec<Point> = (0..4 * n)
                .map(|t| {
                    let p = t % n;
                    match t / n {
                        0 => Point::new(p, k),
                        1 => Point::new(m - k, p),
                        2 => Point::new(m - p, m - k),
                        _ => Point::new(k, m - p),
                    }
                })
                .collect();
            for (index, point) in track.iter().enumerate() {
                let others: Vec<usize> = track
                    .iter()
                    .enumerate()
                    .filter(|&(i, q)| q == point && i != index)
                    .map(|(i, _)| i)
                    .collect();
                let segment_start = index / n as usize * n as usize;
                occurrences[point.index(n)].push(Occurrence {
                    circuit: c,
                    index: index as u8,
                    twin: others.first().copied().unwrap_or(index) as u8,
                    segment: ((1u64 << n) - 1) << segment_start,
                });
            }
            tracks.push(track);
        }
        let mut flat_tracks = [[Point::new(0, 0); 4 * MAX_SIZE]; MAX_CIRCUITS];
        let mut twins = [[0u8; 4 * MAX_SIZE]; MAX_CIRCUITS];
        for (c, track) in tracks.iter().enumerate() {
            flat_tracks[c][..track.len()].copy_from_slice(track);
            for (t, p) in track.iter().enumerate() {
                twins[c][t] = occurrences[p.index(n)]
                    .iter()
                    .find(|o| o.circuit as usize == c && o.index as usize == t)
                    .map_or(t as u8, |o| o.twin);
            }
        }
        Geometry {
            n,
            tracks,
            flat_tracks,
            twins,
            occurrences,
        }
    }

    /// Number of circuits (`n/2 - 1`).
    pub fn circuits(&self) -> usize {
        self.tracks.len()
    }

    /// The corner whose arc follows segment `segment` of circuit tracks.
    pub fn arc_corner(&self, segment: usize) -> Point {
        let m = self.n - 1;
        match segment % 4 {
            0 => Point::new(m, 0),
            1 => Point::new(m, m),
            2 => Point::new(0, m),
            _ => Point::new(0, 0),
        }
    }
}

/// The geometry of a supported size (`6`, `8`, `10` or `12`); `None` for any other.
pub fn geometry(n: u8) -> Option<&'static Geometry> {
    static CACHE: [OnceLock<Geometry>; 4] = [const { OnceLock::new() }; 4];
    let slot = SIZES.iter().position(|&s| s == n)?;
    Some(CACHE[slot].get_or_init(|| Geometry::build(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_are_closed_walks_through_the_arcs() {
        for n in SIZES {
            let g = geometry(n).unwrap();
            assert_eq!(g.circuits(), n as usize / 2 - 1);
            for track in &g.tracks {
                assert_eq!(track.len(), 4 * n as usize);
                for t in 0..track.len() {
                    let (a, b) = (track[t], track[(t + 1) % track.len()]);
                    let adjacent = a.x.abs_diff(b.x) + a.y.abs_diff(b.y) == 1;
                    let arc = (t + 1) % n as usize == 0;
                    // Inside a segment the points are neighbours; across an arc both ends lie on
                    // the board's edge.
                    assert_eq!(adjacent, !arc, "n={n} t={t} {a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn crossings_appear_twice_on_their_circuit() {
        let g = geometry(6).unwrap();
        // (1, 1) is where row 1 and column 1 of circuit 1 cross.
        let occ = &g.occurrences[Point::new(1, 1).index(6)];
        assert_eq!(occ.len(), 2);
        assert!(occ.iter().all(|o| o.circuit == 0 && o.twin != o.index));
        // (1, 2) lies on column 1 (circuit 1) and row 2 (circuit 2).
        let occ = &g.occurrences[Point::new(1, 2).index(6)];
        assert_eq!(occ.len(), 2);
        assert!(occ.iter().all(|o| o.twin == o.index));
        // Corners lie on no circuit.
        assert!(g.occurrences[Point::new(0, 0).index(6)].is_empty());
    }
}
