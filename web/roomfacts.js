// What a player's page says about its game beside the chat: the link to share, the time
// control, a training room, rated or casual (with both players' ratings, which the clocks show
// by their names), and how many watch — the players see it, as on lichess (the room list's
// count, asked every 5 s while the game runs).

import { h } from "./dom.js";
import { ratingClass, ratingOf } from "./players.js";
import { spectatorsOf, spectatorWords } from "./roomlinks.js";

// How often a player's page asks how many watch its game.
const SPECTATORS_EVERY_MS = 5000;

export class RoomFacts {
  // `link`: the address to share; `tc`: the time control asked for (or null); `training`: a
  // training room asked for; `playing()`: whether the page holds a seat in a game not yet over;
  // `gone()`: whether the page was left; `playerNames()`: by side; `ratingsFound()`: the
  // players' ratings arrived (for the clocks).
  constructor({ room, link, tc, training, playing, gone, playerNames, ratingsFound }) {
    this.room = room;
    this.calls = { playing, gone, playerNames, ratingsFound };
    this.ratingsBySide = null;
    this.timeLine = h("p", { id: "time-control", hidden: !tc }, tc ? `Time: ${tc.label}.` : "");
    this.spectatorLine = h("p", { id: "spectators", class: "hint", hidden: true });
    this.ratedLine = h("p", { id: "rated", hidden: true });
    this.trainingLine = h("p", { id: "training", hidden: !training },
      "Training room: the engine warns both players before a move it sees losing.");
    this.elements = [
      h("p", {}, h("label", { for: "share-link" }, "Share this link: "),
        h("input", { id: "share-link", readonly: true, value: link, size: 30, onfocus: (e) => e.target.select() })),
      this.timeLine,
      this.trainingLine,
      this.ratedLine,
      this.spectatorLine,
    ];
    this.spectatorPoll = setInterval(() => this.countSpectators(), SPECTATORS_EVERY_MS);
  }

  dispose() {
    clearInterval(this.spectatorPoll);
  }

  // A game starts (READY): its time as the room says it, a training room or not, rated or not.
  gameStarts(m, { timeWords, training, game }) {
    this.timeLine.textContent = `Time: ${timeWords}.`;
    this.timeLine.hidden = false;
    this.trainingLine.hidden = !training;
    this.showRated(m, game);
  }

  // The ratings the clocks show by the players' names: during a rated game only.
  ratings() {
    return this.ratingsBySide && this.calls.playing() ? this.ratingsBySide : [null, null];
  }

  // Rated or casual, said; in a rated game both players' ratings of its class by their names.
  async showRated(m, game) {
    const rated = Number(m.rated) === 1;
    this.ratedLine.hidden = false;
    this.ratedLine.textContent = rated ? "Rated game: it counts for both players' ratings." : "Casual game: no rating changes.";
    this.ratingsBySide = [null, null];
    if (!rated) return;
    const cls = ratingClass(game, m);
    const names = this.calls.playerNames();
    const found = await Promise.all(names.map((name) => (name ? ratingOf(name, cls) : null)));
    if (this.calls.gone() || this.calls.playerNames().join() !== names.join()) return;
    this.ratingsBySide = found;
    this.calls.ratingsFound();
  }

  // The spectators of the game this page plays, shown while it runs.
  async countSpectators() {
    if (!this.calls.playing()) {
      this.spectatorLine.hidden = true;
      return;
    }
    let n;
    try {
      n = await spectatorsOf(this.room);
    } catch (e) {
      return;
    }
    if (this.calls.gone()) return;
    this.spectatorLine.hidden = !n;
    if (n) this.spectatorLine.textContent = spectatorWords(n);
  }
}
