//! Duck Chess as the registry sees it: its definition, options and the shared words for its ends.

use arbiter_core::look::{self, AlternativeLook, BoardLook, Look, PieceLook, SideLook, Token};
use arbiter_core::rules::InputLines;
use arbiter_core::{
    Allowed, BoardView, CellView, Changes, End, EndReason, GameDef, JudgeDef, JudgeError,
    JudgeStep, MoveReason, OptionDef, Options, PerftRecord, PieceView, Rules, SetupError,
    SharedOutput, Side, SideDef, StepFlags, WrongVerdict,
};

use crate::board::{side_name, Square};
use crate::position::{Move, Position};

/// Plies in a row without a capture that draw a game played through the registry. P5380 has
/// no such rule (a game between two bots can cycle forever); 80 plies is the 40 rounds the
/// server applied before the rule moved here. The judge plays without it.
pub const DEFAULT_MAX_NO_CAPTURE_ROUND: u32 = 80;

static OPTIONS: [OptionDef; 1] = [OptionDef {
    name: "max_no_capture_round",
    aliases: &["maxnocapture"],
    help: "plies in a row without a capture that draw the game (0: never, as in P5380)",
    default: DEFAULT_MAX_NO_CAPTURE_ROUND,
    allowed: Allowed::Range {
        min: 0,
        max: 1_000_000,
    },
}];

static PERFT: [PerftRecord; 1] = [PerftRecord {
    options: &[],
    leaves: &[43, 1849, 80066, 3466638, 152386930],
}];

/// Duck Chess in the registry.
pub static DEFINITION: GameDef = GameDef {
    id: "duck",
    aliases: &["p5380", "duck-chess"],
    title: "Duck Chess (鸭棋)",
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
    notation: "a0-a1: column letter a-i and row digit 0-9 of the start, a dash, then of the target (e0 is red's captain)",
    setups: "fen FEN (see the README)",
    perft: &PERFT,
    judge: Some(JudgeDef {
        run: run_judge,
        strict: |input, output| crate::judge::judge_strict(input, output),
        record: None,
        trace,
        streams: true,
        example: "8\n3 0 4 0\n6 0 5 0\n4 0 5 0\n6 2 5 2\n0 0 1 0\n9 9 9 9\n5 0 6 0\n9 0 8 0\n",
        input: "Q, then Q lines `xs ys xt yt` (row 0-9, column 0-8; red's back rank is row 0)",
        script: judge_script,
        verdict: judge_verdict,
        flags: judge_flags,
    }),
    look: Look {
        board: board_look,
        sides: [
            SideLook {
                token: Token::Disc,
                fill: "#fff3e6",
                stroke: "#b3261e",
                ink: "#b3261e",
            },
            SideLook {
                token: Token::Disc,
                fill: "#eaf1fb",
                stroke: "#1f5fae",
                ink: "#1f5fae",
            },
        ],
        pieces: &PIECES,
        example: "a0-a1",
        alternative: Some(AlternativeLook {
            show: "Latin letters",
            hide: "Chinese pieces",
        }),
    },
};

/// The pieces' glyphs: Chinese characters, or Latin letters.
static PIECES: [PieceLook; 7] = [
    piece("captain", "王", "K"),
    piece("guard", "士", "A"),
    piece("elephant", "象", "E"),
    piece("horse", "马", "H"),
    piece("car", "车", "R"),
    piece("duck", "鸭", "D"),
    piece("soldier", "兵", "P"),
];

const fn piece(kind: &'static str, glyph: &'static str, alternative: &'static str) -> PieceLook {
    PieceLook {
        kind,
        name: kind,
        glyph,
        alternative,
    }
}

/// Nine columns a-i, ten rows 9 (blue's back rank, at the top) to 0, pieces on the points.
fn board_look(_: Option<u32>) -> BoardLook {
    BoardLook::points(
        9,
        10,
        look::grid(9, 10),
        look::letters(9, b'a'),
        look::counted(10, 9, -1),
    )
}

/// The judge answers `…;yes` when a captain fell, `Invalid command` to a move it refuses.
fn judge_flags(output: &str) -> StepFlags {
    StepFlags {
        invalid: output.contains("Invalid command"),
        ended: output.trim_end().ends_with(";yes"),
    }
}

fn run_judge(
    input: &mut dyn std::io::BufRead,
    output: &mut dyn std::io::Write,
) -> Result<(), JudgeError> {
    crate::judge::judge(input, output)
}

/// The judge itself, step by step: what it printed for each operation and the board after it.
fn trace(input: &str) -> Result<Vec<JudgeStep>, JudgeError> {
    let lines = InputLines::new(input);
    let out = SharedOutput::default();
    let mut before = Position::initial().board();
    let mut steps = vec![JudgeStep {
        line: 0,
        input: String::new(),
        output: String::new(),
        board: before.clone(),
        changes: Changes::default(),
    }];
    let tokens = arbiter_core::text::Tokens::new(input.as_bytes());
    crate::judge::judge_traced(tokens, out.clone(), |line, pos| {
        let board = pos.board();
        steps.push(JudgeStep {
            line,
            input: lines.get(line),
            output: out.take_new(),
            changes: before.changes(&board, Some(pos.side_to_move().opponent())),
            board: board.clone(),
        });
        before = board;
    })?;
    Ok(steps)
}

fn judge_script(_: &Options, moves: &[String]) -> String {
    let mut script = format!("{}\n", moves.len());
    for text in moves {
        let judge_form = Move::parse(text).map_or_else(|_| "-1 -1 -1 -1".into(), Move::to_judge);
        script.push_str(&judge_form);
        script.push('\n');
    }
    script
}

/// Every move judged; the last says "game over" exactly when a captain fell (the judge knows
/// no draw).
fn judge_verdict(output: &str, end: Option<&End>) -> Result<(), WrongVerdict> {
    let lines: Vec<&str> = output.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let captain_fell = i + 1 == lines.len() && end.is_some_and(|e| e.winner.is_some());
        let want = if captain_fell { ";yes" } else { ";no" };
        if *line == "Invalid command" || !line.ends_with(want) {
            return Err(WrongVerdict {
                at: format!("move {}", i + 1),
                got: line.to_string(),
                expected: format!("…{want}"),
            });
        }
    }
    Ok(())
}

impl Position {
    /// The captains the other side could take now.
    pub fn captains_in_check(&self) -> Vec<Square> {
        if self.is_over() {
            return Vec::new();
        }
        Side::BOTH
            .into_iter()
            .filter_map(|side| self.captain(side))
            .filter(|&sq| {
                let owner = self.piece_at(sq).map(|p| p.side);
                owner.is_some_and(|o| self.attacks(o.opponent(), sq))
            })
            .collect()
    }
}

impl Rules for Position {
    fn definition() -> &'static GameDef {
        &DEFINITION
    }

    fn start(options: &Options) -> Position {
        let mut pos = Position::initial();
        pos.set_quiet_limit(
            options
                .get("max_no_capture_round")
                .unwrap_or(DEFAULT_MAX_NO_CAPTURE_ROUND),
        );
        pos
    }

    fn options(&self) -> Options {
        let mut options = DEFINITION.defaults();
        options
            .set(
                "max_no_capture_round",
                self.quiet_limit().min(1_000_000).into(),
            )
            .expect("a position's own limit is valid");
        options
    }

    fn setup(form: &str, text: &str, options: &Options) -> Result<Position, SetupError> {
        match form {
            "fen" => {
                let mut pos = Position::from_fen(text).map_err(|e| SetupError::Unreadable {
                    what: "bad FEN".into(),
                    why: e.to_string(),
                })?;
                pos.set_quiet_limit(options.get("max_no_capture_round").unwrap_or(0));
                Ok(pos)
            }
            other => Err(SetupError::UnknownForm {
                game: DEFINITION.id,
                offered: "`startpos` or `fen …`",
                form: arbiter_core::text::shorten(other),
            }),
        }
    }

    fn end(&self) -> Option<End> {
        if let Some(w) = self.winner() {
            return Some(End {
                reason: EndReason::Checkmate,
                winner: Some(w),
                text: format!(
                    "{} captured {}'s captain",
                    side_name(w),
                    side_name(w.opponent())
                ),
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
        let (Some(f), Some(t)) = (Square::parse(from), Square::parse(to)) else {
            return Err(MoveReason::OutOfBoard);
        };
        match self.piece_at(f) {
            None => return Err(MoveReason::NotPiece),
            Some(p) if p.side != player => return Err(MoveReason::NotPlayerPiece),
            _ => {}
        }
        let mv = Move::new(f, t);
        if self.is_legal(mv) {
            Ok(mv)
        } else if self.piece_at(t).is_some_and(|p| p.side != player) {
            Err(MoveReason::IllegalCaptureMove)
        } else {
            Err(MoveReason::IllegalNonCaptureMove)
        }
    }

    fn state_text(&self) -> String {
        if self.quiet_limit() == 0 {
            return self.to_fen();
        }
        format!(
            "{} · quiet {}/{}",
            self.to_fen(),
            self.quiet_plies().min(self.quiet_limit()),
            self.quiet_limit()
        )
    }

    fn board(&self) -> BoardView {
        let cells = Square::all()
            .map(|sq| CellView {
                name: sq.to_string(),
                col: sq.y(),
                row: 9 - sq.x(),
                piece: self.piece_at(sq).map(|p| PieceView {
                    side: p.side,
                    kind: Some(p.kind.name()),
                }),
            })
            .collect();
        BoardView {
            cols: 9,
            rows: 10,
            cells,
            checked: self
                .captains_in_check()
                .iter()
                .map(Square::to_string)
                .collect(),
        }
    }

    fn pieces(&self, out: &mut dyn FnMut(u8, u8, PieceView)) {
        for sq in Square::all() {
            if let Some(p) = self.piece_at(sq) {
                let kind = Some(p.kind.name());
                out(sq.y(), 9 - sq.x(), PieceView { side: p.side, kind });
            }
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        crate::perft(self, depth)
    }
}

#[cfg(test)]
mod tests {
    use arbiter_core::suite::{check_game, SuiteConfig};
    use arbiter_core::{Game, Status};

    use super::*;

    #[test]
    fn duck_chess_passes_the_game_suite() {
        for limit in [80, 10, 0] {
            let options = DEFINITION
                .options_from([("max_no_capture_round", limit)])
                .unwrap();
            let report = check_game::<Position>(&options, SuiteConfig::default())
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(report.perft_depths, 4, "{report:?}");
            assert!(report.finished > 0, "{report:?}");
        }
    }

    #[test]
    fn quiet_plies_draw_and_a_capture_restarts_the_count() {
        let options = DEFINITION
            .options_from([("max_no_capture_round", 4)])
            .unwrap();
        let mut pos = Position::start(&options);
        for (i, text) in [
            "a3-a4", "a6-a5", "a4-a5", "i6-i5", "i3-i4", "i9-i8", "i0-i1",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(pos.status(), Status::Ongoing, "before ply {i}");
            let mv = pos.parse_move(text).unwrap();
            pos.play(mv);
        }
        // Red's soldier took on a5 at the third ply; four quiet plies follow it.
        assert_eq!(pos.status(), Status::Drawn);
        let end = pos.end().unwrap();
        assert_eq!((end.reason, end.winner), (EndReason::Stalemate, None));
        assert_eq!(end.text, "no capture in 4 plies: a draw");
    }

    #[test]
    fn a_check_names_only_the_captain_attacked() {
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K3R b").unwrap();
        let view = pos.board();
        assert_eq!(view.checked, Vec::<String>::new());
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/R3K4 r").unwrap();
        assert_eq!(pos.board().checked, Vec::<String>::new());
        let pos = Position::from_fen("R3k4/9/9/9/9/9/9/9/9/4K4 b").unwrap();
        assert_eq!(pos.board().checked, vec!["e9".to_string()]);
    }
}
