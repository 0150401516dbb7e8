// The games the server hosts and the protocol's constants, as the server describes them
// (GET /api/catalogue, GET /api/protocol): read once by app.js and handed to every view in its
// context. Nothing here changes after the page starts.

// The time controls a room can be opened with, when the server does not list them.
const TIME_CONTROLS = [
  { id: "20s", label: "20 s a move (as THUPC's toy)", keys: { timeout_ms: 20000 } },
  { id: "60s", label: "1 min a move", keys: { timeout_ms: 60000 } },
  { id: "3+2", label: "3 min + 2 s a game", keys: { clock_ms: 180000, increment_ms: 2000 } },
  { id: "10+5", label: "10 min + 5 s a game", keys: { clock_ms: 600000, increment_ms: 5000 } },
  { id: "3s", label: "3 s a move (the course's bots)", keys: { timeout_ms: 3000 } },
];

export class Catalogue {
  /**
   * @param {import("./api.js").GameDef[]} games
   * @param {import("./api.js").Protocol} protocol
   */
  constructor(games, protocol) {
    this.games = Object.freeze([...games]);
    this.protocol = protocol;
    // The protocol's operation codes by name (OP.MOVE, …).
    this.ops = Object.freeze({ ...protocol.ops });
    this.timeControls = protocol.time_controls || TIME_CONTROLS;
    Object.freeze(this);
  }

  /** @returns {import("./api.js").GameDef|null} */
  def(id) {
    return this.games.find((g) => g.id === id) || null;
  }

  // The protocol's colour words of a game's two sides (BLACK/WHITE, RED/BLUE).
  colourWords(id) {
    const def = this.def(id);
    return def ? def.sides.map((s) => s.word) : ["FIRST", "SECOND"];
  }

  // The sides' names in words (black/white, red/blue).
  sideNames(id) {
    const def = this.def(id);
    return def ? def.sides.map((s) => s.name) : ["first", "second"];
  }

  title(game, size) {
    const def = this.def(game);
    // A link that names no game (the room's game is told when it starts).
    if (!game) return "A game";
    if (!def) return `an unknown game (${game})`;
    return def.sizes.length && size ? `${def.title} ${size}×${size}` : def.title;
  }

  // How a game is drawn, as its Board takes it: the sides' names, their tokens and the pieces'
  // glyphs, and the drawing of each board size (plain points for a game not described).
  look(id) {
    const def = this.def(id);
    return {
      id,
      title: def ? def.title : id,
      sideNames: this.sideNames(id),
      tokens: def ? def.look.sides : [],
      pieces: def ? def.look.pieces : [],
      boards: def ? def.boards : [],
    };
  }

  // The game and its options for a request or READY: every option of the game the settings
  // name, the game's defaults for the rest.
  options(settings) {
    const def = this.def(settings.game);
    const out = { game: settings.game };
    for (const option of def ? def.options : []) {
      const value = settings[option.name];
      if (value !== undefined && value !== null && value !== "") out[option.name] = Number(value);
    }
    return out;
  }

  // Settings from the server's description of a game (a room's, a stored game's), or a link's.
  settingsFrom(source, game) {
    const out = { game: source.game || game };
    const def = this.def(out.game);
    for (const option of def ? def.options : []) {
      const value = source instanceof URLSearchParams ? source.get(option.name) : source[option.name];
      if (value !== undefined && value !== null && value !== "") out[option.name] = Number(value);
    }
    return out;
  }

  // An end from outside the board in words: the server's text for `reason` (RESIGN, TIMEOUT,
  // …) with the loser's name, and `detail` (an illegal move's reason, why the game stopped)
  // after it; null for an end the board itself tells.
  endWords(reason, loser, detail = "") {
    const text = this.protocol.end_texts[reason];
    if (!text) return null;
    const words = text.replace("{loser}", loser || "a player");
    return detail ? `${words} (${detail})` : words;
  }

  timeControl(id) {
    return this.timeControls.find((t) => t.id === id) || null;
  }

  // The room's time control in words, from READY's keys: a known control's label, else the
  // numbers.
  timeWords(m) {
    const known = this.timeControls.find((t) => Object.entries(t.keys).every(([k, v]) => Number(m[k]) === v)
      && (m.clock_ms ? "clock_ms" in t.keys : !("clock_ms" in t.keys)));
    if (known) return known.label;
    if (m.clock_ms) return `${Number(m.clock_ms) / 1000} s + ${Number(m.increment_ms || 0) / 1000} s a game`;
    return `${Number(m.timeout_ms) / 1000} s a move`;
  }
}
