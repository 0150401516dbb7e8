// The engine's warning before a move it sees losing by force: at one screen and in a training
// room only (a live game between people otherwise gets no engine's help).

import * as api from "./api.js";
import { confirmDialog } from "./dom.js";

export class LosingMoveWarnings {
  constructor() {
    this.losing = new Set();
    this.pending = null; // the fetch for the position shown, while it runs
    // While the question is open, the board waits.
    this.asking = false;
  }

  clear() {
    this.losing = new Set();
  }

  // Asks which moves lose after `moves` (`request`: the game and its options); kept only while
  // `stillAt()` says the game is still there.
  fetch(request, moves, stillAt) {
    const fetched = api.analyze({ ...request, moves }, { timeout: 10000 })
      .then((analysis) => {
        if (stillAt()) this.losing = new Set(analysis.losing);
      })
      // Warnings are a help, not a requirement.
      .catch(() => {})
      .finally(() => {
        if (this.pending === fetched) this.pending = null;
      });
    this.pending = fetched;
    return fetched;
  }

  // Whether to play `move`: true at once unless it loses, else the player's answer. `waitMs`:
  // how long a move played before the warnings arrived waits for them (a quick player still
  // hears of a losing move).
  async confirm(move, { waitMs = 0 } = {}) {
    if (waitMs && this.pending) await Promise.race([this.pending, new Promise((r) => setTimeout(r, waitMs))]);
    if (!this.losing.has(move.text)) return true;
    this.asking = true;
    const play = await confirmDialog(`${move.text} loses: after it your opponent can force a win. Play it anyway?`, "Play it", "Cancel");
    this.asking = false;
    return play;
  }
}
