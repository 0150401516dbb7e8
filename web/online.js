// Playing online, over the course protocol on the server's WebSocket. A reload, a dropped
// connection or another tab of the same browser takes the same seat back (seat.js; the tab it
// replaces watches from then on); a page coming back never seeks a game by itself (READY's
// `resume`); leaving a running game asks first. Players offer each other draws and takebacks,
// abort before both have moved, and claim the game when the opponent's connection has been
// gone a while (offers.js, away.js); rated games show both ratings, and the players see how
// many watch. The view owns the game's screen (game.js), the room's session (network.js) and
// what its page says about the game (roomfacts.js), and keeps the seat's own state.

import { confirmDialog, h } from "./dom.js";
import { GameScreen } from "./game.js";
import { nameSecret, playerName, replaceGuestName } from "./identity.js";
import { RoomSession } from "./network.js";
import { RoomFacts } from "./roomfacts.js";
import { homeLink } from "./roomlinks.js";
import { seatOf } from "./seat.js";
import * as sound from "./sound.js";

export class OnlineView {
  constructor(params, context) {
    this.params = params;
    this.catalogue = context.catalogue;
    this.room = params.get("room");
    this.screen = new GameScreen(params, context, {
      hooks: {
        mayMove: (side) => this.session.started && !this.session.lost && side === this.screen.mySide,
        premoveSide: () => this.premoveSide(),
        humanMove: (move) => this.humanMove(move),
        afterRefresh: () => this.afterRefresh(),
        statusText: (turn) => this.statusText(turn),
        seatWords: () => this.seatWords(),
        renderControls: () => this.renderControls(),
        tick: () => this.tick(),
        started: () => this.session.started,
        playerNames: () => this.playerNames(),
        playerRatings: () => (this.facts ? this.facts.ratings() : [null, null]),
        clockValues: () => this.session.clockValues(),
      },
    });
    this.session = new RoomSession(this.screen, context, {
      room: this.room,
      player: true,
      hooks: {
        playing: () => this.playing(),
        playerNames: () => this.playerNames(),
        seatNotice: (what, why) => this.seatNotice(what, why),
        connectionLost: () => this.connectionLost(),
        rematch: () => this.rematch(),
      },
    });
    if (this.session.refuseBadRoom("Online play")) return;
    const { screen } = this;
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
    // Guest names replaced after a room refused them as another's (a few at most).
    this.renamed = 0;
    screen.title.textContent = `${this.catalogue.title(screen.settings.game, screen.settings.size)} — online, room ${this.room}`;
    this.guard = (e) => {
      if (!this.playing()) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", this.guard);
    this.facts = new RoomFacts({
      room: this.room,
      link: `${location.origin}${location.pathname}#/online?${this.params}`,
      tc: this.tc,
      training: this.training,
      playing: () => this.playing(),
      gone: () => this.screen.disposed,
      playerNames: () => this.playerNames(),
      ratingsFound: () => this.screen.renderClocks(),
    });
    this.buildControls();
    // The empty board while the room answers; not drawn once a seat taken back awaits its moves.
    screen.serial.run(() => screen.refresh({ wanted: () => !this.resuming }));
    this.connect();
  }

  dispose() {
    window.removeEventListener("beforeunload", this.guard);
    if (this.facts) this.facts.dispose();
    this.screen.dispose();
    this.session.dispose();
  }

  // Whether this page holds a seat in a game not yet over.
  playing() {
    const { view, outcome } = this.screen;
    return this.session.started && view && view.status === "ongoing" && !outcome;
  }

  // Asked by the router before it leaves the page.
  async mayLeave() {
    // A tab whose seat went to another tab leaves without asking: there is nothing to lose.
    if (this.screen.disposed || !this.playing()) return true;
    return confirmDialog("Leave this game? Your seat is kept for 30 seconds; after that, leaving counts as resigning.", "Leave", "Stay");
  }

  // Ten times a second: the absent opponent's countdown, and the low-time warning.
  tick() {
    this.session.tick();
    const side = this.screen.mySide;
    if (side !== null && this.session.time.lowNow(this.session.clockValues(), side)) sound.playLowTime();
  }

  buildControls() {
    const { screen } = this;
    const { offers } = this.session;
    this.resignButton = screen.button("resign", "Resign", () => screen.serial.run(() => this.resign()));
    this.drawButton = screen.button("offer-draw", "Offer a draw", () => offers.offer("draw"));
    this.takebackButton = screen.button("offer-takeback", "Propose a takeback", () => offers.offer("takeback"));
    this.abortButton = screen.button("abort", "Abort", () => offers.abort(), { hidden: true });
    this.rematchButton = screen.button("rematch", "Rematch", () => screen.serial.run(() => this.rematch()));
    screen.controls.replaceChildren(this.resignButton, this.drawButton, this.takebackButton, this.abortButton,
      this.rematchButton, ...screen.commonButtons());
    this.resetOffers();
    screen.extra.replaceChildren(...this.facts.elements, this.session.chat.element);
  }

  renderControls() {
    if (!this.resignButton) return;
    const { lost, refused, started, offers } = this.session;
    const live = this.playing() && !lost;
    this.resignButton.disabled = !live;
    this.rematchButton.disabled = lost || refused || this.unseated || !started || this.playing();
    this.drawButton.disabled = !offers.may("draw");
    this.takebackButton.disabled = !offers.may("takeback") || !offers.hasMoveToTakeBack();
    // Abort: only before both players have moved.
    this.abortButton.hidden = !live || this.screen.moves.length >= 2;
    this.abortButton.disabled = offers.sentAbort;
  }

  // A new game: no offer, nobody away.
  resetOffers() {
    this.session.away.clear();
    this.session.offers.reset();
  }

  // A refusal or a lost seat is said even over a finished game's result: an idle tab must not
  // read as if its seat were still held.
  seatWords() {
    if (this.session.refused) return this.session.refused;
    if (this.unseated) return `You no longer hold a seat in room ${this.room}: ${this.unseated}.`;
    return null;
  }

  statusText(turn) {
    const seat = this.seatWords();
    if (seat) return seat;
    if (this.session.lost) return "The connection to the server was lost — reconnecting…";
    if (!this.session.started && this.rematching) return "Rematch asked: waiting for your opponent…";
    if (!this.session.started) return `Waiting for an opponent in room ${this.room}… share the link.`;
    const premove = this.screen.board.premove;
    const queued = premove ? ` — premove ${premove.from}-${premove.to} (right-click to cancel)` : "";
    return turn + this.session.firstMoveWords() + queued;
  }

  connect() {
    this.session.connect({
      onOpen: () => this.reconnected(),
      onMessage: (m) => this.message(m),
      onLost: () => this.connectionLost(),
    });
  }

  // On every (re)connection: a seek while this page seeks and has no game yet, else only the
  // seat back (`resume`): an idle page never starts a game by itself.
  reconnected() {
    if (this.unseated) return;
    this.sendReady(!(this.seeking && !this.session.started));
  }

  sendReady(resume = false) {
    const { session } = this;
    session.lost = false;
    this.screen.hideBanner();
    session.myName = playerName();
    // The name's secret proves this player holds its name (a rated room needs it).
    const extra = {
      ...this.screen.request(), token: this.token, secret: nameSecret(), ...(this.tc ? this.tc.keys : {}),
      ...(this.training ? { training: 1 } : {}), ...(this.params.get("rated") === "1" ? { rated: 1 } : {}),
      ...(resume ? { resume: 1 } : {}),
    };
    const colour = this.rematching ? "" : this.params.get("colour") || "";
    session.connection.send(session.ops.READY, playerName(), colour, String(this.room), extra);
    this.screen.renderSide();
  }

  // The seat is held a while: try again every two seconds.
  connectionLost() {
    if (this.screen.disposed) return;
    this.session.lost = true;
    this.session.time.stop();
    this.screen.draw();
    if (this.session.refused || this.unseated) return;
    this.session.reconnectSoon(() => this.connect());
  }

  async message(m) {
    const { session, screen } = this;
    if (await session.common(m)) return undefined;
    switch (m.op) {
      case session.ops.READY: return this.gameStarts(m);
      case session.ops.STATE: return this.caughtUp(m);
      case session.ops.REJECT:
        // A guest name another browser holds (REJECT's code `name_held`): this page takes a new
        // one and asks again.
        if (m.code === "name_held" && this.renamed < 3 && replaceGuestName()) {
          this.renamed += 1;
          this.sendReady();
          return undefined;
        }
        session.refused = `The room refused you: ${m.data2}.`;
        screen.showBanner(session.refused, homeLink());
        // The status says so even before the first position arrives.
        if (screen.view) screen.draw();
        else screen.renderSide();
        return undefined;
      case session.ops.LEAVE:
        session.chat.append(h("p", { class: "note" }, `${m.data1 || "your opponent"} left (${m.data2}).`));
        // A rematch asked by who left can no longer be accepted.
        session.offers.rematchAsked(true);
        return undefined;
      default:
        return undefined;
    }
  }

  playerNames() {
    const { started, myName, opponentName } = this.session;
    const side = this.screen.mySide;
    if (!started || side === null || side < 0) return [null, null];
    return side === 0 ? [myName, opponentName] : [opponentName, myName];
  }

  // NOTICE `moved`: the seat went to another tab of this browser; this tab watches the room.
  // NOTICE `unseated`: the seat is gone (the wait or the rematch window is over): the page stops
  // and asks its player before seeking again.
  seatNotice(what, why) {
    const { session, screen } = this;
    if (what === "moved") {
      screen.disposed = true;
      if (session.connection) session.connection.close();
      location.replace(`#/watch?room=${encodeURIComponent(this.room)}&moved=1`);
      return;
    }
    if (what !== "unseated") return;
    this.unseated = why || "your seat is gone";
    this.seeking = false;
    this.rematching = false;
    if (session.connection) session.connection.close();
    const again = h("button", { id: "play-again", class: "small", onclick: () => this.playAgain() }, "Play in this room again");
    screen.showBanner(`You no longer hold a seat in room ${this.room}: ${this.unseated}.`,
      h("span", {}, again, " ", h("a", { href: "#/" }, "Home")));
    screen.draw();
  }

  // Asked by the player: a new seek in this room.
  playAgain() {
    this.unseated = null;
    this.seeking = true;
    this.session.started = false;
    this.screen.outcome = null;
    this.screen.hideBanner();
    this.connect();
    this.screen.draw();
  }

  // A game starts (or this page takes its seat back: the room's STATE follows).
  async gameStarts(m) {
    const { session, screen } = this;
    session.ratingsLine.hidden = true;
    session.adoptSettings(m);
    session.time.firstMoveFrom(m);
    session.started = true;
    this.seeking = false;
    this.seat.played = true;
    this.seat.save();
    screen.mySide = screen.colours().indexOf(m.data2);
    this.opponent = m.data1 || "anonymous";
    session.opponentName = m.data1;
    // A seat taken back mid-game: READY says how many moves were played, and the snapshot that
    // follows brings them; until then the page keeps what it showed (never the start position).
    this.resuming = Number(m.plies) > 0;
    if (!this.resuming) screen.moves = [];
    screen.outcome = null;
    this.resetOffers();
    session.time.restart();
    screen.hideBanner();
    screen.title.textContent = `${this.catalogue.title(screen.settings.game, screen.settings.size)} — online, room ${this.room}, against ${this.opponent}`;
    screen.board.setFlipped(screen.mySide === 1);
    this.training = Number(m.training) === 1;
    this.facts.gameStarts(m, { timeWords: this.catalogue.timeWords(m), training: this.training, game: screen.settings.game });
    if (this.resuming) return;
    session.time.start();
    await screen.refresh();
  }

  async caughtUp(m) {
    const { session, screen } = this;
    const snap = JSON.parse(m.data1);
    this.resuming = false;
    screen.moves = snap.moves || [];
    // A page that comes back while the opponent is away: how long they have been is not said.
    const away = (snap.away || []).find((name) => name === session.opponentName);
    if (away && !session.away.who && snap.status === "playing") session.away.gone(away, NaN);
    if (snap.clocks) session.time.sync(snap.clocks);
    session.time.firstMoveFrom(snap);
    session.time.start(snap.turn_left_ms);
    await screen.refresh();
    session.offers.fromSnapshot(snap);
  }

  // During the opponent's turn of the game this page plays, its pieces may be premoved.
  premoveSide() {
    const { mySide, browse, view } = this.screen;
    if (!this.playing() || this.session.lost || mySide === null || browse) return null;
    if (this.screen.colours().indexOf(view.to_move) === mySide) return null;
    return mySide === 0 ? "first" : "second";
  }

  afterRefresh() {
    const { screen } = this;
    screen.warnings.clear();
    if (screen.humanToMove()) this.playPremove();
    if (this.training && screen.humanToMove()) screen.fetchWarnings();
  }

  // The turn came: the premove queued is played at once if still legal, else dropped.
  playPremove() {
    const { screen } = this;
    const premove = screen.board.takePremove();
    if (!premove) return;
    const move = screen.view.legal.find((m) => m.from === premove.from && m.to === premove.to);
    if (move) screen.serial.run(() => this.humanMove(move));
    else screen.renderSide();
  }

  async humanMove(move) {
    const { session, screen } = this;
    // No engine's help in a game between people unless both asked for a training room.
    if (!screen.humanToMove() || screen.browse) return;
    if (this.training && !(await screen.confirmSafe(move, { waitMs: 3000 }))) return;
    if (!session.connection.send(session.ops.MOVE, move.from, move.to, "")) {
      this.connectionLost();
      return;
    }
    session.time.stop();
    session.time.charge(screen.mySide);
    screen.moves.push(move.text);
    await screen.refresh({ animate: move });
    session.time.start();
  }

  // A page resigns at once, on either side's turn (the server takes it from the extension).
  async resign() {
    if (!this.playing()) return;
    const sure = await confirmDialog("Resign this game?", "Resign", "Keep playing");
    if (!sure || !this.playing()) return;
    if (!this.session.connection.send(this.session.ops.RESIGN)) this.connectionLost();
  }

  // A rematch is a READY after the game (the opponent is asked, or it answers theirs); the
  // colours swap, so the first game's requested colour is not asked for again.
  rematch() {
    const { offers } = this.session;
    const asked = offers.rematchAsked();
    offers.pending = null;
    offers.render();
    this.screen.outcome = null;
    this.session.started = false;
    this.rematching = true;
    this.seeking = true;
    this.sendReady();
    if (!asked) offers.note("You asked for a rematch; waiting for your opponent.");
  }
}
