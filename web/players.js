// The rated players: a leaderboard per game and time-control class (#/leaderboard), and a
// player's page (#/player?name=…) with its ratings and most recent games.

import * as api from "./api.js";
import { app, h } from "./dom.js";

// The time-control classes ratings are kept under, as the server counts them (the clock plus
// 40 increments, or 40 moves' time with a clock per move).
const CLASSES = [
  ["bullet", "bullet (under 3 min)"], ["blitz", "blitz (3 to 8 min)"],
  ["rapid", "rapid (8 to 25 min)"], ["classical", "classical (25 min or more)"],
];

// The class a game's ratings are kept under, as the server counts it (`rating_class`): the
// clock plus 40 increments, or 40 moves' time with a clock per move. `m`: READY's keys.
export function ratingClass(game, m) {
  const ms = Number(m.clock_ms) ? Number(m.clock_ms) + 40 * (Number(m.increment_ms) || 0) : 40 * (Number(m.timeout_ms) || 0);
  const s = ms / 1000;
  return `${game}/${s < 180 ? "bullet" : s < 480 ? "blitz" : s < 1500 ? "rapid" : "classical"}`;
}

// `name`'s rating in class `cls`, rounded: 1500 before a rated game of the class (Glicko-2's
// start), null when it cannot be read.
export async function ratingOf(name, cls) {
  let player;
  try {
    player = await api.player(name, { timeout: 8000 });
  } catch (e) {
    // No such player yet (404): the rating every player starts with.
    return e.status === 404 ? 1500 : null;
  }
  const found = (player.ratings || []).find((r) => r.class === cls);
  return found ? Math.round(found.rating) : 1500;
}

const playerLink = (name) => h("a", { href: `#/player?${new URLSearchParams({ name })}` }, name);

export class LeaderboardView {
  constructor(params, context) {
    const { games } = context.catalogue;
    const [game, kind] = (params.get("class") || `${games[0].id}/blitz`).split("/");
    this.game = h("select", { id: "board-game" }, games.map((g) => h("option", { value: g.id, selected: g.id === game }, g.title)));
    this.kind = h("select", { id: "board-class" }, CLASSES.map(([id, label]) => h("option", { value: id, selected: id === kind }, label)));
    for (const select of [this.game, this.kind]) select.addEventListener("change", () => this.load());
    this.table = h("tbody");
    this.empty = h("p", { id: "board-empty", hidden: true }, "Nobody has played a rated game of this kind yet.");
    app.replaceChildren(h("section", { class: "players" },
      h("h1", {}, "Leaderboard"),
      h("p", {}, h("label", { for: "board-game" }, "Game"), " ", this.game, " ", h("label", { for: "board-class" }, "Time"), " ", this.kind),
      h("table", { id: "leaderboard", class: "list" },
        h("thead", {}, h("tr", {}, ...["#", "Player", "Rating", "Games"].map((t) => h("th", { scope: "col" }, t)))), this.table),
      this.empty,
      h("p", {}, h("a", { href: "#/", class: "button" }, "Home"))));
    this.load();
  }

  async load() {
    const cls = `${this.game.value}/${this.kind.value}`;
    history.replaceState(null, "", `#/leaderboard?class=${cls}`);
    try {
      const { players } = await api.leaderboard(cls);
      this.table.replaceChildren(...players.map((p, i) => h("tr", {},
        h("td", {}, String(i + 1)), h("td", {}, playerLink(p.name)),
        h("td", {}, `${Math.round(p.rating)} ± ${Math.round(2 * p.deviation)}`), h("td", {}, String(p.games)))));
      this.empty.hidden = players.length > 0;
    } catch (e) {
      this.table.replaceChildren(h("tr", {}, h("td", { colspan: 4, class: "error" }, `Cannot load the leaderboard: ${e.message}`)));
    }
  }
}

// A stored game's result from this player's side.
function resultWords(g, name) {
  if (!g.end_reason) return "not finished";
  const reason = g.end_reason.toLowerCase().replace(/_/g, " ");
  if (g.winner === "none") return `draw (${reason})`;
  const won = (g.winner === "first") === (g.first === name);
  return `${won ? "won" : "lost"} (${reason})`;
}

export class PlayerView {
  constructor(params, context) {
    this.catalogue = context.catalogue;
    this.name = params.get("name") || "";
    this.body = h("div", {}, h("p", {}, "Loading…"));
    app.replaceChildren(h("section", { class: "players" }, h("h1", { id: "player-name" }, this.name), this.body,
      h("p", {}, h("a", { href: "#/leaderboard", class: "button" }, "Leaderboard"), " ", h("a", { href: "#/", class: "button" }, "Home"))));
    this.load();
  }

  async load() {
    let player;
    try {
      player = await api.player(this.name);
    } catch (e) {
      this.body.replaceChildren(h("p", { class: "error", role: "alert" }, e.message));
      return;
    }
    const ratings = player.ratings.length
      ? player.ratings.map((r) => h("li", {}, `${r.class}: ${Math.round(r.rating)} ± ${Math.round(2 * r.deviation)} (${r.games} rated games)`))
      : [h("li", {}, "No rated game yet.")];
    const games = player.games.map((g) => h("li", {},
      h("a", { href: `#/replay?id=${g.id}` }, `Game ${g.id}`), " ", this.catalogue.title(g.game, g.settings && g.settings.size),
      " — ", playerLink(g.first), " vs ", playerLink(g.second), `: ${resultWords(g, player.name)}`,
      g.settings && g.settings.rated ? ", rated" : ""));
    this.body.replaceChildren(
      h("h2", {}, "Ratings"), h("ul", { id: "player-ratings", class: "list" }, ...ratings),
      h("h2", {}, "Recent games"), h("ul", { id: "player-games", class: "list" }, ...(games.length ? games : [h("li", {}, "No games yet.")])));
  }
}
