// The two clocks beside the board: each side's name, its player's name and rating when known,
// and its time; the running one marked, and marked low under 10 s.

import { h } from "./dom.js";

// A clock's time: minutes and seconds, and with `tenths` (a clock counting down) the tenths of
// a second under 10 s, as lichess shows them.
export function clockText(ms, tenths = false) {
  if (ms === null || ms === undefined) return "—";
  if (tenths && ms < 10000) {
    const t = Math.max(0, Math.floor(ms / 100));
    return `0:${String(Math.floor(t / 10)).padStart(2, "0")}.${t % 10}`;
  }
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

export class Clocks {
  constructor() {
    this.faces = [0, 1].map((i) => h("div", { class: "clock", id: `clock-${i === 0 ? "first" : "second"}` }));
    this.element = h("div", { class: "clocks" }, ...this.faces);
  }

  // `values`: { ms: [first, second], running: side or null, countdown } or null (no clock);
  // `sides`: the sides' names; `players`, `ratings`: by side, null where unknown.
  render({ values, sides, players, ratings }) {
    for (const i of [0, 1]) {
      const text = values ? clockText(values.ms[i], Boolean(values.countdown)) : "—";
      const rated = ratings[i] ? ` (${ratings[i]})` : "";
      const label = players[i] ? `${sides[i]} · ${players[i]}${rated}` : sides[i];
      const face = this.faces[i];
      if (face.textContent !== `${label} ${text}`) face.textContent = `${label} ${text}`;
      face.classList.toggle("running", Boolean(values) && values.running === i);
      face.classList.toggle("low", Boolean(values && values.countdown) && values.running === i && values.ms[i] < 10000);
    }
  }
}
