//! How a game looks on the page, as data: the board's lines, arcs and cells in board
//! coordinates, the labels beside it, the pieces' glyphs and names, how each side's pieces are
//! drawn and an example move. Each game writes its own [`Look`] in its [`GameDef`]; the page
//! draws any game from it and names none.

use serde::Serialize;

use crate::rules::GameDef;

/// A point of the drawing in board units: the column from the left and the row from the top
/// (the first player at the bottom), fractions allowed.
pub type At = [f32; 2];

/// One stroke of a board's drawing. `class` names its style (`grid`, `cell`, `circuit
/// circuit-1`): the page's style sheet colours it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Shape {
    Line {
        from: At,
        to: At,
        class: String,
    },
    /// An arc of a circle of `radius` from `from` to `to`: `large` goes the long way round,
    /// `sweep` turns clockwise on the screen (SVG's two flags; a turned board keeps them).
    Arc {
        from: At,
        to: At,
        radius: f32,
        large: bool,
        sweep: bool,
        class: String,
    },
    /// A unit square centred on a point.
    Cell {
        at: At,
        class: String,
    },
}

/// One board of a game (one size), ready to draw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardLook {
    pub cols: u8,
    pub rows: u8,
    /// Room round the outer points, in board units (arcs and labels live there).
    pub margin: f32,
    /// How far the coordinate labels stand from the outer points, in board units.
    pub label_gap: f32,
    /// The board's colour (CSS).
    pub background: &'static str,
    pub shapes: Vec<Shape>,
    /// The label of each drawing column, left to right, and of each row, top to bottom.
    pub column_labels: Vec<String>,
    pub row_labels: Vec<String>,
}

/// How a side's pieces are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Token {
    Disc,
    Square,
}

/// One side's pieces: their shape and colours (CSS), `ink` for a glyph on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SideLook {
    pub token: Token,
    pub fill: &'static str,
    pub stroke: &'static str,
    pub ink: &'static str,
}

/// A kind of piece in games with several: its name in words, its glyph, and its glyph in the
/// game's alternative notation (when it has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PieceLook {
    pub kind: &'static str,
    pub name: &'static str,
    pub glyph: &'static str,
    pub alternative: &'static str,
}

/// A second set of glyphs the page may switch to: the labels of the switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AlternativeLook {
    /// The label that switches to the alternative glyphs (`Latin letters`) …
    pub show: &'static str,
    /// … and back (`Chinese pieces`).
    pub hide: &'static str,
}

/// Everything the page needs to draw and explain a game.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Look {
    /// The board for a size (`None` for a game with one board).
    #[serde(skip)]
    pub board: fn(Option<u32>) -> BoardLook,
    pub sides: [SideLook; 2],
    pub pieces: &'static [PieceLook],
    /// A move as a person types it (`a0-a1`).
    pub example: &'static str,
    pub alternative: Option<AlternativeLook>,
}

/// The board's colour most games use (light wood).
pub const WOOD: &str = "#e8c98f";

/// Dark and light discs (black and white sides).
pub const DARK: SideLook = SideLook {
    token: Token::Disc,
    fill: "#222",
    stroke: "#000",
    ink: "#fafafa",
};
pub const LIGHT: SideLook = SideLook {
    token: Token::Disc,
    fill: "#fafafa",
    stroke: "#555",
    ink: "#222",
};

impl Look {
    /// A plain grid of discs (tests, and a game that draws nothing more).
    pub const PLAIN: Look = Look {
        board: plain_board,
        sides: [DARK, LIGHT],
        pieces: &[],
        example: "a1-a2",
        alternative: None,
    };
}

fn plain_board(size: Option<u32>) -> BoardLook {
    let n = size.unwrap_or(8) as u8;
    BoardLook::points(n, n, grid(n, n), letters(n, b'a'), counted(n, n.into(), -1))
}

impl BoardLook {
    /// A board of points with the usual margin and label distance on wood.
    pub fn points(
        cols: u8,
        rows: u8,
        shapes: Vec<Shape>,
        column_labels: Vec<String>,
        row_labels: Vec<String>,
    ) -> BoardLook {
        BoardLook {
            cols,
            rows,
            margin: 1.15,
            label_gap: 0.72,
            background: WOOD,
            shapes,
            column_labels,
            row_labels,
        }
    }
}

impl GameDef {
    /// The game's boards as the page draws them: one per size it may be played on.
    pub fn boards(&self) -> Vec<BoardLook> {
        let sizes = self.sizes();
        if sizes.is_empty() {
            vec![(self.look.board)(None)]
        } else {
            sizes
                .into_iter()
                .map(|n| (self.look.board)(Some(n)))
                .collect()
        }
    }
}

/// A straight line between two points, styled `class`.
pub fn line(from: At, to: At, class: &str) -> Shape {
    Shape::Line {
        from,
        to,
        class: class.into(),
    }
}

/// The lines through every row and every column of points.
pub fn grid(cols: u8, rows: u8) -> Vec<Shape> {
    let (right, bottom) = (f32::from(cols) - 1.0, f32::from(rows) - 1.0);
    let across = (0..rows).map(|r| line([0.0, r.into()], [right, r.into()], "grid"));
    let down = (0..cols).map(|c| line([c.into(), 0.0], [c.into(), bottom], "grid"));
    across.chain(down).collect()
}

/// A square round every point (games played in cells rather than on points).
pub fn cells(cols: u8, rows: u8) -> Vec<Shape> {
    (0..rows)
        .flat_map(|r| {
            (0..cols).map(move |c| Shape::Cell {
                at: [c.into(), r.into()],
                class: "cell".into(),
            })
        })
        .collect()
}

/// `count` letters from `first` (`b'a'` or `b'A'`).
pub fn letters(count: u8, first: u8) -> Vec<String> {
    (0..count)
        .map(|i| char::from(first + i).to_string())
        .collect()
}

/// `count` numbers from `top`, each `step` from the last (rows top to bottom: `counted(8, 8, -1)`
/// is 8 down to 1).
pub fn counted(count: u8, top: i64, step: i64) -> Vec<String> {
    (0..i64::from(count))
        .map(|i| (top + i * step).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_boards_have_a_line_per_row_and_column_and_their_labels() {
        let b = plain_board(Some(3));
        assert_eq!(b.shapes.len(), 6);
        assert_eq!(b.column_labels, ["a", "b", "c"]);
        assert_eq!(b.row_labels, ["3", "2", "1"]);
        assert_eq!(cells(2, 3).len(), 6);
        assert_eq!(
            serde_json::to_value(line([0.0, 1.0], [2.0, 1.0], "grid")).unwrap()["type"],
            "line"
        );
    }
}
