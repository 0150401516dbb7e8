// What every view of the page shares: building elements, calling the API, the dialog, the live
// region, the catalogue of games, and what the page remembers.

export const app = document.getElementById("app");

// The games the server hosts, with their sides and options (GET /api/catalogue).
export let CATALOGUE = [];

export function setCatalogue(games) {
  CATALOGUE = games;
}

// The course protocol's constants and the words for ends from outside the board, as the server
// defines them (GET /api/protocol): { ops, end_marker, move_reasons, end_reasons, end_texts }.
export let PROTOCOL = { ops: {}, end_marker: "", move_reasons: [], end_reasons: [], end_texts: {} };

export function setProtocol(protocol) {
  PROTOCOL = protocol;
}

// An end from outside the board in words: the server's text for `reason` (RESIGN, TIMEOUT, …)
// with the loser's name, and `detail` (an illegal move's reason, why the game stopped) after
// it; null for an end the board itself tells.
export function endWords(reason, loser, detail = "") {
  const text = PROTOCOL.end_texts[reason];
  if (!text) return null;
  const words = text.replace("{loser}", loser || "a player");
  return detail ? `${words} (${detail})` : words;
}

export function gameDef(id) {
  return CATALOGUE.find((g) => g.id === id) || null;
}

// The protocol's colour words of a game's two sides (BLACK/WHITE, RED/BLUE).
export function colourWords(id) {
  const def = gameDef(id);
  return def ? def.sides.map((s) => s.word) : ["FIRST", "SECOND"];
}

// The sides' names in words (black/white, red/blue).
export function sideNames(id) {
  const def = gameDef(id);
  return def ? def.sides.map((s) => s.name) : ["first", "second"];
}

export function gameTitle(game, size) {
  const def = gameDef(game);
  // A link that names no game (the room's game is told when it starts).
  if (!game) return "A game";
  if (!def) return `an unknown game (${game})`;
  return def.sizes.length && size ? `${def.title} ${size}×${size}` : def.title;
}

// The game and its options for a request or READY: every option of the game the settings name,
// the game's defaults for the rest.
export function gameOptions(settings) {
  const def = gameDef(settings.game);
  const out = { game: settings.game };
  for (const option of def ? def.options : []) {
    const value = settings[option.name];
    if (value !== undefined && value !== null && value !== "") out[option.name] = Number(value);
  }
  return out;
}

// Settings from the server's description of a game (a room's, a stored game's), or a link's.
export function settingsFrom(source, game) {
  const out = { game: source.game || game };
  const def = gameDef(out.game);
  for (const option of def ? def.options : []) {
    const value = source instanceof URLSearchParams ? source.get(option.name) : source[option.name];
    if (value !== undefined && value !== null && value !== "") out[option.name] = Number(value);
  }
  return out;
}

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// A JSON API call that gives up after `timeout` ms and can be aborted with `signal`.
export async function api(path, body, { method, timeout = 15000, signal } = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), timeout);
  if (signal) signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  let response;
  try {
    response = await fetch(path, {
      method: method || (body === undefined ? "GET" : "POST"),
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
  } catch (e) {
    if (signal && signal.aborted) throw new DOMException("aborted", "AbortError");
    throw new Error(controller.signal.aborted ? "the server did not answer in time" : "the server cannot be reached");
  } finally {
    clearTimeout(timer);
  }
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`the server answered ${response.status}: ${text.slice(0, 200)}`);
  }
  if (!response.ok) throw new Error(json.error || `the server answered ${response.status}`);
  return json;
}

// Says something to screen readers (and keeps it on screen in the live region's place).
export function announce(text) {
  const live = document.getElementById("live");
  if (live && live.textContent !== text) live.textContent = text;
}

// A modal question in a real <dialog>: focus moves in, Escape answers `no`.
export function confirmDialog(text, yes, no) {
  const dialog = document.getElementById("dialog");
  document.getElementById("dialog-text").textContent = text;
  const yesButton = document.getElementById("dialog-yes");
  const noButton = document.getElementById("dialog-no");
  yesButton.textContent = yes;
  noButton.textContent = no;
  return new Promise((resolve) => {
    const done = (answer) => {
      yesButton.onclick = noButton.onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    yesButton.onclick = () => done(true);
    noButton.onclick = () => done(false);
    dialog.oncancel = (e) => {
      e.preventDefault();
      done(false);
    };
    dialog.showModal();
    noButton.focus();
  });
}

// A name this browser makes up for a player who chose none. Every name a READY brings is held
// for the browser that brought it, so guest names are drawn from 900 million: with four digits
// one new guest in ten met a name another browser held once a site had seen a thousand.
function guestName() {
  return `guest${Math.floor(1e8 + Math.random() * 9e8)}`;
}

export function playerName() {
  let name = localStorage.getItem("arbiter-name");
  if (!name) {
    name = guestName();
    localStorage.setItem("arbiter-name", name);
  }
  return name;
}

// When a room refuses this browser's guest name as another's: a fresh guest name, and true. A
// name the player chose (claimed on the home page) is never replaced: false.
export function replaceGuestName() {
  if (!/^guest\d+$/.test(playerName()) || nameHeld()) return false;
  localStorage.setItem("arbiter-name", guestName());
  return true;
}

// The secret this browser keeps for the names its player holds (made once, never shown).
export function nameSecret() {
  let secret = localStorage.getItem("arbiter-secret");
  if (!secret) {
    secret = randomToken();
    localStorage.setItem("arbiter-secret", secret);
  }
  return secret;
}

// Whether this browser holds its player's name on the server (it claimed it with its secret).
export function nameHeld() {
  return localStorage.getItem("arbiter-name-held") === playerName();
}

// The longest name, in characters as people count them (graphemes: 👨‍👩‍👧 is one).
export const MAX_NAME = 20;

// How many characters a person sees in `text` (grapheme clusters; code points where the
// browser cannot segment).
export function graphemes(text) {
  if (typeof Intl !== "undefined" && Intl.Segmenter) return [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length;
  return [...text].length;
}

// Claims `name` (any script, at most 20 characters) for this browser's secret: null when it is
// now this player's, else why not (the server's words, naming the field).
export async function setPlayerName(name) {
  const wanted = name.trim();
  const length = graphemes(wanted);
  if (length > MAX_NAME) return `name: at most ${MAX_NAME} characters, not ${length}`;
  try {
    await api("/api/players", { name: wanted, secret: nameSecret() });
  } catch (e) {
    return e.message;
  }
  localStorage.setItem("arbiter-name", wanted);
  localStorage.setItem("arbiter-name-held", wanted);
  return null;
}

// A clock's time: minutes and seconds, and with `tenths` (a clock counting down) the tenths of
// a second under 10 s, as lichess shows them.
export function clockText(ms, tenths = false) {
  if (ms === null || ms === undefined) return "—";
  if (tenths && ms < 10000) {
    const t = Math.max(0, Math.floor(ms / 100));
    return `0:${String(Math.floor(t / 10)).padStart(2, "0")}.${t % 10}`;
  }
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

// A random token for this tab (the seat it holds in a room, a stored game's secret).
export function randomToken() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The time controls a room can be opened with.
export const TIME_CONTROLS = [
  { id: "20s", label: "20 s a move (as THUPC's toy)", keys: { timeout_ms: 20000 } },
  { id: "60s", label: "1 min a move", keys: { timeout_ms: 60000 } },
  { id: "3+2", label: "3 min + 2 s a game", keys: { clock_ms: 180000, increment_ms: 2000 } },
  { id: "10+5", label: "10 min + 5 s a game", keys: { clock_ms: 600000, increment_ms: 5000 } },
  { id: "3s", label: "3 s a move (the course's bots)", keys: { timeout_ms: 3000 } },
];

// The room's time control in words, from READY's keys: a known control's label, else the numbers.
export function timeWords(m) {
  const known = TIME_CONTROLS.find((t) => Object.entries(t.keys).every(([k, v]) => Number(m[k]) === v)
    && (m.clock_ms ? "clock_ms" in t.keys : !("clock_ms" in t.keys)));
  if (known) return known.label;
  if (m.clock_ms) return `${Number(m.clock_ms) / 1000} s + ${Number(m.increment_ms || 0) / 1000} s a game`;
  return `${Number(m.timeout_ms) / 1000} s a move`;
}

// A link typed or pasted as `tc=3+2` reaches the page as "3 2" (a `+` in a query is a space),
// so a space is read as the `+` it was.
export function timeControl(id) {
  const named = id.trim().replace(/ +/g, "+");
  return TIME_CONTROLS.find((t) => t.id === named) || null;
}

// Runs async steps one after another, so no step starts before the last one ended.
export class Serial {
  constructor(onError) {
    this.chain = Promise.resolve();
    this.onError = onError || ((e) => console.error(e));
  }

  run(step) {
    this.chain = this.chain.then(step).catch(this.onError);
    return this.chain;
  }
}
