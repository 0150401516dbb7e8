//! Numbering the positions of one material: the mover's pieces reduced by the board's eight
//! symmetries to a class, the opponent's pieces ranked among the points left.
//!
//! Only the mover's set is made canonical: a set with a symmetry of its own keeps a few
//! positions twice (they get equal values), which costs about 1% of space and saves a search of
//! all eight images at every lookup.

/// Points of the 6×6 board, numbered `y * 6 + x`.
pub const POINTS: usize = 36;
const N: u8 = 6;

/// `BINOMIAL[n][k]` = n choose k, for the sizes tables use.
const BINOMIAL: [[u32; 5]; POINTS + 1] = {
    let mut t = [[0u32; 5]; POINTS + 1];
    let mut n = 0;
    while n <= POINTS {
        t[n][0] = 1;
        let mut k = 1;
        while k < 5 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// n choose k (`k <= 4`).
pub fn binomial(n: usize, k: usize) -> usize {
    BINOMIAL[n][k] as usize
}

/// The image of point `p` under symmetry `s` (`0..8`) of the square.
pub fn transform(s: usize, p: u8) -> u8 {
    let (x, y) = (p % N, p / N);
    let m = N - 1;
    let (x, y) = match s {
        0 => (x, y),
        1 => (m - x, y),
        2 => (x, m - y),
        3 => (m - x, m - y),
        4 => (y, x),
        5 => (m - y, x),
        6 => (y, m - x),
        _ => (m - y, m - x),
    };
    y * N + x
}

/// The colex rank of a sorted set of distinct numbers.
pub fn rank(sorted: &[u8]) -> usize {
    sorted
        .iter()
        .enumerate()
        .map(|(i, &p)| binomial(p as usize, i + 1))
        .sum()
}

/// The sorted set of `k` numbers whose colex rank is `r`.
pub fn unrank(mut r: usize, k: usize, out: &mut [u8]) {
    for i in (1..=k).rev() {
        let mut p = i - 1;
        while binomial(p + 1, i) <= r {
            p += 1;
        }
        r -= binomial(p, i);
        out[i - 1] = p as u8;
    }
}

/// Sorts a few numbers in place (insertion sort: sets have at most four).
pub fn sort_small(v: &mut [u8]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The symmetry classes of `k`-point sets: for every set (by rank) its class and a symmetry that
/// takes it to the class's representative.
pub struct Classes {
    pub k: usize,
    /// `of[rank] = (class, symmetry)`.
    of: Vec<(u32, u8)>,
    /// The representative set of each class (the image of smallest rank), sorted.
    reps: Vec<[u8; 4]>,
}

impl Classes {
    pub fn new(k: usize) -> Classes {
        let total = binomial(POINTS, k);
        let mut smallest = vec![(usize::MAX, 0u8); total];
        let mut set = [0u8; 4];
        for (r, entry) in smallest.iter_mut().enumerate() {
            unrank(r, k, &mut set);
            for s in 0..8 {
                let mut image = [0u8; 4];
                for i in 0..k {
                    image[i] = transform(s, set[i]);
                }
                sort_small(&mut image[..k]);
                let ir = rank(&image[..k]);
                if ir < entry.0 {
                    *entry = (ir, s as u8);
                }
            }
        }
        let mut reps = Vec::new();
        let mut class_of_rep = vec![u32::MAX; total];
        for (r, &(least, _)) in smallest.iter().enumerate() {
            if least == r {
                class_of_rep[r] = reps.len() as u32;
                let mut rep = [0u8; 4];
                unrank(r, k, &mut rep);
                reps.push(rep);
            }
        }
        let of = smallest
            .iter()
            .map(|&(least, s)| (class_of_rep[least], s))
            .collect();
        Classes { k, of, reps }
    }

    pub fn count(&self) -> usize {
        self.reps.len()
    }

    /// The class of the sorted set with rank `r`, and the symmetry taking it there.
    pub fn of(&self, r: usize) -> (usize, usize) {
        let (c, s) = self.of[r];
        (c as usize, s as usize)
    }

    pub fn rep(&self, class: usize) -> &[u8] {
        &self.reps[class][..self.k]
    }
}

/// Ranks the opponent's `theirs` (any order, already moved by the symmetry) among the points
/// `ours` (sorted) leaves free.
pub fn rank_among(ours: &[u8], theirs: &[u8]) -> usize {
    let mut squeezed = [0u8; 4];
    for (i, &p) in theirs.iter().enumerate() {
        let below = ours.iter().filter(|&&q| q < p).count() as u8;
        squeezed[i] = p - below;
    }
    sort_small(&mut squeezed[..theirs.len()]);
    rank(&squeezed[..theirs.len()])
}

/// The points `ours` (sorted) leaves free whose squeezed numbers are `squeezed` (sorted).
pub fn spread_among(ours: &[u8], squeezed: &[u8], out: &mut [u8]) {
    for (i, &q) in squeezed.iter().enumerate() {
        let mut p = q;
        for &o in ours {
            if o <= p {
                p += 1;
            }
        }
        out[i] = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_round_trip_and_are_dense() {
        for k in 1..=3 {
            let mut set = [0u8; 4];
            for r in 0..binomial(POINTS, k) {
                unrank(r, k, &mut set);
                assert!(set[..k].windows(2).all(|w| w[0] < w[1]));
                assert_eq!(rank(&set[..k]), r);
            }
        }
    }

    #[test]
    fn symmetries_are_a_group_of_eight_on_the_points() {
        for s in 0..8 {
            let mut seen = [false; POINTS];
            for p in 0..POINTS as u8 {
                seen[transform(s, p) as usize] = true;
            }
            assert!(seen.iter().all(|&b| b), "symmetry {s} is a bijection");
        }
        // The images of one asymmetric point are eight distinct points.
        let mut images: Vec<u8> = (0..8).map(|s| transform(s, 1)).collect();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn spreading_undoes_squeezing() {
        let ours = [3u8, 10, 11];
        let theirs = [0u8, 12, 35];
        let r = rank_among(&ours, &theirs);
        let mut squeezed = [0u8; 3];
        unrank(r, 3, &mut squeezed);
        let mut back = [0u8; 3];
        spread_among(&ours, &squeezed, &mut back);
        assert_eq!(back, theirs);
    }

    #[test]
    fn classes_cover_every_set_about_an_eighth() {
        let c = Classes::new(3);
        assert!(c.count() * 8 >= binomial(POINTS, 3) && c.count() < 1000);
        let mut set = [0u8; 4];
        for r in 0..binomial(POINTS, 3) {
            unrank(r, 3, &mut set);
            let (class, s) = c.of(r);
            let mut image: Vec<u8> = set[..3].iter().map(|&p| transform(s, p)).collect();
            image.sort();
            assert_eq!(image, c.rep(class));
        }
    }
}
