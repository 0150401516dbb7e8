// The chat panel of a room, for its players and its spectators: the lines (long words wrap
// inside the panel), a box of at most 500 characters with a counter, and two channels as on
// lichess: the players' (both players and the spectators read it) and the spectators' own
// (CHAT's data3 `spectators`: the players never see it).

import { h } from "./dom.js";

// The longest line the server relays, in characters (code points, as the server counts).
export const LONGEST_CHAT = 500;
const SPECTATORS = "spectators";

export class ChatPanel {
  // `send(text)`: sends a line, true when it went; `spectator`: this page watches (its lines
  // go to the spectators' channel).
  constructor({ send, spectator = false }) {
    this.sendLine = send;
    this.spectator = spectator;
    this.log = h("div", { id: "chat", class: "chat", "aria-live": "polite" });
    this.input = h("input", {
      id: "chat-input", placeholder: spectator ? "say something to the spectators" : "say something", size: 18,
      maxlength: LONGEST_CHAT, "aria-describedby": "chat-count", autocomplete: "off",
    });
    this.count = h("span", { id: "chat-count", class: "hint chat-count", "aria-live": "off" });
    this.input.addEventListener("input", () => this.renderCount());
    const label = spectator ? "Chat with the other spectators (the players do not see it)" : "Chat";
    this.form = h("form", { class: "chat-form", onsubmit: (e) => this.submit(e) },
      h("label", { for: "chat-input", class: "visually-hidden" }, label), this.input, " ",
      h("button", { type: "submit", id: "chat-send" }, "Send"), " ", this.count);
    this.element = h("div", { class: "chat-panel" },
      spectator ? h("p", { class: "hint", id: "chat-channel" }, "Spectators' chat: the players do not see it.") : null,
      this.log, this.form);
    this.renderCount();
  }

  // Characters as the server counts them (code points), not UTF-16 units.
  static length(text) {
    return [...text].length;
  }

  renderCount() {
    const n = ChatPanel.length(this.input.value);
    this.count.textContent = `${n}/${LONGEST_CHAT}`;
    this.count.classList.toggle("near", n > LONGEST_CHAT - 50);
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    if (ChatPanel.length(text) > LONGEST_CHAT) {
      this.note(`A chat message has at most ${LONGEST_CHAT} characters.`);
      return;
    }
    if (!this.sendLine(text)) return;
    this.line(this.spectator ? "you (spectator)" : "you", text, this.spectator);
    this.input.value = "";
    this.renderCount();
  }

  // A CHAT from the room: `name`, `text`, and its channel (data3).
  heard(name, text, channel) {
    const spectators = channel === SPECTATORS;
    this.line(spectators ? `${name} (spectator)` : name, text, spectators);
  }

  line(who, text, spectators = false) {
    this.log.append(h("p", { class: spectators ? "chat-line spectators" : "chat-line" }, `${who}: ${text}`));
    this.log.scrollTop = this.log.scrollHeight;
  }

  note(text) {
    this.log.append(h("p", { class: "note" }, text));
    this.log.scrollTop = this.log.scrollHeight;
  }

  append(node) {
    this.log.append(node);
  }
}
