// The games the server hosts and the protocol's constants, as the server describes them
// (GET /api/catalogue, GET /api/protocol): read once by app.js and handed to every view in its
// context. Nothing here changes after the page starts.

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
    // The time controls a room is opened with (the server lists them with their READY keys).
    this.timeControls = protocol.time_controls || [];
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

  // A link typed or pasted as `tc=3+2` reaches the page as "3 2" (a `+` in a query is a space),
  // so a space is read as the `+` it was.
  timeControl(id) {
    const named = id.trim().replace(/ +/g, "+");
    return this.timeControls.find((t) => t.id === named) || null;
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
