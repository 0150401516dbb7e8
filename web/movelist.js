// The moves played, one line per full move (the first player's ply and the second's), and the
// buttons that browse them while the game goes on (for a phone; ←/→, Home and End do the same).

import { h } from "./dom.js";

export class MoveList {
  // `onPick(ply)`: a ply clicked or chosen with Enter; `onNavigate(where)`: first, back,
  // forward or last.
  constructor({ onPick, onNavigate }) {
    this.element = h("ol", { id: "moves", class: "moves", "aria-label": "Moves played" });
    const pick = (e) => {
      const ply = e.target.closest(".ply");
      if (ply && (e.type === "click" || e.key === "Enter")) onPick(Number(ply.dataset.ply));
    };
    this.element.addEventListener("click", pick);
    this.element.addEventListener("keydown", pick);
    this.where = h("span", { id: "browsing", class: "hint", "aria-live": "polite" });
    const navButton = (id, label, aria, where) => h("button", { id, type: "button", class: "small", "aria-label": aria,
      title: aria, onclick: () => onNavigate(where) }, label);
    this.liveButton = h("button", { id: "nav-live", type: "button", class: "small", hidden: true,
      onclick: () => onNavigate("last") }, "Back to the game");
    this.nav = h("div", { class: "move-nav", role: "group", "aria-label": "Browse the moves", hidden: true },
      navButton("nav-first", "«", "First position (Home)", "first"),
      navButton("nav-back", "◀", "Previous move (←)", "back"),
      navButton("nav-forward", "▶", "Next move (→)", "forward"),
      navButton("nav-last", "»", "The game now (End)", "last"),
      this.liveButton, this.where);
  }

  // The step through the moves a key asks for (←/→, Home, End: back, forward, first, last),
  // or null where the key means something else: on the board (walking its points), in a box
  // being typed in (but the empty move box), with a dialog open.
  static stepFor(event, moveInput) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return null;
    const where = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }[event.key];
    if (!where || document.querySelector("dialog[open]")) return null;
    const target = event.target instanceof Element ? event.target : null;
    if (target && target.closest("svg.board")) return null;
    const typing = target && target.matches("input, textarea, select, [contenteditable]");
    return typing && !(target === moveInput && !target.value) ? null : where;
  }

  // `moves` listed, the first `played` of them on the board; `browsing`: an earlier position
  // is shown (the list scrolls to it, else to the end).
  render({ moves, played, clickable, browsing }) {
    const items = [];
    for (let i = 0; i < moves.length; i += 2) {
      const ply = (j) => h("span", {
        class: j === played - 1 ? "ply current" : j >= played ? "ply ahead" : "ply",
        "data-ply": j + 1,
        tabindex: clickable ? 0 : null,
        role: clickable ? "button" : null,
      }, moves[j]);
      items.push(h("li", {}, ply(i), i + 1 < moves.length ? ply(i + 1) : ""));
    }
    const list = this.element;
    list.replaceChildren(...items);
    const current = browsing && list.querySelector(".ply.current");
    if (current) list.scrollTop = current.offsetTop - list.offsetTop - list.clientHeight / 2;
    else list.scrollTop = list.scrollHeight;
  }

  // The browsing buttons: hidden where the view has its own, else which way there is to go.
  renderNavigation({ shown, at, total, browsing }) {
    this.nav.hidden = !shown;
    if (!shown) return;
    for (const [id, off] of [["nav-first", at === 0], ["nav-back", at === 0], ["nav-forward", at >= total], ["nav-last", at >= total]]) {
      this.nav.querySelector(`#${id}`).disabled = off;
    }
    this.liveButton.hidden = !browsing;
    this.where.textContent = browsing ? `Looking at move ${at} of ${total}: → or End returns to the game.` : "";
  }
}
