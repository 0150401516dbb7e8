//! Monte-Carlo tree search (UCT) with capture-biased random playouts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arbiter_core::{Game, MoveList, Side, Status};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::eval::Evaluate;
use crate::player::{Limits, Player, Score, SearchInfo};

/// Settings of an MCTS player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// The UCT exploration constant.
    pub exploration: f64,
    /// In a playout, the chance of playing the best-looking capture when there is one.
    pub capture_bias: f64,
    /// Iterations when no limit is given.
    pub default_iterations: u64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            exploration: 1.4,
            capture_bias: 0.5,
            default_iterations: 10_000,
        }
    }
}

struct Node<M> {
    mv: Option<M>,
    parent: usize,
    children: Vec<usize>,
    untried: Vec<M>,
    visits: f64,
    /// Sum of results (1 win, 0.5 draw, 0 loss) for the side that played `mv`.
    value: f64,
    /// The side that played `mv`.
    mover: Side,
}

/// An MCTS player.
pub struct Mcts<G: Evaluate> {
    rng: SmallRng,
    config: MctsConfig,
    weights: G::Weights,
}

/// What one search found.
pub struct MctsResult<M> {
    pub best: Option<M>,
    pub iterations: u64,
    /// The best move's share of wins, 0 to 1.
    pub win_rate: f64,
    pub pv: Vec<M>,
    pub elapsed: Duration,
}

impl<G: Evaluate> Mcts<G> {
    pub fn new(seed: u64, config: MctsConfig, weights: G::Weights) -> Self {
        Mcts {
            rng: SmallRng::seed_from_u64(seed),
            config,
            weights,
        }
    }

    /// Plays random (capture-biased) moves from `state` to the end or the length cap; the winner.
    fn playout(&mut self, mut state: G, cap: u32) -> Option<Side> {
        let mut moves = MoveList::new();
        let mut captures = Vec::new();
        for _ in 0..cap {
            moves.clear();
            state.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = if self.rng.gen_bool(self.config.capture_bias) {
                captures.clear();
                captures.extend(moves.iter().copied().filter(|&m| state.is_capture(m)));
                match captures.iter().map(|&m| state.order_hint(m)).max() {
                    Some(top) => {
                        captures.retain(|&m| state.order_hint(m) == top);
                        captures[self.rng.gen_range(0..captures.len())]
                    }
                    None => moves[self.rng.gen_range(0..moves.len())],
                }
            } else {
                moves[self.rng.gen_range(0..moves.len())]
            };
            state.play(mv);
        }
        match state.status() {
            Status::Won(side) => Some(side),
            Status::Drawn => None,
            Status::Ongoing if state.legal_moves_empty() => Some(state.side_to_move().opponent()),
            Status::Ongoing => {
                // Capped: call it for the side the evaluation clearly favours.
                let v = state.evaluate(&self.weights);
                if v > 150 {
                    Some(state.side_to_move())
                } else if v < -150 {
                    Some(state.side_to_move().opponent())
                } else {
                    None
                }
            }
        }
    }

    /// Expansion: a child of `node` for one of its untried moves (chosen at random), played
    /// on `state`; `node` itself when every move has its child.
    fn expand(&mut self, nodes: &mut Vec<Node<G::Move>>, node: usize, state: &mut G) -> usize {
        if nodes[node].untried.is_empty() {
            return node;
        }
        let i = self.rng.gen_range(0..nodes[node].untried.len());
        let mv = nodes[node].untried.swap_remove(i);
        let mover = state.side_to_move();
        state.play(mv);
        let mut untried = MoveList::new();
        state.legal_moves(&mut untried);
        nodes.push(Node {
            mv: Some(mv),
            parent: node,
            children: Vec::new(),
            untried: untried.to_vec(),
            visits: 0.0,
            value: 0.0,
            mover,
        });
        let child = nodes.len() - 1;
        nodes[node].children.push(child);
        child
    }

    pub fn search(&mut self, root: &G, limits: &Limits, stop: &AtomicBool) -> MctsResult<G::Move> {
        let start = Instant::now();
        let deadline = limits.time.map(|t| start + t);
        let max_iterations = limits
            .iterations
            .or(limits.nodes)
            .unwrap_or(if deadline.is_some() {
                u64::MAX
            } else {
                self.config.default_iterations
            });
        let mut root_moves = MoveList::new();
        root.legal_moves(&mut root_moves);
        let mut nodes = vec![Node {
            mv: None,
            parent: usize::MAX,
            children: Vec::new(),
            untried: root_moves.to_vec(),
            visits: 0.0,
            value: 0.0,
            mover: root.side_to_move().opponent(),
        }];
        let cap = root.max_plies().min(300);
        let mut iterations = 0;
        while iterations < max_iterations && root_moves.len() > 1 {
            if iterations & 63 == 0
                && (deadline.is_some_and(|d| Instant::now() >= d) || stop.load(Ordering::Relaxed))
            {
                break;
            }
            iterations += 1;
            let mut state = root.clone();
            let selected = select(&nodes, &mut state, self.config.exploration);
            let node = self.expand(&mut nodes, selected, &mut state);
            let winner = self.playout(state, cap);
            backpropagate(&mut nodes, node, winner);
        }
        let pv = principal_variation(&nodes);
        let best = pv.first().copied().or(root_moves.first().copied());
        let win_rate =
            most_visited(&nodes, 0).map_or(0.5, |c| nodes[c].value / nodes[c].visits.max(1.0));
        MctsResult {
            best,
            iterations,
            win_rate,
            pv,
            elapsed: start.elapsed(),
        }
    }
}

/// A helper the playout needs: whether the side to move is stuck (it then loses).
trait StuckCheck {
    fn legal_moves_empty(&self) -> bool;
}

impl<G: Game> StuckCheck for G {
    fn legal_moves_empty(&self) -> bool {
        let mut moves = MoveList::new();
        self.legal_moves(&mut moves);
        moves.is_empty()
    }
}

impl<G: Evaluate> Player<G> for Mcts<G> {
    fn name(&self) -> String {
        "mcts".into()
    }

    fn choose(
        &mut self,
        game: &G,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> Option<G::Move> {
        let result = self.search(game, limits, stop);
        info(&SearchInfo {
            depth: result.pv.len() as u32,
            score: Score::Cp(((result.win_rate - 0.5) * 2000.0) as i32),
            nodes: result.iterations,
            time: result.elapsed,
            pv: crate::alphabeta::format_line(game, &result.pv),
        });
        result.best
    }
}

/// Selection: from the root down by UCT (win rate plus `exploration` times the uncertainty)
/// while a node has all its children, playing their moves on `state`.
fn select<G: Game>(nodes: &[Node<G::Move>], state: &mut G, exploration: f64) -> usize {
    let mut node = 0;
    while nodes[node].untried.is_empty() && !nodes[node].children.is_empty() {
        let log_parent = nodes[node].visits.max(1.0).ln();
        let c = exploration;
        node = *nodes[node]
            .children
            .iter()
            .max_by(|&&a, &&b| {
                let uct = |i: usize| {
                    let n = &nodes[i];
                    n.value / n.visits + c * (log_parent / n.visits).sqrt()
                };
                uct(a).total_cmp(&uct(b))
            })
            .expect("has children");
        state.play(nodes[node].mv.expect("children have moves"));
    }
    node
}

/// Back-propagation: the playout's result counted from `node` up to the root, for the side
/// that moved into each node.
fn backpropagate<M>(nodes: &mut [Node<M>], mut node: usize, winner: Option<Side>) {
    while node != usize::MAX {
        let n = &mut nodes[node];
        n.visits += 1.0;
        n.value += match winner {
            Some(side) if side == n.mover => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        node = n.parent;
    }
}

/// The most visited child of node `at`.
fn most_visited<M>(nodes: &[Node<M>], at: usize) -> Option<usize> {
    nodes[at]
        .children
        .iter()
        .copied()
        .max_by(|&a, &b| nodes[a].visits.total_cmp(&nodes[b].visits))
}

/// The line of most visited children from the root.
fn principal_variation<M: Copy>(nodes: &[Node<M>]) -> Vec<M> {
    let mut pv = Vec::new();
    let mut at = 0;
    while let Some(child) = most_visited(nodes, at) {
        pv.push(nodes[child].mv.expect("children have moves"));
        at = child;
    }
    pv
}
