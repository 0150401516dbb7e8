//! The RC-02 game as the registry sees it: its definition, options and the shared words for its
//! ends.

use arbiter_core::look::{self, BoardLook, Look, SideLook, Token};
use arbiter_core::rules::InputLines;
use arbiter_core::{
    Allowed, BoardView, CellView, Changes, End, EndReason, GameDef, JudgeDef, JudgeError,
    JudgeStep, MoveReason, OptionDef, Options, PerftRecord, PieceView, Rules, Side, SideDef,
    StepFlags, WrongVerdict,
};

use crate::position::{Cell, Move, Position};

/// Plies in a row without a capture that draw a game played through the registry. The
/// problem has no such rule (a game can go on forever); 80 plies is the 40 rounds the server
/// applied before the rule moved here. The judge plays without it.
pub const DEFAULT_MAX_NO_CAPTURE_ROUND: u32 = 80;

static OPTIONS: [OptionDef; 2] = [
    OptionDef {
        name: "size",
        aliases: &[],
        help: "board size (n × n)",
        default: 6,
        allowed: Allowed::OneOf(&[4, 6, 8, 10]),
    },
    OptionDef {
        name: "max_no_capture_round",
        aliases: &["maxnocapture"],
        help: "plies in a row without a capture that draw the game (0: never, as in the problem)",
        default: DEFAULT_MAX_NO_CAPTURE_ROUND,
        allowed: Allowed::Range {
            min: 0,
            max: 1_000_000,
        },
    },
];

/// Counted by this crate's generator when the rule moved into it, kept as regression values:
/// the problem publishes none.
static PERFT: [PerftRecord; 4] = [
    PerftRecord {
        options: &[("size", 4)],
        leaves: &[4, 18, 108, 632, 3282],
    },
    PerftRecord {
        options: &[("size", 6)],
        leaves: &[8, 66, 784, 9344, 118652],
    },
    PerftRecord {
        options: &[("size", 8)],
        leaves: &[12, 146, 2376, 38788, 699930],
    },
    PerftRecord {
        options: &[("size", 10)],
        leaves: &[16, 258, 5280, 108324, 2471326],
    },
];

/// The RC-02 game in the registry.
pub static DEFINITION: GameDef = GameDef {
    id: "rc02",
    aliases: &["rc-02"],
    title: "RC-02",
    sides: [
        SideDef {
            name: "red",
            word: "RED",
        },
        SideDef {
            name: "blue",
            word: "BLUE",
        },
    ],
    options: &OPTIONS,
    notation: "a3-b3: column letter and row number (1 is the top row) of the start, a dash, then of the target",
    setups: "",
    perft: &PERFT,
    judge: Some(JudgeDef {
        run: run_judge,
        strict: |input, output| crate::judge::judge_strict(input, output),
        record: None,
        trace,
        streams: false,
        example: "4 6\n1 2 2 2\n4 2 3 2\n1 3 1 2\n4 3 4 2\n2 2 3 2\n4 4 4 3\n",
        input: "N K, then K lines `x1 y1 x2 y2` (1-based, column first, row 1 at the top)",
        script: judge_script,
        verdict: judge_verdict,
        flags: judge_flags,
    }),
    look: Look {
        board: board_look,
        sides: [
            SideLook {
                token: Token::Disc,
                fill: "#b3261e",
                stroke: "#7d1e14",
                ink: "#fff",
            },
            SideLook {
                token: Token::Square,
                fill: "#1f5fae",
                stroke: "#0d3466",
                ink: "#fff",
            },
        ],
        pieces: &[],
        example: "a3-b3",
        alternative: None,
    },
};

/// An n × n board of cells, a1 the top-left one; the sides differ in shape as well as colour.
fn board_look(size: Option<u32>) -> BoardLook {
    let n = size.unwrap_or(6) as u8;
    BoardLook {
        background: "#dcd3c0",
        ..BoardLook::points(
            n,
            n,
            look::cells(n, n),
            look::letters(n, b'a'),
            look::counted(n, 1, 1),
        )
    }
}

/// The judge answers `0` to a refused move and `2 …` once the game is over.
fn judge_flags(output: &str) -> StepFlags {
    StepFlags {
        invalid: output.trim() == "0",
        ended: output.starts_with('2'),
    }
}

fn run_judge(
    input: &mut dyn std::io::BufRead,
    output: &mut dyn std::io::Write,
) -> Result<(), JudgeError> {
    crate::judge::judge(input, output)
}

/// The judge itself, step by step: after each move, what it would answer if the input ended
/// there (the last step's is what it prints), and the board.
fn trace(input: &str) -> Result<Vec<JudgeStep>, JudgeError> {
    let lines = InputLines::new(input);
    let mut before: Option<BoardView> = None;
    let mut steps = Vec::new();
    let tokens = arbiter_core::text::Tokens::new(input.as_bytes());
    crate::judge::judge_traced(tokens, |line, pos, illegal| {
        let board = pos.board();
        let mover = Some(pos.side_to_move().opponent());
        let changes = before
            .as_ref()
            .map_or_else(Changes::default, |b| b.changes(&board, mover));
        steps.push(JudgeStep {
            line,
            input: lines.get(line),
            output: crate::judge::answer(pos, illegal),
            changes,
            board: board.clone(),
        });
        before = Some(board);
    })?;
    Ok(steps)
}

fn judge_script(options: &Options, moves: &[String]) -> String {
    let n = options.get("size").unwrap_or(6) as u8;
    let mut script = format!("{n} {}\n", moves.len());
    for text in moves {
        let judge_form = Move::parse(text, n).map_or_else(|| "0 0 0 0".into(), Move::to_judge);
        script.push_str(&judge_form);
        script.push('\n');
    }
    script
}

/// `1` while nobody has won (the judge knows no draw), `2` and the winner after a win.
fn judge_verdict(output: &str, end: Option<&End>) -> Result<(), WrongVerdict> {
    let mut lines = output.lines();
    let want = match end.and_then(|e| e.winner) {
        Some(w) => format!("2 {}", DEFINITION.side(w).name),
        None => "1".into(),
    };
    let got = match lines.next() {
        Some("2") => format!("2 {}", lines.next().unwrap_or("")),
        other => other.unwrap_or("").to_string(),
    };
    if got == want {
        Ok(())
    } else {
        Err(WrongVerdict {
            at: "the game".into(),
            got,
            expected: want,
        })
    }
}

impl Rules for Position {
    fn definition() -> &'static GameDef {
        &DEFINITION
    }

    fn start(options: &Options) -> Position {
        let n = options.get("size").unwrap_or(6) as u8;
        let mut pos = Position::initial(n)
            .or_else(|| Position::initial(6))
            .expect("6 is an RC-02 size");
        pos.set_quiet_limit(
            options
                .get("max_no_capture_round")
                .unwrap_or(DEFAULT_MAX_NO_CAPTURE_ROUND),
        );
        pos
    }

    fn options(&self) -> Options {
        let mut options = DEFINITION.defaults();
        for (name, value) in [
            ("size", u32::from(self.size())),
            ("max_no_capture_round", self.quiet_limit().min(1_000_000)),
        ] {
            options
                .set(name, value.into())
                .expect("a position's own options are valid");
        }
        options
    }

    fn end(&self) -> Option<End> {
        if let Some(w) = self.winner() {
            let (winner, loser) = (DEFINITION.side(w).name, DEFINITION.side(w.opponent()).name);
            let left = self.count(w.opponent());
            return Some(if left <= u32::from(self.size()) / 2 {
                End {
                    reason: EndReason::Checkmate,
                    winner: Some(w),
                    text: format!("{winner} captured enough: {loser} has {left} pieces left"),
                }
            } else {
                End {
                    reason: EndReason::Trapped,
                    winner: Some(w),
                    text: format!("{loser} has no move left"),
                }
            });
        }
        self.is_drawn().then(|| End {
            reason: EndReason::Stalemate,
            winner: None,
            text: format!("no capture in {} plies: a draw", self.quiet_limit()),
        })
    }

    fn judge_move(&self, from: &str, to: &str, player: Side) -> Result<Move, MoveReason> {
        if player != self.side_to_move() {
            return Err(MoveReason::NotPlayerTurn);
        }
        let n = self.size();
        let (Some(f), Some(t)) = (Cell::parse(from, n), Cell::parse(to, n)) else {
            return Err(MoveReason::OutOfBoard);
        };
        match self.get(f) {
            None => return Err(MoveReason::NotPiece),
            Some(side) if side != player => return Err(MoveReason::NotPlayerPiece),
            _ => {}
        }
        let mv = Move::new(f, t);
        match self.check(mv) {
            Ok(()) => Ok(mv),
            Err(_) if self.get(t).is_some_and(|s| s != player) => {
                Err(MoveReason::IllegalCaptureMove)
            }
            Err(_) => Err(MoveReason::IllegalNonCaptureMove),
        }
    }

    fn state_text(&self) -> String {
        let winner = self.winner().map_or("-", |w| DEFINITION.side(w).name);
        format!(
            "{}to move {} · winner {winner} · quiet {}/{}",
            self.render(),
            DEFINITION.side(self.side_to_move()).name,
            if self.quiet_limit() == 0 {
                0
            } else {
                self.quiet_plies().min(self.quiet_limit())
            },
            self.quiet_limit()
        )
    }

    fn board(&self) -> BoardView {
        let n = self.size();
        let mut cells = Vec::with_capacity(usize::from(n) * usize::from(n));
        for row in 0..n {
            for col in 0..n {
                let cell = Cell::new(row, col);
                cells.push(CellView {
                    name: cell.name(),
                    col,
                    row,
                    piece: self.get(cell).map(|side| PieceView { side, kind: None }),
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
        for row in 0..n {
            for col in 0..n {
                if let Some(side) = self.get(Cell::new(row, col)) {
                    out(col, row, PieceView { side, kind: None });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_core::suite::{check_game, SuiteConfig};
    use arbiter_core::{Game, Status};

    use super::*;

    #[test]
    fn every_size_passes_the_game_suite() {
        for n in [4u64, 6, 8, 10] {
            for limit in [80, 8, 0] {
                let options = DEFINITION
                    .options_from([("size", n), ("max_no_capture_round", limit)])
                    .unwrap();
                let report = check_game::<Position>(&options, SuiteConfig::default())
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(report.perft_depths, 4, "{report:?}");
                assert_eq!(report.judged, 30);
            }
        }
    }

    #[test]
    fn quiet_plies_draw() {
        let options = DEFINITION
            .options_from([("size", 4), ("max_no_capture_round", 2)])
            .unwrap();
        let mut pos = Position::start(&options);
        for text in ["a3-b3", "d2-c2"] {
            assert_eq!(pos.status(), Status::Ongoing);
            let mv = pos.parse_move(text).unwrap();
            pos.play(mv);
        }
        assert_eq!(pos.status(), Status::Drawn);
        assert_eq!(pos.end().unwrap().reason, EndReason::Stalemate);
    }
}
