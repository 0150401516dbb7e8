// The server's JSON API, one named function per endpoint (crates/server/src/api/mod.rs lists
// the routes). Every call gives up after a timeout and can be aborted; a refusal throws an
// ApiError carrying the server's words and the HTTP status, so callers decide by the status,
// never by the words.

/**
 * A game the server hosts (GET /api/catalogue).
 * @typedef {object} GameDef
 * @property {string} id
 * @property {string} title
 * @property {{name: string, word: string}[]} sides  the sides' names (black) and protocol words (BLACK)
 * @property {{name: string, help: string, default: number, values?: number[], min?: number, max?: number}[]} options
 * @property {number[]} sizes        the board sizes a player may choose (empty: one board)
 * @property {string} notation       how moves are written
 * @property {string} [judge]        the judge's input format, when the game has a judge
 * @property {string} [judge_example]
 * @property {Look} look             how its pieces and sides are drawn
 * @property {BoardLook[]} boards    the drawing of each board size
 */

/**
 * @typedef {object} Look
 * @property {{token?: string, fill?: string, stroke?: string, ink?: string}[]} sides
 * @property {{kind: string, name: string, glyph: string, alternative?: string}[]} pieces
 * @property {string} [example]      an example move
 * @property {{show: string, hide: string}} [alternative]  the switch to the alternative glyphs
 */

/**
 * @typedef {object} BoardLook
 * @property {number} cols
 * @property {number} rows
 * @property {number} margin
 * @property {number} label_gap
 * @property {string|null} background
 * @property {object[]} shapes       lines, arcs and cells in board coordinates
 * @property {string[]} column_labels
 * @property {string[]} row_labels
 */

/**
 * The course protocol's constants (GET /api/protocol).
 * @typedef {object} Protocol
 * @property {Object<string, number>} ops  operation codes by name (READY, MOVE, …)
 * @property {string} end_marker     MOVE's data3 when the move ends the game
 * @property {string} default_game   the course's game, the page's first choice
 * @property {string[]} move_reasons an illegal move's reasons, by code
 * @property {string[]} end_reasons  the ends' names, by code
 * @property {Object<string, string>} end_texts  an end from outside the board in words ({loser})
 * @property {TimeControl[]} [time_controls]  the time controls a room is opened with
 */

/**
 * @typedef {object} TimeControl
 * @property {string} id
 * @property {string} label
 * @property {{timeout_ms?: number, clock_ms?: number, increment_ms?: number}} keys  READY's keys
 */

/**
 * A position as the server shows it (POST /api/state).
 * @typedef {object} StateView
 * @property {string} game
 * @property {number} cols
 * @property {number} rows
 * @property {{name: string, col: number, row: number, piece: ?{side: string, kind?: string, colour: string}}[]} squares
 * @property {{from: string, to: string, text: string, capture?: boolean, path?: object[]}[]} legal
 * @property {"ongoing"|"over"} status
 * @property {string} to_move        the side to move's protocol word
 * @property {number} ply
 * @property {?{from: string, to: string, captured?: object[], capture?: boolean}} last
 * @property {boolean} [check]
 * @property {string[]} [checked]
 * @property {string} [winner]
 * @property {string} [end]          the end in words
 * @property {number} [quiet_plies]  moves in a row without a capture
 */

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// A JSON call that gives up after `timeout` ms and can be aborted with `signal`.
async function call(path, body, { method, timeout = 15000, signal } = {}) {
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
    throw new ApiError(controller.signal.aborted ? "the server did not answer in time" : "the server cannot be reached", 0);
  } finally {
    clearTimeout(timer);
  }
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ApiError(`the server answered ${response.status}: ${text.slice(0, 200)}`, response.status);
  }
  if (!response.ok) throw new ApiError(json.error || `the server answered ${response.status}`, response.status);
  return json;
}

const QUICK = { timeout: 8000 };
const game = (id) => `/api/games/${encodeURIComponent(id)}`;

/** @returns {Promise<GameDef[]>} */
export const catalogue = () => call("/api/catalogue");
/** @returns {Promise<Protocol>} */
export const protocol = () => call("/api/protocol");

// The rooms, from room `after + 1` on when `after` is given, at most `limit`.
export function rooms({ limit, after, timeout = 8000 } = {}) {
  const q = new URLSearchParams();
  if (limit !== undefined) q.set("limit", limit);
  if (after !== undefined && after >= 0) q.set("after", after);
  const query = q.toString();
  return call(`/api/rooms${query ? `?${query}` : ""}`, undefined, { timeout });
}

// The latest stored games, newest first.
export const games = (limit) => call(`/api/games?limit=${limit}`, undefined, QUICK);
export const createGame = (body) => call("/api/games", body);
export const storedGame = (id) => call(game(id));
export const appendMove = (id, body) => call(`${game(id)}/moves`, body);
export const takeBack = (id, body) => call(`${game(id)}/takeback`, body);
export const updateGame = (id, body) => call(game(id), body, { method: "PUT" });
// Addresses to download a stored game from (its record as text, its JSON).
export const recordUrl = (id) => `${game(id)}/record`;
export const gameUrl = (id) => game(id);
export const startAnalysis = (id) => call(`${game(id)}/analysis`, {});
export const analysisProgress = (id) => call(`${game(id)}/analysis`);

export const claimName = (name, secret) => call("/api/players", { name, secret });
export const player = (name, options = {}) => call(`/api/players/${encodeURIComponent(name)}`, undefined, options);
export const leaderboard = (cls) => call(`/api/leaderboard?class=${encodeURIComponent(cls)}`);

/** @returns {Promise<StateView>} */
export const state = (body) => call("/api/state", body);
export const aiMove = (body, options) => call("/api/ai", body, { timeout: 30000, ...options });
export const analyze = (body, options) => call("/api/analyze", body, options);
export const judge = (gameId, input) => call(`/api/judge/${encodeURIComponent(gameId)}`, { input }, { timeout: 60000 });
