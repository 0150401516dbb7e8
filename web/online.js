// Playing online and watching, over the course protocol on the server's WebSocket. A reload or a
// dropped connection rejoins the same seat (a token kept in this tab); leaving a running game
// asks first.

import { GameView } from "./game.js";
import { Connection } from "./net.js";
import * as sound from "./sound.js";
import {
  confirmDialog, endWords, gameDef, gameOptions, gameTitle, h, playerName, PROTOCOL, randomToken,
  settingsFrom, TIME_CONTROLS, timeControl,
} from "./ui.js";

// The protocol's operation codes, as the server defines them.
const OP = new Proxy({}, { get: (_, name) => PROTOCOL.ops[name] });

// The room's time control in words, from READY's keys: a known control's label, else the numbers.
function timeWords(m) {
  const known = TIME_CONTROLS.find((t) => Object.entries(t.keys).every(([k, v]) => Number(m[k]) === v)
    && (m.clock_ms ? "clock_ms" in t.keys : !("clock_ms" in t.keys)));
  if (known) return known.label;
  if (m.clock_ms) return `${Number(m.clock_ms) / 1000} s + ${Number(m.increment_ms || 0) / 1000} s a game`;
  return `${Number(m.timeout_ms) / 1000} s a move`;
}

// What both online views share: the connection and the end of a game.
class NetworkView extends GameView {
  dispose() {
    super.dispose();
    clearTimeout(this.retry);
    if (this.connection) this.connection.close();
  }

  // Settings from an END or READY's extension keys, when the server names the game.
  adoptSettings(m) {
    if (m.game && gameDef(m.game)) this.settings = settingsFrom(m, m.game);
    if (m.clock_ms) this.clockMs = Number(m.clock_ms);
    this.timeoutMs = Number(m.timeout_ms) || this.timeoutMs || 3000;
  }

  // The END message, told in the game's words: the board's own end, or resign/time/server.
  async endFrom(m) {
    this.deadline = null;
    const plies = Number(m.plies);
    if (Number.isInteger(plies) && plies < this.moves.length) this.moves.length = plies;
    await this.refresh();
    const winner = m.data3 === "0" ? 0 : m.data3 === "1" ? 1 : null;
    const names = this.names();
    const loser = winner === null ? null : names[1 - winner];
    const name = PROTOCOL.end_reasons[Number(m.data2)] || "NONE";
    const why = name === "ILLIGAL_MOVE" ? (PROTOCOL.move_reasons[Number(m.data1)] || "").toLowerCase().replace(/_/g, " ") : m.error;
    const reason = endWords(name, loser, why) || (this.view && this.view.end) || name.toLowerCase().replace(/_/g, " ");
    this.outcome = { winner, reason };
    this.draw();
    sound.playEnd();
  }

  // The clocks: a game clock counting down both, or the time left for this move.
  clockValues() {
    const v = this.view;
    if (!v || !this.started) return null;
    const running = v.status === "ongoing" && !this.outcome && !this.lost ? this.colours().indexOf(v.to_move) : null;
    if (this.clocksMs) {
      const ms = [...this.clocksMs];
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
    const ms = Number.isFinite(leftMs) ? leftMs : this.timeoutMs;
    this.deadline = ms ? Date.now() + ms : null;
  }

  // What playing and watching handle alike: a move, the end, a chat line, a notice. Whether
  // `m` was one of them.
  async common(m) {
    switch (m.op) {
      case OP.MOVE: await this.moved(m); return true;
      case OP.END: await this.endFrom(m); return true;
      case OP.CHAT:
        this.chat.append(h("p", {}, `${m.data1}: ${m.data2}`));
        return true;
      case OP.NOTICE:
        if (m.data1 === "away") this.showBanner(`${m.data2} lost the connection; their seat is kept for ${m.data3} s.`);
        else this.hideBanner();
        return true;
      default:
        return false;
    }
  }

  // A move from the room (the opponent's, or the game watched).
  async moved(m) {
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

export class OnlineView extends NetworkView {
  constructor(params) {
    super(params);
    this.room = params.get("room");
    this.tc = timeControl(params.get("tc") || "");
    // A training room: asked for here, and on once the room says both players asked.
    this.training = params.get("training") === "1";
    const key = `arbiter-seat-${this.room}`;
    this.token = sessionStorage.getItem(key) || randomToken();
    sessionStorage.setItem(key, this.token);
    this.started = false;
    this.title.textContent = `${gameTitle(this.settings.game, this.settings.size)} — online, room ${this.room}`;
    this.guard = (e) => {
      if (!this.playing()) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", this.guard);
    this.buildExtras();
    this.serial.run(() => this.refresh());
    this.connect();
  }

  dispose() {
    window.removeEventListener("beforeunload", this.guard);
    super.dispose();
  }

  // Whether this page holds a seat in a game not yet over.
  playing() {
    return this.started && this.view && this.view.status === "ongoing" && !this.outcome;
  }

  // Asked by the router before it leaves the page.
  async mayLeave() {
    if (!this.playing()) return true;
    const leave = await confirmDialog(
      "Leave this game? Your seat is kept for 30 seconds; after that, leaving counts as resigning.",
      "Leave", "Stay");
    return leave;
  }

  mayMove(side) {
    return this.started && !this.lost && side === this.mySide;
  }

  buildExtras() {
    const link = `${location.origin}${location.pathname}#/online?${this.params}`;
    this.resignButton = this.button("resign", "Resign", () => this.serial.run(() => this.resign()));
    this.rematchButton = this.button("rematch", "Rematch", () => this.serial.run(() => this.rematch()));
    this.controls.replaceChildren(this.resignButton, this.rematchButton, ...this.commonButtons());
    this.chat = h("div", { id: "chat", class: "chat", "aria-live": "polite" });
    const chatInput = h("input", { id: "chat-input", placeholder: "say something", size: 18 });
    const send = (e) => {
      e.preventDefault();
      const text = chatInput.value.trim();
      if (!text || !this.connection) return;
      this.connection.send(OP.CHAT, playerName(), text);
      this.chat.append(h("p", {}, `you: ${text}`));
      chatInput.value = "";
    };
    this.timeLine = h("p", { id: "time-control", hidden: !this.tc }, this.tc ? `Time: ${this.tc.label}.` : "");
    this.trainingLine = h("p", { id: "training", hidden: !this.training },
      "Training room: the engine warns both players before a move it sees losing.");
    this.extra.replaceChildren(
      h("p", {}, h("label", { for: "share-link" }, "Share this link: "),
        h("input", { id: "share-link", readonly: true, value: link, size: 30, onfocus: (e) => e.target.select() })),
      this.timeLine,
      this.trainingLine,
      this.chat,
      h("form", { onsubmit: send }, h("label", { for: "chat-input", class: "visually-hidden" }, "Chat"), chatInput, " ", h("button", { type: "submit" }, "Send")));
  }

  renderControls() {
    if (!this.resignButton) return;
    this.resignButton.disabled = !this.playing() || this.lost;
    this.rematchButton.disabled = this.lost || this.refused || !this.started || this.playing();
  }

  statusText() {
    if (this.refused) return this.refused;
    if (this.lost) return "The connection to the server was lost — reconnecting…";
    if (!this.started) return `Waiting for an opponent in room ${this.room}… share the link.`;
    let text = super.statusText();
    if (this.pendingResign) text += " — you will resign when your turn comes";
    return text;
  }

  connect() {
    this.connection = new Connection({
      onOpen: () => this.sendReady(),
      onMessage: (m) => this.message(m),
      onLost: () => this.connectionLost(),
    });
  }

  sendReady() {
    this.lost = false;
    this.hideBanner();
    const extra = { ...gameOptions(this.settings), token: this.token, ...(this.tc ? this.tc.keys : {}), ...(this.training ? { training: 1 } : {}) };
    const colour = this.params.get("colour") || "";
    this.connection.send(OP.READY, playerName(), colour, String(this.room), extra);
    this.renderSide();
  }

  // The seat is held a while: try again every two seconds.
  connectionLost() {
    if (this.disposed) return;
    this.lost = true;
    this.deadline = null;
    this.draw();
    if (this.refused) return;
    this.retry = setTimeout(() => this.connect(), 2000);
  }

  async message(m) {
    if (await this.common(m)) return undefined;
    switch (m.op) {
      case OP.READY: return this.gameStarts(m);
      case OP.STATE: return this.caughtUp(m);
      case OP.REJECT:
        this.refused = `The room refused you: ${m.data2}.`;
        this.showBanner(this.refused, h("a", { href: "#/" }, "Back home"));
        // The status says so even before the first position arrives.
        if (this.view) this.draw();
        else this.renderSide();
        return undefined;
      case OP.LEAVE:
        this.chat.append(h("p", { class: "note" }, `${m.data1 || "your opponent"} left (${m.data2}).`));
        return undefined;
      default:
        return undefined;
    }
  }

  // A game starts (or this page takes its seat back: the room's STATE follows).
  async gameStarts(m) {
    this.adoptSettings(m);
    this.started = true;
    this.mySide = this.colours().indexOf(m.data2);
    this.opponent = m.data1 || "anonymous";
    this.moves = [];
    this.outcome = null;
    this.pendingResign = false;
    this.clocksMs = this.clockMs ? [this.clockMs, this.clockMs] : null;
    this.clocksAt = Date.now();
    this.hideBanner();
    this.title.textContent = `${gameTitle(this.settings.game, this.settings.size)} — online, room ${this.room}, against ${this.opponent}`;
    this.board.setFlipped(this.mySide === 1);
    this.timeLine.textContent = `Time: ${timeWords(m)}.`;
    this.timeLine.hidden = false;
    this.training = Number(m.training) === 1;
    this.trainingLine.hidden = !this.training;
    this.startDeadline();
    await this.refresh();
  }

  async caughtUp(m) {
    const snap = JSON.parse(m.data1);
    this.moves = snap.moves || [];
    if (snap.clocks) {
      this.clocksMs = snap.clocks;
      this.clocksAt = Date.now();
    }
    this.startDeadline(snap.turn_left_ms);
    await this.refresh();
  }

  async moved(m) {
    await super.moved(m);
    if (this.pendingResign && this.humanToMove()) this.sendResign();
  }

  afterRefresh() {
    this.losing = new Set();
    if (this.training && this.humanToMove()) this.fetchWarnings();
  }

  async humanMove(move) {
    // No engine's help in a game between people unless both asked for a training room.
    if (!this.humanToMove()) return;
    if (this.training && !(await this.confirmSafe(move))) return;
    if (!this.connection.send(OP.MOVE, move.from, move.to, "")) {
      this.connectionLost();
      return;
    }
    this.deadline = null;
    if (this.clocksMs) {
      this.clocksMs[this.mySide] -= Date.now() - this.clocksAt;
      this.clocksAt = Date.now();
    }
    this.moves.push(move.text);
    await this.refresh({ animate: move });
    this.startDeadline();
  }

  // The protocol takes a resignation only on one's own turn: off turn, it waits for it.
  async resign() {
    if (!this.playing()) return;
    const sure = await confirmDialog("Resign this game?", "Resign", "Keep playing");
    if (!sure || !this.playing()) return;
    if (this.humanToMove()) this.sendResign();
    else {
      this.pendingResign = true;
      this.renderSide();
    }
  }

  sendResign() {
    this.pendingResign = false;
    this.connection.send(OP.RESIGN);
  }

  rematch() {
    this.outcome = null;
    this.started = false;
    this.sendReady();
  }
}

export class WatchView extends NetworkView {
  constructor(params) {
    super(params);
    this.room = params.get("room");
    this.started = false;
    this.title.textContent = `Watching room ${this.room}`;
    this.controls.replaceChildren(...this.commonButtons());
    this.chat = h("div", { id: "chat", class: "chat", "aria-live": "polite" });
    this.extra.replaceChildren(this.chat);
    this.connect();
  }

  connect() {
    this.connection = new Connection({
      onOpen: () => {
        this.lost = false;
        this.hideBanner();
        this.connection.send(OP.WATCH, String(this.room));
      },
      onMessage: (m) => this.message(m),
      onLost: () => {
        this.lost = true;
        this.draw();
        this.retry = setTimeout(() => this.connect(), 2000);
      },
    });
  }

  statusText() {
    if (this.lost) return "The connection was lost — reconnecting…";
    if (!this.started) return this.waiting || "Waiting for a game to start in this room…";
    return super.statusText();
  }

  async message(m) {
    if (m.op === OP.STATE) {
      const snap = JSON.parse(m.data1);
      if (!snap.settings) {
        this.waiting = "Nobody plays in this room yet.";
        this.renderSide();
        return;
      }
      this.adoptSettings(snap.settings);
      this.title.textContent = `Watching room ${this.room}: ${gameTitle(this.settings.game, this.settings.size)} — ${snap.players.map((p) => p.name || "anonymous").join(" vs ")}`;
      this.moves = snap.moves;
      this.outcome = null;
      this.started = snap.status !== "waiting";
      this.clocksMs = snap.clocks || null;
      this.clocksAt = Date.now();
      if (snap.status === "playing") this.startDeadline(snap.turn_left_ms);
      await this.refresh();
    } else {
      await this.common(m);
    }
  }

  mayMove() {
    return false;
  }
}
