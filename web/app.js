// arbiter's page: choose a game and a mode, then play (here, against the AI, online), watch a
// live game, replay a stored one, or step through a judge's input. Positions, legal moves, the
// AI and the warnings come from the server's JSON API; online play and watching use the course
// protocol over a WebSocket.

import { PlayView } from "./game.js";
import { HomeView } from "./home.js";
import { JudgeView } from "./judge.js";
import { OnlineView } from "./online.js";
import { LeaderboardView, PlayerView } from "./players.js";
import { ReplayView } from "./replay.js";
import { api, app, h, setCatalogue, setProtocol } from "./ui.js";
import { WatchView } from "./watch.js";

let current = null;
let currentHash = null;

const VIEWS = {
  "/play": (params) => new PlayView(params),
  "/online": (params) => new OnlineView(params),
  "/watch": (params) => new WatchView(params),
  "/replay": (params) => new ReplayView(params),
  "/judge": (params) => new JudgeView(params),
  "/leaderboard": (params) => new LeaderboardView(params),
  "/player": (params) => new PlayerView(params),
};

function show() {
  if (current && current.dispose) current.dispose();
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  document.body.dataset.view = path || "/";
  currentHash = location.hash;
  const make = VIEWS[path];
  current = make ? make(params) : new HomeView();
  window.scrollTo(0, 0);
}

// A view with something to lose (a running online game) is asked before the page leaves it.
async function route() {
  if (location.hash === currentHash) return;
  if (current && current.mayLeave && !(await current.mayLeave())) {
    history.pushState(null, "", currentHash);
    return;
  }
  show();
}

async function boot() {
  let catalogue;
  try {
    let protocol;
    [catalogue, protocol] = await Promise.all([api("/api/catalogue"), api("/api/protocol")]);
    setCatalogue(catalogue);
    setProtocol(protocol);
  } catch (e) {
    app.replaceChildren(h("p", { class: "error", role: "alert" }, `Cannot load the list of games: ${e.message}`));
    return;
  }
  const tagline = document.getElementById("tagline");
  if (tagline) tagline.textContent = catalogue.map((g) => g.title).join(" · ");
  window.addEventListener("hashchange", route);
  show();
}

boot();
