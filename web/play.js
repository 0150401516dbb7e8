// The modes played at this screen: two players taking turns, or one against the AI. Every game
// is stored on the server as it is played (so it can be replayed and shared) and in this
// browser (so a reload, Back or Forward finds it again).

import * as api from "./api.js";
import { confirmDialog, h } from "./dom.js";
import { GameView } from "./game.js";
import { playerName } from "./identity.js";
import * as sound from "./sound.js";

// Two players at this screen, or one against the AI.
export class PlayView extends GameView {
  constructor(params, context) {
    super(params, context);
    this.mode = params.get("mode") === "ai" ? "ai" : "local";
    this.level = params.get("level") || "medium";
    this.humanSide = params.get("colour") === "second" ? 1 : 0;
    this.clock = [0, 0];
    this.thinking = null; // the AbortController of the AI's search
    this.serial.run(() => this.start());
  }

  dispose() {
    super.dispose();
    if (this.thinking) this.thinking.abort();
  }

  mayMove(side) {
    return this.mode === "local" || side === this.humanSide;
  }

  storageKey() {
    return `arbiter-game-${this.id}`;
  }

  async start() {
    const title = this.catalogue.title(this.settings.game, this.settings.size);
    const names = this.names();
    this.title.textContent = this.mode === "ai"
      ? `${title} — you (${names[this.humanSide]}) against the AI (${this.level})`
      : `${title} — two players at this screen`;
    if (this.mode === "ai") {
      this.mySide = this.humanSide;
      if (this.humanSide === 1) this.board.setFlipped(true);
    }
    this.id = this.params.get("id");
    if (this.id) await this.restore();
    else await this.create();
    await this.refresh();
  }

  // A new stored game; the address then names it, so a reload finds it.
  async create() {
    const names = this.names();
    const players = this.mode === "ai"
      ? (this.humanSide === 0 ? [playerName(), `AI (${this.level})`] : [`AI (${this.level})`, playerName()])
      : [`${playerName()} (${names[0]})`, `${playerName()} (${names[1]})`];
    try {
      const created = await api.createGame({ ...this.request(), players, mode: this.mode, level: this.level });
      this.id = String(created.id);
      this.token = created.token;
      this.save();
      const q = new URLSearchParams(this.params);
      q.set("id", this.id);
      history.replaceState(null, "", `#/play?${q}`);
    } catch (e) {
      this.showBanner(`This game is not being saved: ${e.message}.`);
    }
  }

  // A reload, Back or Forward: this browser remembers the game; else the server's copy.
  async restore() {
    const saved = JSON.parse(localStorage.getItem(this.storageKey()) || "null");
    if (saved) {
      this.token = saved.token;
      this.moves = saved.moves || [];
      this.outcome = saved.outcome || null;
      this.clock = saved.clock || [0, 0];
      return;
    }
    try {
      const game = await api.storedGame(this.id);
      this.moves = game.moves.map((m) => m.move);
      this.showBanner("This game was started in another browser: you can play on here, but your moves are not saved.");
    } catch (e) {
      this.showBanner(`Cannot load game ${this.id}: ${e.message}. A new game starts.`);
      this.id = null;
      await this.create();
    }
  }

  save() {
    if (!this.id) return;
    localStorage.setItem(this.storageKey(), JSON.stringify({
      token: this.token, moves: this.moves, outcome: this.outcome, clock: this.clock,
    }));
  }

  // Sends the last move to the server's copy of the game, numbered (the server refuses a
  // repeated or skipped one).
  async storeMove() {
    this.save();
    if (!this.id || !this.token) return;
    const body = { token: this.token, ply: this.moves.length, move: this.moves[this.moves.length - 1] };
    try {
      await api.appendMove(this.id, body);
    } catch (e) {
      this.showBanner(`The server did not save the last move: ${e.message}.`);
    }
  }

  // Takes the server's copy back to the moves left after an undo.
  async storeTakeback() {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api.takeBack(this.id, { token: this.token, ply: this.moves.length });
    } catch (e) {
      this.showBanner(`The server did not save the takeback: ${e.message}.`);
    }
  }

  // Sends a resignation, with the moves so far (they continue the stored ones), to the server's
  // copy.
  async storeResign(resign) {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api.updateGame(this.id, { token: this.token, moves: this.moves, resign });
    } catch (e) {
      this.showBanner(`The server did not save the resignation: ${e.message}.`);
    }
  }

  storedId() {
    return this.id && this.end() ? this.id : null;
  }

  renderControls() {
    if (this.controlsBuilt) {
      this.undoButton.disabled = !this.canUndo();
      this.resignButton.disabled = !this.view || this.view.status !== "ongoing" || Boolean(this.outcome);
      return;
    }
    this.controlsBuilt = true;
    this.undoButton = this.button("undo", "Undo", () => this.serial.run(() => this.undo()));
    this.resignButton = this.button("resign", "Resign", () => this.serial.run(() => this.resign()));
    this.controls.replaceChildren(
      this.undoButton, this.resignButton,
      this.button("rematch", "New game", () => this.newGame()),
      ...this.commonButtons());
    this.extra.replaceChildren(h("p", {}, "Every move is saved: ",
      h("a", { id: "replay-link", href: "#/" }, "replay or share this game")));
    this.renderControls();
  }

  afterRefresh() {
    const link = this.extra.querySelector("#replay-link");
    if (link && this.id) link.href = `#/replay?id=${this.id}`;
    this.warnings.clear();
    const v = this.view;
    if (v.status !== "ongoing" || this.outcome) return;
    if (this.humanToMove()) this.fetchWarnings();
    else if (this.mode === "ai") this.aiMove();
  }

  statusText() {
    if (this.thinking) return `${super.statusText()} — the AI is thinking…`;
    return super.statusText();
  }

  canUndo() {
    return Boolean(this.moves.length && this.view && this.view.status === "ongoing" && !this.outcome);
  }

  aiMove() {
    const controller = new AbortController();
    this.thinking = controller;
    this.renderSide();
    const moves = [...this.moves];
    api.aiMove({ ...this.request(), moves, level: this.level, seed: moves.length + 1 }, { signal: controller.signal })
      .then((answer) => this.serial.run(async () => {
        if (controller.signal.aborted || this.thinking !== controller) return;
        this.thinking = null;
        const move = this.view.legal.find((m) => m.text === answer.move);
        if (!move) return;
        this.moves.push(move.text);
        await this.storeMove();
        await this.refresh({ animate: move });
      }))
      .catch((e) => {
        if (controller.signal.aborted) return;
        this.thinking = null;
        this.showBanner(`The AI could not move: ${e.message}`, this.button("retry-ai", "Try again", () => this.serial.run(() => this.refresh())));
        this.renderSide();
      });
  }

  async humanMove(move) {
    if (!this.humanToMove()) return;
    if (!(await this.confirmSafe(move))) return;
    this.moves.push(move.text);
    await this.storeMove();
    await this.refresh({ animate: move });
  }

  async undo() {
    if (!this.canUndo()) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    let count = 1;
    const toMove = this.colours().indexOf(this.view.to_move);
    if (this.mode === "ai" && toMove === this.humanSide && this.moves.length >= 2) count = 2;
    if (this.mode === "ai" && toMove !== this.humanSide) count = 1;
    this.moves.splice(this.moves.length - count, count);
    await this.storeTakeback();
    await this.refresh();
  }

  async resign() {
    if (!this.view || this.view.status !== "ongoing" || this.outcome) return;
    const loser = this.mode === "ai" ? this.humanSide : this.colours().indexOf(this.view.to_move);
    const names = this.names();
    const sure = await confirmDialog(`Resign the game for ${names[loser]}?`, "Resign", "Keep playing");
    if (!sure) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    this.outcome = { winner: 1 - loser, reason: this.catalogue.endWords("RESIGN", names[loser]) };
    await this.storeResign(loser === 0 ? "first" : "second");
    this.draw();
    sound.playEnd();
  }

  newGame() {
    const q = new URLSearchParams(this.params);
    q.delete("id");
    location.hash = `#/play?${q}&new=${Date.now()}`;
  }

  elapsed(dt) {
    const v = this.view;
    if (!v || v.status !== "ongoing" || this.outcome) return;
    this.clock[this.colours().indexOf(v.to_move)] += dt;
  }

  clockValues() {
    const v = this.view;
    if (!v) return null;
    const running = v.status === "ongoing" && !this.outcome ? this.colours().indexOf(v.to_move) : null;
    return { ms: this.clock, running };
  }
}
