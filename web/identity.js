// Who plays in this browser: the name it goes by (a guest name until its player chooses one),
// the secret that proves it holds that name, and random tokens for seats and stored games.

import * as api from "./api.js";

// The longest name, in characters as people count them (graphemes: 👨‍👩‍👧 is one).
export const MAX_NAME = 20;

// A random token for this tab (the seat it holds in a room, a stored game's secret).
export function randomToken() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A name this browser makes up for a player who chose none. Every name a READY brings is held
// for the browser that brought it, so guest names are drawn from 900 million: with four digits
// one new guest in ten met a name another browser held once a site had seen a thousand.
function guestName() {
  return `guest${Math.floor(1e8 + Math.random() * 9e8)}`;
}

// The value this browser keeps under `key`, made by `make()` and kept the first time it is asked.
function keptOrMade(key, make) {
  let value = localStorage.getItem(key);
  if (!value) {
    value = make();
    localStorage.setItem(key, value);
  }
  return value;
}

export function playerName() {
  return keptOrMade("arbiter-name", guestName);
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
  return keptOrMade("arbiter-secret", randomToken);
}

// Whether this browser holds its player's name on the server (it claimed it with its secret).
export function nameHeld() {
  return localStorage.getItem("arbiter-name-held") === playerName();
}

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
    await api.claimName(wanted, nameSecret());
  } catch (e) {
    return e.message;
  }
  localStorage.setItem("arbiter-name", wanted);
  localStorage.setItem("arbiter-name-held", wanted);
  return null;
}
