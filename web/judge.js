// The judge visualiser: paste or upload a judge's input, then step through it on the board with
// each operation's verdict exactly as `arbiter judge` prints it (the server runs the judge itself
// and reports every step). Captured pieces flash before they go, an invalid operation flashes
// red, and there are sounds for a move, a capture and the end.

import { Board } from "./board.js";
import { glyphButton } from "./glyphs.js";
import * as sound from "./sound.js";
import { StepControls } from "./steps.js";
import * as api from "./api.js";
import { announce, app, h } from "./dom.js";

export class JudgeView {
  constructor(params, context) {
    this.params = params;
    this.catalogue = context.catalogue;
    this.games = this.catalogue.games.filter((g) => g.judge);
    this.trace = null;
    this.index = 0;
    this.build(params.get("game") || (this.games[0] && this.games[0].id));
  }

  dispose() {
    this.steps.pause();
    if (this.board) this.board.dispose();
  }

  build(game) {
    this.gameSelect = h("select", { id: "judge-game" },
      this.games.map((g) => h("option", { value: g.id, selected: g.id === game }, g.title)));
    this.format = h("p", { id: "judge-format", class: "hint" });
    this.input = h("textarea", { id: "judge-input", rows: 8, cols: 40, spellcheck: "false" });
    this.file = h("input", { id: "judge-file", type: "file", accept: ".in,.txt,text/plain" });
    this.file.addEventListener("change", async () => {
      const f = this.file.files[0];
      if (f) this.input.value = await f.text();
    });
    this.gameSelect.addEventListener("change", () => this.describe());
    this.message = h("p", { id: "judge-message", role: "alert" });
    this.stepInfo = h("p", { id: "judge-step" });
    this.verdict = h("pre", { id: "judge-verdict", class: "verdict", "aria-live": "polite" });
    this.boardWrap = h("div", { class: "board-wrap" });
    this.steps = new StepControls({
      ids: { first: "judge-first", back: "judge-back", play: "judge-play", next: "judge-next", last: "judge-last", goto: "judge-goto", go: "judge-go", speed: "judge-speed" },
      words: { group: "Steps", unit: "operation", first: "First step", back: "Previous operation", next: "Next operation", last: "Last operation", go: "Go to that operation" },
      speeds: [["1200", "slow"], ["600", "normal"], ["250", "fast"], ["80", "very fast"]],
      speed: "600",
      show: (k, { next }) => this.show(k, next && k === this.index + 1),
      advance: () => this.show(this.index + 1, true),
      current: () => this.index,
      last: () => (this.trace ? this.trace.steps.length - 1 : 0),
    });
    this.controls = this.steps.element;
    this.controls.hidden = true;
    this.output = h("pre", { id: "judge-output", class: "verdict" });
    // The glyph switch of a game that has one (Duck Chess's Latin letters), kept per browser.
    this.glyphSlot = h("p", { class: "controls" });
    app.replaceChildren(h("section", { class: "judge" },
      h("h1", {}, "Judge visualiser"),
      h("p", {}, "Step through a judge's input on the board, with each verdict exactly as ", h("code", {}, "arbiter judge"), " prints it."),
      this.form = h("details", { class: "judge-form", open: true }, h("summary", {}, "Input"),
        h("p", {}, h("label", { for: "judge-game" }, "Judge "), this.gameSelect), this.format,
        h("p", {}, h("label", { for: "judge-input" }, "Input"), h("br"), this.input),
        h("p", {}, h("label", { for: "judge-file" }, "or a file "), this.file),
        h("p", {}, h("button", { id: "judge-example", type: "button", onclick: () => this.example() }, "Load an example"), " ",
          h("button", { id: "judge-run", type: "button", class: "primary", onclick: () => this.run() }, "Step through it"))),
      this.message,
      h("div", { class: "judge-view" },
        h("div", { class: "board-col" }, this.boardWrap),
        h("div", {}, this.glyphSlot, this.controls, this.stepInfo, h("h2", {}, "Verdict"), this.verdict,
          h("details", {}, h("summary", {}, "The whole output"), this.output)))));
    this.board = new Board(this.boardWrap);
    this.describe();
  }

  describe() {
    const def = this.catalogue.def(this.gameSelect.value);
    this.format.textContent = def && def.judge ? `Input: ${def.judge}` : "";
    const alternative = def && def.look && def.look.alternative;
    this.glyphSlot.replaceChildren(...(alternative ? [glyphButton(this.board, alternative)] : []));
  }

  example() {
    const def = this.catalogue.def(this.gameSelect.value);
    if (def && def.judge_example) this.input.value = def.judge_example;
  }

  async run() {
    this.steps.pause();
    this.message.textContent = "Judging…";
    const game = this.gameSelect.value;
    try {
      this.trace = await api.judge(game, this.input.value);
    } catch (e) {
      this.trace = null;
      this.controls.hidden = true;
      this.message.textContent = `The judge stopped: ${e.message}`;
      return;
    }
    this.game = game;
    this.geometries = [];
    let geometry = null;
    for (const step of this.trace.steps) {
      geometry = step.geometry || geometry;
      this.geometries.push(geometry);
    }
    const n = this.trace.steps.length - 1;
    this.message.textContent = `${n} operation${n === 1 ? "" : "s"} judged.`;
    this.output.textContent = this.trace.output;
    this.form.open = false;
    this.controls.hidden = false;
    await this.show(0, false);
  }

  // A board the Board draws, from step `k` of the trace.
  viewOf(k, doomed = []) {
    const step = this.trace.steps[k];
    const geometry = this.geometries[k];
    const colours = this.catalogue.colourWords(this.game);
    const squares = geometry.cells.map(([name, col, row]) => ({ name, col, row, piece: null }));
    for (const [i, side, kind] of step.pieces) {
      squares[i].piece = { side, kind, colour: colours[side === "first" ? 0 : 1] };
    }
    const from = step.vacated.length === 1 ? step.vacated[0] : null;
    const to = step.arrived.length === 1 ? step.arrived[0] : null;
    return {
      game: this.game,
      cols: geometry.cols,
      rows: geometry.rows,
      squares,
      legal: [],
      status: "ongoing",
      to_move: "",
      ply: k,
      checked: step.checked,
      last: from && to ? { from, to } : null,
      flash_invalid: doomed,
    };
  }

  // Shows step `k`; stepping forward, the pieces it takes flash on the board before they go.
  async show(k, animate) {
    // Nothing judged yet (a step button before a run): nothing to show.
    if (!this.trace) return;
    const steps = this.trace.steps;
    const step = steps[k];
    if (animate && k > 0 && step.captured.length) {
      this.board.render(this.viewOf(k - 1, step.captured));
      await new Promise((r) => setTimeout(r, 350));
    }
    this.index = k;
    this.steps.shown(k);
    this.board.set({ look: this.catalogue.look(this.game) });
    this.board.render(this.viewOf(k));
    const bad = step.invalid;
    this.boardWrap.classList.toggle("invalid-flash", bad && animate);
    this.verdict.classList.toggle("invalid", bad);
    this.verdict.textContent = step.output || (k === 0 ? "" : "(nothing printed)");
    const where = k === 0 ? "The start, before any operation." : `Operation ${k} of ${steps.length - 1} (line ${step.line}): ${step.input}`;
    this.stepInfo.textContent = this.trace.streams || k === 0 ? where : `${where} — the answer if the input ended here:`;
    announce(`${where} ${step.output}`);
    if (animate) {
      if (step.ended) sound.playEnd();
      else if (step.captured.length) sound.playCapture();
      else if (step.arrived.length) sound.playMove();
    }
  }
}
