// How many moves in a row were played without a capture, of the limit that ends the game (for a
// game whose options have one, while it is on).

import { h } from "./dom.js";

export class NoCaptureCounter {
  constructor() {
    this.element = h("p", { id: "no-capture", class: "no-capture", hidden: true });
  }

  // The rule from the game's description and settings: { limit, help }, or null when the game
  // has none or it is off (0).
  static rule(def, settings) {
    const option = def && def.options.find((o) => o.name === "max_no_capture_round");
    if (!option) return null;
    const value = settings.max_no_capture_round;
    const limit = value === undefined || value === null ? option.default : Number(value);
    return limit > 0 ? { limit, help: option.help } : null;
  }

  // `count`: the position's quiet plies (absent where the server does not count them).
  render(rule, count) {
    const node = this.element;
    node.hidden = !rule || typeof count !== "number";
    if (node.hidden) return;
    node.textContent = `Moves without a capture: ${count} of ${rule.limit}`;
    node.title = `${rule.help[0].toUpperCase()}${rule.help.slice(1)}: ${rule.limit}.`;
    node.classList.toggle("near", rule.limit - count <= Math.min(10, Math.ceil(rule.limit / 4)));
  }
}
