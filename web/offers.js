// Offers between the players of a room, as the room tells them (the extension's OFFER): a draw
// or a takeback offered, answered, withdrawn or lapsed; an abort before both have moved; a
// claim; a rematch after the game. A player's page makes and answers them; a spectator's shows
// them in the players' names. A short note says what became of each (kept in the chat).

import { h } from "./dom.js";

// The words for an offer's kind.
const OFFERED = { draw: "a draw", takeback: "a takeback" };
const NOUN = { draw: "draw", takeback: "takeback" };

export class Offers {
  // `room`: the RoomSession (its screen's seat and moves, its names, connection and chat);
  // `player`: whether this page holds a seat (else it watches).
  constructor(room, { player }) {
    this.room = room;
    this.player = player;
    this.text = h("span", { id: "offer-text" });
    this.buttons = h("span", { class: "offer-buttons" });
    this.box = h("div", { id: "offer", class: "offer", hidden: true }, this.text, this.buttons);
    this.noteLine = h("p", { id: "offer-note", class: "note", "aria-live": "polite" });
    this.reset();
  }

  dispose() {
    clearTimeout(this.noteTimer);
  }

  // A new game: nothing offered, nothing blocked.
  reset() {
    this.pending = null; // { kind, mine, by }
    this.sentOffer = null;
    this.sentAbort = false;
    this.made = { draw: 0, takeback: 0 };
    this.blockedUntil = { draw: 0, takeback: 0 };
    this.claimed = null;
    this.note("");
    this.render();
  }

  // A short line about what happened to an offer, shown a few seconds (and kept in the chat).
  note(text) {
    clearTimeout(this.noteTimer);
    this.noteLine.textContent = text;
    if (!text) return;
    if (this.room.chat) this.room.chat.append(h("p", { class: "note" }, text));
    this.noteTimer = setTimeout(() => {
      if (this.noteLine.textContent === text) this.noteLine.textContent = "";
    }, 12000);
  }

  // OFFER(kind, action, name) from the room: an offer made, answered, withdrawn or lapsed; an
  // abort or a claim (the END follows); or, to its sender alone, a refusal, why in words and
  // its `code` (the extension key the page decides by).
  message(kind, action, who, code = "") {
    if (kind === "rematch") {
      if (this.player) this.rematchMessage(action, who);
      return;
    }
    const noun = NOUN[kind] || kind;
    const pending = this.pending;
    switch (action) {
      case "offer":
        this.pending = { kind, mine: this.isMine(kind, who), by: who };
        if (this.pending.mine && kind in this.made) this.made[kind] += 1;
        break;
      case "accept":
        this.pending = null;
        this.note(this.actorWords(pending, true, `accepted the ${noun}`, who));
        break;
      case "decline":
        this.pending = null;
        if (pending && pending.mine) this.block(kind);
        this.note(this.actorWords(pending, true, `declined the ${noun}`, who));
        break;
      case "withdraw":
        this.pending = null;
        if (pending && pending.mine) this.block(kind);
        this.note(this.actorWords(pending, false, `withdrew the ${noun} offer`, who));
        break;
      case "lapse":
        this.pending = null;
        this.note(`The ${noun} offer lapsed: a move was played.`);
        break;
      case "refused":
        this.refused(kind, who, code);
        break;
      case "":
        if (kind === "abort") this.note(`${this.nameWords(who)} aborted the game.`);
        if (kind === "claim") {
          this.claimed = this.nameWords(who, true);
          this.note(`${this.nameWords(who)} claimed the win.`);
        }
        break;
      default:
        break;
    }
    this.render();
    this.room.screen.renderControls();
  }

  // The opponent asks for a rematch (Accept or Decline), or declined this page's.
  rematchMessage(action, who) {
    if (action === "offer") this.pending = { kind: "rematch", mine: false, by: who };
    else if (action === "decline") {
      const declined = who === this.room.myName && this.pending && this.pending.kind === "rematch";
      this.pending = null;
      this.note(declined ? "You declined the rematch." : "Your opponent declined the rematch.");
    } else if (action === "refused") this.note(`Not done: ${who}.`);
    this.render();
  }

  // The offer waiting when the room's snapshot was taken: a page that reloads or starts
  // watching meanwhile missed the OFFER that made it.
  fromSnapshot(snap) {
    const o = snap.status === "playing" ? snap.offer : null;
    const { screen } = this.room;
    const side = screen.mySide;
    const mine = Boolean(o) && side !== null && o.colour === screen.colours()[side];
    this.pending = o ? { kind: o.kind, mine, by: o.by } : null;
    this.render();
    screen.renderControls();
  }

  // Whether the rematch asked for by the opponent is waiting (and clears it when `clear`).
  rematchAsked(clear = false) {
    const asked = Boolean(this.pending && this.pending.kind === "rematch");
    if (asked && clear) {
      this.pending = null;
      this.render();
    }
    return asked;
  }

  // What the server allows (it checks again): one offer at a time, not again after a decline or
  // a withdrawal until a move is played, at most three of a kind a game.
  may(kind) {
    const { room } = this;
    return room.playing() && !room.lost && !this.pending && !this.sentOffer
      && room.screen.moves.length >= this.blockedUntil[kind] && this.made[kind] < 3;
  }

  // A takeback undoes this side's last move (and the answer to it): there must be one.
  hasMoveToTakeBack() {
    const { screen } = this.room;
    if (!screen.view || screen.mySide === null) return false;
    const myTurn = screen.colours().indexOf(screen.view.to_move) === screen.mySide;
    return screen.moves.length >= (myTurn ? 2 : 1);
  }

  offer(kind) {
    if (!this.may(kind)) return;
    if (this.room.sendOffer(kind, "offer")) this.sentOffer = kind;
    this.room.screen.renderControls();
  }

  answer(kind, action) {
    if (!this.pending) return;
    this.room.sendOffer(kind, action);
    // The room's answer (accept, decline, withdraw) clears the offer for everyone.
    for (const b of this.buttons.querySelectorAll("button")) b.disabled = true;
  }

  abort() {
    const { room } = this;
    if (!room.playing() || room.screen.moves.length >= 2) return;
    if (room.sendOffer("abort", "")) this.sentAbort = true;
    room.screen.renderControls();
  }

  // Whether the offer of `kind` announced with `who`'s name is this page's (a spectator makes
  // none; a player whose opponent has the same name knows it by what it sent).
  isMine(kind, who) {
    if (!this.player) return false;
    const { myName, opponentName } = this.room;
    const mine = this.sentOffer === kind && (who === myName || myName === opponentName);
    if (this.sentOffer === kind) this.sentOffer = null;
    return mine || (who === myName && myName !== opponentName);
  }

  block(kind) {
    this.blockedUntil[kind] = this.room.screen.moves.length + 1;
  }

  // The server refused this page's offer, abort or claim: `why` in words, `code` for the page
  // (offers.rs: `too_soon` after a decline or a withdrawal, `too_many` after three).
  refused(kind, why, code) {
    if (this.sentOffer === kind) this.sentOffer = null;
    if (kind === "abort") this.sentAbort = false;
    if (kind === "claim") this.room.away.sentClaim = false;
    if (code === "too_soon") this.block(kind);
    if (code === "too_many" && kind in this.made) this.made[kind] = 3;
    this.note(`Not done: ${why}.`);
  }

  // A player's name as this page says it: "you" and "your opponent" to a player, the name to a
  // spectator.
  nameWords(who, lower = false) {
    if (!this.player) return who || "A player";
    const { myName, opponentName } = this.room;
    if (who && who === myName && myName !== opponentName) return lower ? "you" : "You";
    return lower ? "your opponent" : "Your opponent";
  }

  // Who answered (`answerer`: the offer's receiver, else its maker) and what they did.
  actorWords(pending, answerer, did, who) {
    if (!this.player) return `${this.nameWords(who)} ${did}.`;
    if (!pending) return `The ${did.split(" ").pop()} offer was answered.`;
    const me = answerer ? !pending.mine : pending.mine;
    if (did.startsWith("withdrew")) return me ? `You ${did}.` : `Your opponent ${did}.`;
    const noun = NOUN[pending.kind] || pending.kind;
    const verb = did.split(" ")[0];
    return me ? `You ${verb} the ${noun}.` : `Your opponent ${verb} your ${noun} offer.`;
  }

  // The offer waiting for an answer, and what this page may do about it.
  render() {
    const p = this.pending;
    this.box.hidden = !p;
    if (!p) return;
    this.text.textContent = this.words(p);
    this.buttons.replaceChildren(...this.actions(p));
  }

  words(p) {
    if (!this.player) {
      return p.kind === "takeback" ? `${this.nameWords(p.by)} asks to take back a move.` : `${this.nameWords(p.by)} offers ${OFFERED[p.kind] || p.kind}.`;
    }
    if (p.kind === "rematch") return "Your opponent asks for a rematch (the colours swap).";
    if (p.mine) return p.kind === "takeback" ? "You asked to take back your last move." : "You offered a draw.";
    return p.kind === "takeback" ? "Your opponent asks to take back their last move." : "Your opponent offers a draw.";
  }

  actions(p) {
    const { room } = this;
    const { screen } = room;
    if (!this.player) return [];
    if (p.kind === "rematch") {
      return [
        screen.button("rematch-accept", "Accept", () => screen.serial.run(() => room.rematch()), { class: "small primary" }),
        screen.button("rematch-decline", "Decline", () => this.answer("rematch", "decline"), { class: "small" }),
      ];
    }
    if (screen.mySide === null || !room.playing()) return [];
    if (p.mine) return [screen.button("offer-withdraw", "Withdraw", () => this.answer(p.kind, "withdraw"), { class: "small" })];
    return [
      screen.button("offer-accept", "Accept", () => this.answer(p.kind, "accept"), { class: "small primary" }),
      screen.button("offer-decline", "Decline", () => this.answer(p.kind, "decline"), { class: "small" }),
    ];
  }
}
