// What playing online and watching share: a room's game over the course protocol (net.js), its
// moves, its end and its notices, composed of small parts — the offers (offers.js), an absent
// player's banner (away.js), the room's time (timing.js), the room's chat (chat.js) — and the
// refusal of a link whose room is no room. The online and watching views each own one, beside
// the GameScreen it plays on.

import { AwayBanner } from "./away.js";
import { ChatPanel } from "./chat.js";
import { h } from "./dom.js";
import { playerName } from "./identity.js";
import { Connection } from "./net.js";
import { Offers } from "./offers.js";
import { badRoom, homeLink } from "./roomlinks.js";
import * as sound from "./sound.js";
import { RoomTime } from "./timing.js";

// What only the view knows, and what the session does where it says nothing (a spectator's).
const DEFAULT_HOOKS = {
  playing: () => false, // whether this page holds a seat in a game not yet over
  playerNames: () => [null, null], // the players' names by side (for the new ratings)
  seatNotice: () => {}, // (what, why) NOTICE `moved` or `unseated`: only a player's page hears them
  connectionLost: () => {}, // an offer could not be sent: the connection is treated as lost
  rematch: () => {}, // the opponent's rematch accepted
};

export class RoomSession {
  // `screen`: the GameScreen the room's game is drawn on; `room`: the room as the link names
  // it; `player`: whether this page holds a seat (else it watches); `hooks`: DEFAULT_HOOKS.
  constructor(screen, context, { room, player, hooks = {} }) {
    this.screen = screen;
    this.catalogue = context.catalogue;
    // The protocol's operation codes, as the server defines them.
    this.ops = this.catalogue.ops;
    this.room = room;
    this.player = player;
    this.hooks = { ...DEFAULT_HOOKS, ...hooks };
    this.connection = null;
    this.started = false;
    this.lost = false;
    this.refused = null;
    // Who plays from this page's side, as READY names them (a player's page).
    this.myName = null;
    this.opponentName = null;
    this.time = new RoomTime();
    // A spectator's lines go to the spectators' own channel, which the players do not see.
    this.chat = new ChatPanel({
      spectator: !player,
      send: (text) => Boolean(this.connection) && this.connection.send(this.ops.CHAT, playerName(), text, player ? "" : String(room)),
    });
    this.offers = new Offers(this, { player });
    this.away = new AwayBanner(this, { player });
    this.ratingsLine = h("p", { id: "ratings", class: "note", hidden: true });
    screen.banner.after(this.offers.box, this.offers.noteLine, this.ratingsLine);
  }

  dispose() {
    clearTimeout(this.retry);
    this.offers.dispose();
    if (this.connection) this.connection.close();
  }

  // A new connection to the server: `onOpen()`, `onMessage(m)`, `onLost()` (net.js).
  connect(handlers) {
    this.connection = new Connection(handlers);
  }

  // Tries again in two seconds, as the seat (or the room) is held a while.
  reconnectSoon(connect) {
    this.retry = setTimeout(connect, 2000);
  }

  playing() {
    return this.hooks.playing();
  }

  rematch() {
    return this.hooks.rematch();
  }

  // A link whose room is no room (none, not a number, out of range): said in the title, the
  // banner (with the way home) and the status. Whether it was refused: the view then stops.
  refuseBadRoom(title) {
    this.refused = badRoom(this.room);
    if (!this.refused) return false;
    this.screen.title.textContent = title;
    this.screen.showBanner(this.refused, homeLink());
    this.screen.renderSide();
    return true;
  }

  // Settings from an END or READY's extension keys, when the server names the game.
  adoptSettings(m) {
    if (m.game && this.catalogue.def(m.game)) this.screen.settings = this.catalogue.settingsFrom(m, m.game);
    this.time.adopt(m);
  }

  // The END message, told in the game's words: the board's own end, or resign/time/server.
  async endFrom(m) {
    const screen = this.screen;
    this.time.stop();
    const away = this.away.who;
    const claimed = this.offers.claimed;
    this.away.clear();
    this.offers.pending = null;
    this.offers.render();
    const plies = Number(m.plies);
    if (Number.isInteger(plies) && plies < screen.moves.length) screen.moves.length = plies;
    await screen.refresh();
    const winner = m.data3 === "0" ? 0 : m.data3 === "1" ? 1 : null;
    const names = screen.names();
    const loser = winner === null ? null : names[1 - winner];
    const { protocol } = this.catalogue;
    const name = protocol.end_reasons[Number(m.data2)] || "NONE";
    const why = name === "ILLIGAL_MOVE" ? (protocol.move_reasons[Number(m.data1)] || "").toLowerCase().replace(/_/g, " ") : m.error;
    let reason = this.catalogue.endWords(name, loser, why) || (screen.view && screen.view.end) || name.toLowerCase().replace(/_/g, " ");
    // A player whose connection dropped and did not come back, or whose game was claimed.
    if (name === "LEFT" && away && loser !== null) {
      reason = claimed
        ? `${loser} left the game and ${claimed} claimed the win`
        : `${loser} left the game and did not come back in time`;
    }
    this.offers.claimed = null;
    this.time.firstMoveUntil = null;
    this.time.sync(m.clocks);
    // An aborted, interrupted or abandoned game has no result.
    const title = { ABORTED: "Aborted", INTERRUPTED: "Interrupted", ABANDONED: "Abandoned" }[name] || null;
    screen.outcome = { winner, reason, title };
    this.showRatings(m.ratings);
    screen.draw();
    sound.playEnd();
  }

  // A rated game's new ratings, by side ([rating, change] each), beside the result.
  showRatings(ratings) {
    this.ratingsLine.hidden = !Array.isArray(ratings);
    if (!Array.isArray(ratings)) return;
    const players = this.hooks.playerNames();
    const words = ratings.map(([rating, change], i) => `${players[i] || this.screen.names()[i]} ${rating} (${change >= 0 ? "+" : "−"}${Math.abs(change)})`);
    this.ratingsLine.textContent = `Ratings: ${words.join(", ")}.`;
  }

  // The clocks: a game clock counting down both, or the time left for this move.
  clockValues() {
    const { view, outcome } = this.screen;
    if (!view || !this.started) return null;
    const running = view.status === "ongoing" && !outcome && !this.lost ? this.screen.colours().indexOf(view.to_move) : null;
    return this.time.values(running);
  }

  // While the side to move plays its first move off the clock.
  firstMoveWords() {
    return this.screen.outcome ? "" : this.time.firstMoveWords();
  }

  // Ten times a second: the absent player's countdown.
  tick() {
    this.away.render();
  }

  // What playing and watching handle alike: a move, the end, a chat line, a notice, an offer.
  // Whether `m` was one of them.
  async common(m) {
    switch (m.op) {
      case this.ops.MOVE: await this.moved(m); return true;
      case this.ops.END: await this.endFrom(m); return true;
      case this.ops.CHAT:
        this.chat.heard(m.data1, m.data2, m.data3);
        return true;
      case this.ops.NOTICE:
        if (m.data1 === "away") this.away.gone(m.data2, Number(m.data3));
        else if (m.data1 === "back") this.away.back(m.data2);
        else if (m.data1 === "restored") {
          this.offers.note("The server stopped while this game was played; it carries on from the last stored move. The pause was charged to no one's clock.");
        } else if (m.data1 === "error") {
          // A line the server refused (a chat line too long): said where it was typed.
          this.chat.note(`The server refused that: ${m.data3}.`);
        } else this.hooks.seatNotice(m.data1, m.data3);
        return true;
      case this.ops.OFFER:
        this.offers.message(m.data1, m.data2, m.data3, m.code);
        return true;
      default:
        return false;
    }
  }

  // OFFER(kind, action) to the room; false (and the connection treated as lost) when it could
  // not be sent. Only a player's page sends one.
  sendOffer(kind, action) {
    if (!this.connection || !this.connection.send(this.ops.OFFER, kind, action, "")) {
      this.hooks.connectionLost();
      return false;
    }
    return true;
  }

  // A move from the room (the opponent's, or the game watched).
  async moved(m) {
    const screen = this.screen;
    this.time.firstMoveFrom(m);
    const text = `${m.data1}-${m.data2}`;
    const move = screen.view && screen.view.legal.find((x) => x.text === text);
    screen.moves.push(text);
    this.time.sync(m.clocks);
    await screen.refresh({ animate: move });
    if (m.data3 !== this.catalogue.protocol.end_marker) this.time.start();
  }
}
