// Playing online, over the course protocol on the server's WebSocket. A reload, a dropped
// connection or another tab of the same browser takes the same seat back (seat.js; the tab it
// replaces watches from then on); a page coming back never seeks a game by itself (READY's
// `resume`); leaving a running game asks first. Players offer each other draws and takebacks,
// abort before both have moved, and claim the game when the opponent's connection has been
// gone a while (offers.js, away.js); rated games show both ratings, and the players see how
// many watch.

import { ChatPanel } from "./chat.js";
import { confirmDialog, h } from "./dom.js";
import { nameSecret, playerName, replaceGuestName } from "./identity.js";
import { Connection } from "./net.js";
import { NetworkView } from "./network.js";
import { ratingClass, ratingOf } from "./players.js";
import { homeLink, spectatorsOf, spectatorWords } from "./roomlinks.js";
import { seatOf } from "./seat.js";
import * as sound from "./sound.js";

// How often a player's page asks how many watch its game.
const SPECTATORS_EVERY_MS = 5000;

export class OnlineView extends NetworkView {
  constructor(params, context) {
    super(params, context);
    this.room = params.get("room");
    if (this.refuseBadRoom("Online play")) return;
    this.tc = this.catalogue.timeControl(params.get("tc") || "");
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
    this.title.textContent = `${this.catalogue.title(this.settings.game, this.settings.size)} — online, room ${this.room}`;
    this.guard = (e) => {
      if (!this.playing()) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", this.guard);
    // How many watch: the players see it, as on lichess (the room list's count, every 5 s).
    this.spectatorPoll = setInterval(() => this.countSpectators(), SPECTATORS_EVERY_MS);
    this.buildExtras();
    // The empty board while the room answers; not drawn once a seat taken back awaits its moves.
    this.serial.run(() => this.refresh({ wanted: () => !this.resuming }));
    this.connect();
  }

  seated() {
    return true;
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
    return confirmDialog("Leave this game? Your seat is kept for 30 seconds; after that, leaving counts as resigning.", "Leave", "Stay");
  }

  mayMove(side) {
    return this.started && !this.lost && side === this.mySide;
  }

  tick() {
    super.tick();
    if (this.mySide !== null && this.time.lowNow(this.clockValues(), this.mySide)) sound.playLowTime();
  }

  buildExtras() {
    const link = `${location.origin}${location.pathname}#/online?${this.params}`;
    const offers = this.offers;
    this.resignButton = this.button("resign", "Resign", () => this.serial.run(() => this.resign()));
    this.drawButton = this.button("offer-draw", "Offer a draw", () => offers.offer("draw"));
    this.takebackButton = this.button("offer-takeback", "Propose a takeback", () => offers.offer("takeback"));
    this.abortButton = this.button("abort", "Abort", () => offers.abort(), { hidden: true });
    this.rematchButton = this.button("rematch", "Rematch", () => this.serial.run(() => this.rematch()));
    this.controls.replaceChildren(this.resignButton, this.drawButton, this.takebackButton, this.abortButton,
      this.rematchButton, ...this.commonButtons());
    this.chat = new ChatPanel({ send: (text) => Boolean(this.connection) && this.connection.send(this.ops.CHAT, playerName(), text) });
    this.resetOffers();
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
    const offers = this.offers;
    this.resignButton.disabled = !live;
    this.rematchButton.disabled = this.lost || this.refused || this.unseated || !this.started || this.playing();
    this.drawButton.disabled = !offers.may("draw");
    this.takebackButton.disabled = !offers.may("takeback") || !offers.hasMoveToTakeBack();
    // Abort: only before both players have moved.
    this.abortButton.hidden = !live || this.moves.length >= 2;
    this.abortButton.disabled = offers.sentAbort;
  }

  // A new game: no offer, nobody away.
  resetOffers() {
    this.away.clear();
    this.offers.reset();
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
    const premove = this.board.premove;
    const queued = premove ? ` — premove ${premove.from}-${premove.to} (right-click to cancel)` : "";
    return super.statusText() + this.firstMoveWords() + queued;
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
      ...this.request(), token: this.token, secret: nameSecret(), ...(this.tc ? this.tc.keys : {}),
      ...(this.training ? { training: 1 } : {}), ...(this.params.get("rated") === "1" ? { rated: 1 } : {}),
      ...(resume ? { resume: 1 } : {}),
    };
    const colour = this.rematching ? "" : this.params.get("colour") || "";
    this.connection.send(this.ops.READY, playerName(), colour, String(this.room), extra);
    this.renderSide();
  }

  // The seat is held a while: try again every two seconds.
  connectionLost() {
    if (this.disposed) return;
    this.lost = true;
    this.time.stop();
    this.draw();
    if (this.refused || this.unseated) return;
    this.retry = setTimeout(() => this.connect(), 2000);
  }

  async message(m) {
    if (await this.common(m)) return undefined;
    switch (m.op) {
      case this.ops.READY: return this.gameStarts(m);
      case this.ops.STATE: return this.caughtUp(m);
      case this.ops.REJECT:
        // A guest name another browser holds (REJECT's code `name_held`): this page takes a new
        // one and asks again.
        if (m.code === "name_held" && this.renamed < 3 && replaceGuestName()) {
          this.renamed += 1;
          this.sendReady();
          return undefined;
        }
        this.refused = `The room refused you: ${m.data2}.`;
        this.showBanner(this.refused, homeLink());
        // The status says so even before the first position arrives.
        if (this.view) this.draw();
        else this.renderSide();
        return undefined;
      case this.ops.LEAVE:
        this.chat.append(h("p", { class: "note" }, `${m.data1 || "your opponent"} left (${m.data2}).`));
        // A rematch asked by who left can no longer be accepted.
        this.offers.rematchAsked(true);
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
    this.time.firstMoveFrom(m);
    this.started = true;
    this.seeking = false;
    this.seat.played = true;
    this.seat.save();
    this.mySide = this.colours().indexOf(m.data2);
    this.opponent = m.data1 || "anonymous";
    this.opponentName = m.data1;
    // A seat taken back mid-game: READY says how many moves were played, and the snapshot that
    // follows brings them; until then the page keeps what it showed (never the start position).
    this.resuming = Number(m.plies) > 0;
    if (!this.resuming) this.moves = [];
    this.outcome = null;
    this.resetOffers();
    this.time.restart();
    this.hideBanner();
    this.title.textContent = `${this.catalogue.title(this.settings.game, this.settings.size)} — online, room ${this.room}, against ${this.opponent}`;
    this.board.setFlipped(this.mySide === 1);
    this.timeLine.textContent = `Time: ${this.catalogue.timeWords(m)}.`;
    this.timeLine.hidden = false;
    this.training = Number(m.training) === 1;
    this.trainingLine.hidden = !this.training;
    this.showRated(m);
    if (this.resuming) return;
    this.time.start();
    await this.refresh();
  }

  async caughtUp(m) {
    const snap = JSON.parse(m.data1);
    this.resuming = false;
    this.moves = snap.moves || [];
    // A page that comes back while the opponent is away: how long they have been is not said.
    const away = (snap.away || []).find((name) => name === this.opponentName);
    if (away && !this.away.who && snap.status === "playing") this.away.gone(away, NaN);
    if (snap.clocks) this.time.sync(snap.clocks);
    this.time.firstMoveFrom(snap);
    this.time.start(snap.turn_left_ms);
    await this.refresh();
    this.offers.fromSnapshot(snap);
  }

  // During the opponent's turn of the game this page plays, its pieces may be premoved.
  premoveSide() {
    if (!this.playing() || this.lost || this.mySide === null || this.browse) return null;
    if (this.colours().indexOf(this.view.to_move) === this.mySide) return null;
    return this.mySide === 0 ? "first" : "second";
  }

  afterRefresh() {
    this.warnings.clear();
    if (this.humanToMove()) this.playPremove();
    if (this.training && this.humanToMove()) this.fetchWarnings();
  }

  // The turn came: the premove queued is played at once if still legal, else dropped.
  playPremove() {
    const premove = this.board.takePremove();
    if (!premove) return;
    const move = this.view.legal.find((m) => m.from === premove.from && m.to === premove.to);
    if (move) this.serial.run(() => this.humanMove(move));
    else this.renderSide();
  }

  async humanMove(move) {
    // No engine's help in a game between people unless both asked for a training room.
    if (!this.humanToMove() || this.browse) return;
    if (this.training && !(await this.confirmSafe(move, { waitMs: 3000 }))) return;
    if (!this.connection.send(this.ops.MOVE, move.from, move.to, "")) {
      this.connectionLost();
      return;
    }
    this.time.stop();
    this.time.charge(this.mySide);
    this.moves.push(move.text);
    await this.refresh({ animate: move });
    this.time.start();
  }

  // A page resigns at once, on either side's turn (the server takes it from the extension).
  async resign() {
    if (!this.playing()) return;
    const sure = await confirmDialog("Resign this game?", "Resign", "Keep playing");
    if (!sure || !this.playing()) return;
    if (!this.connection.send(this.ops.RESIGN)) this.connectionLost();
  }

  // A rematch is a READY after the game (the opponent is asked, or it answers theirs); the
  // colours swap, so the first game's requested colour is not asked for again.
  rematch() {
    const asked = this.offers.rematchAsked();
    this.offers.pending = null;
    this.offers.render();
    this.outcome = null;
    this.started = false;
    this.rematching = true;
    this.seeking = true;
    this.sendReady();
    if (!asked) this.offers.note("You asked for a rematch; waiting for your opponent.");
  }
}
