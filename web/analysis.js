// The analysis board, for a replay and for a game that is over (never for a game being played:
// no engine's help in a live game). An evaluation bar beside the board and the engine's best
// line for the position shown, from the server's /api/analyze (a bounded search); and, for a
// finished stored game, the whole-game analysis the server runs as a job: its progress, the
// moves judged on the move list (?! inaccuracy, ? mistake, ?? blunder) and a small graph of
// the first player's chance to win that jumps to a move when clicked. The page knows no game:
// the scores come as the first player's, with a chance to win, and the line in the game's own
// notation.

import { el } from "./svg.js";
import * as api from "./api.js";
import { h } from "./dom.js";

// How long the board's search may take: the server caps it at 3 s.
const SEARCH = { depth: 12, time_ms: 1500 };
const POLL_MS = 600;
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const GRAPH = { width: 300, height: 64 };

function capital(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

// How light a colour `#rgb` or `#rrggbb` is, 0 to 1.
function lightness(colour) {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour || "");
  if (!hex) return 0.5;
  const digits = hex[1].length === 3 ? [...hex[1]].map((d) => d + d) : hex[1].match(/../g);
  const [r, g, b] = digits.map((d) => parseInt(d, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// The two sides' colours for the bar, from the game's look: their pieces' fill, or their
// outline where both fills are pale (two pale shares could not be told apart).
function barColours(def) {
  const sides = (def && def.look && def.look.sides) || [];
  if (sides.length < 2) return null;
  const pale = sides.every((s) => lightness(s.fill) > 0.8);
  return sides.map((s) => (pale ? s.stroke : s.fill));
}

export class AnalysisBoard {
  // `view`: the game view it belongs to (its settings, names, board, move list, goToPly and
  // storedId).
  constructor(view) {
    this.view = view;
    this.on = view.params.get("analysis") === "1";
    this.results = new Map(); // moves joined → the answer
    this.key = null;
    this.fill = h("div", { class: "eval-first" });
    this.bar = h("div", { id: "eval-bar", class: "eval-bar", role: "img", hidden: true }, this.fill);
    view.boardCol.prepend(this.bar);
    const colours = barColours(view.catalogue.def(view.settings.game));
    if (colours) {
      this.fill.style.background = colours[0];
      this.bar.style.background = colours[1];
    }
    this.toggle = h("button", { id: "analysis-toggle", type: "button", class: "small", onclick: () => this.setOn(!this.on) });
    this.line = h("p", { id: "analysis-line", class: "analysis-line", "aria-live": "polite" });
    this.wholeButton = h("button", { id: "analyse-game", type: "button", class: "small", onclick: () => this.analyseGame() },
      "Analyse the whole game");
    this.progress = h("progress", { id: "analysis-progress", max: 1, value: 0, hidden: true, "aria-label": "Whole-game analysis" });
    this.summary = h("p", { id: "analysis-summary", class: "hint", "aria-live": "polite" });
    this.graph = el("svg", { id: "eval-graph", class: "eval-graph", viewBox: `0 0 ${GRAPH.width} ${GRAPH.height}`,
      preserveAspectRatio: "none", role: "group", "aria-label": "The first player's chance to win, move by move: click to go to a move" });
    this.graph.style.display = "none";
    this.element = h("section", { id: "analysis", class: "analysis", "aria-label": "Analysis" },
      h("div", { class: "analysis-head" }, this.toggle, " ", this.wholeButton, " ", this.progress),
      this.line, this.summary, this.graph);
    view.analysisSlot.replaceChildren(this.element);
    this.whole = null;
    this.renderToggle();
  }

  dispose() {
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.pollTimer);
    if (this.asking) this.asking.abort();
  }

  hide() {
    this.element.hidden = true;
    this.bar.hidden = true;
    this.view.boardCol.classList.remove("with-eval");
  }

  setOn(on) {
    this.on = on;
    this.renderToggle();
    this.key = null;
    this.view.renderAnalysis();
  }

  renderToggle() {
    this.toggle.textContent = this.on ? "Hide the engine" : "Show the engine";
    this.toggle.setAttribute("aria-pressed", String(this.on));
  }

  // The position shown is the one after `moves`: its evaluation, asked for once it has been
  // shown a moment (stepping quickly asks only for where it stops); `ply` marks the graph.
  follow(moves, ply) {
    this.element.hidden = false;
    this.wholeButton.hidden = !this.view.storedId() || Boolean(this.whole && this.whole.status !== "failed");
    this.markGraph(ply);
    this.markMoves();
    const showBar = this.on;
    this.bar.hidden = !showBar;
    this.view.boardCol.classList.toggle("with-eval", showBar);
    if (!this.on) {
      this.line.textContent = "";
      return;
    }
    const key = moves.join(" ");
    if (key === this.key) return;
    this.key = key;
    clearTimeout(this.timer);
    const known = this.results.get(key);
    if (known) {
      this.render(known);
      return;
    }
    this.line.textContent = "The engine is thinking…";
    this.timer = setTimeout(() => this.ask([...moves], key), 200);
  }

  async ask(moves, key) {
    if (this.asking) this.asking.abort();
    const controller = new AbortController();
    this.asking = controller;
    let answer;
    try {
      answer = await api.analyze({ ...this.view.request(), moves, ...SEARCH }, { signal: controller.signal, timeout: 20000 });
    } catch (e) {
      if (controller.signal.aborted || this.disposed) return;
      if (this.key === key) this.line.textContent = `The engine could not analyse this position: ${e.message}.`;
      return;
    }
    if (this.disposed) return;
    if (this.results.size > 500) this.results.clear();
    this.results.set(key, answer);
    if (this.key === key) this.render(answer);
  }

  // The score in words, from the first player's side: "Black +0.35", "White wins in 3 moves".
  scoreWords(r) {
    const names = this.view.names().map(capital);
    if (typeof r.mate === "number") {
      if (r.mate === 0) return r.win >= 0.5 ? `${names[0]} has won` : `${names[1]} has won`;
      return `${names[r.mate > 0 ? 0 : 1]} wins in ${Math.abs(r.mate)} moves`;
    }
    if (!r.depth) return "Drawn";
    if (!r.cp) return "Even (0.00)";
    return `${names[r.cp > 0 ? 0 : 1]} +${(Math.abs(r.cp) / 100).toFixed(2)}`;
  }

  render(r) {
    const names = this.view.names();
    const first = Math.round(r.win * 100);
    // The first player's share grows from its own edge of the board.
    const top = this.view.board.flipped;
    this.fill.style.height = `${first}%`;
    this.fill.style.top = top ? "0" : "auto";
    this.fill.style.bottom = top ? "auto" : "0";
    this.bar.setAttribute("aria-label", `${capital(names[0])}'s chance to win: ${first}%`);
    this.bar.title = `${capital(names[0])} ${first}% · ${capital(names[1])} ${100 - first}%`;
    const words = this.scoreWords(r);
    if (!r.depth) {
      this.line.textContent = `${words}: the game is over here.`;
      return;
    }
    const line = r.pv && r.pv.length ? r.pv.join(" ") : (r.best || "—");
    this.line.replaceChildren(
      h("span", { id: "analysis-score", class: "analysis-score" }, words),
      ` · depth ${r.depth} · best line: `,
      h("span", { id: "analysis-pv", class: "analysis-pv" }, line));
  }

  // The whole-game analysis: started (or found done) on the server, then followed until done.
  async analyseGame() {
    const id = this.view.storedId();
    if (!id) return;
    this.wholeButton.disabled = true;
    try {
      this.whole = await api.startAnalysis(id);
    } catch (e) {
      this.summary.textContent = `The game cannot be analysed now: ${e.message}.`;
      this.wholeButton.disabled = false;
      return;
    }
    this.showWhole();
  }

  async poll() {
    const id = this.view.storedId();
    try {
      this.whole = await api.analysisProgress(id);
    } catch (e) {
      this.summary.textContent = `The analysis stopped: ${e.message}.`;
      return;
    }
    if (!this.disposed) this.showWhole();
  }

  showWhole() {
    const w = this.whole;
    this.progress.hidden = w.status !== "running";
    this.progress.max = w.total;
    this.progress.value = w.done;
    if (w.status === "running") {
      this.summary.textContent = `Analysing the whole game: ${w.done} of ${w.total} positions…`;
      this.pollTimer = setTimeout(() => this.poll(), POLL_MS);
    } else if (w.status === "failed") {
      this.summary.textContent = `The analysis failed: ${w.error}.`;
      this.wholeButton.disabled = false;
    } else {
      this.summary.textContent = this.counts();
    }
    this.drawGraph();
    this.view.renderAnalysis();
  }

  // "Black: 1 inaccuracy, no mistakes, 2 blunders. White: …"
  counts() {
    const names = this.view.names().map(capital);
    const per = [0, 1].map(() => ({ inaccuracy: 0, mistake: 0, blunder: 0 }));
    for (const m of this.whole.moves) if (m.judgement) per[m.side === "second" ? 1 : 0][m.judgement] += 1;
    const words = { inaccuracy: ["inaccuracy", "inaccuracies"], mistake: ["mistake", "mistakes"], blunder: ["blunder", "blunders"] };
    const count = (n, kind) => `${n || "no"} ${words[kind][n === 1 ? 0 : 1]}`;
    return per.map((c, i) => `${names[i]}: ${count(c.inaccuracy, "inaccuracy")}, ${count(c.mistake, "mistake")}, ${count(c.blunder, "blunder")}.`).join(" ");
  }

  // The judged moves marked in the move list (where the list shows the analysed moves).
  markMoves() {
    if (!this.whole) return;
    for (const m of this.whole.moves) {
      if (!m.judgement) continue;
      const ply = this.view.moveList.querySelector(`.ply[data-ply="${m.ply}"]`);
      if (!ply || ply.dataset.judged || ply.textContent !== m.move) continue;
      const lost = Math.round(m.loss * 100);
      ply.dataset.judged = m.judgement;
      ply.classList.add("judged", m.judgement);
      ply.title = `${capital(m.judgement)}: ${lost}% of the chance to win given away${m.best ? `; the engine preferred ${m.best}` : ""}`;
      ply.append(h("span", { class: "judgement-mark", "aria-hidden": "true" }, MARKS[m.judgement]),
        h("span", { class: "visually-hidden" }, ` (${m.judgement})`));
    }
  }

  // The first player's chance to win at each position analysed, the judged moves as dots; a
  // click goes to the move under it. Drawn again only when the analysis has news.
  drawGraph() {
    const w = this.whole;
    if (!w || !w.positions.length) return;
    this.graph.style.display = "";
    const step = GRAPH.width / w.total;
    const x = (i) => (i + 0.5) * step;
    const y = (win) => (1 - win) * GRAPH.height;
    const points = w.positions.map((p, i) => `${x(i).toFixed(1)},${y(p.win).toFixed(1)}`).join(" ");
    const judged = new Map(w.moves.filter((m) => m.judgement).map((m) => [m.ply, m.judgement]));
    const names = this.view.names().map(capital);
    const children = [
      el("line", { class: "graph-middle", x1: 0, x2: GRAPH.width, y1: GRAPH.height / 2, y2: GRAPH.height / 2 }),
      el("polyline", { class: "graph-line", points, fill: "none" }),
    ];
    w.positions.forEach((p, i) => {
      if (judged.has(i)) children.push(el("circle", { class: `graph-dot ${judged.get(i)}`, cx: x(i), cy: y(p.win), r: 2.5 }));
      const hit = el("rect", { class: "graph-ply", "data-ply": i, x: i * step, y: 0, width: step, height: GRAPH.height, fill: "transparent" });
      const title = el("title");
      title.textContent = `Move ${i}: ${names[0]} ${Math.round(p.win * 100)}%`;
      hit.append(title);
      hit.addEventListener("click", () => this.view.goToPly(i));
      children.push(hit);
    });
    this.now = el("line", { class: "graph-now", x1: 0, x2: 0, y1: 0, y2: GRAPH.height });
    children.push(this.now);
    this.graph.replaceChildren(...children);
  }

  // The position shown, as a line across the graph.
  markGraph(ply) {
    if (!this.now || !this.whole) return;
    const x = ((ply + 0.5) * GRAPH.width) / this.whole.total;
    this.now.setAttribute("x1", x);
    this.now.setAttribute("x2", x);
  }
}
