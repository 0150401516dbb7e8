// A player whose connection dropped: the banner that says how long their seat is kept, counted
// down by the view's ticker, and for the other player the button that claims the win once the
// server allows it (after 10 s, or the whole grace if shorter).

import { h } from "./dom.js";

export class AwayBanner {
  // `room`: the RoomSession (its screen's banner, and whether it plays); `player`: whether this
  // page holds a seat (and may claim).
  constructor(room, { player }) {
    this.room = room;
    this.player = player;
    this.who = null; // { name, until, claimAt }
    this.sentClaim = false;
  }

  // `name`'s connection dropped: the seat is kept `seconds` (NaN: for a while not said).
  gone(name, seconds) {
    const now = Date.now();
    const kept = Number.isFinite(seconds) ? seconds * 1000 : null;
    this.who = { name, until: kept === null ? null : now + kept, claimAt: now + Math.min(10000, kept === null ? 0 : kept) };
    this.show();
  }

  back(name) {
    this.clear();
    this.room.offers.note(`${name || "Your opponent"} is back.`);
  }

  // Nobody is away any more (they came back, the game ended, a new one started).
  clear() {
    this.who = null;
    this.sentClaim = false;
    if (this.room.screen.banner.dataset.kind === "away") this.room.screen.hideBanner();
  }

  // The banner, built once and counted down by the ticker (the count is not read out every
  // second: the banner is polite, and the numbers are hidden from it).
  show() {
    const { screen } = this.room;
    const banner = screen.banner;
    this.text = h("span", { id: "away-text" }, `${this.who.name} lost the connection; `);
    this.count = h("span", { "aria-hidden": "true" });
    banner.hidden = false;
    banner.dataset.kind = "away";
    banner.setAttribute("role", "status");
    this.claimButton = null;
    const actions = [];
    if (this.player && this.room.playing()) {
      this.claimButton = screen.button("claim", "Claim the win", () => this.claim(), { class: "small", disabled: true });
      actions.push(" ", this.claimButton);
    }
    banner.replaceChildren(this.text, this.count, ...actions);
    this.render();
  }

  render() {
    if (!this.who || this.room.screen.banner.dataset.kind !== "away") return;
    const text = this.words();
    if (this.count.textContent !== text) this.count.textContent = text;
    if (!this.claimButton) return;
    const can = Date.now() >= this.who.claimAt && this.room.playing() && !this.room.lost;
    const disabled = !can || this.sentClaim;
    if (this.claimButton.disabled !== disabled) this.claimButton.disabled = disabled;
  }

  words() {
    const left = this.who.until === null ? null : Math.max(0, Math.ceil((this.who.until - Date.now()) / 1000));
    const kept = left === null ? "their seat is kept for a while." : `their seat is kept for ${left} s.`;
    if (!this.player || !this.room.playing()) return kept;
    const wait = Math.ceil((this.who.claimAt - Date.now()) / 1000);
    return `${kept} ${wait > 0 ? `You may claim the win in ${wait} s.` : "You may claim the win now."}`;
  }

  claim() {
    if (!this.who || Date.now() < this.who.claimAt || !this.room.playing()) return;
    if (this.room.sendOffer("claim", "")) this.sentClaim = true;
    this.render();
  }
}
