// How a person moves on the Board: a click or tap on a piece then on a target, a drag, or the
// keyboard (arrow keys walk the points as drawn; Enter or Space picks or plays; Escape drops
// the selection). During the opponent's turn the same gestures queue a premove, which a click
// on the board elsewhere, a right-click or Escape cancels.

const S = 60; // the distance between two points, in SVG units (as board.js draws them)

export class BoardInput {
  constructor(board) {
    this.board = board;
    this.dragging = null;
    const svg = board.svg;
    svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    svg.addEventListener("keydown", (e) => this.keyDown(e));
    svg.addEventListener("contextmenu", (e) => {
      if (!board.premove && !board.selected) return;
      e.preventDefault();
      this.cancel();
    });
  }

  // Whether pieces may be premoved now (the opponent's turn of a game this page plays).
  premoving() {
    const b = this.board;
    return Boolean(b.premoveSide) && Boolean(b.state) && b.state.status === "ongoing";
  }

  // Whether the piece on `name` may be picked: one with a legal move on this side's turn, or
  // (premoving) any of this side's pieces.
  pickable(name) {
    const b = this.board;
    if (!b.state) return false;
    if (b.interactive) return b.state.legal.some((m) => m.from === name);
    if (!this.premoving()) return false;
    const q = b.square(name);
    return Boolean(q && q.piece && q.piece.side === b.premoveSide);
  }

  // Plays (or, premoving, queues) the picked piece's move to `to`; whether there was one.
  tryMove(from, to) {
    const b = this.board;
    if (b.interactive) {
      const move = b.state.legal.find((m) => m.from === from && m.to === to);
      if (!move) return false;
      b.selected = null;
      b.onMove(move);
      return true;
    }
    if (!this.premoving() || from === to || this.pickable(to) || !b.square(to)) return false;
    b.selected = null;
    b.premove = { from, to };
    b.update();
    b.onPremove(b.premove);
    return true;
  }

  // Drops the selection and the premove queued.
  cancel() {
    const b = this.board;
    const had = b.premove;
    b.selected = null;
    b.premove = null;
    b.update();
    if (had) b.onPremove(null);
  }

  focusSquare(name) {
    const b = this.board;
    const node = b.layers.hits.node(name);
    if (!node) return;
    for (const other of b.svg.querySelectorAll(".hit[tabindex='0']")) other.setAttribute("tabindex", "-1");
    node.setAttribute("tabindex", "0");
    b.focusName = name;
    node.focus();
  }

  keyDown(event) {
    const b = this.board;
    if (!b.state) return;
    const here = b.square(b.focusName);
    if (!here) return;
    const steps = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (steps[event.key]) {
      event.preventDefault();
      let [dc, dr] = steps[event.key];
      if (b.flipped) [dc, dr] = [-dc, -dr];
      const next = b.state.squares.find((q) => q.col === here.col + dc && q.row === here.row + dr);
      if (next) this.focusSquare(next.name);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.choose(here);
      this.focusSquare(here.name);
    } else if (event.key === "Escape" && (b.selected || b.premove)) {
      this.cancel();
    }
  }

  // A click, tap or Enter on a point: pick a piece, or move (premove) the picked one there.
  choose(square) {
    const b = this.board;
    if (!b.interactive && !this.premoving()) return;
    if (b.selected && this.tryMove(b.selected, square.name)) return;
    if (this.pickable(square.name)) {
      b.selected = square.name;
      b.update();
    } else {
      this.cancel();
    }
  }

  squareAt(event) {
    const b = this.board;
    const pt = b.svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const p = pt.matrixTransform(b.svg.getScreenCTM().inverse());
    let best = null;
    let bestD = S * 0.5;
    for (const q of b.state.squares) {
      const [x, y] = b.xy(q.col, q.row);
      const d = Math.hypot(p.x - x, p.y - y);
      if (d < bestD) {
        best = q;
        bestD = d;
      }
    }
    return { square: best, point: p };
  }

  pointerDown(event) {
    const b = this.board;
    if (event.button === 2 || !b.state || !(b.interactive || this.premoving())) return;
    const { square } = this.squareAt(event);
    if (!square) {
      // A click on the board off its points cancels a premove.
      if (b.premove) this.cancel();
      return;
    }
    b.focusName = square.name;
    if (b.selected && this.tryMove(b.selected, square.name)) return;
    if (this.pickable(square.name)) {
      b.selected = square.name;
      this.dragging = { from: square.name, moved: false };
      b.update();
      b.svg.setPointerCapture?.(event.pointerId);
    } else if (b.selected || b.premove) {
      this.cancel();
    }
  }

  pointerMove(event) {
    if (!this.dragging) return;
    const { point } = this.squareAt(event);
    const ghost = this.board.layers.pieces.node(this.dragging.from);
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
    if (drag.moved) this.board.update();
  }
}
