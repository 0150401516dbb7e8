// Watching a room: its game as the players see it (moves, clocks, offers, the end), the glyph
// switch of its game, the spectators' own chat, and what a link to a room meets besides a game
// (a room number that is none, a game over, nobody playing). The view owns the game's screen
// (game.js) and the room's session (network.js) as a spectator: nobody moves on its board.

import { h } from "./dom.js";
import { GameScreen } from "./game.js";
import { RoomSession } from "./network.js";
import { homeLink, lastGameOf, replayLink } from "./roomlinks.js";

export class WatchView {
  constructor(params, context) {
    this.catalogue = context.catalogue;
    this.room = params.get("room");
    this.screen = new GameScreen(params, context, {
      hooks: {
        statusText: (turn) => this.statusText(turn),
        tick: () => this.session.tick(),
        started: () => this.session.started,
        playerNames: () => this.playerNames(),
        clockValues: () => this.session.clockValues(),
      },
    });
    this.session = new RoomSession(this.screen, context, {
      room: this.room,
      player: false,
      hooks: { playerNames: () => this.playerNames() },
    });
    const { screen } = this;
    screen.title.textContent = `Watching room ${this.room}`;
    screen.controls.replaceChildren(...screen.commonButtons());
    // Spectators chat in their own channel, which the players do not see.
    screen.extra.replaceChildren(this.session.chat.element);
    // A tab whose seat another tab of this browser took: it watches, and says so.
    this.movedHere = params.get("moved") === "1";
    if (this.movedHere) {
      screen.showBanner("Your game in this room goes on in another tab of this browser; this tab watches it.",
        h("a", { href: `#/online?room=${encodeURIComponent(this.room)}`, id: "take-seat" }, "Play it here"));
      screen.banner.dataset.kind = "moved";
    }
    if (this.session.refuseBadRoom("Watching a room")) return;
    this.connect();
  }

  dispose() {
    this.screen.dispose();
    this.session.dispose();
  }

  connect() {
    const { session } = this;
    session.connect({
      onOpen: () => {
        session.lost = false;
        if (!this.movedHere) this.screen.hideBanner();
        session.connection.send(session.ops.WATCH, String(this.room));
      },
      onMessage: (m) => this.message(m),
      onLost: () => {
        session.lost = true;
        this.screen.draw();
        session.reconnectSoon(() => this.connect());
      },
    });
  }

  statusText(turn) {
    const { session } = this;
    if (session.refused) return session.refused;
    if (session.lost) return "The connection was lost — reconnecting…";
    if (this.over) return `The game in room ${this.room} is over.`;
    if (!session.started) return this.waiting || "Waiting for a game to start in this room…";
    return turn + session.firstMoveWords();
  }

  async message(m) {
    const { session, screen } = this;
    if (m.op === session.ops.REJECT) {
      session.refused = `Room ${this.room} cannot be watched: ${m.data2}.`;
      screen.showBanner(session.refused, homeLink());
      screen.renderSide();
      return;
    }
    if (m.op !== session.ops.STATE) {
      await session.common(m);
      return;
    }
    const snap = JSON.parse(m.data1);
    if (!snap.settings) {
      await this.emptyRoom();
      return;
    }
    // A game over in this room (its players may still rematch): its replay.
    this.over = snap.status === "over";
    if (this.over && snap.game_id) this.roomBanner(`The game in room ${this.room} is over.`, replayLink(snap.game_id, "Replay it"));
    else if (screen.banner.dataset.kind === "room") screen.hideBanner();
    const game = screen.settings.game;
    session.adoptSettings(snap.settings);
    // The room's game is known now: its buttons (the glyph switch of a game that has one).
    if (screen.settings.game !== game || !screen.controls.childElementCount) screen.controls.replaceChildren(...screen.commonButtons());
    screen.title.textContent = `Watching room ${this.room}: ${this.catalogue.title(screen.settings.game, screen.settings.size)} — ${snap.players.map((p) => p.name || "anonymous").join(" vs ")}`;
    this.players = snap.players.map((p) => p.name || null);
    screen.moves = snap.moves;
    screen.outcome = null;
    session.started = snap.status !== "waiting";
    session.time.clocksMs = null;
    session.time.sync(snap.clocks);
    session.time.firstMoveFrom(snap);
    if (snap.status === "playing") session.time.start(snap.turn_left_ms);
    const away = snap.status === "playing" && (snap.away || [])[0];
    if (away && !session.away.who) session.away.gone(away, NaN);
    await screen.refresh();
    session.offers.fromSnapshot(snap);
  }

  // Nobody plays in the room now: said so, with the replay of its last stored game.
  async emptyRoom() {
    this.over = false;
    this.waiting = `Nobody plays in room ${this.room} now.`;
    this.screen.renderSide();
    let last = null;
    try {
      last = await lastGameOf(this.room);
    } catch (e) {
      return;
    }
    if (this.screen.disposed || this.session.started) return;
    if (last) this.roomBanner(`Nobody plays in room ${this.room} now. Its last game:`, replayLink(last.id));
    else this.roomBanner(`Nobody plays in room ${this.room} now, and no game of it is stored yet.`, homeLink());
  }

  // A banner about the room itself (over, empty), which a game starting there takes away.
  roomBanner(text, action) {
    this.screen.showBanner(text, action);
    this.screen.banner.dataset.kind = "room";
    this.screen.banner.setAttribute("role", "status");
  }

  playerNames() {
    return this.players && this.players.length === 2 ? this.players : [null, null];
  }
}
