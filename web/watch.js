// Watching a room: its game as the players see it (moves, clocks, offers, the end), the glyph
// switch of its game, the spectators' own chat, and what a link to a room meets besides a game
// (a room number that is none, a game over, nobody playing).

import { ChatPanel } from "./chat.js";
import { Connection } from "./net.js";
import { NetworkView } from "./network.js";
import { homeLink, lastGameOf, replayLink } from "./roomlinks.js";
import { h } from "./dom.js";
import { playerName } from "./identity.js";

export class WatchView extends NetworkView {
  constructor(params, context) {
    super(params, context);
    this.room = params.get("room");
    this.started = false;
    this.title.textContent = `Watching room ${this.room}`;
    this.controls.replaceChildren(...this.commonButtons());
    // Spectators chat in their own channel, which the players do not see.
    this.chat = new ChatPanel({
      spectator: true,
      send: (text) => Boolean(this.connection) && this.connection.send(this.ops.CHAT, playerName(), text, String(this.room)),
    });
    this.extra.replaceChildren(this.chat.element);
    // A tab whose seat another tab of this browser took: it watches, and says so.
    this.movedHere = params.get("moved") === "1";
    if (this.movedHere) {
      this.showBanner("Your game in this room goes on in another tab of this browser; this tab watches it.",
        h("a", { href: `#/online?room=${encodeURIComponent(this.room)}`, id: "take-seat" }, "Play it here"));
      this.banner.dataset.kind = "moved";
    }
    if (this.refuseBadRoom("Watching a room")) return;
    this.connect();
  }

  connect() {
    this.connection = new Connection({
      onOpen: () => {
        this.lost = false;
        if (!this.movedHere) this.hideBanner();
        this.connection.send(this.ops.WATCH, String(this.room));
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
    if (this.refused) return this.refused;
    if (this.lost) return "The connection was lost — reconnecting…";
    if (this.over) return `The game in room ${this.room} is over.`;
    if (!this.started) return this.waiting || "Waiting for a game to start in this room…";
    return super.statusText() + this.firstMoveWords();
  }

  async message(m) {
    if (m.op === this.ops.REJECT) {
      this.refused = `Room ${this.room} cannot be watched: ${m.data2}.`;
      this.showBanner(this.refused, homeLink());
      this.renderSide();
      return;
    }
    if (m.op === this.ops.STATE) {
      const snap = JSON.parse(m.data1);
      if (!snap.settings) {
        await this.emptyRoom();
        return;
      }
      // A game over in this room (its players may still rematch): its replay.
      this.over = snap.status === "over";
      if (this.over && snap.game_id) this.roomBanner(`The game in room ${this.room} is over.`, replayLink(snap.game_id, "Replay it"));
      else if (this.banner.dataset.kind === "room") this.hideBanner();
      const game = this.settings.game;
      this.adoptSettings(snap.settings);
      // The room's game is known now: its buttons (the glyph switch of a game that has one).
      if (this.settings.game !== game || !this.controls.childElementCount) this.controls.replaceChildren(...this.commonButtons());
      this.title.textContent = `Watching room ${this.room}: ${this.catalogue.title(this.settings.game, this.settings.size)} — ${snap.players.map((p) => p.name || "anonymous").join(" vs ")}`;
      this.players = snap.players.map((p) => p.name || null);
      this.moves = snap.moves;
      this.outcome = null;
      this.started = snap.status !== "waiting";
      this.time.clocksMs = null;
      this.time.sync(snap.clocks);
      this.time.firstMoveFrom(snap);
      if (snap.status === "playing") this.time.start(snap.turn_left_ms);
      const away = snap.status === "playing" && (snap.away || [])[0];
      if (away && !this.away.who) this.away.gone(away, NaN);
      await this.refresh();
      this.offers.fromSnapshot(snap);
    } else {
      await this.common(m);
    }
  }

  mayMove() {
    return false;
  }

  // Nobody plays in the room now: said so, with the replay of its last stored game.
  async emptyRoom() {
    this.over = false;
    this.waiting = `Nobody plays in room ${this.room} now.`;
    this.renderSide();
    let last = null;
    try {
      last = await lastGameOf(this.room);
    } catch (e) {
      return;
    }
    if (this.disposed || this.started) return;
    if (last) this.roomBanner(`Nobody plays in room ${this.room} now. Its last game:`, replayLink(last.id));
    else this.roomBanner(`Nobody plays in room ${this.room} now, and no game of it is stored yet.`, homeLink());
  }

  // A banner about the room itself (over, empty), which a game starting there takes away.
  roomBanner(text, action) {
    this.showBanner(text, action);
    this.banner.dataset.kind = "room";
    this.banner.setAttribute("role", "status");
  }

  playerNames() {
    return this.players && this.players.length === 2 ? this.players : [null, null];
  }
}
