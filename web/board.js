// The board: one component that draws any game the catalogue describes — its lines, arcs and
// cells in board coordinates, its labels, its sides' tokens and its pieces' glyphs — in a
// position (the server's StateView), played with the mouse, a finger or the keyboard. It keeps
// one SVG element per line, label, square, piece and mark, and each render changes only the
// attributes and text that differ (svg.js); nothing here knows a game by name.
//
// What is drawn carries its meaning in attributes a test (or a screen reader) can read:
// svg[data-ply], squares [data-square] with aria-labels, pieces [data-piece="first captain"],
// last-move marks [data-mark="from|to|captured"], a premove's [data-mark="premove"] (its
// from, then its to), targets [data-target]. Picking and moving pieces is boardinput.js's.

import { alternativeChosen } from "./glyphs.js";
import { BoardInput } from "./boardinput.js";
import { glide, moveTime, routePoints } from "./motion.js";
import { el, Layer } from "./svg.js";

const S = 60; // the distance between two points, in SVG units
const MIN_PITCH = 28; // CSS pixels between two points, at least, so fingers can hit them

// A board the game's look does not describe (never for a hosted game): points and their labels.
function plainLook(state) {
  const parts = (name) => /^([A-Za-z]+)(\d+)$/.exec(name) || [name, name, ""];
  const at = (col, row) => state.squares.find((q) => q.col === col && q.row === row);
  return {
    cols: state.cols, rows: state.rows, margin: 1.15, label_gap: 0.72, background: null, shapes: [],
    column_labels: Array.from({ length: state.cols }, (_, c) => (at(c, state.rows - 1) ? parts(at(c, state.rows - 1).name)[1] : "")),
    row_labels: Array.from({ length: state.rows }, (_, r) => (at(0, r) ? parts(at(0, r).name)[2] : "")),
  };
}

// How a board looks when it is given no game's look: two sides, plain discs, labelled points.
const NO_LOOK = { id: null, title: "", sideNames: ["first", "second"], tokens: [], pieces: [], boards: [] };

export class Board {
  // Configured by data, as chessground is: `look`, how the game is drawn (Catalogue.look: its
  // sides' names and tokens, its pieces' glyphs, its boards' drawings); `onMove(move)` when a
  // move is made on the board; `onPremove(premove)` when a premove ({ from, to }) is queued
  // during the opponent's turn, or cancelled (null).
  constructor(container, { look = NO_LOOK, onMove, onPremove } = {}) {
    this.container = container;
    this.gameLook = look;
    this.onMove = onMove || (() => {});
    this.onPremove = onPremove || (() => {});
    this.premoveSide = null; // the side ("first", "second") whose pieces may be premoved now
    this.premove = null;
    this.flipped = false;
    this.alternative = alternativeChosen();
    this.state = null;
    this.selected = null;
    this.interactive = false;
    this.focusName = null;
    this.zoomed = null;
    this.drawnGeometry = null;
    this.svg = el("svg", { class: "board", role: "group", "aria-roledescription": "board" });
    this.background = el("rect", { x: 0, y: 0, class: "bg" }, this.svg);
    const layer = (cls, attrs = {}) => new Layer(this.svg, { class: cls, ...attrs });
    this.layers = {
      lines: layer("lines"),
      coords: layer("coords", { "aria-hidden": "true" }),
      marks: layer("marks"),
      pieces: layer("pieces"),
      captured: layer("captured"),
      targets: layer("targets"),
      hits: layer("hits"),
    };
    container.appendChild(this.svg);
    this.input = new BoardInput(this);
    this.resizeObserver = new ResizeObserver(() => this.fit());
    this.resizeObserver.observe(container);
  }

  dispose() {
    this.resizeObserver.disconnect();
  }

  // A new configuration: `{ look }` (another game's, when a room names its game late).
  set({ look } = {}) {
    if (look && look.id !== this.gameLook.id) {
      this.gameLook = look;
      this.drawnGeometry = null;
      if (this.state) this.update();
    }
  }

  // The drawing of the board shown: its size's in the game's look.
  drawing() {
    const s = this.state;
    return this.gameLook.boards.find((b) => b.cols === s.cols && b.rows === s.rows) || plainLook(s);
  }

  // SVG coordinates of a drawing column and row (fractions allowed), honouring the flip.
  xy(col, row) {
    const s = this.state;
    const c = this.flipped ? s.cols - 1 - col : col;
    const r = this.flipped ? s.rows - 1 - row : row;
    const m = this.drawing().margin * S;
    return [m + c * S, m + r * S];
  }

  square(name) {
    return this.squares.get(name);
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    if (this.state) this.update();
  }

  // The game's alternative glyphs (when the catalogue gives it some) instead of its own.
  setAlternative(on) {
    this.alternative = on;
    if (this.state) this.update();
  }

  // Shows `state`; `interactive` says whether the side to move may be moved here;
  // `premoveSide` whose pieces may be premoved (as lichess: during the opponent's turn a move
  // is queued, to be played at once when the turn comes if still legal). A premove queued
  // stays until the view takes it, or the game ends, or premoving stops.
  render(state, { interactive = false, premoveSide = null } = {}) {
    this.state = state;
    this.squares = new Map(state.squares.map((q) => [q.name, q]));
    const ongoing = state.status === "ongoing";
    this.interactive = interactive && ongoing;
    this.premoveSide = ongoing && !this.interactive ? premoveSide : null;
    if (this.premove && (!ongoing || (!this.interactive && !this.premoveSide))) this.premove = null;
    if (this.selected && !this.input.pickable(this.selected)) this.selected = null;
    if (!this.focusName || !this.square(this.focusName)) this.focusName = state.squares[0] && state.squares[0].name;
    this.update();
  }

  // The drawing's size in CSS pixels: the page's width, but never points closer than a finger.
  fit() {
    if (!this.state) return;
    const m = this.drawing().margin * S;
    const units = 2 * m + (this.state.cols - 1) * S;
    const wrap = this.container.getBoundingClientRect();
    const pitch = (Math.max(120, wrap.width) / units) * S;
    const large = this.zoomed === null ? pitch < MIN_PITCH : this.zoomed;
    if (large && pitch < MIN_PITCH) {
      const first = !this.container.classList.contains("zoomed");
      this.svg.style.width = `${Math.ceil((units / S) * MIN_PITCH)}px`;
      this.container.classList.add("zoomed");
      if (first) {
        // Start with the points and their row labels in view, the margin round them to scroll to.
        const px = MIN_PITCH / S;
        const left = (m - 1.15 * S) * px;
        const span = (this.state.cols - 1 + 1.6) * MIN_PITCH;
        const spare = Math.max(0, this.container.clientWidth - span);
        this.container.scrollLeft = Math.max(0, left - spare / 2);
        this.container.scrollTop = (this.container.scrollHeight - this.container.clientHeight) / 2;
      }
    } else {
      this.svg.style.width = "";
      this.container.classList.remove("zoomed");
    }
  }

  // Whether the board is wider than the screen (it then scrolls); `toggleZoom` switches.
  needsZoom() {
    if (!this.state) return false;
    const units = 2 * this.drawing().margin * S + (this.state.cols - 1) * S;
    return (this.container.getBoundingClientRect().width / units) * S < MIN_PITCH;
  }

  toggleZoom() {
    this.zoomed = !this.container.classList.contains("zoomed");
    this.fit();
  }

  // Brings every layer to the state shown: the lines and labels only when the board's
  // geometry or its turn changed, the rest element by element.
  update() {
    const s = this.state;
    const look = this.drawing();
    const m = look.margin * S;
    const width = 2 * m + (s.cols - 1) * S;
    const height = 2 * m + (s.rows - 1) * S;
    const svg = this.svg;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    Object.assign(svg.dataset, { game: s.game, toMove: s.to_move, status: s.status, ply: s.ply, flipped: String(this.flipped) });
    svg.setAttribute("aria-label", `${this.gameLook.title || s.game} board, ${this.flipped ? "turned" : "first player at the bottom"}`);
    const geometry = `${s.game}:${s.cols}x${s.rows}:${this.flipped}`;
    if (geometry !== this.drawnGeometry) {
      this.drawnGeometry = geometry;
      Object.entries({ width, height, fill: look.background || "#e8c98f" }).forEach(([k, v]) => this.background.setAttribute(k, v));
      this.layers.lines.sync(this.lineSpecs(look));
      this.layers.coords.sync(this.coordSpecs(look));
    }
    this.layers.marks.sync(this.markSpecs());
    this.layers.pieces.sync(this.pieceSpecs());
    this.layers.captured.sync(this.capturedSpecs());
    this.layers.targets.sync(this.targetSpecs());
    this.layers.hits.sync(this.hitSpecs());
    this.fit();
  }

  // The board's strokes, from the catalogue's shapes in board coordinates.
  lineSpecs(look) {
    const specs = new Map();
    look.shapes.forEach((shape, i) => {
      const [x0, y0] = this.xy(...(shape.from || shape.at));
      if (shape.type === "cell") {
        specs.set(i, { tag: "rect", attrs: { x: x0 - S / 2, y: y0 - S / 2, width: S, height: S, class: shape.class } });
        return;
      }
      const [x1, y1] = this.xy(...shape.to);
      if (shape.type === "arc") {
        const r = shape.radius * S;
        const d = `M ${x0} ${y0} A ${r} ${r} 0 ${shape.large ? 1 : 0} ${shape.sweep ? 1 : 0} ${x1} ${y1}`;
        specs.set(i, { tag: "path", attrs: { d, class: shape.class, fill: "none" } });
      } else {
        specs.set(i, { tag: "line", attrs: { x1: x0, y1: y0, x2: x1, y2: y1, class: shape.class } });
      }
    });
    return specs;
  }

  // Column labels below the board and row labels left of it, whichever way it is turned.
  coordSpecs(look) {
    const s = this.state;
    const specs = new Map();
    const gap = look.label_gap * S;
    const bottom = this.xy(0, this.flipped ? 0 : s.rows - 1)[1];
    const left = this.xy(this.flipped ? s.cols - 1 : 0, 0)[0];
    look.column_labels.forEach((text, c) => {
      specs.set(`c${c}`, { tag: "text", text, attrs: { x: this.xy(c, 0)[0], y: bottom + gap + S * 0.12, class: "coord", "data-coord": "column" } });
    });
    look.row_labels.forEach((text, r) => {
      specs.set(`r${r}`, { tag: "text", text, attrs: { x: left - gap, y: this.xy(0, r)[1] + S * 0.1, class: "coord row", "text-anchor": "end", "data-coord": "row" } });
    });
    return specs;
  }

  markSpecs() {
    const s = this.state;
    const specs = new Map();
    const mark = (name, kind) => {
      const q = this.square(name);
      if (!q) return;
      const [x, y] = this.xy(q.col, q.row);
      specs.set(`${kind}:${name}`, { tag: "rect", attrs: { x: x - S / 2 + 3, y: y - S / 2 + 3, width: S - 6, height: S - 6, rx: 8, class: `mark ${kind}`, "data-mark": kind, "data-square": name } });
    };
    if (s.last) {
      mark(s.last.from, "from");
      mark(s.last.to, "to");
    }
    for (const q of this.takenSquares().under) mark(q.name, "captured");
    for (const name of s.flash_invalid || []) mark(name, "invalid");
    if (this.premove) {
      mark(this.premove.from, "premove");
      mark(this.premove.to, "premove");
    }
    for (const name of s.checked || []) {
      const q = this.square(name);
      if (!q) continue;
      const [x, y] = this.xy(q.col, q.row);
      specs.set(`check:${name}`, { tag: "circle", attrs: { cx: x, cy: y, r: S * 0.5, class: "check", "data-mark": "check", "data-square": name } });
    }
    return specs;
  }

  pieceSpecs() {
    const specs = new Map();
    for (const q of this.state.squares) if (q.piece) specs.set(q.name, this.pieceSpec(q));
    return specs;
  }

  // A piece: its side's token (disc or square, in the side's colours) and its kind's glyph.
  pieceSpec(q, extraClass = "") {
    const p = q.piece;
    const [x, y] = this.xy(q.col, q.row);
    const side = this.gameLook.tokens[p.side === "first" ? 0 : 1] || { token: "disc" };
    const paint = { fill: side.fill || null, stroke: side.stroke || null, class: "disc" };
    const token = side.token === "square"
      ? { tag: "rect", attrs: { x: -S * 0.34, y: -S * 0.34, width: S * 0.68, height: S * 0.68, rx: S * 0.08, ...paint } }
      : { tag: "circle", attrs: { r: S * 0.4, ...paint } };
    const children = [token];
    const kind = p.kind && this.gameLook.pieces.find((k) => k.kind === p.kind);
    if (p.kind) {
      const text = kind ? (this.alternative && kind.alternative ? kind.alternative : kind.glyph) : p.kind[0].toUpperCase();
      children.push({ tag: "text", text, attrs: { y: 10, class: "label", fill: side.ink || null } });
    }
    return {
      tag: "g",
      children,
      attrs: {
        class: `piece ${p.side} ${p.colour.toLowerCase()}${extraClass}`,
        "data-piece": `${p.side}${p.kind ? ` ${p.kind}` : ""}`,
        "data-at": q.name,
        transform: `translate(${x} ${y})`,
      },
    };
  }

  // The squares the last move took pieces on: `under` those a piece now stands on (the one that
  // took, framed beneath it: a cross there would cross out the winner), `empty` the others.
  takenSquares() {
    const taken = (this.state.last && this.state.last.captured) || [];
    const occupied = (q) => Boolean((this.square(q.name) || {}).piece);
    return { under: taken.filter(occupied), empty: taken.filter((q) => !occupied(q)) };
  }

  // Pieces the last move took from squares now empty: drawn fading where they stood, with a
  // cross that stays.
  capturedSpecs() {
    const specs = new Map();
    const d = S * 0.22;
    for (const q of this.takenSquares().empty) {
      const [x, y] = this.xy(q.col, q.row);
      const cross = { tag: "path", attrs: { d: `M ${x - d} ${y - d} L ${x + d} ${y + d} M ${x + d} ${y - d} L ${x - d} ${y + d}`, class: "taken", "data-mark": "captured", "data-square": q.name } };
      const children = q.piece ? [this.pieceSpec(q, " ghost"), cross] : [cross];
      specs.set(`${this.state.ply}:${q.name}`, { tag: "g", children });
    }
    return specs;
  }

  targetsOf(from) {
    if (!this.interactive || !from) return [];
    return this.state.legal.filter((m) => m.from === from);
  }

  targetSpecs() {
    const specs = new Map();
    const from = this.selected && this.square(this.selected);
    if (!from) return specs;
    const [fx, fy] = this.xy(from.col, from.row);
    specs.set("selected", { tag: "circle", attrs: { cx: fx, cy: fy, r: S * 0.46, class: "selected", "data-selected": from.name } });
    for (const m of this.targetsOf(this.selected)) {
      const q = this.square(m.to);
      const [x, y] = this.xy(q.col, q.row);
      specs.set(m.to, { tag: "circle", attrs: { cx: x, cy: y, r: m.capture ? S * 0.44 : S * 0.13, class: m.capture ? "target capture" : "target", "data-target": q.name } });
    }
    return specs;
  }

  pieceWords(piece) {
    const side = this.gameLook.sideNames[piece.side === "first" ? 0 : 1];
    const kind = piece.kind && this.gameLook.pieces.find((k) => k.kind === piece.kind);
    return piece.kind ? `${side} ${kind ? kind.name : piece.kind}` : side;
  }

  // One focusable, labelled area per point: the keyboard's and the screen reader's board.
  hitSpecs() {
    const specs = new Map();
    const targets = new Set(this.targetsOf(this.selected).map((m) => m.to));
    for (const q of this.state.squares) {
      const [x, y] = this.xy(q.col, q.row);
      let label = `${q.name}, ${q.piece ? this.pieceWords(q.piece) : "empty"}`;
      if (q.name === this.selected) label += ", selected";
      if (targets.has(q.name)) label += ", a move can go here";
      specs.set(q.name, {
        tag: "circle",
        on: { focus: () => { this.focusName = q.name; } },
        attrs: {
          cx: x, cy: y, r: S / 2, class: "hit", "data-square": q.name, role: "button",
          tabindex: q.name === this.focusName ? "0" : "-1", "aria-label": label,
        },
      });
    }
    return specs;
  }

  // The premove queued, taken by the view when the turn comes (to play it if still legal):
  // null when none.
  takePremove() {
    const premove = this.premove;
    this.premove = null;
    if (premove) this.update();
    return premove;
  }

  // Moves the piece of `move` on the board shown: along its capture route when it has one,
  // else straight. Resolves when done; `duration` in ms (0 skips).
  animate(move, duration = 400) {
    if (!this.state || duration <= 0 || !move) return Promise.resolve();
    const fromSq = this.square(move.from);
    const toSq = this.square(move.to);
    const piece = this.layers.pieces.node(move.from);
    if (!fromSq || !toSq || !piece) return Promise.resolve();
    const points = routePoints(move, fromSq, toSq, (c, r) => this.xy(c, r), S);
    return glide(piece, points, moveTime(move, points, duration));
  }
}
