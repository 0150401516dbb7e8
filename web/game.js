// A game on the screen: the board, the status and result, and the parts every mode shows (the
// clocks, the move list and its browsing, a box to type moves, the no-capture counter, the
// analysis once the game is over). Each mode (play.js, online.js, watch.js, replay.js) owns one
// and says through callbacks what is its own (who may move, what a move does, what the status
// and the clocks say); the context app.js hands every view carries the catalogue.

import { AnalysisBoard } from "./analysis.js";
import * as api from "./api.js";
import { Board } from "./board.js";
import { Clocks } from "./clocks.js";
import { announce, app, h, Serial, setTabTitle } from "./dom.js";
import { glyphButton } from "./glyphs.js";
import { MoveEntry } from "./moveentry.js";
import { MoveList } from "./movelist.js";
import { NoCaptureCounter } from "./nocapture.js";
import * as sound from "./sound.js";
import { LosingMoveWarnings } from "./warnings.js";

// What a mode may decide, and what the screen does where it says nothing. `goToPly`, `navigate`
// and `listedMoves` default to the screen's own browsing (set in the constructor).
const DEFAULT_HOOKS = {
  mayMove: () => false, // (side) may this screen move that side?
  premoveSide: () => null, // the side ("first", "second") whose pieces may be premoved: online only
  humanMove: async () => {}, // (move) a move made on the board or typed; runs inside `serial`
  afterRefresh: () => {}, // a new position was drawn
  statusText: (turn) => turn, // (turn) the status, given the words of whose move it is
  seatWords: () => null, // said over the result: this page no longer plays here (online)
  end: (own) => own, // (own) the end shown, given the outcome's or the rules' end
  analysable: (end) => Boolean(end), // (end) whether the analysis board opens
  storedId: () => null, // the stored game's number when it is over (the whole-game analysis)
  renderControls: () => {}, // the mode's buttons, after every change
  tick: () => {}, // (ms) ten times a second, before the clocks are drawn
  started: () => true, // whether the game has started (a room may wait for a player)
  playerNames: () => [null, null], // the players' names by side, shown by the clocks
  playerRatings: () => [null, null], // their ratings during a rated game
  clockValues: () => null, // { ms: [first, second], running, countdown } or null (no clock)
};

// Drawing a position fetched for `this.moves`, one step at a time.
export class GameScreen {
  // `hooks`: the mode's callbacks (DEFAULT_HOOKS); `navigable`: whether the buttons under the
  // list browse the moves (a replay has its own step controls).
  constructor(params, context, { hooks = {}, navigable = true } = {}) {
    this.params = params;
    this.catalogue = context.catalogue;
    this.hooks = {
      ...DEFAULT_HOOKS,
      goToPly: (n) => this.browseTo(n),
      navigate: (where) => this.browseStep(where),
      listedMoves: () => ({ moves: this.moves, played: this.moves.length }),
      ...hooks,
    };
    this.navigable = navigable;
    this.settings = this.catalogue.settingsFrom(params, params.get("game"));
    this.moves = [];
    this.view = null;
    this.outcome = null; // an end from outside the board: { winner: 0|1|null, reason }
    this.warnings = new LosingMoveWarnings(); // the moves the AI sees losing, to warn before
    this.mySide = null; // 0 or 1 when this screen plays one side
    this.serial = new Serial((e) => this.showBanner(`Something went wrong: ${e.message}`));
    this.disposed = false;
    // An earlier position shown while the game goes on (←/→): { ply, key, view }, or null.
    this.browse = null;
    this.browseSerial = 0;
    this.positions = new Map();
    this.build();
    // Ten times a second: a clock under 10 s shows tenths.
    this.ticker = setInterval(() => this.tick(), 100);
    this.lastTick = performance.now();
    this.keys = (e) => this.keyDown(e);
    document.addEventListener("keydown", this.keys);
  }

  dispose() {
    this.disposed = true;
    setTabTitle();
    clearInterval(this.ticker);
    document.removeEventListener("keydown", this.keys);
    this.board.dispose();
    if (this.analysis) this.analysis.dispose();
  }

  colours() {
    return this.catalogue.colourWords(this.settings.game);
  }

  names() {
    return this.catalogue.sideNames(this.settings.game);
  }

  // The game and its options, as a request to the server names them.
  request() {
    return this.catalogue.options(this.settings);
  }

  build() {
    this.title = h("h1", { class: "game-title" });
    this.clocks = new Clocks();
    this.status = h("p", { id: "status", class: "status" });
    this.resultTitle = h("h2", { id: "result-title" });
    this.resultReason = h("p", { id: "result-reason" });
    this.result = h("section", { id: "result", class: "result", hidden: true, "aria-label": "Result" }, this.resultTitle, this.resultReason);
    this.banner = h("div", { id: "banner", class: "banner", role: "alert", hidden: true });
    this.controls = h("div", { class: "controls" });
    const look = this.look();
    this.entry = new MoveEntry({
      example: look.example || "from-to",
      notation: look.notation || "",
      legal: () => (this.view && !this.browse ? this.view.legal : null),
      play: (move) => this.serial.run(() => this.hooks.humanMove(move)),
    });
    this.extra = h("div", { class: "extra" });
    this.listing = new MoveList({ onPick: (ply) => this.goToPly(ply), onNavigate: (where) => this.navigate(where) });
    this.moveList = this.listing.element;
    this.noCapture = new NoCaptureCounter();
    this.boardWrap = h("div", { class: "board-wrap" });
    this.zoomButton = h("button", { id: "zoom", class: "small", hidden: true, onclick: () => this.board.toggleZoom() }, "Zoom");
    this.boardCol = h("div", { class: "board-col" }, this.boardWrap, this.zoomButton);
    this.analysisSlot = h("div", { class: "analysis-slot" });
    app.replaceChildren(h("section", { class: "game" },
      this.boardCol,
      h("aside", {}, this.title, this.clocks.element, this.noCapture.element, this.status, this.result, this.banner,
        this.controls, this.entry.element, this.extra, h("h2", { class: "visually-hidden" }, "Moves"), this.moveList,
        this.listing.nav, this.analysisSlot)));
    this.board = new Board(this.boardWrap, {
      look: this.catalogue.look(this.settings.game),
      onMove: (m) => this.serial.run(() => this.hooks.humanMove(m)),
      onPremove: () => this.renderSide(),
    });
  }

  // How the catalogue says the game looks (its example move, its alternative glyphs).
  look() {
    const def = this.catalogue.def(this.settings.game);
    return { ...(def ? def.look : {}), notation: def && def.notation };
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
    if (!v || v.status !== "ongoing" || this.outcome || this.warnings.asking) return false;
    return this.hooks.mayMove(this.colours().indexOf(v.to_move));
  }

  // Fetches and draws the position after `this.moves`; whether it was drawn. `wanted` says
  // whether the position is still wanted once it arrives (a paused replay does not move on).
  // Call inside `this.serial`.
  async refresh({ animate = null, wanted = null } = {}) {
    let view;
    try {
      view = await api.state({ ...this.request(), moves: this.moves });
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
    this.hooks.afterRefresh();
    return true;
  }

  draw() {
    if (!this.view) return;
    try {
      // The board is given the look of the game shown (a watched room names its game late).
      this.board.set({ look: this.catalogue.look(this.view.game) });
      // An earlier position is only looked at: the game goes on behind it.
      if (this.browse) this.board.render(this.browse.view, { interactive: false });
      else this.board.render(this.view, { interactive: this.humanToMove(), premoveSide: this.hooks.premoveSide() });
      this.boardWrap.classList.toggle("browsing", Boolean(this.browse));
    } catch (e) {
      this.showBanner(`Cannot show this game: ${e.message}.`);
      return;
    }
    this.zoomButton.hidden = !this.board.needsZoom() && !this.boardWrap.classList.contains("zoomed");
    this.renderSide();
  }

  // The end shown, if the game has one (the mode may say otherwise: a replay's record).
  end() {
    return this.hooks.end(this.ownEnd());
  }

  // The end from outside the board (resign, time, server), or by the game's rules.
  ownEnd() {
    if (this.outcome) return this.outcome;
    const v = this.view;
    if (!v || v.status === "ongoing") return null;
    const winner = v.winner ? this.colours().indexOf(v.winner) : null;
    return { winner, reason: v.end || "the game is over" };
  }

  // Whose move it is, in words (the mode's status builds on them).
  turnWords() {
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
    const status = this.hooks.seatWords() || (end ? `${this.resultTitle.textContent}: ${end.reason}.` : this.hooks.statusText(this.turnWords()));
    this.status.textContent = status;
    this.status.dataset.over = String(Boolean(end));
    announce(status);
    this.renderTabTitle(end);
    this.entry.element.hidden = !this.humanToMove() || Boolean(this.browse);
    this.renderMoves();
    this.renderNavigation();
    const shown = this.browse ? this.browse.view : this.view;
    this.noCapture.render(NoCaptureCounter.rule(this.catalogue.def(this.settings.game), this.settings), shown && shown.quiet_plies);
    this.renderControls();
    this.renderClocks();
    this.renderAnalysis();
  }

  renderControls() {
    this.hooks.renderControls();
  }

  // The stored game's number when it is over (for the whole-game analysis), else null.
  storedId() {
    return this.hooks.storedId();
  }

  // The analysis board: in a replay, and once a game is over — never while a game is played,
  // which gets no engine's help.
  renderAnalysis() {
    if (!this.hooks.analysable(this.end())) {
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
    const running = v && !end && v.status === "ongoing" && this.mySide !== null && this.hooks.started();
    setTabTitle(running ? (this.colours().indexOf(v.to_move) === this.mySide ? "Your move" : "Opponent's move") : null);
  }

  // The browsing buttons, and which position the board shows.
  renderNavigation() {
    const total = this.moves.length;
    this.listing.renderNavigation({ shown: this.navigable, at: this.browse ? this.browse.ply : total, total, browsing: Boolean(this.browse) });
  }

  // ←/→, Home and End anywhere on the page browse the moves (where they mean nothing else).
  keyDown(event) {
    const where = MoveList.stepFor(event, this.entry.input);
    if (where && this.navigate(where)) event.preventDefault();
  }

  // A step through the moves: `first`, `back`, `forward` or `last`; whether there was one.
  navigate(where) {
    return this.hooks.navigate(where);
  }

  // Shows the position after `n` moves (a ply picked in the list or the analysis graph).
  goToPly(n) {
    this.hooks.goToPly(n);
  }

  // The screen's own browsing: earlier positions looked at while the game goes on.
  browseStep(where) {
    if (!this.view || !this.navigable) return false;
    const total = this.moves.length;
    if (!total) return false;
    const at = this.browse ? this.browse.ply : total;
    const target = { first: 0, back: at - 1, forward: at + 1, last: total }[where];
    this.goToPly(target);
    return true;
  }

  // The position after `n` moves (the game as it is for the last one).
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
        view = await api.state({ ...this.request(), moves });
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

  // The moves the list shows (the mode's: a replay lists its whole record), and how many of
  // them the board has played.
  renderMoves() {
    const { moves, played } = this.hooks.listedMoves();
    this.listing.render({ moves, played: this.browse ? this.browse.ply : played, clickable: true, browsing: Boolean(this.browse) });
  }

  tick() {
    const now = performance.now();
    this.hooks.tick(now - this.lastTick);
    this.lastTick = now;
    this.renderClocks();
  }

  renderClocks() {
    const { hooks } = this;
    this.clocks.render({ values: hooks.clockValues(), sides: this.names(), players: hooks.playerNames(), ratings: hooks.playerRatings() });
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

  // Warns before a move the AI sees losing by force; true to go on.
  async confirmSafe(move, options) {
    const play = await this.warnings.confirm(move, options);
    if (!play) this.draw();
    return play;
  }

  fetchWarnings() {
    const ply = this.moves.length;
    return this.warnings.fetch(this.request(), this.moves, () => ply === this.moves.length);
  }
}
