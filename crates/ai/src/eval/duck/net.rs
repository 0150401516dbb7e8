//! A learnt correction to the hand-written evaluation: a small network over where each piece
//! stands, trained (`scripts/train-duck-net.py`) on self-play positions that `arbiter tune duck
//! --selfplay` labels with a search's score and the game's result. The weight `learnt` sets how
//! much of it is added (per cent; 100, the default since it won +321 Elo at 100 ms a move against
//! the hand-written evaluation alone, docs/strength.md; 0 asks nothing of it).
//!
//! Inputs, from the side to move's view: `block * 630 + kind * 90 + row * 9 + column`, block 0
//! for its own pieces and 1 for the opponent's, rows counted from its own back rank; the hidden
//! units are clipped to `0..=1`, their weighted sum is the correction in centipawns.

use std::sync::LazyLock;

use arbiter_duck::{PieceKind, Position, SQUARES};

/// How many inputs the network has.
pub const INPUTS: usize = 2 * 7 * 90;
/// The most hidden units a network file may have (the sums live on the stack).
const MAX_HIDDEN: usize = 64;

/// The network built into the binary; `ARBITER_DUCK_NET=FILE` replaces it, for trying a newly
/// trained one without building again.
static NET: LazyLock<Result<Net, String>> =
    LazyLock::new(|| match std::env::var_os("ARBITER_DUCK_NET") {
        Some(path) => std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.to_string_lossy()))
            .and_then(|text| Net::parse(&text)),
        None => Net::parse(include_str!("net.txt")),
    });

/// The active inputs of `pos` (one per piece), pushed onto `out`.
pub fn inputs(pos: &Position, out: &mut Vec<u16>) {
    for_each_input(pos, |index| out.push(index as u16));
}

/// `ROW_FROM[side][sq]`: `row * 9 + column` of `sq` with rows counted from `side`'s back rank.
const ROW_FROM: [[usize; SQUARES]; 2] = {
    let mut table = [[0; SQUARES]; 2];
    let mut sq = 0;
    while sq < SQUARES {
        table[0][sq] = sq;
        table[1][sq] = (9 - sq / 9) * 9 + sq % 9;
        sq += 1;
    }
    table
};

/// Calls `visit` with the input of each piece, read from the position's square sets.
fn for_each_input(pos: &Position, mut visit: impl FnMut(usize)) {
    let us = pos.side_to_move();
    let rows = &ROW_FROM[us.index()];
    for (block, side) in [us, us.opponent()].into_iter().enumerate() {
        let own = pos.side_set(side);
        for kind in PieceKind::ALL {
            let mut set = own & pos.kind_set(kind);
            while set != 0 {
                let sq = set.trailing_zeros() as usize;
                set &= set - 1;
                visit(block * 630 + kind as usize * 90 + rows[sq]);
            }
        }
    }
}

/// The correction for the side to move, scaled by `percent`; 0 when `ARBITER_DUCK_NET` names
/// a file that is no network (said once on standard error).
pub fn correction(pos: &Position, percent: i32) -> i32 {
    let net = match NET.as_ref() {
        Ok(net) => net,
        Err(why) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "arbiter: no learnt correction: ARBITER_DUCK_NET: {why} \
                     (unset it for the built-in network)"
                )
            });
            return 0;
        }
    };
    (net.correct(pos) * percent as f32 / 100.0).round() as i32
}

#[derive(Debug)]
struct Net {
    hidden: usize,
    biases: Vec<f32>,
    /// `INPUTS` rows of `hidden` weights.
    inputs: Vec<f32>,
    outputs: Vec<f32>,
    output_bias: f32,
}

impl Net {
    /// The correction in centipawns for the side to move.
    fn correct(&self, pos: &Position) -> f32 {
        let h = self.hidden;
        let mut sums = [0f32; MAX_HIDDEN];
        sums[..h].copy_from_slice(&self.biases);
        for_each_input(pos, |index| {
            let weights = &self.inputs[index * h..(index + 1) * h];
            sums[..h].iter_mut().zip(weights).for_each(|(s, w)| *s += w);
        });
        let hidden = sums[..h].iter().map(|s| s.clamp(0.0, 1.0));
        hidden.zip(&self.outputs).map(|(s, w)| s * w).sum::<f32>() + self.output_bias
    }

    /// Reads the text `scripts/train-duck-net.py` writes: a header `arbiter-duck-net 1 1260 H`,
    /// `#` comments, then the hidden biases, one line of weights per input, the output weights
    /// and the output bias.
    fn parse(text: &str) -> Result<Net, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty());
        let (_, header) = lines.next().ok_or("the network file is empty")?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        let hidden = match fields[..] {
            ["arbiter-duck-net", "1", inputs, hidden] if inputs == INPUTS.to_string() => hidden
                .parse::<usize>()
                .ok()
                .filter(|h| (1..=MAX_HIDDEN).contains(h)),
            _ => None,
        }
        .ok_or_else(|| {
            format!("line 1: expected `arbiter-duck-net 1 {INPUTS} H`, H 1 to {MAX_HIDDEN}")
        })?;
        let mut row = |count: usize| -> Result<Vec<f32>, String> {
            let (n, line) = lines.next().ok_or("the network file ends too early")?;
            let values: Result<Vec<f32>, _> = line.split_whitespace().map(str::parse).collect();
            match values {
                Ok(v) if v.len() == count && v.iter().all(|x| x.is_finite()) => Ok(v),
                _ => Err(format!("line {}: expected {count} numbers", n + 1)),
            }
        };
        let biases = row(hidden)?;
        let mut inputs = Vec::with_capacity(INPUTS * hidden);
        for _ in 0..INPUTS {
            inputs.extend(row(hidden)?);
        }
        let outputs = row(hidden)?;
        let output_bias = row(1)?[0];
        Ok(Net {
            hidden,
            biases,
            inputs,
            outputs,
            output_bias,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::Side;
    use arbiter_duck::{Move, PieceKind};

    /// A network of `hidden` units whose input `i` adds `weight(i)` to every unit.
    fn net_text(hidden: usize, weight: impl Fn(usize) -> f32, outputs: &str, bias: f32) -> String {
        let mut lines = vec![
            format!("arbiter-duck-net 1 {INPUTS} {hidden}"),
            "# test".into(),
        ];
        lines.push(vec!["0"; hidden].join(" "));
        for i in 0..INPUTS {
            lines.push(vec![weight(i).to_string(); hidden].join(" "));
        }
        lines.push(outputs.to_string());
        lines.push(bias.to_string());
        lines.join("\n")
    }

    fn sorted_inputs(pos: &Position) -> Vec<u16> {
        let mut out = Vec::new();
        inputs(pos, &mut out);
        out.sort_unstable();
        out
    }

    #[test]
    fn inputs_are_seen_from_the_side_to_move() {
        let start = Position::initial();
        let red = sorted_inputs(&start);
        assert_eq!(red.len(), 32);
        let mut blue = start.clone();
        blue.set_side_to_move(Side::Second);
        // The start is symmetric, so blue to move sees what red does.
        assert_eq!(sorted_inputs(&blue), red);
        // Red's captain on its back rank, column 4: block 0, row 0.
        assert!(red.contains(&((PieceKind::Captain as usize * 90 + 4) as u16)));
        // Blue's captain, seen by red: block 1, row 9.
        assert!(red.contains(&((630 + PieceKind::Captain as usize * 90 + 9 * 9 + 4) as u16)));
    }

    #[test]
    fn the_correction_is_the_networks_sum() {
        // Only own soldiers count: five of them push each unit to 5 × 0.1 = 0.5.
        let soldier = |i: usize| {
            if i / 90 == PieceKind::Soldier as usize {
                0.1
            } else {
                0.0
            }
        };
        let net = Net::parse(&net_text(2, soldier, "100 -40", 7.0)).unwrap();
        let start = Position::initial();
        assert!((net.correct(&start) - (0.5 * 100.0 - 0.5 * 40.0 + 7.0)).abs() < 1e-3);
        // Clipped at 1: ten own soldiers' worth saturates.
        let strong = Net::parse(&net_text(1, |i| soldier(i) * 3.0, "100", 0.0)).unwrap();
        assert!((strong.correct(&start) - 100.0).abs() < 1e-3);
        // After a red move blue is to move: the sum is over its own five soldiers.
        let mut pos = start.clone();
        pos.play(Move::parse("a3-a4").unwrap());
        assert!((net.correct(&pos) - 37.0).abs() < 1e-3);
    }

    #[test]
    fn a_bad_network_file_names_its_line() {
        assert!(Net::parse("").unwrap_err().contains("empty"));
        assert!(Net::parse("arbiter-duck-net 1 99 4")
            .unwrap_err()
            .contains("line 1"));
        let short = net_text(2, |_| 0.0, "1", 0.0);
        assert!(
            Net::parse(&short).unwrap_err().contains("line 1264"),
            "{short:.40}"
        );
        let cut: String = net_text(2, |_| 0.0, "1 1", 0.0)
            .lines()
            .take(100)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(Net::parse(&cut).unwrap_err().contains("ends too early"));
    }

    /// Positions of seeded random games, every few plies.
    fn random_positions() -> Vec<Position> {
        use arbiter_core::MoveList;
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(31);
        let mut out = Vec::new();
        for _ in 0..20 {
            let mut pos = Position::initial();
            for ply in 0..120 {
                let mut moves = MoveList::new();
                pos.legal_moves(&mut moves);
                if pos.is_over() || moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
                if ply % 7 == 0 && !pos.is_over() {
                    out.push(pos.clone());
                }
            }
        }
        out
    }

    #[test]
    fn inputs_match_a_plain_walk_over_the_points() {
        for pos in random_positions() {
            let us = pos.side_to_move();
            let mut slow: Vec<u16> = pos
                .pieces()
                .map(|(sq, piece)| {
                    let block = usize::from(piece.side != us);
                    let row = if us == Side::First {
                        sq.x()
                    } else {
                        9 - sq.x()
                    } as usize;
                    (block * 630 + piece.kind as usize * 90 + row * 9 + sq.y() as usize) as u16
                })
                .collect();
            slow.sort_unstable();
            assert_eq!(sorted_inputs(&pos), slow, "{}", pos.to_fen());
        }
    }

    #[test]
    fn the_built_in_network_reads_and_learnt_adds_it() {
        use crate::eval::duck::DuckWeights;
        use crate::eval::Evaluate;
        let net = Net::parse(include_str!("net.txt")).unwrap();
        assert_eq!(DuckWeights::default().learnt, 100, "all of it by default");
        let plain = DuckWeights {
            learnt: 0,
            ..DuckWeights::default()
        };
        let half = DuckWeights {
            learnt: 50,
            ..DuckWeights::default()
        };
        let mut moved = 0;
        for pos in random_positions() {
            let added = pos.evaluate(&half) - pos.evaluate(&plain);
            assert_eq!(
                added,
                (net.correct(&pos) * 0.5).round() as i32,
                "{}",
                pos.to_fen()
            );
            moved += usize::from(added != 0);
        }
        assert!(
            moved > 10,
            "a trained network corrects most positions: {moved}"
        );
    }
}
