// arbiter's page: choose a game and a mode, then play (here, against the AI, online), watch a
// live game, replay a stored one, or step through a judge's input. Positions, legal moves, the
// AI and the warnings come from the server's JSON API (api.js); online play and watching use the
// course protocol over a WebSocket (net.js).
//
// The page's one configuration is the context made here, once, from the server's catalogue and
// protocol: every view is handed it (no module keeps a mutable global).

import * as api from "./api.js";
import { Catalogue } from "./catalogue.js";
import { app, h } from "./dom.js";
import { PlayView } from "./play.js";
import { HomeView } from "./home.js";
import { JudgeView } from "./judge.js";
import { OnlineView } from "./online.js";
import { LeaderboardView, PlayerView } from "./players.js";
import { ReplayView } from "./replay.js";
import { WatchView } from "./watch.js";

let current = null;
let currentHash = null;

const VIEWS = {
  "/play": PlayView,
  "/online": OnlineView,
  "/watch": WatchView,
  "/replay": ReplayView,
  "/judge": JudgeView,
  "/leaderboard": LeaderboardView,
  "/player": PlayerView,
};

function show(context) {
  if (current && current.dispose) current.dispose();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  document.body.dataset.view = path || "/";
  currentHash = location.hash;
  const View = VIEWS[path] || HomeView;
  current = new View(params, context);
  window.scrollTo(0, 0);
}

// A view with something to lose (a running online game) is asked before the page leaves it.
async function route(context) {
  if (location.hash === currentHash) return;
  if (current && current.mayLeave && !(await current.mayLeave())) {
    history.pushState(null, "", currentHash);
    return;
  }
  show(context);
}

async function boot() {
  let context;
  try {
    const [games, protocol] = await Promise.all([api.catalogue(), api.protocol()]);
    context = Object.freeze({ catalogue: new Catalogue(games, protocol) });
  } catch (e) {
    app.replaceChildren(h("p", { class: "error", role: "alert" }, `Cannot load the list of games: ${e.message}`));
    return;
  }
  const tagline = document.getElementById("tagline");
  if (tagline) tagline.textContent = context.catalogue.games.map((g) => g.title).join(" · ");
  window.addEventListener("hashchange", () => route(context));
  show(context);
}

boot();
