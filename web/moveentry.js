// A box to type a move in the game's notation (or its judge form: a1a2 for a1-a2).

import { h } from "./dom.js";

export class MoveEntry {
  // `example`: a move as the game writes it; `notation`: how moves are written (the title);
  // `legal()`: the moves legal now (null when none may be typed); `play(move)`.
  constructor({ example, notation, legal, play }) {
    this.example = example;
    this.legal = legal;
    this.play = play;
    this.input = h("input", { id: "move-input", autocomplete: "off", spellcheck: "false", size: 9, placeholder: example, title: notation });
    this.error = h("p", { id: "move-error", class: "hint", "aria-live": "polite" });
    this.element = h("form", { class: "move-entry", hidden: true, onsubmit: (e) => this.submit(e) },
      h("label", { for: "move-input" }, "Type a move "), this.input, " ", h("button", { type: "submit" }, "Play"), this.error);
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim().replace(/\s+/g, "");
    const legal = this.legal();
    if (!text || !legal) return;
    const wanted = text.toLowerCase().replace(/([a-z]\d+)([a-z]\d+)/, "$1-$2");
    const move = legal.find((m) => m.text.toLowerCase() === wanted);
    if (!move) {
      this.error.textContent = `${text} is not a legal move here (moves look like ${this.example}).`;
      return;
    }
    this.error.textContent = "";
    this.input.value = "";
    this.play(move);
  }
}
