// The home page: choose a game and a mode, open or join a room with a time control, the lobby
// (rooms where a player waits: one click to play them), and the lists of games being played and
// stored games (which say so when the server cannot be reached). The lobby and the games being
// played are fetched again every few seconds.

import { ratingClass, ratingOf } from "./players.js";
import * as api from "./api.js";
import { app, confirmDialog, h } from "./dom.js";
import { nameHeld, playerName, setPlayerName } from "./identity.js";

// How often the lobby and the list of games being played are fetched again.
const LOBBY_REFRESH_MS = 3000;

// One choice per game and board size: "id:8", or just "id" for a game with one board.
function gameChoices(catalogue) {
  return catalogue.games.flatMap((g) => (g.sizes.length
    ? g.sizes.map((n) => ({ value: `${g.id}:${n}`, label: `${g.title} ${n}×${n}` }))
    : [{ value: g.id, label: g.title }]));
}

function labelled(id, text, control) {
  return h("p", {}, h("label", { for: id }, text), " ", control);
}

export class HomeView {
  constructor(params, context) {
    this.catalogue = context.catalogue;
    const choices = gameChoices(this.catalogue);
    const savedGame = localStorage.getItem("arbiter-game");
    const fallback = choices.find((c) => c.value.split(":")[0] === this.catalogue.protocol.default_game) || choices[0];
    const choice = choices.some((c) => c.value === savedGame) ? savedGame : fallback && fallback.value;
    this.select = h("select", { id: "game-choice" }, choices.map((g) => h("option", { value: g.value, selected: g.value === choice }, g.label)));
    this.select.addEventListener("change", () => localStorage.setItem("arbiter-game", this.select.value));
    this.level = h("select", { id: "ai-level" }, ["easy", "medium", "hard"].map((l) => h("option", { value: l, selected: l === "medium" }, l)));
    this.aiColour = h("select", { id: "ai-colour" }, h("option", { value: "first" }, "I move first"), h("option", { value: "second" }, "I move second"));
    this.name = h("input", { id: "name", value: playerName(), size: 12, "aria-describedby": "name-error" });
    this.nameError = h("span", { id: "name-error", class: "error", "aria-live": "polite" });
    this.nameNote = h("span", { id: "name-note", class: "hint" }, nameHeld() ? " (yours)" : "");
    this.name.addEventListener("change", () => this.chooseName());
    this.rated = h("input", { id: "rated-room", type: "checkbox" });
    const saved = localStorage.getItem("arbiter-time") || "20s";
    this.timeControl = h("select", { id: "time-control" }, this.catalogue.timeControls.map((t) => h("option", { value: t.id, selected: t.id === saved }, t.label)));
    this.timeControl.addEventListener("change", () => localStorage.setItem("arbiter-time", this.timeControl.value));
    this.training = h("input", { id: "training-room", type: "checkbox" });
    this.joinRoom = h("input", { id: "join-room", inputmode: "numeric", size: 8, "aria-describedby": "join-error" });
    this.joinError = h("span", { id: "join-error", class: "error", "aria-live": "polite" });
    this.rooms = h("ul", { id: "rooms", class: "list" }, h("li", {}, "Loading…"));
    this.seeks = h("ul", { id: "seeks", class: "list" }, h("li", {}, "Loading…"));
    this.games = h("ul", { id: "games", class: "list" }, h("li", {}, "Loading…"));
    this.ratings = new Map();
    app.replaceChildren(
      h("section", { class: "home" },
        h("h1", {}, "Play"),
        labelled("game-choice", "Game", this.select),
        h("div", { class: "modes" },
          h("div", { class: "mode" }, h("h2", {}, "Two players"), h("p", {}, "Take turns at this screen."),
            h("button", { id: "mode-local", type: "button", onclick: () => this.go("local") }, "Play here")),
          h("div", { class: "mode" }, h("h2", {}, "Against the AI"),
            labelled("ai-level", "Level", this.level), labelled("ai-colour", "Colour", this.aiColour),
            h("button", { id: "mode-ai", type: "button", onclick: () => this.go("ai") }, "Play the AI")),
          h("div", { class: "mode" }, h("h2", {}, "Online"),
            h("p", {}, h("label", { for: "name" }, "Name"), " ", this.name, this.nameNote, " ", this.nameError),
            h("p", {}, this.rated, " ", h("label", { for: "rated-room" }, "Rated (counts for both players' ratings)")),
            labelled("time-control", "Time", this.timeControl),
            h("p", {}, this.training, " ", h("label", { for: "training-room" }, "Training room: the engine warns both players before a losing move")),
            h("p", {}, h("button", { id: "online-create", type: "button", onclick: () => this.online() }, "Create a room")),
            h("form", { onsubmit: (e) => this.join(e) },
              h("label", { for: "join-room" }, "Room number"), " ", this.joinRoom, " ",
              h("button", { id: "online-join", type: "submit" }, "Join"), " ", this.joinError))),
        h("p", {}, h("a", { href: "#/judge", id: "judge-link" }, "Judge visualiser"), " — step through a judge's input on the board."),
        h("p", {}, h("a", { href: "#/leaderboard", id: "leaderboard-link" }, "Leaderboard"), " — the rated players of each game and time control."),
        h("h1", {}, "Lobby"), h("p", { class: "hint" }, "Players waiting for an opponent: one click to play them."), this.seeks,
        h("h1", {}, "Watch a live game"), this.rooms,
        h("h1", {}, "Replay a stored game"), this.games));
    this.load();
    this.poll = setInterval(() => this.loadRooms(), LOBBY_REFRESH_MS);
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.poll);
  }

  // The name typed is claimed for this browser (its secret); the server says why not.
  async chooseName() {
    this.nameError.textContent = "";
    this.nameNote.textContent = "";
    const why = await setPlayerName(this.name.value);
    if (why) this.nameError.textContent = why;
    else this.nameNote.textContent = " (yours)";
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

  // A new room: a random number beyond the course's 0-255, with the chosen time control.
  online() {
    const number = Math.floor(1000 + Math.random() * 998000);
    this.openRoom(number, this.timeControl.value, this.training.checked, this.rated.checked);
  }

  // Joining by number takes the room's game and time control when someone waits there (the
  // server refuses a READY for another game), the game chosen above when the room is empty.
  async join(event) {
    event.preventDefault();
    const text = this.joinRoom.value.trim();
    const number = Number(text);
    if (!text || !/^\d+$/.test(text) || number > 1000000) {
      this.refuseJoin("Type the number of a room, from 0 to 1000000.");
      return;
    }
    let room;
    try {
      room = (await api.rooms({ limit: 1, after: number - 1 })).rooms.find((r) => r.room === number);
    } catch (e) {
      this.refuseJoin(`Cannot reach the server: ${e.message}.`);
      return;
    }
    if (room && room.status === "playing") {
      this.refuseJoin(`Room ${number} is playing a game: watch it from the list below.`);
      return;
    }
    this.joinError.textContent = "";
    await this.enterRoom(number, room);
  }

  // Takes a seat in room `number` (`room`: as the room list shows it, if someone is there).
  async enterRoom(number, room) {
    if (room && room.settings) {
      const q = new URLSearchParams(this.catalogue.options(this.catalogue.settingsFrom(room.settings)));
      q.set("room", number);
      // Training needs the joiner's word too.
      if (Number(room.settings.training) === 1) {
        const agree = await confirmDialog(`Room ${number} is a training room: the engine warns both players before a losing move. Join it?`, "Join", "Cancel");
        if (!agree) return;
        q.set("training", "1");
      }
      if (Number(room.settings.rated) === 1) q.set("rated", "1");
      location.hash = `#/online?${q}`;
    } else {
      this.openRoom(number, null, this.training.checked, this.rated.checked);
    }
  }

  refuseJoin(text) {
    this.joinError.textContent = text;
    this.joinRoom.focus();
  }

  openRoom(number, tc, training, rated) {
    const { game, size } = this.settings();
    const q = new URLSearchParams({ game });
    if (size) q.set("size", size);
    q.set("room", number);
    if (tc) q.set("tc", tc);
    if (training) q.set("training", "1");
    if (rated) q.set("rated", "1");
    location.hash = `#/online?${q}`;
  }

  async load() {
    await Promise.all([this.loadRooms(), this.loadGames()]);
  }

  failed(list, what, e) {
    list.replaceChildren(h("li", { class: "error" }, `Cannot load ${what}: ${e.message}. `,
      h("button", { type: "button", class: "small", onclick: () => this.load() }, "Try again")));
  }

  // The games being played (a finished room leaves the list), and the lobby: the rooms where
  // one player waits, by game and time control.
  async loadRooms() {
    let rooms;
    try {
      ({ rooms } = await api.rooms());
    } catch (e) {
      this.failed(this.rooms, "the rooms", e);
      this.failed(this.seeks, "the lobby", e);
      return;
    }
    const live = rooms.filter((r) => r.status === "playing");
    this.rooms.replaceChildren(...(live.length ? live.map((r) => h("li", { "data-room": r.room },
      h("a", { href: `#/watch?room=${r.room}` }, `Room ${r.room}`), " ",
      r.settings ? this.catalogue.title(r.settings.game, r.settings.size) : "",
      " — ", r.players.map((p) => p.name || "anonymous").join(" vs "), ` (${r.moves.length} moves)`))
      : [h("li", {}, "No game is being played right now.")]));
    const seeks = rooms.filter((r) => r.status === "waiting" && r.players.length === 1 && r.settings);
    this.seeks.replaceChildren(...(seeks.length ? seeks.map((r) => this.seek(r))
      : [h("li", {}, "Nobody is waiting: create a room above, and it shows here.")]));
  }

  seek(r) {
    const s = r.settings;
    const rated = Number(s.rated) === 1;
    const words = [this.catalogue.title(s.game, s.size), this.catalogue.timeWords(s), rated ? "rated" : "casual", Number(s.training) === 1 ? "training" : ""];
    const name = r.players[0].name || "anonymous";
    const rating = rated && r.players[0].name ? this.lobbyRating(name, ratingClass(s.game, s)) : null;
    return h("li", { "data-room": r.room }, `${words.filter(Boolean).join(" · ")} — ${name}${rating ? ` (${rating})` : ""} `,
      h("button", { type: "button", class: "small", "aria-label": `Play ${r.players[0].name || "anonymous"} in room ${r.room}`,
        onclick: () => this.enterRoom(r.room, r) }, "Play"));
  }

  // A stored game: a link to its replay, or, while two people still play it in a room (no
  // engine's help, not even a replay's, until it ends), a link to watch it.
  storedGame(g, modes) {
    const live = !g.end_reason && !(g.settings && g.settings.mode);
    const link = live
      ? h("a", { href: `#/watch?room=${g.room}`, class: "watch-link" }, `Watch game ${g.id}`)
      : h("a", { href: `#/replay?id=${g.id}` }, `Game ${g.id}`);
    return h("li", { "data-game": g.id }, link, " ", this.catalogue.title(g.game, g.settings && g.settings.size),
      ` — ${g.first || "anonymous"} vs ${g.second || "anonymous"}`,
      g.settings && modes[g.settings.mode] ? ` (${modes[g.settings.mode]})` : "",
      live ? `, being played in room ${g.room}` : g.end_reason ? `, ${g.end_reason.toLowerCase().replace(/_/g, " ")}` : ", not finished");
  }

  // A waiting player's rating in a rated room's class, read once per name and class (the
  // lobby is drawn again when it arrives).
  lobbyRating(name, cls) {
    const key = `${name}\n${cls}`;
    if (!this.ratings.has(key)) {
      this.ratings.set(key, null);
      ratingOf(name, cls).then((rating) => {
        this.ratings.set(key, rating);
        if (rating && !this.disposed) this.loadRooms();
      });
    }
    return this.ratings.get(key);
  }

  async loadGames() {
    try {
      const games = await api.games(20);
      const modes = { ai: "against the AI", local: "at one screen" };
      this.games.replaceChildren(...(games.length ? games.map((g) => this.storedGame(g, modes))
        : [h("li", {}, "No stored games yet.")]));
    } catch (e) {
      this.failed(this.games, "the stored games", e);
    }
  }
}
