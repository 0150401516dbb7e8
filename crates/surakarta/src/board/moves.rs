//! Move generation on a [`Board`]: steps, captures along the circuits, counts and random draws.

use super::*;

impl Board {
    /// Appends every step of `side` (a move to an empty neighbour).
    ///
    /// Branch-free per piece: all eight candidate moves of [`piece_steps`] are written
    /// and the list keeps as many as are real.
    #[inline(always)]
    pub(super) fn push_steps(&self, side: Side, out: &mut MoveList<Move>) {
        let padded = self.padded_empty_rows();
        let s = side.index();
        for &piece in &self.pieces[s][..self.counts[s] as usize] {
            let (entry, base) = piece_steps(&padded, piece);
            let block = entry.offsets.map(|offset| Move(base.wrapping_add(offset)));
            out.push_block(&block, entry.count as usize);
        }
    }

    /// `padded[y + 1]` has bit `x + 1` set when `(x, y)` is on the board and empty; sized for
    /// any 4-bit row code so the lookups of [`piece_steps`] need no bounds checks.
    #[inline(always)]
    pub(super) fn padded_empty_rows(&self) -> [u16; 16 + 2] {
        let n = self.n as usize;
        let full: u16 = ((1u32 << n) - 1) as u16;
        let mut padded = [0u16; 16 + 2];
        for y in 0..n {
            padded[y + 1] = (!self.occupied_row(y) & full) << 1;
        }
        padded
    }

    /// A move of `side` chosen uniformly at random, `None` when `side` has no move.
    /// `choose(count)` must return a uniformly random index below `count`.
    ///
    /// No move list is built. The steps are counted by popcount and the entries of the capture
    /// list (a capture found by two routes is listed twice) by [`Board::listed_capture_count_sized`];
    /// an index into both picks a step or a listed capture, and a capture is kept only when
    /// drawn through its first entry (otherwise the draw is repeated), so every distinct move is
    /// equally likely.
    pub fn choose_move(&self, side: Side, choose: impl FnMut(u32) -> u32) -> Option<Move> {
        match self.n {
            6 => self.choose_move_sized::<6>(side, choose),
            8 => self.choose_move_sized::<8>(side, choose),
            10 => self.choose_move_sized::<10>(side, choose),
            _ => self.choose_move_sized::<12>(side, choose),
        }
    }

    /// [`Board::choose_move`] for an `N × N` board: with the size a constant, the loops over
    /// rows, lines and circuits unroll (playouts run 1.4× faster).
    #[inline(always)]
    pub(super) fn choose_move_sized<const N: usize>(
        &self,
        side: Side,
        mut choose: impl FnMut(u32) -> u32,
    ) -> Option<Move> {
        let (own, empty) = (self.packed(side), self.packed_empty());
        let listed = self.listed_capture_count_sized::<N>(side);
        let total = listed + count_steps_packed(&own, &empty, N as u8);
        if total == 0 {
            return None;
        }
        loop {
            let index = choose(total);
            debug_assert!(index < total);
            if index >= listed {
                return nth_step_packed(&own, &empty, N as u8, index - listed);
            }
            if let Some(capture) = self.drawn_capture(side, index) {
                return Some(capture);
            }
        }
    }

    /// The capture drawn by entry `index` of `side`'s capture list; `None` (draw again) when an
    /// earlier entry lists the same capture, so that each capture is drawn through one entry.
    pub(super) fn drawn_capture(&self, side: Side, index: u32) -> Option<Move> {
        let mut listed = ArrayVec::<Move, { 8 * MAX_CIRCUITS }>::new();
        self.for_each_listed_capture(side, |from, to| listed.push(Move::new(from, to)));
        let chosen = listed[index as usize];
        (!listed[..index as usize].contains(&chosen)).then_some(chosen)
    }

    /// How many entries `side`'s capture list has, repeats included: the pairs that
    /// [`Board::for_each_listed_capture_of`] visits.
    ///
    /// Each non-empty line's last piece is paired with the first piece of the next non-empty
    /// line, and the pair is one entry (for either side) when their owners differ: each line
    /// gives three bits (non-empty, first black, last black; [`line_summary`] finds all twelve
    /// of a circuit at once, without a bit scan) and [`LINE_PAIR_ENTRIES`] counts the pairs.
    /// A pair whose two ends are one piece on a crossing counts 0 there and is counted apart
    /// ([`lone_crossings`]).
    #[inline(always)]
    pub(super) fn listed_capture_count_sized<const N: usize>(&self, side: Side) -> u32 {
        let mut count = 0;
        for c in 0..N / 2 - 1 {
            let (black, white) = (self.tracks[0][c], self.tracks[1][c]);
            let summary = line_summary(line_lanes::<N>(black), line_lanes::<N>(white));
            count += LINE_PAIR_ENTRIES[summary] as u32;
            let lone = lone_crossings::<N>(c, black | white);
            if lone != 0 {
                count += self.entries_past_crossings::<N>(c, side, lone);
            }
        }
        count
    }

    /// The capture-list entries of `side` on circuit `c` from pieces that pass over themselves
    /// ([`lone_crossings`]): such a piece, last of one line and first of another, meets the
    /// piece after it on the line it is first of and the piece before it on the line it is last
    /// of, and each is an entry when it is an enemy.
    ///
    /// Out of line: about one circuit in four needs it, and inlined it was no faster.
    #[inline(never)]
    pub(super) fn entries_past_crossings<const N: usize>(
        &self,
        c: usize,
        side: Side,
        mut lone: u32,
    ) -> u32 {
        let own = self.tracks[side.index()][c];
        let enemy = self.tracks[side.opponent().index()][c];
        let line = (1u64 << N) - 1;
        let (end, start) = crossing_indices(N, c);
        let mut count = 0;
        while lone != 0 {
            let bit = lone.trailing_zeros() as usize;
            lone &= lone - 1;
            let i = bit % 4;
            let (on_line, on_next) = (i * N + end, (i + 1) % 4 * N + start);
            let (last_at, first_at) = if bit < 4 {
                (on_line, on_next)
            } else {
                (on_next, on_line)
            };
            if own >> last_at & 1 == 0 {
                continue;
            }
            let first_line = line << (first_at / N * N);
            let after = !((2u64 << first_at) - 1) & first_line;
            let (own_after, enemy_after) = (own & after, enemy & after);
            let next_is_enemy = enemy_after & (own_after | enemy_after).wrapping_neg() != 0;
            let last_line = line << (last_at / N * N);
            let before = ((1u64 << last_at) - 1) & last_line;
            let previous_is_enemy = enemy & before > own & before;
            count += u32::from(next_is_enemy) + u32::from(previous_is_enemy);
        }
        count
    }

    /// The number of steps of `side`, by popcount.
    #[inline(always)]
    pub(super) fn count_steps(&self, side: Side) -> u64 {
        count_steps_packed(&self.packed(side), &self.packed_empty(), self.n) as u64
    }

    /// `side`'s rows four to a word, 16 bits a row: bit `16 * (y % 4) + x` of word `y / 4`.
    /// One shift of a word moves all its pieces one step.
    #[inline(always)]
    pub(super) fn packed(&self, side: Side) -> [u64; PACKED_WORDS] {
        self.words[side.index()]
    }

    /// The empty points on the board, packed like [`Board::packed`].
    #[inline(always)]
    pub(super) fn packed_empty(&self) -> [u64; PACKED_WORDS] {
        let [black, white] = &self.words;
        let board = &BOARD_WORDS[self.n as usize / 2 - 3];
        [0, 1, 2].map(|k| board[k] & !(black[k] | white[k]))
    }

    /// [`Board::step_count`] of both sides, indexed by [`Side::index`].
    pub fn step_counts(&self) -> [u32; 2] {
        let empty = self.packed_empty();
        Side::BOTH.map(|side| count_steps_packed(&self.packed(side), &empty, self.n))
    }

    /// Whether some piece of `side` has an empty neighbour.
    #[inline]
    pub(super) fn has_step(&self, side: Side) -> bool {
        let (own, empty) = (self.packed(side), self.packed_empty());
        (0..(self.n as usize).div_ceil(4)).any(|k| {
            step_sets(&own, &empty, k)
                .iter()
                .any(|&landing| landing != 0)
        })
    }

    /// Calls `visit(from, to)` for each entry of the course reference's capture list for `side`
    /// (see [`crate::reference`]): a capture can appear twice, once per route.
    #[inline(always)]
    pub(super) fn for_each_listed_capture(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        self.for_each_listed_capture_of(only(side), |_, from, to| visit(from, to));
    }

    /// Calls `visit(side, from, to)` (`side` as an index) for each entry of the capture lists of
    /// the sides marked in `wanted`, each side's in the course reference's order: the
    /// evaluation asks for both sides in one pass.
    ///
    /// On each circuit a capture can only join the last piece of a line to the first piece of the
    /// next non-empty line (the travel between them crosses an arc and meets nothing, and either
    /// piece may take the other), so at most four pairs per circuit are looked at, found by bit
    /// scans of the track occupancy. When both ends are one piece on a crossing, it passes over
    /// itself and meets the next piece beyond, on either side. As a set this is exactly the
    /// track-walking rule (a property test checks it).
    #[inline(always)]
    pub(super) fn for_each_listed_capture_of(
        &self,
        wanted: [bool; 2],
        mut visit: impl FnMut(usize, Point, Point),
    ) {
        let g = self.geometry();
        let n = self.n as usize;
        let full = (1u64 << n) - 1;
        for c in 0..g.circuits() {
            let black = self.tracks[0][c];
            let white = self.tracks[1][c];
            if black == 0 || white == 0 {
                continue;
            }
            let occupied = black | white;
            let owner = |t: usize| usize::from(black >> t & 1 == 0);
            let track = &g.flat_tracks[c];
            let twin = &g.twins[c];
            let lines = [0, 1, 2, 3].map(|l| (occupied >> (l * n)) & full);
            let non_empty = lines
                .iter()
                .enumerate()
                .fold(0, |acc, (l, &b)| acc | usize::from(b != 0) << l);
            let mut remaining = non_empty;
            while remaining != 0 {
                let i = remaining.trailing_zeros() as usize;
                remaining &= remaining - 1;
                let j = NEXT_LINE[non_empty][i] as usize;
                let last = 63 - lines[i].leading_zeros() as usize;
                let a = i * n + last;
                let b = j * n + lines[j].trailing_zeros() as usize;
                let (side_a, side_b) = (owner(a), owner(b));
                if twin[b] as usize != a {
                    if side_a != side_b {
                        let (from, to) = if side_a == 0 { (a, b) } else { (b, a) };
                        for (s, (f, t)) in [(0, (from, to)), (1, (to, from))] {
                            if wanted[s] {
                                visit(s, track[f], track[t]);
                            }
                        }
                    }
                } else if wanted[side_a] {
                    for v in pieces_past_crossing(&lines, i, j, last, n)
                        .into_iter()
                        .flatten()
                    {
                        if owner(v) != side_a {
                            visit(side_a, track[a], track[v]);
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit(from, to)` once for each distinct capture of `side`.
    #[inline(always)]
    pub(super) fn for_each_capture(&self, side: Side, mut visit: impl FnMut(Point, Point)) {
        self.for_each_capture_of(only(side), |_, from, to| visit(from, to));
    }

    /// Calls `visit(side, from, to)` once for each distinct capture of the sides marked in
    /// `wanted`, in the order first listed.
    #[inline(always)]
    pub(super) fn for_each_capture_of(
        &self,
        wanted: [bool; 2],
        mut visit: impl FnMut(usize, Point, Point),
    ) {
        let mut seen = [(); 2].map(|_| ArrayVec::<Move, { 8 * MAX_CIRCUITS }>::new());
        self.for_each_listed_capture_of(wanted, |s, from, to| {
            let mv = Move::new(from, to);
            if !seen[s].contains(&mv) {
                seen[s].push(mv);
                visit(s, from, to);
            }
        });
    }

    /// The course reference's capture list for `side`, duplicates included.
    pub(crate) fn listed_captures(&self, side: Side) -> Vec<Move> {
        let mut out = Vec::new();
        self.for_each_listed_capture(side, |from, to| out.push(Move::new(from, to)));
        out
    }

    /// Appends every move of `side`, captures first, ignoring whose turn it is and the game's end.
    pub fn moves(&self, side: Side, out: &mut MoveList<Move>) {
        self.captures(side, out);
        self.push_steps(side, out);
    }

    /// Appends the captures of `side` (each distinct move once, as in [`Board::moves`]).
    pub fn captures(&self, side: Side, out: &mut MoveList<Move>) {
        self.for_each_capture(side, |from, to| out.push(Move::new(from, to)));
    }

    /// The number of moves of `side` (for perft's last ply), without building them.
    pub fn count_moves(&self, side: Side) -> u64 {
        let mut count = self.count_steps(side);
        self.for_each_capture(side, |_, _| count += 1);
        count
    }

    /// Whether `side` has any move at all (a side without one is trapped).
    /// Searches call it at every node (a trapped side has lost), so it stops at the first row
    /// with a step instead of counting them all.
    pub fn has_move(&self, side: Side) -> bool {
        let mut any = self.has_step(side);
        if !any {
            self.for_each_capture(side, |_, _| any = true);
        }
        any
    }

    /// The distinct points a capture from `from` reaches (for the piece standing there), sorted.
    pub fn capture_targets(&self, from: Point) -> Vec<Point> {
        let Some(side) = self.get(from) else {
            return vec![];
        };
        let mut out = Vec::new();
        self.for_each_capture(side, |f, to| {
            if f == from {
                out.push(to);
            }
        });
        out.sort();
        out
    }

    /// Whether the piece on `from` can capture on `to`.
    pub fn can_capture(&self, from: Point, to: Point) -> bool {
        let Some(side) = self.get(from) else {
            return false;
        };
        let mut found = false;
        self.for_each_listed_capture(side, |f, t| found |= f == from && t == to);
        found
    }

    /// The empty neighbours of `from`, sorted.
    pub fn step_targets(&self, from: Point) -> Vec<Point> {
        let mut out = Vec::new();
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if let Some(p) = self.contains(from.x as i64 + dx, from.y as i64 + dy) {
                    if self.get(p).is_none() {
                        out.push(p);
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The route of the capture `from → to`: every point from the start to the target, with the
    /// arcs it goes round; the shortest when several routes reach the target. `None` when no
    /// capture from `from` reaches `to`.
    pub fn capture_path(&self, from: Point, to: Point) -> Option<Vec<PathNode>> {
        let side = self.get(from)?;
        if self.get(to) != Some(side.opponent()) {
            return None;
        }
        let g = self.geometry();
        let n = self.n as usize;
        let mut best: Option<Vec<PathNode>> = None;
        for occ in &g.occurrences[from.index(self.n)] {
            let track = &g.tracks[occ.circuit as usize];
            let len = track.len();
            for forward in [true, false] {
                let mut path = vec![PathNode::Point(from)];
                let mut arcs = 0;
                let mut i = occ.index as usize;
                for _ in 0..len {
                    let next = if forward {
                        (i + 1) % len
                    } else {
                        (i + len - 1) % len
                    };
                    let boundary = if forward {
                        next.is_multiple_of(n)
                    } else {
                        i.is_multiple_of(n)
                    };
                    if boundary {
                        let segment = if forward { i / n } else { next / n };
                        path.push(PathNode::Arc {
                            circuit: occ.circuit + 1,
                            corner: g.arc_corner(segment),
                        });
                        arcs += 1;
                    }
                    i = next;
                    let p = track[i];
                    path.push(PathNode::Point(p));
                    if p == from {
                        continue;
                    }
                    if self.get(p).is_some() {
                        if p == to && arcs > 0 && best.as_ref().is_none_or(|b| path.len() < b.len())
                        {
                            best = Some(path);
                        }
                        break;
                    }
                }
            }
        }
        best
    }
}
