// A room's time as its page keeps it between the server's messages: a game clock per side
// (the clocks the room last sent, and when), or the time left for this move; a first move off
// the clock (the side to move has `first_move_ms` for it, or the game is aborted); and when to
// warn a player of low time.

export class RoomTime {
  constructor() {
    this.clocksMs = null; // [first, second] as the room last said, with a game clock
    this.clocksAt = 0;
    this.clockMs = null; // the time control: a game clock and its increment,
    this.incrementMs = 0;
    this.timeoutMs = null; // or a time per move
    this.deadline = null; // when the side to move's time runs out (a clock per move)
    this.firstMoveUntil = null;
    this.firstMoveMs = null;
    this.lowWarned = false;
  }

  // The time control from READY's (or a snapshot's settings') keys.
  adopt(m) {
    if (m.clock_ms) this.clockMs = Number(m.clock_ms);
    if (m.clock_ms) this.incrementMs = Number(m.increment_ms) || 0;
    this.timeoutMs = Number(m.timeout_ms) || this.timeoutMs || 3000;
  }

  // A new game: full clocks.
  restart() {
    this.clocksMs = this.clockMs ? [this.clockMs, this.clockMs] : null;
    this.clocksAt = Date.now();
    this.lowWarned = false;
  }

  // The clocks the room sent (a MOVE's, an END's, a snapshot's), as of now.
  sync(clocks) {
    if (!Array.isArray(clocks)) return;
    this.clocksMs = clocks.map(Number);
    this.clocksAt = Date.now();
  }

  // The time the side to move has for a first move off the clock, from the room's message.
  firstMoveFrom(m) {
    this.firstMoveMs = Number.isFinite(Number(m.first_move_ms)) && m.first_move_ms !== undefined ? Number(m.first_move_ms) : null;
  }

  // The side to move's time starts: all of it, or `leftMs` when the room says how much is left
  // (a page that joins mid-move).
  start(leftMs = null) {
    // The side to move plays its first move off the clock: it has `first_move_ms` for it.
    this.firstMoveUntil = Number.isFinite(this.firstMoveMs) ? Date.now() + this.firstMoveMs : null;
    this.firstMoveMs = null;
    if (this.firstMoveUntil) {
      this.deadline = this.firstMoveUntil;
      return;
    }
    const ms = Number.isFinite(leftMs) ? leftMs : this.timeoutMs;
    this.deadline = ms ? Date.now() + ms : null;
    // With a clock per move, each turn may warn of low time once.
    if (!this.clocksMs) this.lowWarned = false;
  }

  // Nobody's time runs (the game ended, the connection dropped, this side just moved).
  stop() {
    this.deadline = null;
  }

  // This side moved: its clock as the server charges it, the time used and the increment
  // earned (a first move off the clock costs nothing and earns nothing).
  charge(side) {
    if (this.clocksMs && !this.firstMoveUntil) this.clocksMs[side] += (this.incrementMs || 0) - (Date.now() - this.clocksAt);
    if (this.clocksMs) this.clocksAt = Date.now();
    this.firstMoveUntil = null;
  }

  // What the clocks show with side `running` to move (null: none runs).
  values(running) {
    if (this.clocksMs) {
      const ms = [...this.clocksMs];
      // A first move off the clock: the clock waits (the status counts the first move down).
      if (this.firstMoveUntil) return { ms, running: null, countdown: true };
      if (running !== null && this.clocksAt) ms[running] -= Date.now() - this.clocksAt;
      return { ms, running, countdown: true };
    }
    const ms = [null, null];
    if (running !== null && this.deadline) ms[running] = this.deadline - Date.now();
    return { ms, running, countdown: true };
  }

  // While the side to move plays its first move off the clock.
  firstMoveWords() {
    if (!this.firstMoveUntil) return "";
    const left = Math.max(0, Math.ceil((this.firstMoveUntil - Date.now()) / 1000));
    return ` — first move within ${left} s, or the game is aborted`;
  }

  // Whether to beep: `side`'s running time (`values`) fell under a quarter of the time control
  // (10 s at most) — once a turn with a clock per move, once a game with a game clock.
  lowNow(values, side) {
    if (!values || values.running !== side || this.lowWarned) return false;
    const left = values.ms[side];
    const full = this.clocksMs ? this.clockMs : this.timeoutMs;
    if (left === null || !full || left >= Math.min(10000, full / 4)) return false;
    this.lowWarned = true;
    return true;
  }
}
