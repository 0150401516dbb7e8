// arbiter's page: choose a game and a mode, then play (here, against the AI, online), watch a
// live game or replay a stored one. Positions, legal moves, the AI and the warnings come from
// the server's JSON API; online play and watching use the course protocol over a WebSocket.

import { Board } from "./board.js";
import { Connection, END_MARKER, END_REASONS, MOVE_REASONS, OP } from "./net.js";
import * as sound from "./sound.js";

const app = document.getElementById("app");
let current = null;

// The games the server hosts, with their sides and options (GET /api/catalogue).
let CATALOGUE = [];

function gameDef(id) {
  return CATALOGUE.find((g) => g.id === id) || null;
}

// One choice per game and board size: "surakarta:8", or just "duck" for a game with one board.
function gameChoices() {
  return CATALOGUE.flatMap((g) => (g.sizes.length
    ? g.sizes.map((n) => ({ value: `${g.id}:${n}`, label: `${g.title} ${n}×${n}` }))
    : [{ value: g.id, label: g.title }]));
}

// The protocol's colour words of a game's two sides (BLACK/WHITE, RED/BLUE).
function colourWords(id) {
  const def = gameDef(id);
  return def ? def.sides.map((s) => s.word) : ["FIRST", "SECOND"];
}

function gameTitle(game, size) {
  const def = gameDef(game);
  if (!def) return `an unknown game (${game})`;
  return def.sizes.length && size ? `${def.title} ${size}×${size}` : def.title;
}

// The game and its options for a request or READY: every option of the game that the settings
// name (a watched room's or stored game's come from the server), the game's defaults for the rest.
function gameOptions(settings) {
  const def = gameDef(settings.game);
  const out = { game: settings.game };
  for (const option of def ? def.options : []) {
    const value = settings[option.name];
    if (value !== undefined && value !== null) out[option.name] = Number(value);
  }
  return out;
}

// Settings from the server's description of a game (a room's, a stored game's).
function settingsFrom(serverSettings, game) {
  const { timeout_ms: _, ...rest } = serverSettings || {};
  return { ...rest, game: rest.game || game };
}

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`the server answered ${response.status}: ${text.slice(0, 200)}`);
  }
  if (!response.ok) throw new Error(json.error || `the server answered ${response.status}`);
  return json;
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function confirmModal(text, yes, no) {
  const modal = document.getElementById("modal");
  document.getElementById("modal-text").textContent = text;
  const yesButton = document.getElementById("modal-yes");
  const noButton = document.getElementById("modal-no");
  yesButton.textContent = yes;
  noButton.textContent = no;
  modal.hidden = false;
  return new Promise((resolve) => {
    const done = (answer) => {
      modal.hidden = true;
      yesButton.onclick = noButton.onclick = null;
      resolve(answer);
    };
    yesButton.onclick = () => done(true);
    noButton.onclick = () => done(false);
  });
}

function playerName() {
  let name = localStorage.getItem("arbiter-name");
  if (!name) {
    name = `guest${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem("arbiter-name", name);
  }
  return name;
}

function clockText(ms) {
  if (ms === null || ms === undefined) return "—";
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// ---------------------------------------------------------------------------------------- home

class HomeView {
  constructor() {
    const choice = localStorage.getItem("arbiter-game") || "surakarta:6";
    this.select = h("select", { id: "game-choice" }, gameChoices().map((g) => h("option", { value: g.value, selected: g.value === choice }, g.label)));
    this.select.addEventListener("change", () => localStorage.setItem("arbiter-game", this.select.value));
    this.level = h("select", { id: "ai-level" }, ["easy", "medium", "hard"].map((l) => h("option", { value: l, selected: l === "medium" }, l)));
    this.aiColour = h("select", { id: "ai-colour" }, h("option", { value: "first" }, "I move first"), h("option", { value: "second" }, "I move second"));
    this.name = h("input", { id: "name", value: playerName(), maxlength: 32, size: 12, "aria-label": "your name" });
    this.name.addEventListener("change", () => localStorage.setItem("arbiter-name", this.name.value.replace(/[^A-Za-z0-9_]/g, "") || playerName()));
    this.joinRoom = h("input", { id: "join-room", inputmode: "numeric", placeholder: "room", size: 8 });
    this.rooms = h("ul", { id: "rooms", class: "list" }, h("li", {}, "loading…"));
    this.games = h("ul", { id: "games", class: "list" }, h("li", {}, "loading…"));
    app.replaceChildren(
      h("section", { class: "home" },
        h("h1", {}, "Play"),
        h("p", {}, h("label", {}, "Game ", this.select)),
        h("div", { class: "modes" },
          h("div", { class: "mode" }, h("h2", {}, "Two players"), h("p", {}, "Take turns at this screen."), h("button", { id: "mode-local", onclick: () => this.go("local") }, "Play here")),
          h("div", { class: "mode" }, h("h2", {}, "Against the AI"), h("p", {}, this.level, " ", this.aiColour), h("button", { id: "mode-ai", onclick: () => this.go("ai") }, "Play the AI")),
          h("div", { class: "mode" }, h("h2", {}, "Online"), h("p", {}, h("label", {}, "Name ", this.name)),
            h("p", {}, h("button", { id: "online-create", onclick: () => this.online() }, "Create a room")),
            h("p", {}, this.joinRoom, " ", h("button", { id: "online-join", onclick: () => this.online(this.joinRoom.value) }, "Join")))),
        h("h1", {}, "Watch a live game"), this.rooms,
        h("h1", {}, "Replay a stored game"), this.games));
    this.load();
  }

  settings() {
    const [game, size] = this.select.value.split(":");
    return { game, size: size ? Number(size) : undefined };
  }

  go(mode) {
    const { game, size } = this.settings();
    const q = new URLSearchParams({ game, mode });
    if (size) q.set("size", size);
    if (mode === "ai") {
      q.set("level", this.level.value);
      q.set("colour", this.aiColour.value);
    }
    location.hash = `#/play?${q}`;
  }

  online(room) {
    const { game, size } = this.settings();
    const q = new URLSearchParams({ game });
    if (size) q.set("size", size);
    const number = room ? Number(room) : Math.floor(1000 + Math.random() * 998000);
    if (!Number.isInteger(number) || number < 0) {
      alert("A room is a number.");
      return;
    }
    q.set("room", number);
    location.hash = `#/online?${q}`;
  }

  async load() {
    try {
      const rooms = await api("/api/rooms");
      const live = rooms.filter((r) => r.status === "playing" || r.players.length > 0);
      this.rooms.replaceChildren(...(live.length ? live.map((r) => h("li", {},
        h("a", { href: `#/watch?room=${r.room}` }, `Room ${r.room}`), " ",
        r.settings ? gameTitle(r.settings.game, r.settings.size) : "",
        " — ", r.players.map((p) => p.name || "anonymous").join(" vs "), ` (${r.status}, ${r.moves.length} moves)`)) : [h("li", {}, "No game is being played right now.")]));
      const games = await api("/api/games?limit=20");
      this.games.replaceChildren(...(games.length ? games.map((g) => h("li", {},
        h("a", { href: `#/replay?id=${g.id}` }, `Game ${g.id}`), " ", gameTitle(g.game, g.settings && g.settings.size),
        ` — ${g.first || "anonymous"} vs ${g.second || "anonymous"}`, g.end_reason ? ` (${g.end_reason.toLowerCase()})` : " (unfinished)")) : [h("li", {}, "No stored games yet.")]));
    } catch (e) {
      this.rooms.replaceChildren(h("li", { class: "error" }, `Cannot reach the server: ${e.message}`));
    }
  }
}

// ---------------------------------------------------------------------------------------- game

class GameView {
  // mode: local | ai | online | watch | replay
  constructor(mode, params) {
    this.mode = mode;
    this.params = params;
    this.settings = { game: params.get("game") || CATALOGUE[0].id, size: params.get("size") ? Number(params.get("size")) : undefined };
    this.moves = [];
    this.view = null;
    this.outcome = null;
    this.losing = new Set();
    this.seq = 0;
    this.clock = [0, 0];
    this.deadline = null;
    this.timeoutMs = null;
    this.build();
    window.arbiter = this;
    this.ticker = setInterval(() => this.tick(), 200);
    this.lastTick = performance.now();
  }

  dispose() {
    clearInterval(this.ticker);
    clearInterval(this.player);
    if (this.connection) this.connection.close();
    if (window.arbiter === this) window.arbiter = null;
  }

  build() {
    this.status = h("div", { id: "status", class: "status" });
    this.banner = h("div", { id: "banner", class: "banner", hidden: true });
    this.moveList = h("ol", { id: "moves", class: "moves" });
    this.clocks = [h("div", { class: "clock", id: "clock-first" }), h("div", { class: "clock", id: "clock-second" })];
    this.controls = h("div", { class: "controls" });
    this.extra = h("div", { class: "extra" });
    const boardWrap = h("div", { class: "board-wrap" });
    this.title = h("h1", { class: "game-title" });
    app.replaceChildren(h("section", { class: "game" }, boardWrap,
      h("aside", {}, this.title, this.status, this.banner, h("div", { class: "clocks" }, ...this.clocks), this.controls, this.extra, this.moveList)));
    this.board = new Board(boardWrap, { onMove: (m) => this.humanMove(m) });
    this.start();
  }

  button(id, label, action) {
    return h("button", { id, onclick: action }, label);
  }

  commonButtons() {
    const buttons = [this.button("flip", "Flip board", () => this.board.setFlipped(!this.board.flipped))];
    if (this.settings.game === "duck") {
      buttons.push(this.button("letters", "Latin letters", (e) => {
        this.board.setLatin(!this.board.latin);
        e.target.textContent = this.board.latin ? "Chinese pieces" : "Latin letters";
      }));
    }
    buttons.push(this.button("sound", sound.soundOn() ? "Sound: on" : "Sound: off", (e) => {
      sound.setSound(!sound.soundOn());
      e.target.textContent = sound.soundOn() ? "Sound: on" : "Sound: off";
    }));
    buttons.push(h("a", { href: "#/", class: "button" }, "Home"));
    return buttons;
  }

  start() {
    const title = gameTitle(this.settings.game, this.settings.size);
    if (this.mode === "local" || this.mode === "ai") {
      this.title.textContent = this.mode === "ai" ? `${title} — against the AI (${this.params.get("level") || "medium"})` : `${title} — two players`;
      this.humanSide = this.params.get("colour") === "second" ? 1 : 0;
      if (this.mode === "ai" && this.humanSide === 1) this.board.setFlipped(true);
      this.controls.replaceChildren(
        this.button("undo", "Undo", () => this.undo()),
        this.button("resign", "Resign", () => this.resignLocal()),
        this.button("rematch", "New game", () => this.newLocalGame()),
        ...this.commonButtons());
      this.refresh();
    } else if (this.mode === "online") {
      this.startOnline(title);
    } else if (this.mode === "watch") {
      this.startWatch();
    } else {
      this.startReplay();
    }
  }

  colours() {
    return colourWords(this.settings.game);
  }

  // Whether a person may move the side to move by clicking.
  humanToMove() {
    if (!this.view || this.view.status !== "ongoing" || this.outcome || this.busy || this.loading) return false;
    const side = this.colours().indexOf(this.view.to_move);
    if (this.mode === "local") return true;
    if (this.mode === "ai") return side === this.humanSide;
    if (this.mode === "online") return this.started && this.myColour === this.view.to_move;
    return false;
  }

  async refresh({ animate = null } = {}) {
    const seq = ++this.seq;
    this.loading = true;
    let view;
    try {
      view = await api("/api/state", { ...gameOptions(this.settings), moves: this.moves });
    } catch (e) {
      this.loading = false;
      this.showBanner(`The server cannot show this position: ${e.message}`);
      return;
    }
    if (seq !== this.seq) return;
    if (animate && this.view) await this.board.animate(animate);
    if (seq !== this.seq) return;
    this.loading = false;
    const previous = this.view;
    this.view = view;
    try {
      this.board.render(view, { interactive: this.humanToMove() });
    } catch (e) {
      this.showBanner(`Cannot show this game: ${e.message}.`);
      return;
    }
    this.renderSide();
    if (view.last && previous && view.ply > previous.ply) {
      if (view.last.capture) sound.playCapture();
      if (view.check) sound.playCheck();
    }
    if (view.status !== "ongoing" && previous && previous.status === "ongoing") sound.playEnd();
    this.losing = new Set();
    if (this.humanToMove() && this.mode !== "online") this.fetchWarnings(seq);
    if (this.mode === "online" && this.humanToMove()) this.fetchWarnings(seq);
    if (this.mode === "ai" && view.status === "ongoing" && !this.outcome && !this.humanToMove()) this.aiMove(seq);
  }

  async fetchWarnings(seq) {
    try {
      const analysis = await api("/api/analyze", { ...gameOptions(this.settings), moves: this.moves });
      if (seq === this.seq) this.losing = new Set(analysis.losing);
    } catch (e) {
      // Warnings are a help, not a requirement.
    }
  }

  async aiMove(seq) {
    this.thinking = true;
    this.renderSide();
    try {
      const answer = await api("/api/ai", { ...gameOptions(this.settings), moves: this.moves, level: this.params.get("level") || "medium", seed: this.moves.length + 1 });
      if (seq !== this.seq || !answer.move) return;
      const move = this.view.legal.find((m) => m.text === answer.move);
      this.moves.push(answer.move);
      this.thinking = false;
      await this.refresh({ animate: move });
    } catch (e) {
      this.showBanner(`The AI could not move: ${e.message}`);
    } finally {
      if (seq === this.seq) this.thinking = false;
    }
  }

  async humanMove(move) {
    if (!this.humanToMove()) return;
    if (this.losing.has(move.text)) {
      this.busy = true;
      const play = await confirmModal(`${move.text} loses: after it your opponent can force a win. Play it anyway?`, "Play it", "Cancel");
      this.busy = false;
      if (!play) {
        this.board.render(this.view, { interactive: this.humanToMove() });
        return;
      }
    }
    if (this.mode === "online") {
      if (!this.connection.send(OP.MOVE, move.from, move.to, "")) {
        this.showLost();
        return;
      }
      this.deadline = null;
    }
    this.moves.push(move.text);
    await this.refresh({ animate: move });
    if (this.mode === "online") this.startDeadline();
  }

  undo() {
    if (!this.moves.length) return;
    this.outcome = null;
    let count = 1;
    if (this.mode === "ai" && this.view && this.colours().indexOf(this.view.to_move) === this.humanSide && this.moves.length >= 2) count = 2;
    this.moves.splice(this.moves.length - count, count);
    this.refresh();
  }

  resignLocal() {
    if (!this.view || this.view.status !== "ongoing" || this.outcome) return;
    const loser = this.mode === "ai" ? this.humanSide : this.colours().indexOf(this.view.to_move);
    this.outcome = { winner: this.colours()[1 - loser], reason: `${this.colours()[loser]} resigned` };
    this.seq++;
    this.board.render(this.view, { interactive: false });
    this.renderSide();
    sound.playEnd();
  }

  newLocalGame() {
    this.moves = [];
    this.outcome = null;
    this.clock = [0, 0];
    this.refresh();
  }

  tick() {
    const now = performance.now();
    const dt = now - this.lastTick;
    this.lastTick = now;
    if (!this.view) return;
    const side = this.colours().indexOf(this.view.to_move);
    const running = this.view.status === "ongoing" && !this.outcome;
    if ((this.mode === "local" || this.mode === "ai") && running) this.clock[side] += dt;
    this.renderClocks();
  }

  renderClocks() {
    if (!this.view) return;
    const [first, second] = this.colours();
    const side = this.colours().indexOf(this.view.to_move);
    const running = this.view.status === "ongoing" && !this.outcome;
    for (const i of [0, 1]) {
      let value;
      if (this.mode === "local" || this.mode === "ai") value = clockText(this.clock[i]);
      else if (this.deadline && running && i === side) value = clockText(this.deadline - Date.now());
      else value = "—";
      this.clocks[i].textContent = `${i === 0 ? first : second} ${value}`;
      this.clocks[i].classList.toggle("running", running && i === side);
    }
  }

  renderSide() {
    const v = this.view;
    if (!v) return;
    let text;
    if (this.outcome) {
      text = this.outcome.winner ? `${this.outcome.winner} wins — ${this.outcome.reason}` : `Draw — ${this.outcome.reason}`;
    } else if (v.rejected) {
      text = `Move ${v.rejected.index + 1} (${v.rejected.move}) is illegal: ${v.rejected.reason}`;
    } else if (v.status === "won") {
      text = `${v.winner} wins — ${v.end}`;
    } else if (v.status === "drawn") {
      text = `Draw — ${v.end}`;
    } else {
      text = `${v.to_move} to move`;
      if (v.check) text += " — check!";
      if (this.mode === "online" && this.started) text += v.to_move === this.myColour ? " (you)" : ` (${this.opponent || "opponent"})`;
      if (this.thinking) text += " — the AI is thinking…";
    }
    if (this.mode === "online" && !this.started && !this.outcome) text = this.waitingText || "Waiting for an opponent…";
    this.status.textContent = text;
    this.status.dataset.over = String(Boolean(this.outcome || v.status !== "ongoing"));
    // One line per full move: the first player's ply and the second's.
    const items = [];
    for (let i = 0; i < this.moves.length; i += 2) {
      const ply = (j) => h("span", { class: j === this.moves.length - 1 ? "ply current" : "ply", "data-ply": j + 1 }, this.moves[j]);
      items.push(h("li", {}, ply(i), i + 1 < this.moves.length ? ply(i + 1) : ""));
    }
    this.moveList.replaceChildren(...items);
    this.moveList.scrollTop = this.moveList.scrollHeight;
    this.renderClocks();
  }

  showBanner(text, action = null) {
    this.banner.hidden = false;
    this.banner.replaceChildren(h("span", {}, text), action ? action : "");
  }

  hideBanner() {
    this.banner.hidden = true;
  }

  // ------------------------------------------------------------------------------ online play

  startOnline(title) {
    this.room = this.params.get("room");
    this.title.textContent = `${title} — online, room ${this.room}`;
    const link = `${location.origin}${location.pathname}#/online?${this.params}`;
    this.controls.replaceChildren(
      this.button("resign", "Resign", () => this.connection && this.connection.send(OP.RESIGN)),
      this.button("rematch", "Rematch", () => this.sendReady()),
      ...this.commonButtons());
    this.chat = h("div", { id: "chat", class: "chat" });
    const chatInput = h("input", { id: "chat-input", placeholder: "say something", size: 18 });
    chatInput.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && chatInput.value.trim()) {
        this.connection.send(OP.CHAT, playerName(), chatInput.value.trim());
        this.chat.append(h("p", {}, `you: ${chatInput.value.trim()}`));
        chatInput.value = "";
      }
    });
    this.extra.replaceChildren(h("p", {}, "Share this link: ", h("input", { id: "share-link", readonly: true, value: link, size: 30, onfocus: (e) => e.target.select() })), this.chat, chatInput);
    this.started = false;
    this.connectOnline();
    this.refresh();
  }

  connectOnline() {
    this.hideBanner();
    this.connection = new Connection({
      onOpen: () => this.sendReady(),
      onMessage: (m) => this.onlineMessage(m),
      onLost: () => this.showLost(),
    });
  }

  sendReady() {
    const extra = gameOptions(this.settings);
    const colour = this.params.get("colour") || "";
    this.waitingText = `Waiting for an opponent in room ${this.room}… share the link.`;
    this.connection.send(OP.READY, playerName(), colour, String(this.room), extra);
    this.renderSide();
  }

  showLost() {
    this.started = false;
    this.deadline = null;
    this.showBanner("The connection to the server was lost (a game in progress counts as resigned). ",
      h("button", { id: "reconnect", onclick: () => this.connectOnline() }, "Reconnect"));
  }

  startDeadline() {
    this.deadline = this.timeoutMs ? Date.now() + this.timeoutMs : null;
  }

  async onlineMessage(m) {
    switch (m.op) {
      case OP.READY: {
        // The server's READY names the game and every option: play by it, not by the link.
        const { op: _op, data1: _d1, data2: _d2, data3: _d3, ...extension } = m;
        if (extension.game && gameDef(extension.game)) this.settings = settingsFrom(extension, extension.game);
        this.started = true;
        this.myColour = m.data2;
        this.opponent = m.data1 || "anonymous";
        this.timeoutMs = Number(m.timeout_ms) || 3000;
        this.moves = [];
        this.outcome = null;
        this.hideBanner();
        this.board.setFlipped(this.colours().indexOf(this.myColour) === 1);
        this.startDeadline();
        await this.refresh();
        break;
      }
      case OP.REJECT:
        this.showBanner(`The room refused you: ${m.data2}. `, h("a", { href: "#/" }, "Back home"));
        break;
      case OP.MOVE: {
        const text = `${m.data1}-${m.data2}`;
        const move = this.view && this.view.legal.find((x) => x.text === text);
        this.moves.push(text);
        await this.refresh({ animate: move });
        if (m.data3 !== END_MARKER) this.startDeadline();
        break;
      }
      case OP.END: {
        this.deadline = null;
        this.outcome = this.describeEnd(m);
        // A move sent as the clock ran out never counted: show the game the server kept.
        const plies = Number(m.plies);
        if (Number.isInteger(plies) && plies < this.moves.length) {
          this.moves.length = plies;
          await this.refresh();
        }
        this.seq++;
        if (this.view) this.board.render(this.view, { interactive: false });
        this.renderSide();
        sound.playEnd();
        break;
      }
      case OP.LEAVE:
        this.chat && this.chat.append(h("p", { class: "note" }, `${m.data1 || "your opponent"} left (${m.data2}).`));
        break;
      case OP.CHAT:
        this.chat && this.chat.append(h("p", {}, `${m.data1}: ${m.data2}`));
        break;
      default:
        break;
    }
  }

  describeEnd(m) {
    const colours = this.colours();
    const winner = m.data3 === "0" ? colours[0] : m.data3 === "1" ? colours[1] : null;
    const endReason = (END_REASONS[Number(m.data2)] || m.data2).toLowerCase().replace(/_/g, " ");
    let reason = endReason;
    // The course calls the no-capture limit STALEMATE; say what happened.
    if (m.data2 === "1") reason = "no capture for too many rounds";
    if (m.data1 !== "" && m.data2 === "6") {
      const moveReason = (MOVE_REASONS[Number(m.data1)] || m.data1).toLowerCase().replace(/_/g, " ");
      const who = winner === this.myColour ? "your opponent" : winner ? "you" : "a player";
      reason = `illegal move by ${who} (${moveReason})`;
    }
    return { winner, reason };
  }

  // ---------------------------------------------------------------------------------- watching

  startWatch() {
    this.room = this.params.get("room");
    this.title.textContent = `Watching room ${this.room}`;
    this.controls.replaceChildren(...this.commonButtons());
    this.chat = h("div", { id: "chat", class: "chat" });
    this.extra.replaceChildren(this.chat);
    this.started = false;
    this.waitingText = "Waiting for a game to start in this room…";
    this.watchConnect();
  }

  watchConnect() {
    this.hideBanner();
    this.connection = new Connection({
      onOpen: () => this.connection.send(OP.WATCH, String(this.room)),
      onMessage: (m) => this.watchMessage(m),
      onLost: () => this.showBanner("The connection was lost. ", h("button", { id: "reconnect", onclick: () => this.watchConnect() }, "Reconnect")),
    });
  }

  async watchMessage(m) {
    if (m.op === OP.STATE) {
      const snap = JSON.parse(m.data1);
      if (!snap.settings) {
        this.status.textContent = "Nobody plays in this room yet.";
        return;
      }
      this.settings = settingsFrom(snap.settings);
      this.timeoutMs = snap.settings.timeout_ms;
      this.title.textContent = `Watching room ${this.room}: ${gameTitle(this.settings.game, this.settings.size)} — ${snap.players.map((p) => p.name || "anonymous").join(" vs ")}`;
      this.moves = snap.moves;
      this.outcome = null;
      this.started = snap.status !== "waiting";
      this.myColour = null;
      if (snap.status === "playing") this.startDeadline();
      await this.refresh();
    } else if (m.op === OP.MOVE) {
      const text = `${m.data1}-${m.data2}`;
      const move = this.view && this.view.legal.find((x) => x.text === text);
      this.moves.push(text);
      await this.refresh({ animate: move });
      this.startDeadline();
    } else if (m.op === OP.END) {
      this.deadline = null;
      this.outcome = this.describeEnd(m);
      this.renderSide();
    } else if (m.op === OP.CHAT) {
      this.chat.append(h("p", {}, `${m.data1}: ${m.data2}`));
    }
  }

  // ---------------------------------------------------------------------------------- replays

  async startReplay() {
    this.id = this.params.get("id");
    this.title.textContent = `Replay of game ${this.id}`;
    let game;
    try {
      game = await api(`/api/games/${this.id}`);
    } catch (e) {
      this.showBanner(`Cannot load game ${this.id}: ${e.message}. `, h("a", { href: "#/" }, "Back home"));
      return;
    }
    this.settings = settingsFrom(game.settings, game.game);
    this.record = game.moves.map((m) => m.move);
    this.title.textContent = `Replay of game ${this.id}: ${gameTitle(this.settings.game, this.settings.size)} — ${game.first} vs ${game.second}`;
    this.finalOutcome = game.end_reason ? {
      winner: game.winner === 0 ? this.colours()[0] : game.winner === 1 ? this.colours()[1] : null,
      reason: game.end_reason.toLowerCase().replace(/_/g, " "),
    } : null;
    this.cursor = 0;
    this.speed = 800;
    this.clocks.forEach((c) => (c.hidden = true));
    this.goTo = h("input", { id: "goto", type: "number", min: 0, max: this.record.length, value: 0, size: 4 });
    this.speedSelect = h("select", { id: "speed" }, [["1600", "½×"], ["800", "1×"], ["400", "2×"], ["200", "4×"]].map(([v, l]) => h("option", { value: v, selected: v === "800" }, l)));
    this.speedSelect.addEventListener("change", () => {
      this.speed = Number(this.speedSelect.value);
      if (this.player) this.play();
    });
    this.playButton = this.button("play", "Play", () => (this.player ? this.pause() : this.play()));
    this.replayControls = h("div", { class: "replay" },
      this.button("start", "First", () => this.seek(0)),
      this.button("back", "◀", () => this.seek(this.cursor - 1)),
      this.playButton,
      this.button("forward", "▶", () => this.seek(this.cursor + 1)),
      this.button("end", "Last", () => this.seek(this.record.length)),
      h("label", {}, " move ", this.goTo), this.button("go", "Go", () => this.seek(Number(this.goTo.value))),
      h("label", {}, " speed ", this.speedSelect));
    this.tryButton = this.button("try", "Try from here", () => this.tryFromHere());
    this.controls.replaceChildren(this.tryButton, ...this.commonButtons());
    this.extra.replaceChildren(this.replayControls, h("p", {}, `${this.record.length} moves.`));
    await this.seek(0);
  }

  async seek(n) {
    const target = Math.max(0, Math.min(this.record.length, n));
    const stepForward = target === this.cursor + 1 && this.view;
    const move = stepForward ? this.view.legal.find((m) => m.text === this.record[this.cursor]) : null;
    this.cursor = target;
    this.goTo.value = target;
    this.moves = this.record.slice(0, target);
    this.outcome = target === this.record.length ? this.finalOutcome : null;
    await this.refresh({ animate: move });
    this.moveList.querySelectorAll(".ply").forEach((p) => p.addEventListener("click", () => this.seek(Number(p.dataset.ply))));
    if (target === this.record.length) this.pause();
  }

  play() {
    clearInterval(this.player);
    if (this.cursor >= this.record.length) this.cursor = 0;
    this.playButton.textContent = "Pause";
    this.player = setInterval(() => this.seek(this.cursor + 1), this.speed);
  }

  pause() {
    clearInterval(this.player);
    this.player = null;
    if (this.playButton) this.playButton.textContent = "Play";
  }

  tryFromHere() {
    this.pause();
    const saved = { cursor: this.cursor };
    this.mode = "local";
    this.outcome = null;
    this.clock = [0, 0];
    this.extra.replaceChildren(h("p", {}, `Trying moves from move ${saved.cursor} of game ${this.id}.`));
    this.controls.replaceChildren(
      this.button("undo", "Undo", () => this.undo()),
      this.button("back-to-record", "Back to the record", () => {
        this.mode = "replay";
        this.controls.replaceChildren(this.tryButton, ...this.commonButtons());
        this.extra.replaceChildren(this.replayControls, h("p", {}, `${this.record.length} moves.`));
        this.seek(saved.cursor);
      }),
      ...this.commonButtons());
    this.refresh();
  }
}

function route() {
  if (current && current.dispose) current.dispose();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  document.body.dataset.view = path || "/";
  switch (path) {
    case "/play":
      current = new GameView(params.get("mode") === "ai" ? "ai" : "local", params);
      break;
    case "/online":
      current = new GameView("online", params);
      break;
    case "/watch":
      current = new GameView("watch", params);
      break;
    case "/replay":
      current = new GameView("replay", params);
      break;
    default:
      current = new HomeView();
  }
}

async function boot() {
  try {
    CATALOGUE = await api("/api/catalogue");
  } catch (e) {
    app.replaceChildren(h("p", { class: "error" }, `Cannot load the list of games: ${e.message}`));
    return;
  }
  window.addEventListener("hashchange", route);
  route();
}

boot();
