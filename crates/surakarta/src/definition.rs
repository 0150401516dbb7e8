//! Surakarta as the registry sees it: its definition, options and the shared words for its ends.

use arbiter_core::look::{self, BoardLook, Look, Shape};
use arbiter_core::outcome::outside_end_text;
use arbiter_core::rules::InputLines;
use arbiter_core::{
    Allowed, BoardView, CellView, Changes, End, EndReason, Game, GameDef, JudgeDef, JudgeError,
    JudgeStep, MoveReason, OptionDef, Options, PerftRecord, PieceView, RouteStep, Rules,
    SetupError, SharedOutput, Side, SideDef, Status, StepFlags, WrongVerdict,
};

use crate::board::{Move, PathNode, Point};
use crate::geometry::SIZES;
use crate::rules::{player_letter, Position};

/// The course's default: a game with this many moves in a row without a capture ends.
pub const DEFAULT_MAX_NO_CAPTURE_ROUND: u32 = 40;

static OPTIONS: [OptionDef; 2] = [
    OptionDef {
        name: "size",
        aliases: &[],
        help: "board size (n × n)",
        default: 6,
        allowed: Allowed::OneOf(&[6, 8, 10, 12]),
    },
    OptionDef {
        name: "max_no_capture_round",
        aliases: &["maxnocapture"],
        help:
            "moves in a row without a capture that end the game, won by the side with more pieces",
        default: DEFAULT_MAX_NO_CAPTURE_ROUND,
        allowed: Allowed::Range {
            min: 1,
            max: 1_000_000,
        },
    },
];

static PERFT: [PerftRecord; 4] = [
    PerftRecord {
        options: &[("size", 6)],
        leaves: &[16, 256, 5382, 111122, 2572484, 58479230],
    },
    PerftRecord {
        options: &[("size", 8)],
        leaves: &[22, 484, 13376, 369664, 11555428],
    },
    PerftRecord {
        options: &[("size", 10)],
        leaves: &[28, 784, 26432, 891136, 33630944],
    },
    PerftRecord {
        options: &[("size", 12)],
        leaves: &[34, 1156, 45968, 1827904],
    },
];

/// Surakarta in the registry.
pub static DEFINITION: GameDef = GameDef {
    id: "surakarta",
    aliases: &[],
    title: "Surakarta",
    sides: [
        SideDef {
            name: "black",
            word: "BLACK",
        },
        SideDef {
            name: "white",
            word: "WHITE",
        },
    ],
    options: &OPTIONS,
    notation: "A2-B3: column letter and row number of the start, a dash, then of the target (A1 is black's corner)",
    setups: "file PATH (the course's position file)",
    perft: &PERFT,
    judge: Some(JudgeDef {
        run: run_judge,
        // Every command is already checked for its own line and arguments.
        strict: run_judge,
        record: Some(crate::judge_record::judge_record),
        trace,
        streams: true,
        example: "new 6 40\nmove 0 1 0 2 B\nmove 5 4 4 3 W\nprobe 1 1 1 1 B\nmove 1 1 2 2 B\ntargets 4 3\nmove 4 3 3 2 W\nend LEGAL_NON_CAPTURE_MOVE\nstate\n",
        input: "one command per line: `new N M` (a new N×N game whose max_no_capture_round is M) | `position` then a position file | `probe fx fy tx ty B|W` (judge a move) or `move …` (judge and play it) | `end REASON` (the end a move judged REASON would bring now, like end LEGAL_NON_CAPTURE_MOVE) | `targets x y` | `state`",
        script: judge_script,
        verdict: judge_verdict,
        flags: judge_flags,
    }),
    look: Look {
        board: board_look,
        sides: [look::DARK, look::LIGHT],
        pieces: &[],
        example: "A2-A3",
        alternative: None,
    },
};

/// An n × n grid of points (A1 bottom left) with its circuits: circuit k runs along the lines
/// k and n-1-k from each side and turns round the corners on three-quarter arcs of radius k.
fn board_look(size: Option<u32>) -> BoardLook {
    let n = size.unwrap_or(6) as u8;
    let mut shapes = look::grid(n, n);
    let far = f32::from(n) - 1.0;
    for k in 1..n / 2 {
        let class = format!("circuit circuit-{k}");
        for i in [f32::from(k), far - f32::from(k)] {
            shapes.push(look::line([i, 0.0], [i, far], &class));
            shapes.push(look::line([0.0, i], [far, i], &class));
        }
        for corner in [[0.0, 0.0], [far, 0.0], [0.0, far], [far, far]] {
            shapes.push(corner_arc(corner, f32::from(k), &class));
        }
    }
    BoardLook {
        margin: f32::from(n / 2 - 1) + 0.75,
        label_gap: 0.64,
        ..BoardLook::points(
            n,
            n,
            shapes,
            look::letters(n, b'A'),
            look::counted(n, n.into(), -1),
        )
    }
}

/// The arc of radius `k` round `corner`, from the line k columns in to the line k rows in, the
/// long way (outside the board).
fn corner_arc(corner: [f32; 2], k: f32, class: &str) -> Shape {
    let inward = |v: f32| if v == 0.0 { k } else { -k };
    let from = [corner[0] + inward(corner[0]), corner[1]];
    let to = [corner[0], corner[1] + inward(corner[1])];
    let cross =
        (from[0] - corner[0]) * (to[1] - corner[1]) - (from[1] - corner[1]) * (to[0] - corner[0]);
    Shape::Arc {
        from,
        to,
        radius: k,
        large: true,
        sweep: cross <= 0.0,
        class: class.into(),
    }
}

/// The judge names a refused move by its reason and a finished game by how it ended.
fn judge_flags(output: &str) -> StepFlags {
    let has = |words: &[&str]| words.iter().any(|w| output.contains(w));
    StepFlags {
        invalid: has(&["ILLIGAL", "NOT_PLAYER", "NOT_PIECE", "OUT_OF_BOARD"]),
        ended: has(&["CHECKMATE", "STALEMATE"]),
    }
}

fn run_judge(
    input: &mut dyn std::io::BufRead,
    output: &mut dyn std::io::Write,
) -> Result<(), JudgeError> {
    crate::judge::judge(input, output)
}

/// The judge itself, step by step: what it printed for each command and the board after it.
fn trace(input: &str) -> Result<Vec<JudgeStep>, JudgeError> {
    let lines = InputLines::new(input);
    let out = SharedOutput::default();
    let mut before = Position::new(6, DEFAULT_MAX_NO_CAPTURE_ROUND)
        .expect("6 is a size")
        .board();
    let mut steps = vec![JudgeStep {
        line: 0,
        input: String::new(),
        output: String::new(),
        board: before.clone(),
        changes: Changes::default(),
    }];
    crate::judge::judge_traced(input.as_bytes(), out.clone(), |line, game| {
        let board = game.board();
        let changes = if board.cols == before.cols {
            before.changes(&board, Some(game.side_to_move().opponent()))
        } else {
            Changes::default()
        };
        steps.push(JudgeStep {
            line,
            input: lines.get(line),
            output: out.take_new(),
            changes,
            board: board.clone(),
        });
        before = board;
    })?;
    Ok(steps)
}

fn judge_script(options: &Options, moves: &[String]) -> String {
    let n = options.get("size").unwrap_or(6) as u8;
    let limit = options
        .get("max_no_capture_round")
        .unwrap_or(DEFAULT_MAX_NO_CAPTURE_ROUND);
    let mut script = format!("new {n} {limit}\n");
    for (i, text) in moves.iter().enumerate() {
        let (from, to) = Move::parse(text, n).map_or(((0, 0), (0, 0)), |m| {
            ((m.from().x, m.from().y), (m.to().x, m.to().y))
        });
        let player = player_letter(Some(Side::from_index(i % 2)));
        script.push_str(&format!(
            "move {} {} {} {} {player}\n",
            from.0, from.1, to.0, to.1
        ));
    }
    script
}

/// Every move legal; the last line carries the end (a trapped side is never an end the
/// course's judge reports: it expects a resignation).
fn judge_verdict(output: &str, end: Option<&End>) -> Result<(), WrongVerdict> {
    let lines: Vec<&str> = output.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let legal = words
            .first()
            .and_then(|w| w.parse::<MoveReason>().ok())
            .is_some_and(MoveReason::is_legal);
        if !legal || words.len() != 3 {
            return Err(WrongVerdict {
                at: format!("move {}", i + 1),
                got: line.to_string(),
                expected: "a legal move's three words".into(),
            });
        }
        let want = match end.filter(|_| i + 1 == lines.len()) {
            Some(e) if e.reason != EndReason::Trapped => {
                format!("{} {}", e.reason.name(), player_letter(e.winner))
            }
            _ => "NONE .".to_string(),
        };
        if words[1..].join(" ") != want {
            return Err(WrongVerdict {
                at: format!("move {}", i + 1),
                got: line.to_string(),
                expected: format!("… {want}"),
            });
        }
    }
    Ok(())
}

impl Position {
    fn side_text(&self, side: Side) -> &'static str {
        DEFINITION.side(side).name
    }

    fn end_text(&self) -> String {
        let winner = self.winner.map(|w| self.side_text(w));
        let loser = self.winner.map(|w| self.side_text(w.opponent()));
        match (self.end_reason, winner, loser) {
            (EndReason::Checkmate, Some(w), Some(l)) => format!("{w} took {l}'s last piece"),
            (EndReason::Stalemate, Some(w), _) => format!(
                "no capture in {} moves; {w} has more pieces",
                self.max_no_capture_round
            ),
            (EndReason::Stalemate, None, _) => format!(
                "no capture in {} moves with equal pieces: a draw",
                self.max_no_capture_round
            ),
            (reason, _, Some(l)) => outside_end_text(reason, l),
            (reason, _, None) => outside_end_text(reason, "nobody"),
        }
    }
}

impl Rules for Position {
    fn definition() -> &'static GameDef {
        &DEFINITION
    }

    fn start(options: &Options) -> Position {
        let n = options.get("size").unwrap_or(6) as u8;
        let limit = options
            .get("max_no_capture_round")
            .unwrap_or(DEFAULT_MAX_NO_CAPTURE_ROUND);
        Position::new(n, limit)
            .or_else(|| Position::new(6, limit))
            .expect("6 is a Surakarta size")
    }

    /// A position file's limit outside the options' range is brought into it.
    fn options(&self) -> Options {
        let mut options = DEFINITION.defaults();
        let limit = self.max_no_capture_round.clamp(1, 1_000_000);
        for (name, value) in [
            ("size", self.size() as u32),
            ("max_no_capture_round", limit),
        ] {
            options
                .set(name, value.into())
                .expect("a state's own options are valid");
        }
        options
    }

    fn setup(form: &str, text: &str, _options: &Options) -> Result<Position, SetupError> {
        match form {
            "file" => {
                let file = std::fs::read_to_string(text).map_err(|e| SetupError::Unreadable {
                    what: format!("cannot read {text}"),
                    why: e.to_string(),
                })?;
                Position::from_position_file(&file).map_err(|e| SetupError::Unreadable {
                    what: text.to_string(),
                    why: e.to_string(),
                })
            }
            other => Err(SetupError::UnknownForm {
                game: DEFINITION.id,
                offered: "`startpos` or `file PATH`",
                form: arbiter_core::text::shorten(other),
            }),
        }
    }

    fn end(&self) -> Option<End> {
        if self.end_reason == EndReason::None {
            return match self.status() {
                Status::Won(winner) => Some(End {
                    reason: EndReason::Trapped,
                    winner: Some(winner),
                    text: format!("{} has no legal move", self.side_text(winner.opponent())),
                }),
                _ => None,
            };
        }
        Some(End {
            reason: self.end_reason,
            winner: self.winner,
            text: self.end_text(),
        })
    }

    fn judge_move(&self, from: &str, to: &str, player: Side) -> Result<Move, MoveReason> {
        let n = self.size();
        let coords =
            |text: &str| Point::parse(text, n).map_or((-1, -1), |p| (p.x as i64, p.y as i64));
        let (f, t) = (coords(from), coords(to));
        let reason = self.judge_move(f, t, player);
        if reason.is_legal() {
            Ok(Move::new(
                Point::new(f.0 as u8, f.1 as u8),
                Point::new(t.0 as u8, t.1 as u8),
            ))
        } else {
            Err(reason)
        }
    }

    fn state_text(&self) -> String {
        let n = self.size();
        let mut out = String::new();
        for y in 0..n {
            for x in 0..n {
                out.push(player_letter(self.board.get(Point::new(x, y))));
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "to move {} · quiet {}/{} · end {} {}",
            player_letter(Some(self.current_player)),
            self.quiet_rounds(),
            self.max_no_capture_round,
            self.end_reason.name(),
            player_letter(self.winner)
        ));
        out
    }

    fn board(&self) -> BoardView {
        let n = self.size();
        let mut cells = Vec::with_capacity(n as usize * n as usize);
        for y in (0..n).rev() {
            for x in 0..n {
                let p = Point::new(x, y);
                cells.push(CellView {
                    name: p.name(),
                    col: x,
                    row: n - 1 - y,
                    piece: self.board.get(p).map(|side| PieceView { side, kind: None }),
                });
            }
        }
        BoardView {
            cols: n,
            rows: n,
            cells,
            checked: Vec::new(),
        }
    }

    fn pieces(&self, out: &mut dyn FnMut(u8, u8, PieceView)) {
        let n = self.size();
        for y in 0..n {
            for x in 0..n {
                if let Some(side) = self.board.get(Point::new(x, y)) {
                    out(x, n - 1 - y, PieceView { side, kind: None });
                }
            }
        }
    }

    fn route(&self, mv: Move) -> Option<Vec<RouteStep>> {
        let n = self.size();
        let path = self.board.capture_path(mv.from(), mv.to())?;
        Some(
            path.into_iter()
                .map(|node| match node {
                    PathNode::Point(p) => RouteStep::Point {
                        col: p.x,
                        row: n - 1 - p.y,
                    },
                    PathNode::Arc { circuit, corner } => RouteStep::Arc {
                        col: corner.x,
                        row: n - 1 - corner.y,
                        radius: circuit,
                    },
                })
                .collect(),
        )
    }

    /// The board's own counter (no game-end cut-offs, as the rules page's table counts) while
    /// the game is on.
    fn perft(&self, depth: u32) -> u64 {
        if self.is_over() || !SIZES.contains(&self.size()) {
            return arbiter_core::rules::perft(self, depth);
        }
        crate::perft(&self.board, self.current_player, depth)
    }
}

#[cfg(test)]
mod tests {
    use arbiter_core::suite::{check_game, SuiteConfig};

    use super::*;

    #[test]
    fn every_size_passes_the_game_suite() {
        for n in SIZES {
            for limit in [40, 6] {
                let options = DEFINITION
                    .options_from([("size", n as u64), ("max_no_capture_round", limit)])
                    .unwrap();
                let report = check_game::<Position>(
                    &options,
                    SuiteConfig {
                        games: 12,
                        perft_depth: 3,
                        ..SuiteConfig::default()
                    },
                )
                .unwrap_or_else(|e| panic!("{e}"));
                assert!(report.finished > 0, "{report:?}");
                assert_eq!(report.judged, 12);
            }
        }
    }

    #[test]
    fn the_hash_tells_the_no_capture_count_apart() {
        let mut a = Position::new(6, 40).unwrap();
        let b = a.clone();
        // Two quiet moves each way bring the same board back, 4 moves nearer the limit.
        for text in ["A2-A3", "A5-A4", "A3-A2", "A4-A5"] {
            let mv = a.parse_move(text).unwrap();
            a.play(mv);
        }
        assert_eq!(a.board, b.board);
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.state_text(), b.state_text());
    }
}
