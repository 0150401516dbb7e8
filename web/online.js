// Playing online and watching, over the course protocol on the server's WebSocket. A reload, a
// dropped connection or another tab of the same browser takes the same seat back (a token this
// browser keeps per room; the tab it replaces watches from then on); a page coming back never
// seeks a game by itself (READY's `resume`); leaving a running game asks first. Players offer each other draws and takebacks, abort before both have moved, and
// claim the game when the opponent's connection has been gone a while (the extension's OFFER).

import { ChatPanel } from "./chat.js";
import { GameView } from "./game.js";
import { Connection } from "./net.js";
import { ratingClass, ratingOf } from "./players.js";
import { badRoom, homeLink, spectatorsOf, spectatorWords } from "./roomlinks.js";
import * as sound from "./sound.js";
import {
  confirmDialog, endWords, gameDef, gameOptions, gameTitle, h, nameSecret, playerName, PROTOCOL, randomToken, replaceGuestName,
  settingsFrom, timeControl, timeWords,
} from "./ui.js";

// The protocol's operation codes, as the server defines them.
export const OP = new Proxy({}, { get: (_, name) => PROTOCOL.ops[name] });

// How often a player's page asks how many watch its game.
const SPECTATORS_EVERY_MS = 5000;

// The words for an offer's kind.
const OFFERED = { draw: "a draw", takeback: "a takeback" };
const NOUN = { draw: "draw", takeback: "takeback" };

// What both online views share: the connection, offers and absences as the room tells them, and
// the end of a game.
export class NetworkView extends GameView {
  build() {
    super.build();
    // An offer waiting for its answer, and what became of the last one.
    this.offerText = h("span", { id: "offer-text" });
    this.offerButtons = h("span", { class: "offer-buttons" });
    this.offerBox = h("div", { id: "offer", class: "offer", hidden: true }, this.offerText, this.offerButtons);
    this.offerNote = h("p", { id: "offer-note", class: "note", "aria-live": "polite" });
    this.ratingsLine = h("p", { id: "ratings", class: "note", hidden: true });
    this.banner.after(this.offerBox, this.offerNote, this.ratingsLine);
    this.pending = null; // { kind, mine }
    this.away = null; // the opponent (or a player watched) whose connection dropped: { name, until, claimAt }
  }

  dispose() {
    super.dispose();
    clearTimeout(this.retry);
    clearTimeout(this.noteTimer);
    if (this.connection) this.connection.close();
  }

  // Settings from an END or READY's extension keys, when the server names the game.
  adoptSettings(m) {
    if (m.game && gameDef(m.game)) this.settings = settingsFrom(m, m.game);
    if (m.clock_ms) this.clockMs = Number(m.clock_ms);
    if (m.clock_ms) this.incrementMs = Number(m.increment_ms) || 0;
    this.timeoutMs = Number(m.timeout_ms) || this.timeoutMs || 3000;
  }

  // The END message, told in the game's words: the board's own end, or resign/time/server.
  async endFrom(m) {
    this.deadline = null;
    const away = this.away;
    this.away = null;
    this.hideAway();
    this.pending = null;
    this.renderOffer();
    const plies = Number(m.plies);
    if (Number.isInteger(plies) && plies < this.moves.length) this.moves.length = plies;
    await this.refresh();
    const winner = m.data3 === "0" ? 0 : m.data3 === "1" ? 1 : null;
    const names = this.names();
    const loser = winner === null ? null : names[1 - winner];
    const name = PROTOCOL.end_reasons[Number(m.data2)] || "NONE";
    const why = name === "ILLIGAL_MOVE" ? (PROTOCOL.move_reasons[Number(m.data1)] || "").toLowerCase().replace(/_/g, " ") : m.error;
    let reason = endWords(name, loser, why) || (this.view && this.view.end) || name.toLowerCase().replace(/_/g, " ");
    // A player whose connection dropped and did not come back, or whose game was claimed.
    if (name === "LEFT" && away && loser !== null) {
      reason = this.claimed
        ? `${loser} left the game and ${this.claimed} claimed the win`
        : `${loser} left the game and did not come back in time`;
    }
    this.claimed = null;
    this.firstMoveUntil = null;
    if (Array.isArray(m.clocks)) this.syncClocks(m);
    // An aborted, interrupted or abandoned game has no result.
    const title = { ABORTED: "Aborted", INTERRUPTED: "Interrupted", ABANDONED: "Abandoned" }[name] || null;
    this.outcome = { winner, reason, title };
    this.showRatings(m.ratings);
    this.draw();
    sound.playEnd();
  }

  // A rated game's new ratings, by side ([rating, change] each), beside the result.
  showRatings(ratings) {
    this.ratingsLine.hidden = !Array.isArray(ratings);
    if (!Array.isArray(ratings)) return;
    const players = this.playerNames();
    const words = ratings.map(([rating, change], i) => `${players[i] || this.names()[i]} ${rating} (${change >= 0 ? "+" : "−"}${Math.abs(change)})`);
    this.ratingsLine.textContent = `Ratings: ${words.join(", ")}.`;
  }

  // The clocks: a game clock counting down both, or the time left for this move.
  clockValues() {
    const v = this.view;
    if (!v || !this.started) return null;
    const running = v.status === "ongoing" && !this.outcome && !this.lost ? this.colours().indexOf(v.to_move) : null;
    if (this.clocksMs) {
      const ms = [...this.clocksMs];
      // A first move off the clock: the clock waits (the status counts the first move down).
      if (this.firstMoveUntil) return { ms, running: null, countdown: true };
      if (running !== null && this.clocksAt) ms[running] -= Date.now() - this.clocksAt;
      return { ms, running, countdown: true };
    }
    const ms = [null, null];
    if (running !== null && this.deadline) ms[running] = this.deadline - Date.now();
    return { ms, running, countdown: true };
  }

  // The side to move's time starts: all of it, or `leftMs` when the room says how much is left
  // (a page that joins mid-move).
  startDeadline(leftMs = null) {
    // The side to move plays its first move off the clock: it has `first_move_ms` for it.
    this.firstMoveUntil = Number.isFinite(this.firstMoveMs) ? Date.now() + this.firstMoveMs : null;
    this.firstMoveMs = null;
    if (this.firstMoveUntil) {
      this.deadline = this.firstMoveUntil;
      return;
    }
    const ms = Number.isFinite(leftMs) ? leftMs : this.timeoutMs;
    this.deadline = ms ? Date.now() + ms : null;
    // With a clock per move, each turn may warn of low time once.
    if (!this.clocksMs) this.lowWarned = false;
  }

  // What playing and watching handle alike: a move, the end, a chat line, a notice. Whether
  // `m` was one of them.
  async common(m) {
    switch (m.op) {
      case OP.MOVE: await this.moved(m); return true;
      case OP.END: await this.endFrom(m); return true;
      case OP.CHAT:
        this.chat.heard(m.data1, m.data2, m.data3);
        return true;
      case OP.NOTICE:
        if (m.data1 === "away") this.opponentAway(m.data2, Number(m.data3));
        else if (m.data1 === "back") this.opponentBack(m.data2);
        else if (m.data1 === "restored") {
          this.note("The server stopped while this game was played; it carries on from the last stored move. The pause was charged to no one's clock.");
        } else if (m.data1 === "error") {
          // A line the server refused (a chat line too long): said where it was typed.
          this.chat.note(`The server refused that: ${m.data3}.`);
        } else this.seatNotice(m.data1, m.data3);
        return true;
      case OP.OFFER:
        this.offerMessage(m);
        return true;
      default:
        return false;
    }
  }

  // NOTICE `moved` (this browser's seat is now played in another tab) or `unseated` (the seat is
  // gone, and why): only a player's page hears them.
  seatNotice() {}

  // The time the side to move has for a first move off the clock, from the room's message.
  firstMoveFrom(m) {
    this.firstMoveMs = Number.isFinite(Number(m.first_move_ms)) && m.first_move_ms !== undefined ? Number(m.first_move_ms) : null;
  }

  // While the side to move plays its first move off the clock.
  firstMoveWords() {
    if (!this.firstMoveUntil || this.outcome) return "";
    const left = Math.max(0, Math.ceil((this.firstMoveUntil - Date.now()) / 1000));
    return ` — first move within ${left} s, or the game is aborted`;
  }

  // A player's connection dropped: the seat is kept `seconds`, and after a while (10 s, or the
  // whole grace if shorter) the other player may claim the game.
  opponentAway(name, seconds) {
    const now = Date.now();
    const kept = Number.isFinite(seconds) ? seconds * 1000 : null;
    this.away = { name, until: kept === null ? null : now + kept, claimAt: now + Math.min(10000, kept === null ? 0 : kept) };
    this.showAway();
  }

  opponentBack(name) {
    this.away = null;
    this.hideAway();
    this.note(`${name || "Your opponent"} is back.`);
  }

  // The banner about an absent player, built once and counted down by the ticker (the count
  // is not read out every second: the banner is polite, and the numbers are hidden from it).
  showAway() {
    this.awayText = h("span", { id: "away-text" }, `${this.away.name} lost the connection; `);
    this.awayCount = h("span", { "aria-hidden": "true" });
    this.banner.hidden = false;
    this.banner.dataset.kind = "away";
    this.banner.setAttribute("role", "status");
    this.banner.replaceChildren(this.awayText, this.awayCount, ...this.awayActions());
    this.renderAway();
  }

  awayActions() {
    return [];
  }

  hideAway() {
    if (this.banner.dataset.kind === "away") this.hideBanner();
  }

  renderAway() {
    if (!this.away || this.banner.dataset.kind !== "away") return;
    const text = this.awayWords();
    if (this.awayCount.textContent !== text) this.awayCount.textContent = text;
  }

  awayWords() {
    const left = this.away.until === null ? null : Math.max(0, Math.ceil((this.away.until - Date.now()) / 1000));
    return left === null ? "their seat is kept for a while." : `their seat is kept for ${left} s.`;
  }

  tick() {
    super.tick();
    this.renderAway();
  }

  // A short line about what happened to an offer, shown a few seconds (and kept in the chat).
  note(text) {
    clearTimeout(this.noteTimer);
    this.offerNote.textContent = text;
    if (!text) return;
    if (this.chat) this.chat.append(h("p", { class: "note" }, text));
    this.noteTimer = setTimeout(() => {
      if (this.offerNote.textContent === text) this.offerNote.textContent = "";
    }, 12000);
  }

  // OFFER(kind, action, name) from the room: an offer made, answered, withdrawn or lapsed; an
  // abort or a claim (the END follows); or, to its sender alone, a refusal and why.
  offerMessage(m) {
    const [kind, action, who] = [m.data1, m.data2, m.data3];
    if (kind === "rematch") {
      this.rematchMessage(action, who);
      return;
    }
    const noun = NOUN[kind] || kind;
    const pending = this.pending;
    switch (action) {
      case "offer":
        this.pending = { kind, mine: this.offerIsMine(kind, who), by: who };
        if (this.pending.mine) this.madeOffer(kind);
        break;
      case "accept":
        this.pending = null;
        this.note(this.actorWords(pending, true, `accepted the ${noun}`, who));
        break;
      case "decline":
        this.pending = null;
        if (pending && pending.mine) this.blockOffer(kind);
        this.note(this.actorWords(pending, true, `declined the ${noun}`, who));
        break;
      case "withdraw":
        this.pending = null;
        if (pending && pending.mine) this.blockOffer(kind);
        this.note(this.actorWords(pending, false, `withdrew the ${noun} offer`, who));
        break;
      case "lapse":
        this.pending = null;
        this.note(`The ${noun} offer lapsed: a move was played.`);
        break;
      case "refused":
        this.offerRefused(kind, who);
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
    this.renderOffer();
    this.renderControls();
  }

  // A rematch asked for or declined: only a player hears of it.
  rematchMessage() {}

  // Who made an offer of `kind` announced with `who`'s name (a spectator makes none).
  offerIsMine() {
    return false;
  }

  madeOffer() {}

  blockOffer() {}

  offerRefused() {}

  // A player's name as a spectator says it.
  nameWords(who) {
    return who || "A player";
  }

  // Who answered (`answerer`: the offer's receiver, else its maker) and what they did.
  actorWords(pending, answerer, did, who) {
    return `${this.nameWords(who)} ${did}.`;
  }

  // The offer waiting for an answer, and what this page may do about it.
  renderOffer() {
    const p = this.pending;
    this.offerBox.hidden = !p;
    if (!p) return;
    this.offerText.textContent = this.offerWords(p);
    this.offerButtons.replaceChildren(...this.offerActions(p));
  }

  offerWords(p) {
    return p.kind === "takeback" ? `${this.nameWords(p.by)} asks to take back a move.` : `${this.nameWords(p.by)} offers ${OFFERED[p.kind] || p.kind}.`;
  }

  offerActions() {
    return [];
  }

  // The offer waiting when the room's snapshot was taken: a page that reloads or starts
  // watching meanwhile missed the OFFER that made it.
  offerFromSnapshot(snap) {
    const o = snap.status === "playing" ? snap.offer : null;
    const mine = Boolean(o) && this.mySide !== null && o.colour === this.colours()[this.mySide];
    this.pending = o ? { kind: o.kind, mine, by: o.by } : null;
    this.renderOffer();
    this.renderControls();
  }

  // A move from the room (the opponent's, or the game watched).
  async moved(m) {
    this.firstMoveFrom(m);
    const text = `${m.data1}-${m.data2}`;
    const move = this.view && this.view.legal.find((x) => x.text === text);
    this.moves.push(text);
    this.syncClocks(m);
    await this.refresh({ animate: move });
    if (m.data3 !== PROTOCOL.end_marker) this.startDeadline();
  }

  syncClocks(m) {
    if (Array.isArray(m.clocks)) {
      this.clocksMs = m.clocks.map(Number);
      this.clocksAt = Date.now();
    }
  }
}

// The seat this browser holds in `room`, shared by all its tabs (any of them takes the seat
// back): its token and whether a game was played with it.
function seatOf(room) {
  const key = `arbiter-seat-${room}`;
  let seat = null;
  try {
    seat = JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    seat = null;
  }
  if (!seat || typeof seat.token !== "string") seat = { token: randomToken(), played: false };
  const held = {
    token: seat.token,
    played: Boolean(seat.played),
    save() {
      localStorage.setItem(key, JSON.stringify({ token: this.token, played: this.played }));
    },
  };
  held.save();
  return held;
}

export class OnlineView extends NetworkView {
  constructor(params) {
    super(params);
    this.room = params.get("room");
    this.refused = badRoom(this.room);
    if (this.refused) {
      this.title.textContent = "Online play";
      this.showBanner(this.refused, homeLink());
      this.renderSide();
      return;
    }
    this.tc = timeControl(params.get("tc") || "");
    // A training room: asked for here, and on once the room says both players asked.
    this.training = params.get("training") === "1";
    this.seat = seatOf(this.room);
    this.token = this.seat.token;
    // A page seeks a game only when its player asks: opening a room never played in from this
    // browser, Rematch, or "Play here again"; coming back (a reload, a lost connection) only
    // takes back the seat it holds.
    this.seeking = !this.seat.played;
    this.unseated = null;
    this.started = false;
    // Guest names replaced after a room refused them as another's (a few at most).
    this.renamed = 0;
    this.title.textContent = `${gameTitle(this.settings.game, this.settings.size)} — online, room ${this.room}`;
    this.guard = (e) => {
      if (!this.playing()) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", this.guard);
    // How many watch: the players see it, as on lichess (the room list's count, every 5 s).
    this.spectatorPoll = setInterval(() => this.countSpectators(), SPECTATORS_EVERY_MS);
    this.buildExtras();
    this.serial.run(() => this.refresh());
    this.connect();
  }

  dispose() {
    window.removeEventListener("beforeunload", this.guard);
    clearInterval(this.spectatorPoll);
    super.dispose();
  }

  // Rated or casual, said; in a rated game both players' ratings of its class by their names.
  async showRated(m) {
    const rated = Number(m.rated) === 1;
    this.ratedLine.hidden = false;
    this.ratedLine.textContent = rated ? "Rated game: it counts for both players' ratings." : "Casual game: no rating changes.";
    this.ratingsBySide = [null, null];
    if (!rated) return;
    const cls = ratingClass(this.settings.game, m);
    const names = this.playerNames();
    const found = await Promise.all(names.map((name) => (name ? ratingOf(name, cls) : null)));
    if (this.disposed || this.playerNames().join() !== names.join()) return;
    this.ratingsBySide = found;
    this.renderClocks();
  }

  playerRatings() {
    return this.ratingsBySide && this.playing() ? this.ratingsBySide : [null, null];
  }

  // The spectators of the game this page plays, shown while it runs.
  async countSpectators() {
    if (!this.playing()) {
      this.spectatorLine.hidden = true;
      return;
    }
    let n;
    try {
      n = await spectatorsOf(this.room);
    } catch (e) {
      return;
    }
    if (this.disposed) return;
    this.spectatorLine.hidden = !n;
    if (n) this.spectatorLine.textContent = spectatorWords(n);
  }

  // Whether this page holds a seat in a game not yet over.
  playing() {
    return this.started && this.view && this.view.status === "ongoing" && !this.outcome;
  }

  // Asked by the router before it leaves the page.
  async mayLeave() {
    // A tab whose seat went to another tab leaves without asking: there is nothing to lose.
    if (this.disposed || !this.playing()) return true;
    const leave = await confirmDialog(
      "Leave this game? Your seat is kept for 30 seconds; after that, leaving counts as resigning.",
      "Leave", "Stay");
    return leave;
  }

  mayMove(side) {
    return this.started && !this.lost && side === this.mySide;
  }

  tick() {
    super.tick();
    this.warnLowTime();
  }

  // Two beeps when this side's running time falls under a quarter of the time control (10 s at
  // most): once a turn with a clock per move, once a game with a game clock.
  warnLowTime() {
    const values = this.mySide === null ? null : this.clockValues();
    if (!values || values.running !== this.mySide || this.lowWarned) return;
    const left = values.ms[this.mySide];
    const full = this.clocksMs ? this.clockMs : this.timeoutMs;
    if (left === null || !full || left >= Math.min(10000, full / 4)) return;
    this.lowWarned = true;
    sound.playLowTime();
  }

  buildExtras() {
    const link = `${location.origin}${location.pathname}#/online?${this.params}`;
    this.resignButton = this.button("resign", "Resign", () => this.serial.run(() => this.resign()));
    this.drawButton = this.button("offer-draw", "Offer a draw", () => this.offer("draw"));
    this.takebackButton = this.button("offer-takeback", "Propose a takeback", () => this.offer("takeback"));
    this.abortButton = this.button("abort", "Abort", () => this.abort(), { hidden: true });
    this.rematchButton = this.button("rematch", "Rematch", () => this.serial.run(() => this.rematch()));
    this.controls.replaceChildren(this.resignButton, this.drawButton, this.takebackButton, this.abortButton,
      this.rematchButton, ...this.commonButtons());
    this.resetOffers();
    this.chat = new ChatPanel({ send: (text) => Boolean(this.connection) && this.connection.send(OP.CHAT, playerName(), text) });
    this.timeLine = h("p", { id: "time-control", hidden: !this.tc }, this.tc ? `Time: ${this.tc.label}.` : "");
    this.spectatorLine = h("p", { id: "spectators", class: "hint", hidden: true });
    this.ratedLine = h("p", { id: "rated", hidden: true });
    this.trainingLine = h("p", { id: "training", hidden: !this.training },
      "Training room: the engine warns both players before a move it sees losing.");
    this.extra.replaceChildren(
      h("p", {}, h("label", { for: "share-link" }, "Share this link: "),
        h("input", { id: "share-link", readonly: true, value: link, size: 30, onfocus: (e) => e.target.select() })),
      this.timeLine,
      this.trainingLine,
      this.ratedLine,
      this.spectatorLine,
      this.chat.element);
  }

  renderControls() {
    if (!this.resignButton) return;
    const live = this.playing() && !this.lost;
    this.resignButton.disabled = !live;
    this.rematchButton.disabled = this.lost || this.refused || this.unseated || !this.started || this.playing();
    this.drawButton.disabled = !this.mayOffer("draw");
    this.takebackButton.disabled = !this.mayOffer("takeback") || !this.hasMoveToTakeBack();
    // Abort: only before both players have moved.
    this.abortButton.hidden = !live || this.moves.length >= 2;
    this.abortButton.disabled = this.sentAbort;
  }

  // What the server allows (it checks again): one offer at a time, not again after a decline or
  // a withdrawal until a move is played, at most three of a kind a game.
  mayOffer(kind) {
    return this.playing() && !this.lost && !this.pending && !this.sentOffer
      && this.moves.length >= this.blockedUntil[kind] && this.made[kind] < 3;
  }

  // A takeback undoes this side's last move (and the answer to it): there must be one.
  hasMoveToTakeBack() {
    if (!this.view || this.mySide === null) return false;
    const myTurn = this.colours().indexOf(this.view.to_move) === this.mySide;
    return this.moves.length >= (myTurn ? 2 : 1);
  }

  resetOffers() {
    this.pending = null;
    this.sentOffer = null;
    this.sentAbort = false;
    this.sentClaim = false;
    this.made = { draw: 0, takeback: 0 };
    this.blockedUntil = { draw: 0, takeback: 0 };
    this.away = null;
    this.claimed = null;
    this.hideAway();
    this.note("");
    this.renderOffer();
  }

  sendOffer(kind, action) {
    if (!this.connection || !this.connection.send(OP.OFFER, kind, action, "")) {
      this.connectionLost();
      return false;
    }
    return true;
  }

  offer(kind) {
    if (!this.mayOffer(kind)) return;
    if (this.sendOffer(kind, "offer")) this.sentOffer = kind;
    this.renderControls();
  }

  answer(kind, action) {
    if (!this.pending) return;
    this.sendOffer(kind, action);
    // The room's answer (accept, decline, withdraw) clears the offer for everyone.
    for (const b of this.offerButtons.querySelectorAll("button")) b.disabled = true;
  }

  abort() {
    if (!this.playing() || this.moves.length >= 2) return;
    if (this.sendOffer("abort", "")) this.sentAbort = true;
    this.renderControls();
  }

  claim() {
    if (!this.away || Date.now() < this.away.claimAt || !this.playing()) return;
    if (this.sendOffer("claim", "")) this.sentClaim = true;
    this.renderAway();
  }

  offerIsMine(kind, who) {
    const mine = this.sentOffer === kind && (who === this.myName || this.myName === this.opponentName);
    if (this.sentOffer === kind) this.sentOffer = null;
    return mine || (who === this.myName && this.myName !== this.opponentName);
  }

  madeOffer(kind) {
    if (kind in this.made) this.made[kind] += 1;
  }

  blockOffer(kind) {
    this.blockedUntil[kind] = this.moves.length + 1;
  }

  offerRefused(kind, why) {
    if (this.sentOffer === kind) this.sentOffer = null;
    if (kind === "abort") this.sentAbort = false;
    if (kind === "claim") this.sentClaim = false;
    if (/play a move before/.test(why)) this.blockOffer(kind);
    if (/times this game/.test(why) && kind in this.made) this.made[kind] = 3;
    this.note(`Not done: ${why}.`);
  }

  nameWords(who, lower = false) {
    if (who && who === this.myName && this.myName !== this.opponentName) return lower ? "you" : "You";
    return lower ? "your opponent" : "Your opponent";
  }

  // `answerer`: the action is the receiver's (accept, decline), else the maker's (withdraw).
  actorWords(pending, answerer, did) {
    if (!pending) return `The ${did.split(" ").pop()} offer was answered.`;
    const me = answerer ? !pending.mine : pending.mine;
    if (did.startsWith("withdrew")) return me ? `You ${did}.` : `Your opponent ${did}.`;
    const noun = NOUN[pending.kind] || pending.kind;
    const verb = did.split(" ")[0];
    return me ? `You ${verb} the ${noun}.` : `Your opponent ${verb} your ${noun} offer.`;
  }

  offerWords(p) {
    if (p.kind === "rematch") return "Your opponent asks for a rematch (the colours swap).";
    if (p.mine) return p.kind === "takeback" ? "You asked to take back your last move." : "You offered a draw.";
    return p.kind === "takeback" ? "Your opponent asks to take back their last move." : "Your opponent offers a draw.";
  }

  offerActions(p) {
    if (p.kind === "rematch") {
      return [
        this.button("rematch-accept", "Accept", () => this.serial.run(() => this.rematch()), { class: "small primary" }),
        this.button("rematch-decline", "Decline", () => this.answer("rematch", "decline"), { class: "small" }),
      ];
    }
    if (this.mySide === null || !this.playing()) return [];
    if (p.mine) return [this.button("offer-withdraw", "Withdraw", () => this.answer(p.kind, "withdraw"), { class: "small" })];
    return [
      this.button("offer-accept", "Accept", () => this.answer(p.kind, "accept"), { class: "small primary" }),
      this.button("offer-decline", "Decline", () => this.answer(p.kind, "decline"), { class: "small" }),
    ];
  }

  // The claim button beside the countdown to when the server allows it.
  awayActions() {
    if (!this.playing()) return [];
    this.claimButton = this.button("claim", "Claim the win", () => this.claim(), { class: "small", disabled: true });
    return [" ", this.claimButton];
  }

  awayWords() {
    const words = super.awayWords();
    if (!this.playing()) return words;
    const wait = Math.ceil((this.away.claimAt - Date.now()) / 1000);
    return `${words} ${wait > 0 ? `You may claim the win in ${wait} s.` : "You may claim the win now."}`;
  }

  renderAway() {
    super.renderAway();
    if (!this.away || this.banner.dataset.kind !== "away" || !this.claimButton) return;
    const can = Date.now() >= this.away.claimAt && this.playing() && !this.lost;
    const disabled = !can || this.sentClaim;
    if (this.claimButton.disabled !== disabled) this.claimButton.disabled = disabled;
  }

  // A refusal or a lost seat is said even over a finished game's result: an idle tab must not
  // read as if its seat were still held.
  seatWords() {
    if (this.refused) return this.refused;
    if (this.unseated) return `You no longer hold a seat in room ${this.room}: ${this.unseated}.`;
    return null;
  }

  statusText() {
    const seat = this.seatWords();
    if (seat) return seat;
    if (this.lost) return "The connection to the server was lost — reconnecting…";
    if (!this.started && this.rematching) return "Rematch asked: waiting for your opponent…";
    if (!this.started) return `Waiting for an opponent in room ${this.room}… share the link.`;
    return super.statusText() + this.firstMoveWords();
  }

  connect() {
    this.connection = new Connection({
      onOpen: () => this.reconnected(),
      onMessage: (m) => this.message(m),
      onLost: () => this.connectionLost(),
    });
  }

  // On every (re)connection: a seek while this page seeks and has no game yet, else only the
  // seat back (`resume`): an idle page never starts a game by itself.
  reconnected() {
    if (this.unseated) return;
    this.sendReady(!(this.seeking && !this.started));
  }

  sendReady(resume = false) {
    this.lost = false;
    this.hideBanner();
    this.myName = playerName();
    // The name's secret proves this player holds its name (a rated room needs it).
    const extra = {
      ...gameOptions(this.settings), token: this.token, secret: nameSecret(), ...(this.tc ? this.tc.keys : {}),
      ...(this.training ? { training: 1 } : {}), ...(this.params.get("rated") === "1" ? { rated: 1 } : {}),
      ...(resume ? { resume: 1 } : {}),
    };
    const colour = this.rematching ? "" : this.params.get("colour") || "";
    this.connection.send(OP.READY, playerName(), colour, String(this.room), extra);
    this.renderSide();
  }

  // The seat is held a while: try again every two seconds.
  connectionLost() {
    if (this.disposed) return;
    this.lost = true;
    this.deadline = null;
    this.draw();
    if (this.refused || this.unseated) return;
    this.retry = setTimeout(() => this.connect(), 2000);
  }

  async message(m) {
    if (await this.common(m)) return undefined;
    switch (m.op) {
      case OP.READY: return this.gameStarts(m);
      case OP.STATE: return this.caughtUp(m);
      case OP.REJECT:
        // A guest name another browser holds: this page takes a new one and asks again.
        if (/is held by another player/.test(m.data2) && this.renamed < 3 && replaceGuestName()) {
          this.renamed += 1;
          this.sendReady();
          return undefined;
        }
        this.refused = `The room refused you: ${m.data2}.`;
        this.showBanner(this.refused, h("a", { href: "#/" }, "Back home"));
        // The status says so even before the first position arrives.
        if (this.view) this.draw();
        else this.renderSide();
        return undefined;
      case OP.LEAVE:
        this.chat.append(h("p", { class: "note" }, `${m.data1 || "your opponent"} left (${m.data2}).`));
        // A rematch asked by who left can no longer be accepted.
        if (this.pending && this.pending.kind === "rematch") {
          this.pending = null;
          this.renderOffer();
        }
        return undefined;
      default:
        return undefined;
    }
  }

  playerNames() {
    if (!this.started || this.mySide === null || this.mySide < 0) return [null, null];
    return this.mySide === 0 ? [this.myName, this.opponentName] : [this.opponentName, this.myName];
  }

  // NOTICE `moved`: the seat went to another tab of this browser; this tab watches the room.
  // NOTICE `unseated`: the seat is gone (the wait or the rematch window is over): the page stops
  // and asks its player before seeking again.
  seatNotice(what, why) {
    if (what === "moved") {
      this.disposed = true;
      if (this.connection) this.connection.close();
      location.replace(`#/watch?room=${encodeURIComponent(this.room)}&moved=1`);
      return;
    }
    if (what !== "unseated") return;
    this.unseated = why || "your seat is gone";
    this.seeking = false;
    this.rematching = false;
    if (this.connection) this.connection.close();
    const again = h("button", { id: "play-again", class: "small", onclick: () => this.playAgain() }, "Play in this room again");
    this.showBanner(`You no longer hold a seat in room ${this.room}: ${this.unseated}.`,
      h("span", {}, again, " ", h("a", { href: "#/" }, "Home")));
    this.draw();
  }

  // Asked by the player: a new seek in this room.
  playAgain() {
    this.unseated = null;
    this.seeking = true;
    this.started = false;
    this.outcome = null;
    this.hideBanner();
    this.connect();
    this.draw();
  }

  // A game starts (or this page takes its seat back: the room's STATE follows).
  async gameStarts(m) {
    this.ratingsLine.hidden = true;
    this.adoptSettings(m);
    this.firstMoveFrom(m);
    this.started = true;
    this.seeking = false;
    this.seat.played = true;
    this.seat.save();
    this.mySide = this.colours().indexOf(m.data2);
    this.opponent = m.data1 || "anonymous";
    this.opponentName = m.data1;
    // A seat taken back mid-game: READY says how many moves were played, and the snapshot that
    // follows brings them; until then the page keeps what it showed (never the start position).
    const resuming = Number(m.plies) > 0;
    if (!resuming) this.moves = [];
    this.outcome = null;
    this.resetOffers();
    this.clocksMs = this.clockMs ? [this.clockMs, this.clockMs] : null;
    this.clocksAt = Date.now();
    this.lowWarned = false;
    this.hideBanner();
    this.title.textContent = `${gameTitle(this.settings.game, this.settings.size)} — online, room ${this.room}, against ${this.opponent}`;
    this.board.setFlipped(this.mySide === 1);
    this.timeLine.textContent = `Time: ${timeWords(m)}.`;
    this.timeLine.hidden = false;
    this.training = Number(m.training) === 1;
    this.trainingLine.hidden = !this.training;
    this.showRated(m);
    if (resuming) return;
    this.startDeadline();
    await this.refresh();
  }

  async caughtUp(m) {
    const snap = JSON.parse(m.data1);
    this.moves = snap.moves || [];
    // A page that comes back while the opponent is away: how long they have been is not said.
    const away = (snap.away || []).find((name) => name === this.opponentName);
    if (away && !this.away && snap.status === "playing") this.opponentAway(away, NaN);
    if (snap.clocks) {
      this.clocksMs = snap.clocks;
      this.clocksAt = Date.now();
    }
    this.firstMoveFrom(snap);
    this.startDeadline(snap.turn_left_ms);
    await this.refresh();
    this.offerFromSnapshot(snap);
  }

  afterRefresh() {
    this.losing = new Set();
    if (this.training && this.humanToMove()) this.fetchWarnings();
  }

  async humanMove(move) {
    // No engine's help in a game between people unless both asked for a training room.
    if (!this.humanToMove() || this.browse) return;
    if (this.training && !(await this.confirmSafe(move))) return;
    if (!this.connection.send(OP.MOVE, move.from, move.to, "")) {
      this.connectionLost();
      return;
    }
    this.deadline = null;
    // This side's clock as the server charges it: the time used, and the increment earned (a
    // first move off the clock costs nothing and earns nothing).
    if (this.clocksMs && !this.firstMoveUntil) {
      this.clocksMs[this.mySide] += (this.incrementMs || 0) - (Date.now() - this.clocksAt);
    }
    if (this.clocksMs) this.clocksAt = Date.now();
    this.firstMoveUntil = null;
    this.moves.push(move.text);
    await this.refresh({ animate: move });
    this.startDeadline();
  }

  // A page resigns at once, on either side's turn (the server takes it from the extension).
  async resign() {
    if (!this.playing()) return;
    const sure = await confirmDialog("Resign this game?", "Resign", "Keep playing");
    if (!sure || !this.playing()) return;
    if (!this.connection.send(OP.RESIGN)) this.connectionLost();
  }

  // A rematch is a READY after the game (the opponent is asked, or it answers theirs); the
  // colours swap, so the first game's requested colour is not asked for again.
  rematch() {
    const asked = this.pending && this.pending.kind === "rematch";
    this.pending = null;
    this.renderOffer();
    this.outcome = null;
    this.started = false;
    this.rematching = true;
    this.seeking = true;
    this.sendReady();
    if (!asked) this.note("You asked for a rematch; waiting for your opponent.");
  }

  // The opponent asks for a rematch (Accept or Decline), or declined this page's.
  rematchMessage(action, who) {
    if (action === "offer") this.pending = { kind: "rematch", mine: false, by: who };
    else if (action === "decline") {
      const declined = who === this.myName && this.pending && this.pending.kind === "rematch";
      this.pending = null;
      this.note(declined ? "You declined the rematch." : "Your opponent declined the rematch.");
    } else if (action === "refused") this.note(`Not done: ${who}.`);
    this.renderOffer();
  }
}
