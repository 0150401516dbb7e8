// The board: an SVG drawing of a position (the server's StateView), played with the mouse, a
// finger or the keyboard, and the animation of moves (Surakarta captures travel along their
// circuit and round the arcs).
//
// What is drawn carries its meaning in attributes a test (or a screen reader) can read:
// svg[data-ply], squares [data-square] with aria-labels, pieces [data-piece="first captain"],
// last-move marks [data-mark="from|to|captured"], targets [data-target].

const SVG = "http://www.w3.org/2000/svg";
const S = 60; // the distance between two points, in SVG units
const MIN_PITCH = 28; // CSS pixels between two points, at least, so fingers can hit them

const CHINESE = { captain: "王", guard: "士", elephant: "象", horse: "马", car: "车", duck: "鸭", soldier: "兵" };
const LATIN = { captain: "K", guard: "A", elephant: "E", horse: "H", car: "R", duck: "D", soldier: "P" };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// The lines of each game's board, by game id; pieces, marks and targets are common.
const BOARD_LINES = {
  surakarta(board) { board.drawSurakarta(); },
  duck(board) { board.drawGridLines(); },
  rc02(board) { board.drawCells(); },
};

export function canDraw(game) {
  return Boolean(BOARD_LINES[game]);
}

// "A12" → ["A", "12"]: a square name's column letters and row digits.
function nameParts(name) {
  const m = /^([A-Za-z]+)(\d+)$/.exec(name);
  return m ? [m[1], m[2]] : [name, ""];
}

export class Board {
  // `sides`: the two sides' names (for labels), `onMove(move)` when a move is made.
  constructor(container, { onMove, sides = ["first", "second"] } = {}) {
    this.container = container;
    this.onMove = onMove || (() => {});
    this.sides = sides;
    this.flipped = false;
    this.latin = false;
    this.state = null;
    this.selected = null;
    this.interactive = false;
    this.focusName = null;
    this.zoomed = null;
    this.svg = el("svg", { class: "board", role: "group", "aria-roledescription": "board" });
    container.appendChild(this.svg);
    this.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.svg.addEventListener("keydown", (e) => this.keyDown(e));
    this.resizeObserver = new ResizeObserver(() => this.fit());
    this.resizeObserver.observe(container);
  }

  dispose() {
    this.resizeObserver.disconnect();
  }

  // Room around the points: Surakarta's arcs need it, the other games their labels.
  margin() {
    if (this.state && this.state.game === "surakarta") return (this.state.cols / 2 - 1) * S + S * 0.75;
    return S * 1.15;
  }

  // SVG coordinates of a drawing column and row, honouring the flip.
  xy(col, row) {
    const s = this.state;
    const c = this.flipped ? s.cols - 1 - col : col;
    const r = this.flipped ? s.rows - 1 - row : row;
    const m = this.margin();
    return [m + c * S, m + r * S];
  }

  square(name) {
    return this.state.squares.find((q) => q.name === name);
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    if (this.state) this.draw();
  }

  setLatin(latin) {
    this.latin = latin;
    if (this.state) this.draw();
  }

  // Shows `state`; `interactive` says whether the side to move may be moved here.
  render(state, { interactive = false } = {}) {
    if (!BOARD_LINES[state.game]) throw new Error(`this page has no drawing for the game "${state.game}"`);
    this.state = state;
    this.interactive = interactive && state.status === "ongoing";
    if (this.selected && !(this.interactive && this.state.legal.some((m) => m.from === this.selected))) this.selected = null;
    if (!this.focusName || !this.square(this.focusName)) this.focusName = state.squares[0] && state.squares[0].name;
    this.draw();
  }

  // The drawing's size in CSS pixels: the page's width, but never points closer than a finger.
  fit() {
    if (!this.state) return;
    const m = this.margin();
    const units = 2 * m + (this.state.cols - 1) * S;
    const wrap = this.container.getBoundingClientRect();
    const fitWidth = Math.max(120, wrap.width);
    const pitch = (fitWidth / units) * S;
    const large = this.zoomed === null ? pitch < MIN_PITCH : this.zoomed;
    if (large && pitch < MIN_PITCH) {
      const width = Math.ceil((units / S) * MIN_PITCH);
      const first = !this.container.classList.contains("zoomed");
      this.svg.style.width = `${width}px`;
      this.container.classList.add("zoomed");
      if (first) {
        // Start with the points and their row labels in view, the arcs round them to scroll to.
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
    const units = 2 * this.margin() + (this.state.cols - 1) * S;
    return (this.container.getBoundingClientRect().width / units) * S < MIN_PITCH;
  }

  toggleZoom() {
    this.zoomed = !this.container.classList.contains("zoomed");
    this.fit();
  }

  draw() {
    const s = this.state;
    const m = this.margin();
    const width = 2 * m + (s.cols - 1) * S;
    const height = 2 * m + (s.rows - 1) * S;
    const hadFocus = this.svg.contains(document.activeElement);
    this.svg.innerHTML = "";
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.svg.dataset.game = s.game;
    this.svg.dataset.toMove = s.to_move;
    this.svg.dataset.status = s.status;
    this.svg.dataset.ply = s.ply;
    this.svg.dataset.flipped = String(this.flipped);
    this.svg.setAttribute("aria-label", `${s.game} board, ${this.flipped ? "turned" : "first player at the bottom"}`);
    el("rect", { x: 0, y: 0, width, height, class: `bg bg-${s.game}` }, this.svg);
    BOARD_LINES[s.game](this);
    this.drawLabels();
    this.drawMarks();
    this.pieces = el("g", { class: "pieces" }, this.svg);
    for (const q of s.squares) if (q.piece) this.drawPiece(q, this.pieces);
    this.drawCaptured();
    this.drawTargets();
    this.drawSquares();
    this.fit();
    if (hadFocus) this.focusSquare(this.focusName);
  }

  drawGridLines() {
    const g = el("g", { class: "lines" }, this.svg);
    const s = this.state;
    for (let r = 0; r < s.rows; r++) {
      const [x0, y0] = this.xy(0, r);
      const [x1, y1] = this.xy(s.cols - 1, r);
      el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid" }, g);
    }
    for (let c = 0; c < s.cols; c++) {
      const [x0, y0] = this.xy(c, 0);
      const [x1, y1] = this.xy(c, s.rows - 1);
      el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid" }, g);
    }
  }

  drawCells() {
    const g = el("g", { class: "lines" }, this.svg);
    for (const q of this.state.squares) {
      const [x, y] = this.xy(q.col, q.row);
      el("rect", { x: x - S / 2, y: y - S / 2, width: S, height: S, class: "cell" }, g);
    }
  }

  drawSurakarta() {
    const n = this.state.cols;
    const g = el("g", { class: "lines" }, this.svg);
    for (let i = 0; i < n; i++) {
      const [x0, y0] = this.xy(i, 0);
      const [x1, y1] = this.xy(i, n - 1);
      el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid" }, g);
      const [a0, b0] = this.xy(0, i);
      const [a1, b1] = this.xy(n - 1, i);
      el("line", { x1: a0, y1: b0, x2: a1, y2: b1, class: "grid" }, g);
    }
    for (let k = 1; k < n / 2; k++) {
      const cls = `circuit circuit-${k}`;
      for (const i of [k, n - 1 - k]) {
        const [x0, y0] = this.xy(i, 0);
        const [x1, y1] = this.xy(i, n - 1);
        el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: cls }, g);
        const [a0, b0] = this.xy(0, i);
        const [a1, b1] = this.xy(n - 1, i);
        el("line", { x1: a0, y1: b0, x2: a1, y2: b1, class: cls }, g);
      }
      for (const [cc, cr] of [[0, 0], [n - 1, 0], [0, n - 1], [n - 1, n - 1]]) {
        el("path", { d: this.arcPath(cc, cr, k), class: cls, fill: "none" }, g);
      }
    }
  }

  // Column letters below the board and row numbers left of it, whichever way it is turned:
  // each label names the column or row drawn there.
  drawLabels() {
    const s = this.state;
    const g = el("g", { class: "coords", "aria-hidden": "true" }, this.svg);
    const byDrawn = (col, row) => s.squares.find((q) => q.col === col && q.row === row);
    const bottomRow = this.flipped ? 0 : s.rows - 1;
    const leftCol = this.flipped ? s.cols - 1 : 0;
    const offset = s.game === "surakarta" ? S * 0.64 : S * 0.72;
    for (let c = 0; c < s.cols; c++) {
      const q = byDrawn(c, bottomRow);
      if (!q) continue;
      const [x, y] = this.xy(c, bottomRow);
      el("text", { x, y: y + offset + S * 0.12, class: "coord", "data-coord": "column" }, g).textContent = nameParts(q.name)[0];
    }
    for (let r = 0; r < s.rows; r++) {
      const q = byDrawn(leftCol, r);
      if (!q) continue;
      const [x, y] = this.xy(leftCol, r);
      el("text", { x: x - offset, y: y + S * 0.1, class: "coord row", "text-anchor": "end", "data-coord": "row" }, g).textContent = nameParts(q.name)[1];
    }
  }

  // The points where circuit `k`'s arc round corner (cc, cr) meets the board, and its 270° path.
  arcPath(cc, cr, k) {
    const [cx, cy] = this.xy(cc, cr);
    const inwardCol = cc === 0 ? 1 : -1;
    const inwardRow = cr === 0 ? 1 : -1;
    const p = this.xy(cc + inwardCol * k, cr);
    const q = this.xy(cc, cr + inwardRow * k);
    const r = k * S;
    const cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx);
    const sweep = cross > 0 ? 0 : 1;
    return `M ${p[0]} ${p[1]} A ${r} ${r} 0 1 ${sweep} ${q[0]} ${q[1]}`;
  }

  drawMarks() {
    const s = this.state;
    const g = el("g", { class: "marks" }, this.svg);
    const mark = (name, kind) => {
      const q = this.square(name);
      if (!q) return;
      const [x, y] = this.xy(q.col, q.row);
      el("rect", { x: x - S / 2 + 3, y: y - S / 2 + 3, width: S - 6, height: S - 6, rx: 8, class: `mark ${kind}`, "data-mark": kind, "data-square": name }, g);
    };
    if (s.last) {
      mark(s.last.from, "from");
      mark(s.last.to, "to");
    }
    for (const name of s.flash_invalid || []) mark(name, "invalid");
    for (const name of s.checked || []) {
      const q = this.square(name);
      if (!q) continue;
      const [x, y] = this.xy(q.col, q.row);
      el("circle", { cx: x, cy: y, r: S * 0.5, class: "check", "data-mark": "check", "data-square": name }, g);
    }
  }

  // Pieces the last move took: drawn fading where they stood, with a cross that stays.
  drawCaptured() {
    const taken = (this.state.last && this.state.last.captured) || [];
    if (!taken.length) return;
    const g = el("g", { class: "captured" }, this.svg);
    for (const q of taken) {
      const [x, y] = this.xy(q.col, q.row);
      if (q.piece) this.drawPiece(q, g).classList.add("ghost");
      const d = S * 0.22;
      el("path", { d: `M ${x - d} ${y - d} L ${x + d} ${y + d} M ${x + d} ${y - d} L ${x - d} ${y + d}`, class: "taken", "data-mark": "captured", "data-square": q.name }, g);
    }
  }

  pieceWords(piece) {
    const side = this.sides[piece.side === "first" ? 0 : 1];
    return piece.kind ? `${side} ${piece.kind}` : side;
  }

  drawPiece(q, parent, at = null) {
    const [x, y] = at || this.xy(q.col, q.row);
    const p = q.piece;
    const g = el("g", {
      class: `piece ${p.side} ${p.colour.toLowerCase()}`,
      "data-piece": `${p.side}${p.kind ? ` ${p.kind}` : ""}`,
      "data-at": q.name,
      transform: `translate(${x} ${y})`,
    }, parent);
    // RC-02's sides differ in shape too, not only in colour.
    if (this.state.game === "rc02" && p.side === "second") {
      el("rect", { x: -S * 0.34, y: -S * 0.34, width: S * 0.68, height: S * 0.68, rx: S * 0.08, class: "disc" }, g);
    } else {
      el("circle", { r: S * 0.4, class: "disc" }, g);
    }
    if (p.kind) {
      const label = this.latin ? LATIN[p.kind] : CHINESE[p.kind];
      el("text", { y: 10, class: "label" }, g).textContent = label;
    }
    return g;
  }

  targetsOf(from) {
    if (!this.interactive || !from) return [];
    return this.state.legal.filter((m) => m.from === from);
  }

  drawTargets() {
    if (!this.selected) return;
    const g = el("g", { class: "targets" }, this.svg);
    const from = this.square(this.selected);
    const [fx, fy] = this.xy(from.col, from.row);
    el("circle", { cx: fx, cy: fy, r: S * 0.46, class: "selected", "data-selected": from.name }, g);
    for (const m of this.targetsOf(this.selected)) {
      const q = this.square(m.to);
      const [x, y] = this.xy(q.col, q.row);
      el("circle", { cx: x, cy: y, r: m.capture ? S * 0.44 : S * 0.13, class: m.capture ? "target capture" : "target", "data-target": q.name }, g);
    }
  }

  // One focusable, labelled area per point: the keyboard's and the screen reader's board.
  drawSquares() {
    const g = el("g", { class: "hits" }, this.svg);
    const targets = new Set(this.targetsOf(this.selected).map((m) => m.to));
    for (const q of this.state.squares) {
      const [x, y] = this.xy(q.col, q.row);
      let label = `${q.name}, ${q.piece ? this.pieceWords(q.piece) : "empty"}`;
      if (q.name === this.selected) label += ", selected";
      if (targets.has(q.name)) label += ", a move can go here";
      const hit = el("circle", {
        cx: x, cy: y, r: S / 2, class: "hit",
        "data-square": q.name,
        role: "button",
        tabindex: q.name === this.focusName ? "0" : "-1",
        "aria-label": label,
      }, g);
      hit.addEventListener("focus", () => {
        this.focusName = q.name;
      });
    }
  }

  focusSquare(name) {
    const node = this.svg.querySelector(`.hit[data-square="${name}"]`);
    if (!node) return;
    for (const other of this.svg.querySelectorAll(".hit[tabindex='0']")) other.setAttribute("tabindex", "-1");
    node.setAttribute("tabindex", "0");
    this.focusName = name;
    node.focus();
  }

  // Arrow keys walk the points as drawn; Enter or Space picks a piece or plays to a target;
  // Escape drops the selection.
  keyDown(event) {
    if (!this.state) return;
    const here = this.square(this.focusName);
    if (!here) return;
    const steps = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (steps[event.key]) {
      event.preventDefault();
      let [dc, dr] = steps[event.key];
      if (this.flipped) [dc, dr] = [-dc, -dr];
      const next = this.state.squares.find((q) => q.col === here.col + dc && q.row === here.row + dr);
      if (next) this.focusSquare(next.name);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.choose(here);
      this.focusSquare(here.name);
    } else if (event.key === "Escape" && this.selected) {
      this.selected = null;
      this.draw();
    }
  }

  // A click, tap or Enter on a point: select a piece, or move the selected one there.
  choose(square) {
    if (!this.interactive) return;
    if (this.selected && this.tryMove(this.selected, square.name)) return;
    if (this.state.legal.some((m) => m.from === square.name)) {
      this.selected = square.name;
    } else {
      this.selected = null;
    }
    this.draw();
  }

  squareAt(event) {
    const pt = this.svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    let best = null;
    let bestD = S * 0.5;
    for (const q of this.state.squares) {
      const [x, y] = this.xy(q.col, q.row);
      const d = Math.hypot(p.x - x, p.y - y);
      if (d < bestD) {
        best = q;
        bestD = d;
      }
    }
    return { square: best, point: p };
  }

  pointerDown(event) {
    if (!this.interactive || !this.state) return;
    const { square } = this.squareAt(event);
    if (!square) return;
    this.focusName = square.name;
    if (this.selected && this.tryMove(this.selected, square.name)) return;
    if (this.state.legal.some((m) => m.from === square.name)) {
      this.selected = square.name;
      this.dragging = { from: square.name, moved: false };
      this.draw();
      this.svg.setPointerCapture?.(event.pointerId);
    } else if (this.selected) {
      this.selected = null;
      this.draw();
    }
  }

  pointerMove(event) {
    if (!this.dragging) return;
    const { point } = this.squareAt(event);
    const ghost = this.svg.querySelector(`.pieces [data-at="${this.dragging.from}"]`);
    if (ghost) {
      this.dragging.moved = true;
      ghost.setAttribute("transform", `translate(${point.x} ${point.y})`);
      ghost.classList.add("dragging");
    }
  }

  pointerUp(event) {
    const drag = this.dragging;
    this.dragging = null;
    if (!drag) return;
    const { square } = this.squareAt(event);
    if (drag.moved && square && square.name !== drag.from && this.tryMove(drag.from, square.name)) return;
    if (drag.moved) this.draw();
  }

  tryMove(from, to) {
    const move = this.state.legal.find((m) => m.from === from && m.to === to);
    if (!move) return false;
    this.selected = null;
    this.onMove(move);
    return true;
  }

  // Moves the piece of `move` on the board shown: along its capture route when it has one,
  // else straight. Resolves when done; `duration` in ms (0 skips).
  animate(move, duration = 400) {
    return new Promise((resolve) => {
      if (!this.state || duration <= 0 || !move) return resolve();
      const fromSq = this.square(move.from);
      const toSq = this.square(move.to);
      const piece = this.svg.querySelector(`.pieces [data-at="${move.from}"]`);
      if (!fromSq || !toSq || !piece) return resolve();
      const points = this.route(move, fromSq, toSq);
      const lengths = [0];
      for (let i = 1; i < points.length; i++) lengths.push(lengths[i - 1] + Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]));
      const total = lengths[lengths.length - 1] || 1;
      const time = move.path ? Math.min(1800, duration + total * 0.6) : duration;
      piece.parentNode.appendChild(piece);
      const start = performance.now();
      const step = (now) => {
        const t = Math.min(1, (now - start) / time);
        const d = t * total;
        let i = 1;
        while (i < lengths.length - 1 && lengths[i] < d) i++;
        const seg = lengths[i] - lengths[i - 1] || 1;
        const f = (d - lengths[i - 1]) / seg;
        const x = points[i - 1][0] + (points[i][0] - points[i - 1][0]) * f;
        const y = points[i - 1][1] + (points[i][1] - points[i - 1][1]) * f;
        piece.setAttribute("transform", `translate(${x} ${y})`);
        if (t < 1) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
  }

  // The polyline a move's piece follows, arcs sampled round their corner the long way.
  route(move, fromSq, toSq) {
    if (!move.path) return [this.xy(fromSq.col, fromSq.row), this.xy(toSq.col, toSq.row)];
    const out = [];
    const nodes = move.path;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      if (node.type === "point") {
        out.push(this.xy(node.col, node.row));
        continue;
      }
      const prev = out[out.length - 1];
      const next = nodes[i + 1];
      if (!prev || !next) continue;
      const [cx, cy] = this.xy(node.col, node.row);
      const [nx, ny] = this.xy(next.col, next.row);
      const a0 = Math.atan2(prev[1] - cy, prev[0] - cx);
      const a1 = Math.atan2(ny - cy, nx - cx);
      // The short way is a quarter turn through the board: go the other way, three quarters.
      let delta = a1 - a0;
      while (delta <= -Math.PI) delta += 2 * Math.PI;
      while (delta > Math.PI) delta -= 2 * Math.PI;
      const longWay = delta > 0 ? delta - 2 * Math.PI : delta + 2 * Math.PI;
      const r = node.radius * S;
      for (let k = 1; k < 24; k++) {
        const a = a0 + (longWay * k) / 24;
        out.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
      }
    }
    return out;
  }
}
