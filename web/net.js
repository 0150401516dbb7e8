// The course protocol over the server's WebSocket: one JSON message per text frame, handled one
// at a time in arrival order (a handler that awaits a refresh delays the next message, so an
// END can never overtake the MOVE before it).

export class Connection {
  // `onMessage(message)` may return a promise: the next message waits for it. `onOpen()`,
  // `onLost()` (the connection dropped without us closing it).
  constructor({ onMessage, onOpen, onLost }) {
    this.handlers = { onMessage, onOpen, onLost };
    this.closing = false;
    this.chain = Promise.resolve();
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket.onopen = () => this.handlers.onOpen && this.handlers.onOpen();
    this.socket.onmessage = (event) => {
      for (const line of String(event.data).split("\n")) {
        if (!line.trim()) continue;
        let message;
        try {
          message = JSON.parse(line);
        } catch (e) {
          console.warn("unreadable message", line, e);
          continue;
        }
        this.chain = this.chain
          .then(() => this.handlers.onMessage(message))
          .catch((e) => console.error("handling", message, e));
      }
    };
    this.socket.onclose = () => {
      if (this.closing) return;
      this.chain = this.chain.then(() => this.handlers.onLost && this.handlers.onLost());
    };
  }

  isOpen() {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(op, data1 = "", data2 = "", data3 = "", extra = {}) {
    if (!this.isOpen()) return false;
    this.socket.send(JSON.stringify({ op, data1, data2, data3, ...extra }));
    return true;
  }

  close() {
    this.closing = true;
    this.socket.close();
  }
}
