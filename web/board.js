// The board: an SVG drawing of a position from /api/state, clicks and drags on it, and the
// animation of moves (Surakarta captures travel along their circuit and round the arcs).

const SVG = "http://www.w3.org/2000/svg";
const S = 60; // the distance between two points, in SVG units

const CHINESE = { captain: "王", guard: "士", elephant: "象", horse: "马", car: "车", duck: "鸭", soldier: "兵" };
const LATIN = { captain: "K", guard: "A", elephant: "E", horse: "H", car: "R", duck: "D", soldier: "P" };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// The lines of each game's board, by game id; the pieces, marks and targets are common.
const BOARD_LINES = {
  surakarta() { this.drawSurakarta(); },
  duck() { this.drawDuck(); },
  rc02() { this.drawRc02(); },
};

export class Board {
  constructor(container, { onMove } = {}) {
    this.container = container;
    this.onMove = onMove || (() => {});
    this.flipped = false;
    this.latin = false;
    this.state = null;
    this.selected = null;
    this.interactive = false;
    this.svg = el("svg", { class: "board", role: "img" });
    container.appendChild(this.svg);
    this.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
  }

  // Margin around the points: Surakarta's arcs need room outside the board.
  margin() {
    if (this.state && this.state.game === "surakarta") return (this.state.cols / 2 - 1) * S + S * 0.6;
    return S * 0.95;
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

  // Shows `state`; `interactive` says whether the side to move may be moved by clicks.
  render(state, { interactive = false } = {}) {
    this.state = state;
    this.interactive = interactive && state.status === "ongoing";
    if (this.selected && !this.state.legal.some((m) => m.from === this.selected)) this.selected = null;
    this.draw();
  }

  draw() {
    const s = this.state;
    const m = this.margin();
    const width = 2 * m + (s.cols - 1) * S;
    const height = 2 * m + (s.rows - 1) * S;
    this.svg.innerHTML = "";
    this.svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.svg.dataset.game = s.game;
    this.svg.dataset.toMove = s.to_move;
    this.svg.dataset.status = s.status;
    this.svg.dataset.ply = s.ply;
    el("rect", { x: 0, y: 0, width, height, class: `bg bg-${s.game}` }, this.svg);
    const drawLines = BOARD_LINES[s.game];
    if (!drawLines) {
      const text = el("text", { x: width / 2, y: height / 2, class: "board-error", "text-anchor": "middle" }, this.svg);
      text.textContent = `This page cannot draw ${s.game} boards.`;
      throw new Error(`this page has no drawing for the game "${s.game}"`);
    }
    drawLines.call(this);
    this.drawHighlights();
    this.pieces = el("g", { class: "pieces" }, this.svg);
    for (const q of s.squares) if (q.piece) this.drawPiece(q, this.pieces);
    this.drawTargets();
    const hits = el("g", { class: "hits" }, this.svg);
    for (const q of s.squares) {
      const [x, y] = this.xy(q.col, q.row);
      el("circle", { cx: x, cy: y, r: S / 2, class: "hit", "data-square": q.name }, hits);
    }
  }

  drawSurakarta() {
    const s = this.state;
    const n = s.cols;
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
    for (let i = 0; i < n; i++) {
      const [x, y] = this.xy(i, n - 1);
      const [lx, ly] = this.xy(0, i);
      const letter = String.fromCharCode(65 + i);
      el("text", { x, y: y + S * 0.55 + (n / 2 - 1) * S, class: "coord" }, g).textContent = letter;
      el("text", { x: lx - S * 0.5 - (n / 2 - 1) * S, y: ly + 5, class: "coord" }, g).textContent = String(n - i);
    }
  }

  // The points where circuit `k`'s arc round corner (cc, cr) meets the board, and its 270° path.
  arcEnds(cc, cr, k) {
    const s = this.state;
    const [cx, cy] = this.xy(cc, cr);
    const inwardCol = cc === 0 ? 1 : -1;
    const inwardRow = cr === 0 ? 1 : -1;
    const [px, py] = this.xy(cc + inwardCol * k, cr);
    const [qx, qy] = this.xy(cc, cr + inwardRow * k);
    return { cx, cy, p: [px, py], q: [qx, qy], r: k * S, size: s.cols };
  }

  arcPath(cc, cr, k) {
    const { cx, cy, p, q, r } = this.arcEnds(cc, cr, k);
    const cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx);
    const sweep = cross > 0 ? 0 : 1;
    return `M ${p[0]} ${p[1]} A ${r} ${r} 0 1 ${sweep} ${q[0]} ${q[1]}`;
  }

  drawDuck() {
    const g = el("g", { class: "lines" }, this.svg);
    const s = this.state;
    for (let r = 0; r < s.rows; r++) {
      const [x0, y0] = this.xy(0, r);
      const [x1, y1] = this.xy(s.cols - 1, r);
      el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid" }, g);
    }
    for (let c = 0; c < s.cols; c++) {
      // The river between rows 4 and 5 interrupts the inner files, as on a Chinese-chess board.
      const spans = c === 0 || c === s.cols - 1 ? [[0, s.rows - 1]] : [[0, 4], [5, s.rows - 1]];
      for (const [a, b] of spans) {
        const [x0, y0] = this.xy(c, a);
        const [x1, y1] = this.xy(c, b);
        el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid" }, g);
      }
    }
    for (const [r0, r1] of [[0, 2], [7, 9]]) {
      for (const [c0, c1] of [[3, 5], [5, 3]]) {
        const [x0, y0] = this.xy(c0, r0);
        const [x1, y1] = this.xy(c1, r1);
        el("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "grid palace" }, g);
      }
    }
    const [rx, ry] = this.xy(4, 4.5);
    el("text", { x: rx, y: ry + 8, class: "river" }, g).textContent = this.latin ? "DUCK CHESS" : "鸭 棋";
    for (let c = 0; c < s.cols; c++) {
      const [x, y] = this.xy(c, s.rows - 1);
      el("text", { x, y: y + S * 0.8, class: "coord" }, g).textContent = String.fromCharCode(97 + c);
    }
    for (let r = 0; r < s.rows; r++) {
      const [x, y] = this.xy(0, r);
      el("text", { x: x - S * 0.7, y: y + 5, class: "coord" }, g).textContent = String(s.rows - 1 - r);
    }
  }

  drawRc02() {
    const g = el("g", { class: "lines" }, this.svg);
    const s = this.state;
    for (const q of s.squares) {
      const [x, y] = this.xy(q.col, q.row);
      el("rect", { x: x - S / 2, y: y - S / 2, width: S, height: S, class: "cell" }, g);
    }
    for (let c = 0; c < s.cols; c++) {
      const [x, y] = this.xy(c, s.rows - 1);
      el("text", { x, y: y + S * 0.82, class: "coord" }, g).textContent = String.fromCharCode(97 + c);
    }
    for (let r = 0; r < s.rows; r++) {
      const [x, y] = this.xy(0, r);
      el("text", { x: x - S * 0.75, y: y + 6, class: "coord" }, g).textContent = String(r + 1);
    }
  }

  drawHighlights() {
    const last = this.state.last;
    const g = el("g", { class: "marks" }, this.svg);
    if (last) {
      for (const name of [last.from, last.to]) {
        const q = this.square(name);
        if (!q) continue;
        const [x, y] = this.xy(q.col, q.row);
        el("rect", { x: x - S / 2 + 3, y: y - S / 2 + 3, width: S - 6, height: S - 6, rx: 8, class: "last-move" }, g);
      }
    }
    if (this.state.check) {
      for (const q of this.state.squares) {
        if (q.piece && q.piece.kind === "captain") {
          const [x, y] = this.xy(q.col, q.row);
          el("circle", { cx: x, cy: y, r: S * 0.5, class: "check" }, g);
        }
      }
    }
  }

  drawPiece(q, parent, at = null) {
    const [x, y] = at || this.xy(q.col, q.row);
    const p = q.piece;
    const g = el("g", { class: `piece ${p.side} ${p.colour.toLowerCase()}`, "data-piece": q.name, transform: `translate(${x} ${y})` }, parent);
    el("circle", { r: S * 0.4, class: "disc" }, g);
    if (p.kind) {
      const label = this.latin ? LATIN[p.kind] : CHINESE[p.kind];
      el("text", { y: 10, class: "label" }, g).textContent = label;
    }
    return g;
  }

  drawTargets() {
    if (!this.selected) return;
    const g = el("g", { class: "targets" }, this.svg);
    const from = this.square(this.selected);
    const [fx, fy] = this.xy(from.col, from.row);
    el("circle", { cx: fx, cy: fy, r: S * 0.46, class: "selected" }, g);
    for (const m of this.state.legal.filter((m) => m.from === this.selected)) {
      const q = this.square(m.to);
      const [x, y] = this.xy(q.col, q.row);
      el("circle", { cx: x, cy: y, r: m.capture ? S * 0.44 : S * 0.13, class: m.capture ? "target capture" : "target", "data-target": q.name }, g);
    }
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
    let ghost = this.svg.querySelector(`[data-piece="${this.dragging.from}"]`);
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
    this.draw();
  }

  tryMove(from, to) {
    const move = this.state.legal.find((m) => m.from === from && m.to === to);
    if (!move) return false;
    this.selected = null;
    this.onMove(move);
    return true;
  }

  // Moves the piece of `move` on the board currently shown: along its capture route when it has
  // one, else straight. Resolves when done; `duration` in ms (0 skips).
  animate(move, duration = 400) {
    return new Promise((resolve) => {
      if (!this.state || duration <= 0) return resolve();
      const fromSq = this.square(move.from);
      const toSq = this.square(move.to);
      const piece = this.svg.querySelector(`[data-piece="${move.from}"]`);
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
      let a1 = Math.atan2(ny - cy, nx - cx);
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
