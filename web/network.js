// What playing online and watching share: a room's game over the course protocol (net.js), its
// moves, its end and its notices, composed of small parts — the offers (offers.js), an absent
// player's banner (away.js), the room's time (timing.js) — and the refusal of a link whose
// room is no room.

import { AwayBanner } from "./away.js";
import { h } from "./dom.js";
import { GameView } from "./game.js";
import { Offers } from "./offers.js";
import { badRoom, homeLink } from "./roomlinks.js";
import * as sound from "./sound.js";
import { RoomTime } from "./timing.js";

export class NetworkView extends GameView {
  // The protocol's operation codes, as the server defines them.
  get ops() {
    return this.catalogue.ops;
  }

  // Whether this page holds a seat (a player's page) rather than watching.
  seated() {
    return false;
  }

  build() {
    super.build();
    this.time = new RoomTime();
    this.offers = new Offers(this, { player: this.seated() });
    this.away = new AwayBanner(this, { player: this.seated() });
    this.ratingsLine = h("p", { id: "ratings", class: "note", hidden: true });
    this.banner.after(this.offers.box, this.offers.noteLine, this.ratingsLine);
  }

  dispose() {
    super.dispose();
    clearTimeout(this.retry);
    this.offers.dispose();
    if (this.connection) this.connection.close();
  }

  // A link whose room is no room (none, not a number, out of range): said in the title, the
  // banner (with the way home) and the status. Whether it was refused: the view then stops.
  refuseBadRoom(title) {
    this.refused = badRoom(this.room);
    if (!this.refused) return false;
    this.title.textContent = title;
    this.showBanner(this.refused, homeLink());
    this.renderSide();
    return true;
  }

  // Settings from an END or READY's extension keys, when the server names the game.
  adoptSettings(m) {
    if (m.game && this.catalogue.def(m.game)) this.settings = this.catalogue.settingsFrom(m, m.game);
    this.time.adopt(m);
  }

  // The END message, told in the game's words: the board's own end, or resign/time/server.
  async endFrom(m) {
    this.time.stop();
    const away = this.away.who;
    const claimed = this.offers.claimed;
    this.away.clear();
    this.offers.pending = null;
    this.offers.render();
    const plies = Number(m.plies);
    if (Number.isInteger(plies) && plies < this.moves.length) this.moves.length = plies;
    await this.refresh();
    const winner = m.data3 === "0" ? 0 : m.data3 === "1" ? 1 : null;
    const names = this.names();
    const loser = winner === null ? null : names[1 - winner];
    const { protocol } = this.catalogue;
    const name = protocol.end_reasons[Number(m.data2)] || "NONE";
    const why = name === "ILLIGAL_MOVE" ? (protocol.move_reasons[Number(m.data1)] || "").toLowerCase().replace(/_/g, " ") : m.error;
    let reason = this.catalogue.endWords(name, loser, why) || (this.view && this.view.end) || name.toLowerCase().replace(/_/g, " ");
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
    return this.time.values(running);
  }

  // While the side to move plays its first move off the clock.
  firstMoveWords() {
    return this.outcome ? "" : this.time.firstMoveWords();
  }

  tick() {
    super.tick();
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
        } else this.seatNotice(m.data1, m.data3);
        return true;
      case this.ops.OFFER:
        this.offers.message(m.data1, m.data2, m.data3, m.code);
        return true;
      default:
        return false;
    }
  }

  // NOTICE `moved` (this browser's seat is now played in another tab) or `unseated` (the seat is
  // gone, and why): only a player's page hears them.
  seatNotice() {}

  // OFFER(kind, action) to the room; false (and the connection treated as lost) when it could
  // not be sent. Only a player's page sends one.
  sendOffer(kind, action) {
    if (!this.connection || !this.connection.send(this.ops.OFFER, kind, action, "")) {
      this.connectionLost();
      return false;
    }
    return true;
  }

  connectionLost() {}

  // A move from the room (the opponent's, or the game watched).
  async moved(m) {
    this.time.firstMoveFrom(m);
    const text = `${m.data1}-${m.data2}`;
    const move = this.view && this.view.legal.find((x) => x.text === text);
    this.moves.push(text);
    this.time.sync(m.clocks);
    await this.refresh({ animate: move });
    if (m.data3 !== this.catalogue.protocol.end_marker) this.time.start();
  }
}
