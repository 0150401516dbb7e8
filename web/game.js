// A game on the screen: the board, the status and result, clocks, the move list, a box to type
// moves, and the modes played at this screen — two players, or one against the AI. Every game
// is stored on the server as it is played (so it can be replayed and shared) and in this
// browser (so a reload, Back or Forward finds it again).

import { AnalysisBoard } from "./analysis.js";
import { Board } from "./board.js";
import { glyphButton } from "./glyphs.js";
import * as sound from "./sound.js";
import {
  announce, api, app, clockText, colourWords, confirmDialog, endWords, gameDef, gameOptions,
  gameTitle, h, playerName, Serial, settingsFrom, sideNames,
} from "./ui.js";

// The page's own title, which the tab shows whenever no game of this screen's is running.
const BASE_TITLE = document.title;

// What every mode shares: drawing a position fetched for `this.moves`, one step at a time.
export class GameView {
  constructor(params) {
    this.params = params;
    this.settings = settingsFrom(params, params.get("game"));
    this.moves = [];
    this.view = null;
    this.outcome = null; // an end from outside the board: { winner: 0|1|null, reason }
    this.losing = new Set(); // the moves the AI sees losing, to warn before
    this.mySide = null; // 0 or 1 when this screen plays one side
    this.serial = new Serial((e) => this.showBanner(`Something went wrong: ${e.message}`));
    this.disposed = false;
    // An earlier position shown while the game goes on (←/→): { ply, key, view }, or null.
    this.browse = null;
    this.browseSerial = 0;
    this.positions = new Map();
    this.pliesClickable = true;
    this.build();
    // Ten times a second: a clock under 10 s shows tenths.
    this.ticker = setInterval(() => this.tick(), 100);
    this.lastTick = performance.now();
    this.keys = (e) => this.keyDown(e);
    document.addEventListener("keydown", this.keys);
  }

  dispose() {
    this.disposed = true;
    document.title = BASE_TITLE;
    clearInterval(this.ticker);
    document.removeEventListener("keydown", this.keys);
    this.board.dispose();
    if (this.analysis) this.analysis.dispose();
  }

  colours() {
    return colourWords(this.settings.game);
  }

  names() {
    return sideNames(this.settings.game);
  }

  build() {
    this.title = h("h1", { class: "game-title" });
    this.clocks = [0, 1].map((i) => h("div", { class: "clock", id: `clock-${i === 0 ? "first" : "second"}` }));
    this.status = h("p", { id: "status", class: "status" });
    this.resultTitle = h("h2", { id: "result-title" });
    this.resultReason = h("p", { id: "result-reason" });
    this.result = h("section", { id: "result", class: "result", hidden: true, "aria-label": "Result" }, this.resultTitle, this.resultReason);
    this.banner = h("div", { id: "banner", class: "banner", role: "alert", hidden: true });
    this.controls = h("div", { class: "controls" });
    this.moveInput = h("input", { id: "move-input", autocomplete: "off", spellcheck: "false", size: 9 });
    this.moveError = h("p", { id: "move-error", class: "hint", "aria-live": "polite" });
    this.moveForm = h("form", { class: "move-entry", hidden: true, onsubmit: (e) => this.typedMove(e) },
      h("label", { for: "move-input" }, "Type a move "), this.moveInput, " ", h("button", { type: "submit" }, "Play"), this.moveError);
    this.extra = h("div", { class: "extra" });
    this.moveList = h("ol", { id: "moves", class: "moves", "aria-label": "Moves played" });
    const pick = (e) => {
      const ply = e.target.closest(".ply");
      if (ply && (e.type === "click" || e.key === "Enter")) this.goToPly(Number(ply.dataset.ply));
    };
    this.moveList.addEventListener("click", pick);
    this.moveList.addEventListener("keydown", pick);
    // The moves can be browsed while the game goes on: buttons (for a phone) and ←/→, Home, End.
    this.browseWhere = h("span", { id: "browsing", class: "hint", "aria-live": "polite" });
    const navButton = (id, label, aria, where) => h("button", { id, type: "button", class: "small", "aria-label": aria,
      title: aria, onclick: () => this.navigate(where) }, label);
    this.liveButton = h("button", { id: "nav-live", type: "button", class: "small", hidden: true,
      onclick: () => this.navigate("last") }, "Back to the game");
    this.moveNav = h("div", { class: "move-nav", role: "group", "aria-label": "Browse the moves", hidden: true },
      navButton("nav-first", "«", "First position (Home)", "first"),
      navButton("nav-back", "◀", "Previous move (←)", "back"),
      navButton("nav-forward", "▶", "Next move (→)", "forward"),
      navButton("nav-last", "»", "The game now (End)", "last"),
      this.liveButton, this.browseWhere);
    this.noCapture = h("p", { id: "no-capture", class: "no-capture", hidden: true });
    this.boardWrap = h("div", { class: "board-wrap" });
    this.zoomButton = h("button", { id: "zoom", class: "small", hidden: true, onclick: () => this.board.toggleZoom() }, "Zoom");
    this.boardCol = h("div", { class: "board-col" }, this.boardWrap, this.zoomButton);
    this.analysisSlot = h("div", { class: "analysis-slot" });
    app.replaceChildren(h("section", { class: "game" },
      this.boardCol,
      h("aside", {}, this.title, h("div", { class: "clocks" }, ...this.clocks), this.noCapture, this.status, this.result, this.banner,
        this.controls, this.moveForm, this.extra, h("h2", { class: "visually-hidden" }, "Moves"), this.moveList, this.moveNav, this.analysisSlot)));
    this.board = new Board(this.boardWrap, { onMove: (m) => this.serial.run(() => this.humanMove(m)) });
    this.moveInput.placeholder = this.notationExample();
    this.moveInput.title = this.look().notation || "";
  }

  // How the catalogue says the game looks (its example move, its alternative glyphs).
  look() {
    const def = gameDef(this.settings.game);
    return { ...(def ? def.look : {}), notation: def && def.notation };
  }

  notationExample() {
    return this.look().example || "from-to";
  }

  button(id, label, action, attrs = {}) {
    return h("button", { id, type: "button", onclick: action, ...attrs }, label);
  }

  commonButtons() {
    const buttons = [this.button("flip", "Flip board", () => this.board.setFlipped(!this.board.flipped))];
    const alternative = this.look().alternative;
    if (alternative) buttons.push(glyphButton(this.board, alternative));
    buttons.push(this.button("sound", sound.soundOn() ? "Sound: on" : "Sound: off", (e) => {
      sound.setSound(!sound.soundOn());
      e.target.textContent = sound.soundOn() ? "Sound: on" : "Sound: off";
    }, { "aria-pressed": String(sound.soundOn()) }));
    buttons.push(h("a", { href: "#/", class: "button", id: "home" }, "Home"));
    return buttons;
  }

  // Whether a person may move on this screen now.
  humanToMove() {
    const v = this.view;
    if (!v || v.status !== "ongoing" || this.outcome || this.busy) return false;
    return this.mayMove(this.colours().indexOf(v.to_move));
  }

  // Overridden by each mode: may this screen move side `side`?
  mayMove() {
    return false;
  }

  // Fetches and draws the position after `this.moves`. Call inside `this.serial`.
  // Fetches and draws the position after `this.moves`; whether it was drawn. `wanted` says
  // whether the position is still wanted once it arrives (a paused replay does not move on).
  async refresh({ animate = null, wanted = null } = {}) {
    let view;
    try {
      view = await api("/api/state", { ...gameOptions(this.settings), moves: this.moves });
    } catch (e) {
      this.showBanner(`The server cannot show this position: ${e.message}`);
      return false;
    }
    if (this.disposed || (wanted && !wanted())) return false;
    if (animate && !this.browse && this.view && view.ply === this.view.ply + 1) await this.board.animate(animate);
    if (wanted && !wanted()) {
      this.draw();
      return false;
    }
    const previous = this.view;
    this.view = view;
    // A position browsed that the game no longer passes through (a takeback) is left.
    if (this.browse && (this.browse.ply >= this.moves.length || this.browse.key !== this.moves.slice(0, this.browse.ply).join(" "))) {
      this.browse = null;
    }
    this.draw();
    if (view.last && previous && view.ply > previous.ply) {
      if (view.last.capture) sound.playCapture();
      if (view.check) sound.playCheck();
      if (!view.last.capture && !view.check) sound.playMove();
    }
    if (view.status !== "ongoing" && previous && previous.status === "ongoing") sound.playEnd();
    this.afterRefresh();
    return true;
  }

  afterRefresh() {}

  draw() {
    if (!this.view) return;
    try {
      // An earlier position is only looked at: the game goes on behind it.
      if (this.browse) this.board.render(this.browse.view, { interactive: false });
      else this.board.render(this.view, { interactive: this.humanToMove() });
      this.boardWrap.classList.toggle("browsing", Boolean(this.browse));
    } catch (e) {
      this.showBanner(`Cannot show this game: ${e.message}.`);
      return;
    }
    this.zoomButton.hidden = !this.board.needsZoom() && !this.boardWrap.classList.contains("zoomed");
    this.renderSide();
  }

  // The end, if the game has one: from outside the board (resign, time, server), or its rules.
  end() {
    if (this.outcome) return this.outcome;
    const v = this.view;
    if (!v || v.status === "ongoing") return null;
    const winner = v.winner ? this.colours().indexOf(v.winner) : null;
    return { winner, reason: v.end || "the game is over" };
  }

  // What the status says over the result: this page no longer plays here (a network view's).
  seatWords() {
    return null;
  }

  statusText() {
    const v = this.view;
    if (!v) return "Loading…";
    const name = this.names()[this.colours().indexOf(v.to_move)];
    let text = `${name[0].toUpperCase()}${name.slice(1)} to move`;
    if (this.mySide !== null) text += this.colours().indexOf(v.to_move) === this.mySide ? " (you)" : "";
    if (v.check) text += " — check!";
    return text;
  }

  renderSide() {
    const end = this.end();
    this.result.hidden = !end;
    if (end) {
      const names = this.names();
      let title;
      if (end.title) title = end.title;
      else if (end.winner === null) title = "Draw";
      else if (this.mySide !== null) title = end.winner === this.mySide ? "You won" : "You lost";
      else title = `${names[end.winner][0].toUpperCase()}${names[end.winner].slice(1)} won`;
      this.resultTitle.textContent = title;
      this.resultReason.textContent = end.reason[0].toUpperCase() + end.reason.slice(1) + ".";
      this.result.dataset.winner = end.winner === null ? "none" : String(end.winner);
    }
    const status = this.seatWords() || (end ? `${this.resultTitle.textContent}: ${end.reason}.` : this.statusText());
    this.status.textContent = status;
    this.status.dataset.over = String(Boolean(end));
    announce(status);
    this.renderTabTitle(end);
    this.moveForm.hidden = !this.humanToMove() || Boolean(this.browse);
    this.renderMoves();
    this.renderNavigation();
    this.renderNoCapture();
    this.renderControls();
    this.renderClocks();
    this.renderAnalysis();
  }

  // The analysis board: in a replay, and once a game is over — never while a game is played,
  // which gets no engine's help.
  analysable() {
    return Boolean(this.end());
  }

  // The stored game's number when it is over (for the whole-game analysis), else null.
  storedId() {
    return null;
  }

  renderAnalysis() {
    if (!this.analysable()) {
      if (this.analysis) this.analysis.hide();
      return;
    }
    if (!this.analysis) this.analysis = new AnalysisBoard(this);
    const ply = this.browse ? this.browse.ply : this.moves.length;
    this.analysis.follow(this.moves.slice(0, ply), ply);
  }

  // The tab says whose move it is while this screen plays one side of a running game (seen from
  // another tab), and goes back to the page's own title otherwise.
  renderTabTitle(end) {
    const v = this.view;
    let title = BASE_TITLE;
    if (v && !end && v.status === "ongoing" && this.mySide !== null && this.started !== false) {
      const mine = this.colours().indexOf(v.to_move) === this.mySide;
      title = `${mine ? "Your move" : "Opponent's move"} — arbiter`;
    }
    if (document.title !== title) document.title = title;
  }

  // The limit on moves without a capture, if the game has one and it is on (0 turns it off).
  noCaptureLimit() {
    const def = gameDef(this.settings.game);
    const option = def && def.options.find((o) => o.name === "max_no_capture_round");
    if (!option) return null;
    const value = this.settings.max_no_capture_round;
    const limit = value === undefined || value === null ? option.default : Number(value);
    return limit > 0 ? { limit, help: option.help } : null;
  }

  // How many moves in a row were played without a capture, of the limit that ends the game.
  renderNoCapture() {
    const rule = this.noCaptureLimit();
    const shown = this.browse ? this.browse.view : this.view;
    const count = shown && shown.quiet_plies;
    this.noCapture.hidden = !rule || typeof count !== "number";
    if (this.noCapture.hidden) return;
    this.noCapture.textContent = `Moves without a capture: ${count} of ${rule.limit}`;
    this.noCapture.title = `${rule.help[0].toUpperCase()}${rule.help.slice(1)}: ${rule.limit}.`;
    this.noCapture.classList.toggle("near", rule.limit - count <= Math.min(10, Math.ceil(rule.limit / 4)));
  }

  // The browsing buttons, and which position the board shows.
  renderNavigation() {
    if (!this.navigable()) {
      this.moveNav.hidden = true;
      return;
    }
    this.moveNav.hidden = false;
    const total = this.moves.length;
    const at = this.browse ? this.browse.ply : total;
    for (const [id, off] of [["nav-first", at === 0], ["nav-back", at === 0], ["nav-forward", at >= total], ["nav-last", at >= total]]) {
      this.moveNav.querySelector(`#${id}`).disabled = off;
    }
    this.liveButton.hidden = !this.browse;
    this.browseWhere.textContent = this.browse
      ? `Looking at move ${at} of ${total}: → or End returns to the game.`
      : "";
  }

  // Whether this view browses its moves with the buttons under the list (a replay has its own).
  navigable() {
    return true;
  }

  // ←/→, Home and End anywhere on the page browse the moves, except where they mean something
  // else: on the board (walking its points), in a box being typed in, with a dialog open.
  keyDown(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const where = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }[event.key];
    if (!where || document.querySelector("dialog[open]")) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target && target.closest("svg.board")) return;
    const typing = target && target.matches("input, textarea, select, [contenteditable]");
    if (typing && !(target === this.moveInput && !target.value)) return;
    if (this.navigate(where)) event.preventDefault();
  }

  // A step through the moves: `first`, `back`, `forward` or `last`; whether there was one.
  navigate(where) {
    if (!this.view || !this.navigable()) return false;
    const total = this.moves.length;
    if (!total) return false;
    const at = this.browse ? this.browse.ply : total;
    const target = { first: 0, back: at - 1, forward: at + 1, last: total }[where];
    this.goToPly(target);
    return true;
  }

  // Shows the position after `n` moves (the game as it is for the last one).
  goToPly(n) {
    this.browseTo(n);
  }

  async browseTo(n) {
    const total = this.moves.length;
    const ply = Math.max(0, Math.min(total, n));
    const serial = ++this.browseSerial;
    if (ply >= total) {
      if (this.browse) {
        this.browse = null;
        this.draw();
      }
      return;
    }
    const moves = this.moves.slice(0, ply);
    const key = moves.join(" ");
    let view = this.positions.get(key);
    if (!view) {
      try {
        view = await api("/api/state", { ...gameOptions(this.settings), moves });
      } catch (e) {
        this.showBanner(`The server cannot show that position: ${e.message}`);
        return;
      }
      if (this.positions.size > 400) this.positions.clear();
      this.positions.set(key, view);
    }
    if (this.disposed || serial !== this.browseSerial) return;
    // The game went on (or back) while the position was asked for: still one of its positions?
    if (ply >= this.moves.length || this.moves.slice(0, ply).join(" ") !== key) return;
    this.browse = { ply, key, view };
    this.draw();
  }

  renderControls() {}

  // The moves the list shows, and how many of them the board has played.
  listedMoves() {
    return { moves: this.moves, played: this.moves.length };
  }

  // One line per full move: the first player's ply and the second's.
  renderMoves() {
    const listed = this.listedMoves();
    const { moves } = listed;
    const played = this.browse ? this.browse.ply : listed.played;
    const items = [];
    for (let i = 0; i < moves.length; i += 2) {
      const ply = (j) => h("span", {
        class: j === played - 1 ? "ply current" : j >= played ? "ply ahead" : "ply",
        "data-ply": j + 1,
        tabindex: this.pliesClickable ? 0 : null,
        role: this.pliesClickable ? "button" : null,
      }, moves[j]);
      items.push(h("li", {}, ply(i), i + 1 < moves.length ? ply(i + 1) : ""));
    }
    this.moveList.replaceChildren(...items);
    const current = this.browse && this.moveList.querySelector(".ply.current");
    if (current) this.moveList.scrollTop = current.offsetTop - this.moveList.offsetTop - this.moveList.clientHeight / 2;
    else this.moveList.scrollTop = this.moveList.scrollHeight;
  }

  tick() {
    const now = performance.now();
    this.elapsed(now - this.lastTick);
    this.lastTick = now;
    this.renderClocks();
  }

  elapsed() {}

  // The players' names by side, shown by the clocks when known.
  playerNames() {
    return [null, null];
  }

  // The players' ratings by side during a rated game, shown beside their names.
  playerRatings() {
    return [null, null];
  }

  // [first, second] in ms to show, and which one runs (or null).
  clockValues() {
    return null;
  }

  renderClocks() {
    const values = this.clockValues();
    const names = this.names();
    const players = this.playerNames();
    const ratings = this.playerRatings();
    for (const i of [0, 1]) {
      const text = values ? clockText(values.ms[i], Boolean(values.countdown)) : "—";
      const rated = ratings[i] ? ` (${ratings[i]})` : "";
      const label = players[i] ? `${names[i]} · ${players[i]}${rated}` : names[i];
      if (this.clocks[i].textContent !== `${label} ${text}`) this.clocks[i].textContent = `${label} ${text}`;
      this.clocks[i].classList.toggle("running", Boolean(values) && values.running === i);
      this.clocks[i].classList.toggle("low", Boolean(values && values.countdown) && values.running === i && values.ms[i] < 10000);
    }
  }

  showBanner(text, action = null) {
    this.banner.hidden = false;
    this.banner.dataset.kind = "";
    this.banner.setAttribute("role", "alert");
    this.banner.replaceChildren(h("span", {}, text), action ? " " : "", action || "");
  }

  hideBanner() {
    this.banner.hidden = true;
  }

  // A move typed in the game's notation (or its judge form).
  typedMove(event) {
    event.preventDefault();
    const text = this.moveInput.value.trim().replace(/\s+/g, "");
    if (!text || !this.view || this.browse) return;
    const wanted = text.toLowerCase().replace(/([a-z]\d+)([a-z]\d+)/, "$1-$2");
    const move = this.view.legal.find((m) => m.text.toLowerCase() === wanted);
    if (!move) {
      this.moveError.textContent = `${text} is not a legal move here (moves look like ${this.notationExample()}).`;
      return;
    }
    this.moveError.textContent = "";
    this.moveInput.value = "";
    this.serial.run(() => this.humanMove(move));
  }

  // Warns before a move the AI sees losing by force; true to go on. At this screen and in a
  // training room only: a live game between people otherwise gets no engine's help.
  async confirmSafe(move) {
    if (!this.losing.has(move.text)) return true;
    this.busy = true;
    const play = await confirmDialog(`${move.text} loses: after it your opponent can force a win. Play it anyway?`, "Play it", "Cancel");
    this.busy = false;
    if (!play) this.draw();
    return play;
  }

  async fetchWarnings() {
    const ply = this.moves.length;
    try {
      const analysis = await api("/api/analyze", { ...gameOptions(this.settings), moves: this.moves }, { timeout: 10000 });
      if (ply === this.moves.length) this.losing = new Set(analysis.losing);
    } catch (e) {
      // Warnings are a help, not a requirement.
    }
  }

  async humanMove() {}
}

// Two players at this screen, or one against the AI.
export class PlayView extends GameView {
  constructor(params) {
    super(params);
    this.mode = params.get("mode") === "ai" ? "ai" : "local";
    this.level = params.get("level") || "medium";
    this.humanSide = params.get("colour") === "second" ? 1 : 0;
    this.clock = [0, 0];
    this.thinking = null; // the AbortController of the AI's search
    this.serial.run(() => this.start());
  }

  dispose() {
    super.dispose();
    if (this.thinking) this.thinking.abort();
  }

  mayMove(side) {
    return this.mode === "local" || side === this.humanSide;
  }

  storageKey() {
    return `arbiter-game-${this.id}`;
  }

  async start() {
    const title = gameTitle(this.settings.game, this.settings.size);
    const names = this.names();
    this.title.textContent = this.mode === "ai"
      ? `${title} — you (${names[this.humanSide]}) against the AI (${this.level})`
      : `${title} — two players at this screen`;
    if (this.mode === "ai") {
      this.mySide = this.humanSide;
      if (this.humanSide === 1) this.board.setFlipped(true);
    }
    this.id = this.params.get("id");
    if (this.id) await this.restore();
    else await this.create();
    await this.refresh();
  }

  // A new stored game; the address then names it, so a reload finds it.
  async create() {
    const names = this.names();
    const players = this.mode === "ai"
      ? (this.humanSide === 0 ? [playerName(), `AI (${this.level})`] : [`AI (${this.level})`, playerName()])
      : [`${playerName()} (${names[0]})`, `${playerName()} (${names[1]})`];
    try {
      const created = await api("/api/games", { ...gameOptions(this.settings), players, mode: this.mode, level: this.level });
      this.id = String(created.id);
      this.token = created.token;
      this.save();
      const q = new URLSearchParams(this.params);
      q.set("id", this.id);
      history.replaceState(null, "", `#/play?${q}`);
    } catch (e) {
      this.showBanner(`This game is not being saved: ${e.message}.`);
    }
  }

  // A reload, Back or Forward: this browser remembers the game; else the server's copy.
  async restore() {
    const saved = JSON.parse(localStorage.getItem(this.storageKey()) || "null");
    if (saved) {
      this.token = saved.token;
      this.moves = saved.moves || [];
      this.outcome = saved.outcome || null;
      this.clock = saved.clock || [0, 0];
      return;
    }
    try {
      const game = await api(`/api/games/${this.id}`);
      this.moves = game.moves.map((m) => m.move);
      this.showBanner("This game was started in another browser: you can play on here, but your moves are not saved.");
    } catch (e) {
      this.showBanner(`Cannot load game ${this.id}: ${e.message}. A new game starts.`);
      this.id = null;
      await this.create();
    }
  }

  save() {
    if (!this.id) return;
    localStorage.setItem(this.storageKey(), JSON.stringify({
      token: this.token, moves: this.moves, outcome: this.outcome, clock: this.clock,
    }));
  }

  // Sends the last move to the server's copy of the game, numbered (the server refuses a
  // repeated or skipped one).
  async storeMove() {
    this.save();
    if (!this.id || !this.token) return;
    const body = { token: this.token, ply: this.moves.length, move: this.moves[this.moves.length - 1] };
    try {
      await api(`/api/games/${this.id}/moves`, body);
    } catch (e) {
      this.showBanner(`The server did not save the last move: ${e.message}.`);
    }
  }

  // Takes the server's copy back to the moves left after an undo.
  async storeTakeback() {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api(`/api/games/${this.id}/takeback`, { token: this.token, ply: this.moves.length });
    } catch (e) {
      this.showBanner(`The server did not save the takeback: ${e.message}.`);
    }
  }

  // Sends a resignation, with the moves so far (they continue the stored ones), to the server's
  // copy.
  async storeResign(resign) {
    this.save();
    if (!this.id || !this.token) return;
    try {
      await api(`/api/games/${this.id}`, { token: this.token, moves: this.moves, resign }, { method: "PUT" });
    } catch (e) {
      this.showBanner(`The server did not save the resignation: ${e.message}.`);
    }
  }

  storedId() {
    return this.id && this.end() ? this.id : null;
  }

  renderControls() {
    if (this.controlsBuilt) {
      this.undoButton.disabled = !this.canUndo();
      this.resignButton.disabled = !this.view || this.view.status !== "ongoing" || Boolean(this.outcome);
      return;
    }
    this.controlsBuilt = true;
    this.undoButton = this.button("undo", "Undo", () => this.serial.run(() => this.undo()));
    this.resignButton = this.button("resign", "Resign", () => this.serial.run(() => this.resign()));
    this.controls.replaceChildren(
      this.undoButton, this.resignButton,
      this.button("rematch", "New game", () => this.newGame()),
      ...this.commonButtons());
    this.extra.replaceChildren(h("p", {}, "Every move is saved: ",
      h("a", { id: "replay-link", href: "#/" }, "replay or share this game")));
    this.renderControls();
  }

  afterRefresh() {
    const link = this.extra.querySelector("#replay-link");
    if (link && this.id) link.href = `#/replay?id=${this.id}`;
    this.losing = new Set();
    const v = this.view;
    if (v.status !== "ongoing" || this.outcome) return;
    if (this.humanToMove()) this.fetchWarnings();
    else if (this.mode === "ai") this.aiMove();
  }

  statusText() {
    if (this.thinking) return `${super.statusText()} — the AI is thinking…`;
    return super.statusText();
  }

  canUndo() {
    return Boolean(this.moves.length && this.view && this.view.status === "ongoing" && !this.outcome);
  }

  aiMove() {
    const controller = new AbortController();
    this.thinking = controller;
    this.renderSide();
    const moves = [...this.moves];
    api("/api/ai", { ...gameOptions(this.settings), moves, level: this.level, seed: moves.length + 1 }, { signal: controller.signal, timeout: 30000 })
      .then((answer) => this.serial.run(async () => {
        if (controller.signal.aborted || this.thinking !== controller) return;
        this.thinking = null;
        const move = this.view.legal.find((m) => m.text === answer.move);
        if (!move) return;
        this.moves.push(move.text);
        await this.storeMove();
        await this.refresh({ animate: move });
      }))
      .catch((e) => {
        if (controller.signal.aborted) return;
        this.thinking = null;
        this.showBanner(`The AI could not move: ${e.message}`, this.button("retry-ai", "Try again", () => this.serial.run(() => this.refresh())));
        this.renderSide();
      });
  }

  async humanMove(move) {
    if (!this.humanToMove()) return;
    if (!(await this.confirmSafe(move))) return;
    this.moves.push(move.text);
    await this.storeMove();
    await this.refresh({ animate: move });
  }

  async undo() {
    if (!this.canUndo()) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    let count = 1;
    const toMove = this.colours().indexOf(this.view.to_move);
    if (this.mode === "ai" && toMove === this.humanSide && this.moves.length >= 2) count = 2;
    if (this.mode === "ai" && toMove !== this.humanSide) count = 1;
    this.moves.splice(this.moves.length - count, count);
    await this.storeTakeback();
    await this.refresh();
  }

  async resign() {
    if (!this.view || this.view.status !== "ongoing" || this.outcome) return;
    const loser = this.mode === "ai" ? this.humanSide : this.colours().indexOf(this.view.to_move);
    const names = this.names();
    const sure = await confirmDialog(`Resign the game for ${names[loser]}?`, "Resign", "Keep playing");
    if (!sure) return;
    if (this.thinking) {
      this.thinking.abort();
      this.thinking = null;
    }
    this.outcome = { winner: 1 - loser, reason: endWords("RESIGN", names[loser]) };
    await this.storeResign(loser === 0 ? "first" : "second");
    this.draw();
    sound.playEnd();
  }

  newGame() {
    const q = new URLSearchParams(this.params);
    q.delete("id");
    location.hash = `#/play?${q}&new=${Date.now()}`;
  }

  elapsed(dt) {
    const v = this.view;
    if (!v || v.status !== "ongoing" || this.outcome) return;
    this.clock[this.colours().indexOf(v.to_move)] += dt;
  }

  clockValues() {
    const v = this.view;
    if (!v) return null;
    const running = v.status === "ongoing" && !this.outcome ? this.colours().indexOf(v.to_move) : null;
    return { ms: this.clock, running };
  }
}
