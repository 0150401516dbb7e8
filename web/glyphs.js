// Which glyphs the pieces wear: a game's own (Duck Chess's Chinese characters) or its
// alternative (Latin letters). The choice is kept per browser for every view (playing,
// watching, replaying, the judge visualiser); a machine that cannot draw the Chinese glyphs
// (no CJK font: they would be empty boxes) gets the Latin letters whatever was chosen.

import { h } from "./dom.js";

const KEY = "arbiter-glyphs";
// The pieces' font, as style.css draws their labels.
const FONT = '700 32px "Noto Sans CJK SC", "Noto Serif CJK SC", "Source Han Sans", system-ui, sans-serif';
// Glyphs the Chinese pieces use, and a code point no font draws (private use, plane 16).
const SAMPLE = "王鸭";
const NOTHING = "\u{10FFFD}\u{10FFFD}";

let drawable = null;

// The pixels `text` leaves on a small canvas, as one string.
function pixels(text) {
  const canvas = document.createElement("canvas");
  canvas.width = 80;
  canvas.height = 40;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  if (!ctx) return null;
  ctx.font = FONT;
  ctx.textBaseline = "top";
  ctx.fillStyle = "#000";
  ctx.fillText(text, 2, 2);
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let ink = 0;
  let sum = 0;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i]) ink += 1;
    sum = (sum * 31 + data[i]) % 1000000007;
  }
  return { ink, sum };
}

// Whether this machine draws the Chinese glyphs: they leave ink, and not the same ink as a
// code point no font has (the "tofu" box a missing glyph is drawn as).
export function chineseDrawable() {
  if (drawable !== null) return drawable;
  try {
    const glyphs = pixels(SAMPLE);
    const missing = pixels(NOTHING);
    drawable = Boolean(glyphs) && glyphs.ink > 0 && !(missing && missing.ink === glyphs.ink && missing.sum === glyphs.sum);
  } catch (e) {
    drawable = true;
  }
  return drawable;
}

// Whether the pieces wear their alternative glyphs: this browser's choice, or perforce.
export function alternativeChosen() {
  return !chineseDrawable() || localStorage.getItem(KEY) === "alternative";
}

export function chooseAlternative(on) {
  localStorage.setItem(KEY, on ? "alternative" : "own");
}

// The button that switches `board`'s glyphs (for a game whose catalogue look has an
// `alternative`: { show, hide }), keeping the choice; disabled, and saying why, where the
// game's own glyphs cannot be drawn.
export function glyphButton(board, alternative, id = "letters") {
  const button = h("button", { id, type: "button" });
  const render = () => {
    button.textContent = board.alternative ? alternative.hide : alternative.show;
    button.setAttribute("aria-pressed", String(board.alternative));
  };
  button.addEventListener("click", () => {
    board.setAlternative(!board.alternative);
    chooseAlternative(board.alternative);
    render();
  });
  if (!chineseDrawable()) {
    button.disabled = true;
    button.title = "This device has no font for the Chinese pieces: they are shown as Latin letters.";
  }
  render();
  return button;
}
