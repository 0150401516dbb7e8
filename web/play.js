// The modes played at this screen: two players taking turns, or one against the AI. Every game
// is stored on the server as it is played (so it can be replayed and shared) and in this
// browser (so a reload, Back or Forward finds it again). The view owns the game's screen
// (game.js), and keeps the stored game, the AI's search and the clocks counting up.

import * as api from "./api.js";
import { confirmDialog, h } from "./dom.js";
import { GameScreen } from "./game.js";
import { playerName } from "./identity.js";
import * as sound from "./sound.js";

// Two players at this screen, or one against the AI.
export class PlayView {
  constructor(params, context) {
    this.params = params;
    this.catalogue = context.catalogue;
    this.screen = new GameScreen(params, context, {
      hooks: {
        mayMove: (side) => this.mode === "local" || side === this.humanSide,
        humanMove: (move) => this.humanMove(move),
        afterRefresh: () => this.afterRefresh(),
        statusText: (turn) => (this.thinking ? `${turn} — the AI is thinking…` : turn),
        storedId: () => (this.id && this.screen.end() ? this.id : null),
        renderControls: () => this.renderControls(),
        tick: (ms) => this.elapsed(ms),
        clockValues: () => this.clockValues(),
      },
    });
    this.mode = params.get("mode") === "ai" ? "ai" : "local";
    this.level = params.get("level") || "medium";
    this.humanSide = params.get("colour") === "second" ? 1 : 0;
    this.clock = [0, 0];
    this.thinking = null; // the AbortController of the AI's search
    this.screen.serial.run(() => this.start());
  }

  dispose() {
    this.screen.dispose();
    if (this.thinking) this.thinking.abort();
  }

  storageKey() {
    return `arbiter-game-${this.id}`;
  }

  async start() {
    const { screen } = this;
    const title = this.catalogue.title(screen.settings.game, screen.settings.size);
    const names = screen.names();
    screen.title.textContent = this.mode === "ai"
      ? `${title} — you (${names[this.humanSide]}) against the AI (${this.level})`
      : `${title} — two players at this screen`;
    if (this.mode === "ai") {
      screen.mySide = this.humanSide;
      if (this.humanSide === 1) screen.board.setFlipped(true);
    }
    this.id = this.params.get("id");
    if (this.id) await this.restore();
    else await this.create();
    await screen.refresh();
  }

  // A new stored game; the address then names it, so a reload finds it.
  async create() {
    const names = this.screen.names();
    const players = this.mode === "ai"
      ? (this.humanSide === 0 ? [playerName(), `AI (${this.level})`] : [`AI (${this.level})`, playerName()])
      : [`${playerName()} (${names[0]})`, `${playerName()} (${names[1]})`];
    try {
      const created = await api.createGame({ ...this.screen.request(), players, mode: this.mode, level: this.level });
      this.id = String(created.id);
      this.token = created.token;
      this.save();
      const q = new URLSearchParams(this.params);
      q.set("id", this.id);
      history.replaceState(null, "", `#/play?${q}`);
    } catch (e) {
      this.screen.showBanner(`This game is not being saved: ${e.message}.`);
    }
  }

  // A reload, Back or Forward: this browser remembers the game; else the server's copy.
  async restore() {
    const saved = JSON.parse(localStorage.getItem(this.storageKey()) || "null");
    if (saved) {
      this.token = saved.token;
      this.screen.moves = saved.moves || [];
      this.screen.outcome = saved.outcome || null;
      this.clock = saved.clock || [0, 0];
      return;
    }
    try {
      const game = await api.storedGame(this.id);
      this.screen.moves = game.moves.map((m) => m.move);
      this.screen.showBanner("This game was started in another browser: you can play on here, but your moves are not saved.");
    } catch (e) {
      this.screen.showBanner(`Cannot load game ${this.id}: ${e.message}. A new game starts.`);
      this.id = null;
      await this.create();
    }
  }

  save() {
    if (!this.id) return;
    localStorage.setItem(this.storageKey(), JSON.stringify({
      token: this.token, moves: this.screen.moves, outcome: this.screen.outcome, clock: this.clock,
    }));
  }

  // Sends the last move to the server's copy of the game, numbered (the server refuses a
  // repeated or skipped one).
  async storeMove() {
    this.save();
    if (!this.id || !this.token) return;
    const { moves } = this.screen;
    const body = { token: this.token, ply: moves.length, move: moves[moves.length - 1] };
    try {
      await api.appendMove(this.id, body);
    } catch (e) {
      this.screen.showBanner(`The server did not save the last move: ${e.message}.`);
    }
  }

  // Takes the server's copy back to the moves left after an undo.
  async storeTakeback() {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api.takeBack(this.id, { token: this.token, ply: this.screen.moves.length });
    } catch (e) {
      this.screen.showBanner(`The server did not save the takeback: ${e.message}.`);
    }
  }

  // Sends a resignation, with the moves so far (they continue the stored ones), to the server's
  // copy.
  async storeResign(resign) {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api.updateGame(this.id, { token: this.token, moves: this.screen.moves, resign });
    } catch (e) {
      this.screen.showBanner(`The server did not save the resignation: ${e.message}.`);
    }
  }

  // Whether the game goes on (no end by its rules, nobody resigned).
  ongoing() {
    const { view, outcome } = this.screen;
    return Boolean(view) && view.status === "ongoing" && !outcome;
  }

  renderControls() {
    const { screen } = this;
    if (this.controlsBuilt) {
      this.undoButton.disabled = !this.canUndo();
      this.resignButton.disabled = !this.ongoing();
      return;
    }
    this.controlsBuilt = true;
    this.undoButton = screen.button("undo", "Undo", () => screen.serial.run(() => this.undo()));
    this.resignButton = screen.button("resign", "Resign", () => screen.serial.run(() => this.resign()));
    screen.controls.replaceChildren(
      this.undoButton, this.resignButton,
      screen.button("rematch", "New game", () => this.newGame()),
      ...screen.commonButtons());
    screen.extra.replaceChildren(h("p", {}, "Every move is saved: ",
      h("a", { id: "replay-link", href: "#/" }, "replay or share this game")));
    this.renderControls();
  }

  afterRefresh() {
    const { screen } = this;
    const link = screen.extra.querySelector("#replay-link");
    if (link && this.id) link.href = `#/replay?id=${this.id}`;
    screen.warnings.clear();
    if (!this.ongoing()) return;
    if (screen.humanToMove()) screen.fetchWarnings();
    else if (this.mode === "ai") this.aiMove();
  }

  canUndo() {
    return Boolean(this.screen.moves.length) && this.ongoing();
  }

  aiMove() {
    const { screen } = this;
    const controller = new AbortController();
    this.thinking = controller;
    screen.renderSide();
    const moves = [...screen.moves];
    api.aiMove({ ...screen.request(), moves, level: this.level, seed: moves.length + 1 }, { signal: controller.signal })
      .then((answer) => screen.serial.run(async () => {
        if (controller.signal.aborted || this.thinking !== controller) return;
        this.thinking = null;
        const move = screen.view.legal.find((m) => m.text === answer.move);
        if (!move) return;
        screen.moves.push(move.text);
        await this.storeMove();
        await screen.refresh({ animate: move });
      }))
      .catch((e) => {
        if (controller.signal.aborted) return;
        this.thinking = null;
        screen.showBanner(`The AI could not move: ${e.message}`, screen.button("retry-ai", "Try again", () => screen.serial.run(() => screen.refresh())));
        screen.renderSide();
      });
  }

  async humanMove(move) {
    const { screen } = this;
    if (!screen.humanToMove()) return;
    if (!(await screen.confirmSafe(move))) return;
    screen.moves.push(move.text);
    await this.storeMove();
    await screen.refresh({ animate: move });
  }

  async undo() {
    const { screen } = this;
    if (!this.canUndo()) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    let count = 1;
    const toMove = screen.colours().indexOf(screen.view.to_move);
    if (this.mode === "ai" && toMove === this.humanSide && screen.moves.length >= 2) count = 2;
    if (this.mode === "ai" && toMove !== this.humanSide) count = 1;
    screen.moves.splice(screen.moves.length - count, count);
    await this.storeTakeback();
    await screen.refresh();
  }

  async resign() {
    const { screen } = this;
    if (!this.ongoing()) return;
    const loser = this.mode === "ai" ? this.humanSide : screen.colours().indexOf(screen.view.to_move);
    const names = screen.names();
    const sure = await confirmDialog(`Resign the game for ${names[loser]}?`, "Resign", "Keep playing");
    if (!sure) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    screen.outcome = { winner: 1 - loser, reason: this.catalogue.endWords("RESIGN", names[loser]) };
    await this.storeResign(loser === 0 ? "first" : "second");
    screen.draw();
    sound.playEnd();
  }

  newGame() {
    const q = new URLSearchParams(this.params);
    q.delete("id");
    location.hash = `#/play?${q}&new=${Date.now()}`;
  }

  // The clocks count up the time each side has taken, at this screen.
  elapsed(dt) {
    if (!this.ongoing()) return;
    this.clock[this.screen.colours().indexOf(this.screen.view.to_move)] += dt;
  }

  clockValues() {
    const { view } = this.screen;
    if (!view) return null;
    const running = this.ongoing() ? this.screen.colours().indexOf(view.to_move) : null;
    return { ms: this.clock, running };
  }
}
