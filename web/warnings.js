// The engine's warning before a move it sees losing by force: at one screen and in a training
// room only (a live game between people otherwise gets no engine's help).

import * as api from "./api.js";
import { confirmDialog } from "./dom.js";

export class LosingMoveWarnings {
  constructor() {
    this.losing = new Set();
    // While the question is open, the board waits.
    this.asking = false;
  }

  clear() {
    this.losing = new Set();
  }

  // Asks which moves lose after `moves` (`request`: the game and its options); kept only while
  // `stillAt()` says the game is still there.
  async fetch(request, moves, stillAt) {
    try {
      const analysis = await api.analyze({ ...request, moves }, { timeout: 10000 });
      if (stillAt()) this.losing = new Set(analysis.losing);
    } catch (e) {
      // Warnings are a help, not a requirement.
    }
  }

  // Whether to play `move`: true at once unless it loses, else the player's answer.
  async confirm(move) {
    if (!this.losing.has(move.text)) return true;
    this.asking = true;
    const play = await confirmDialog(`${move.text} loses: after it your opponent can force a win. Play it anyway?`, "Play it", "Cancel");
    this.asking = false;
    return play;
  }
}
