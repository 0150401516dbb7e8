// Step controls, for a replay and for the judge visualiser: first, back, play or pause, next,
// last, go to a step, and the speed of play. Playing waits for each step to be shown before the
// next is timed, so it never skips one, and Pause stops where it is.

import { h } from "./dom.js";

export class StepControls {
  // `ids`: { first, back, play, next, last, goto, go, speed } element ids. `words`: { group,
  // unit, first, back, next, last, go } (the group's and buttons' accessible names, the unit
  // in "move 3"). `speeds`: [[ms, label]], `speed`: the default ms. The view answers:
  // `show(n, { next })` shows step n (a promise; `next` when it is the Next button's),
  // `advance()` shows the next step while playing (a promise), `current()` and `last()`.
  constructor({ ids, words, speeds, speed, show, advance, current, last }) {
    Object.assign(this, { show, advance, current, last });
    this.playing = false;
    const button = (id, label, aria, action) => h("button", { id, type: "button", "aria-label": aria, onclick: action }, label);
    this.goTo = h("input", { id: ids.goto, type: "number", min: 0, value: 0, size: 4 });
    this.speed = h("select", { id: ids.speed }, speeds.map(([v, l]) => h("option", { value: v, selected: v === speed }, l)));
    this.playButton = h("button", { id: ids.play, type: "button", onclick: () => (this.playing ? this.pause() : this.play()) }, "Play");
    this.element = h("div", { class: "replay", role: "group", "aria-label": words.group },
      button(ids.first, "First", words.first, () => this.jump(0)),
      button(ids.back, "◀", words.back, () => this.jump(this.current() - 1)),
      this.playButton,
      button(ids.next, "▶", words.next, () => this.jump(this.current() + 1, true)),
      button(ids.last, "Last", words.last, () => this.jump(this.last())),
      h("label", { for: ids.goto }, ` ${words.unit} `), this.goTo,
      button(ids.go, "Go", words.go, () => this.jump(Number(this.goTo.value))),
      h("label", { for: ids.speed }, " speed "), this.speed);
  }

  // The step shown now, for the go-to box.
  shown(k) {
    this.goTo.value = k;
    this.goTo.max = this.last();
  }

  // A person's step: stops playing, then shows step `k` (within the steps there are).
  jump(k, next = false) {
    this.pause();
    return this.show(Math.max(0, Math.min(this.last(), k)), { next });
  }

  play() {
    if (this.current() >= this.last()) this.show(0, { next: false });
    this.playing = true;
    this.playButton.textContent = "Pause";
    this.schedule();
  }

  // The next step once this one is shown and the speed's delay has passed.
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (!this.playing) return;
      await this.advance();
      if (this.current() >= this.last()) this.pause();
      else if (this.playing) this.schedule();
    }, Number(this.speed.value));
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.playButton.textContent = "Play";
  }
}
