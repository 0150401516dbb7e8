// Replaying a stored game: step, play at a chosen speed, go to move N, share a link to the move
// shown (`#/replay?id=N&ply=K`: the address follows the moves), download the record, analyse,
// and try moves of one's own from any position. Playback waits for each position to be drawn
// before the next, so it never skips one, and Pause stops where it is. The view owns the game's
// screen (game.js), whose moves are the record's up to the move shown (or the ones tried), and
// the step controls (steps.js) that replace its browsing.

import * as api from "./api.js";
import { h } from "./dom.js";
import { GameScreen } from "./game.js";
import { StepControls } from "./steps.js";

export class ReplayView {
  constructor(params, context) {
    this.params = params;
    this.catalogue = context.catalogue;
    this.screen = new GameScreen(params, context, {
      navigable: false,
      hooks: {
        mayMove: () => this.trying,
        humanMove: (move) => this.humanMove(move),
        statusText: (turn) => this.statusText(turn),
        end: (own) => this.end(own),
        // Any position of the record (or tried from it) may be analysed, once the game is over
        // or was played at one screen.
        analysable: () => Boolean(this.record) && !this.live,
        storedId: () => (this.finalOutcome ? this.id : null),
        // A click on a move in the list (or the analysis graph).
        goToPly: (n) => {
          if (this.steps) this.step(n);
        },
        navigate: (where) => this.navigate(where),
        listedMoves: () => this.listedMoves(),
      },
    });
    this.id = params.get("id");
    this.cursor = 0;
    this.trying = false;
    this.screen.title.textContent = `Replay of game ${this.id}`;
    this.screen.serial.run(() => this.load());
  }

  dispose() {
    this.screen.dispose();
    if (this.steps) this.steps.pause();
  }

  async load() {
    const { screen } = this;
    let game;
    try {
      game = await api.storedGame(this.id);
    } catch (e) {
      screen.showBanner(`Cannot load game ${this.id}: ${e.message}. `, h("a", { href: "#/" }, "Back home"));
      screen.status.textContent = "No game to replay.";
      return;
    }
    screen.settings = this.catalogue.settingsFrom(game.settings || {}, game.game);
    this.record = game.moves.map((m) => m.move);
    screen.title.textContent = `Replay of game ${this.id}: ${this.catalogue.title(screen.settings.game, screen.settings.size)} — ${game.first} vs ${game.second}`;
    const names = screen.names();
    const winner = game.winner === "first" ? 0 : game.winner === "second" ? 1 : null;
    const loser = winner === null ? null : names[1 - winner];
    const title = game.end_reason === "ABORTED" ? "Aborted" : game.end_reason === "INTERRUPTED" ? "Interrupted" : null;
    this.finalOutcome = game.end_reason ? { winner, reason: this.catalogue.endWords(game.end_reason, loser), title } : null;
    // A game two people still play in a room: no engine's help until it ends.
    this.live = !game.end_reason && !(game.settings && game.settings.mode);
    if (this.live) {
      screen.showBanner(`Game ${this.id} is being played in room ${game.room}: the engine and the analysis open when it ends.`,
        h("a", { href: `#/watch?room=${game.room}`, id: "watch-live" }, "Watch it live"));
    }
    this.buildControls(game.game);
    const ply = Number(this.params.get("ply"));
    await this.seek(Number.isInteger(ply) && ply > 0 ? ply : 0);
  }

  buildControls(game) {
    const { screen } = this;
    this.steps = new StepControls({
      ids: { first: "start", back: "back", play: "play", next: "forward", last: "end", goto: "goto", go: "go", speed: "speed" },
      words: { group: "Replay controls", unit: "move", first: "First position", back: "Previous move", next: "Next move", last: "Last position", go: "Go to that move" },
      speeds: [["3200", "¼×"], ["1600", "½×"], ["800", "1×"], ["400", "2×"], ["200", "4×"]],
      speed: "800",
      show: (n) => screen.serial.run(() => this.seek(n)),
      advance: () => screen.serial.run(async () => {
        if (this.steps.playing) await this.seek(this.cursor + 1, { playback: true });
      }),
      current: () => this.cursor,
      last: () => this.record.length,
    });
    this.tryButton = screen.button("try", "Try from here", () => this.tryFromHere());
    screen.controls.replaceChildren(this.tryButton, ...screen.commonButtons());
    this.shareInput = h("input", { id: "share-link", readonly: true, size: 28, onfocus: (e) => e.target.select() });
    this.copyNote = h("span", { id: "copy-note", class: "hint", "aria-live": "polite" });
    const base = `arbiter-${game}-${this.id}`;
    screen.extra.replaceChildren(this.steps.element,
      h("p", {}, `${this.record.length} moves. `, h("label", { for: "share-link" }, "Link to this move: "), this.shareInput, " ",
        screen.button("copy-link", "Copy link", () => this.copyLink(), { class: "small" }), " ", this.copyNote),
      h("p", {}, "Download: ",
        h("a", { id: "download-record", class: "button small", href: api.recordUrl(this.id), download: `${base}.txt` }, "Record (.txt)"), " ",
        h("a", { id: "download-json", class: "button small", href: api.gameUrl(this.id), download: `${base}.json` }, "JSON")));
  }

  // The address of the position shown: the page's own address follows it, and the share box.
  showLink() {
    const q = new URLSearchParams(this.params);
    q.set("id", this.id);
    if (this.cursor > 0) q.set("ply", String(this.cursor));
    else q.delete("ply");
    const hash = `#/replay?${q}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
    this.shareInput.value = `${location.origin}${location.pathname}${hash}`;
  }

  async copyLink() {
    const link = this.shareInput.value;
    try {
      await navigator.clipboard.writeText(link);
      this.copyNote.textContent = "Link copied.";
    } catch (e) {
      this.shareInput.focus();
      this.shareInput.select();
      this.copyNote.textContent = "Copy the selected link (Ctrl+C).";
    }
  }

  // The record's end at its last move; `rules`: the screen's own end (the board's), which the
  // moves tried show.
  end(rules) {
    if (this.trying) return rules;
    if (this.cursor !== this.record.length) return null;
    if (!this.finalOutcome) return rules;
    return { winner: this.finalOutcome.winner, title: this.finalOutcome.title, reason: this.finalOutcome.reason || (rules && rules.reason) || "the game is over" };
  }

  statusText(turn) {
    if (this.trying) return `Trying moves from move ${this.triedFrom} — ${turn}`;
    return `Move ${this.cursor} of ${this.record.length} — ${turn}`;
  }

  // A user's step: stops playback, then shows position `n`.
  step(n) {
    this.steps.jump(n);
  }

  // The replay steps with its own controls, and with ←/→, Home and End.
  navigate(where) {
    if (!this.steps || this.trying) return false;
    this.step({ first: 0, back: this.cursor - 1, forward: this.cursor + 1, last: this.record.length }[where]);
    return true;
  }

  // The whole record, up to the move shown; the moves tried instead while trying.
  listedMoves() {
    const { moves } = this.screen;
    return this.trying ? { moves, played: moves.length } : { moves: this.record || [], played: this.cursor };
  }

  // Shows position `n`; during playback only while still playing.
  async seek(n, { playback = false } = {}) {
    const { screen } = this;
    const target = Math.max(0, Math.min(this.record.length, n));
    const forward = target === this.cursor + 1 && screen.view;
    const move = forward ? screen.view.legal.find((m) => m.text === this.record[this.cursor]) : null;
    const before = { cursor: this.cursor, moves: screen.moves };
    this.cursor = target;
    screen.moves = this.record.slice(0, target);
    const shown = await screen.refresh({ animate: move, wanted: playback ? () => this.steps.playing : null });
    if (!shown && playback) {
      this.cursor = before.cursor;
      screen.moves = before.moves;
      screen.draw();
    }
    this.steps.shown(this.cursor);
    if (!this.trying) this.showLink();
  }

  tryFromHere() {
    const { screen } = this;
    this.steps.pause();
    this.trying = true;
    this.triedFrom = this.cursor;
    screen.outcome = null;
    screen.controls.replaceChildren(
      screen.button("undo", "Undo", () => screen.serial.run(async () => {
        if (screen.moves.length > this.triedFrom) screen.moves.pop();
        await screen.refresh();
      })),
      screen.button("back-to-record", "Back to the record", () => {
        this.trying = false;
        screen.controls.replaceChildren(this.tryButton, ...screen.commonButtons());
        this.step(this.triedFrom);
      }),
      ...screen.commonButtons());
    screen.draw();
  }

  async humanMove(move) {
    const { screen } = this;
    if (!this.trying || !screen.humanToMove()) return;
    screen.moves.push(move.text);
    await screen.refresh({ animate: move });
  }
}
