#!/usr/bin/env python3
"""The slow attacks on `arbiter serve` that do not fit in `cargo test` (standard library only).

  scripts/hostile.sh            # builds the release binary, then runs every attack
  scripts/hostile.py BINARY [ATTACK ...]

Attacks: idle-http (20,000 idle HTTP sockets), trickle (50 trickling connections),
spectators (20 spectators that never read, under a chat flood; the server's memory),
kill (four rounds of kill -9 during 20 games; no forwarded move may be lost).
Each prints what it measured and PASS or FAIL; the exit status is the number of failures.
"""
import json
import os
import random
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, folder, *extra):
        self.binary, self.folder, self.extra = binary, folder, extra
        self.tcp, self.http = free_port(), free_port()
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--tcp", f"127.0.0.1:{self.tcp}", "--http", f"127.0.0.1:{self.http}",
             "--db", os.path.join(self.folder, "games.sqlite"), *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.http), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0

    def get(self, path, timeout=5):
        s = socket.create_connection(("127.0.0.1", self.http), timeout=timeout)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        return data.decode(errors="replace")

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def message(op, d1="", d2="", d3="", **extra):
    m = {"op": op, "data1": d1, "data2": d2, "data3": d3, **extra}
    return (json.dumps(m, separators=(",", ":")) + "\n").encode()


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.sock.makefile("r")

    def send(self, op, *args, **extra):
        self.sock.sendall(message(op, *args, **extra))

    def recv(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("closed")
        return json.loads(line)


def idle_http(binary, folder):
    server = Server(binary, folder)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held = []
    try:
        for _ in range(min(20000, hard - 200)):
            try:
                # The attacker's own address (any 127.x.y.z is this machine): the budget per
                # address must stop it without locking out the player at 127.0.0.1.
                held.append(socket.create_connection(
                    ("127.0.0.1", server.http), timeout=2, source_address=("127.0.0.2", 0)))
            except OSError:
                break
        started = time.time()
        answer = server.get("/api/rooms")
        served = time.time() - started
        ok_now = answer.startswith("HTTP/1.1 200")
        time.sleep(12)
        open_after = sum(1 for s in held if still_open(s))
        print(f"idle-http: opened {len(held)} idle sockets from 127.0.0.2; a client at 127.0.0.1 was "
              f"served in {served:.2f} s ({'200' if ok_now else 'refused'}); {open_after} still open 12 s later")
        return ok_now and served < 2 and open_after == 0
    finally:
        for s in held:
            s.close()
        server.stop()


def still_open(sock):
    """Whether the server has not closed the socket (what it sent first is read and ignored)."""
    sock.setblocking(False)
    try:
        while sock.recv(1 << 16):
            pass
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def trickle(binary, folder):
    server = Server(binary, folder, "--idle-timeout", "20")
    socks = [socket.create_connection(("127.0.0.1", server.tcp)) for _ in range(50)]
    started = time.time()
    while time.time() - started < 45:
        for s in socks:
            try:
                s.sendall(b"{")
            except OSError:
                pass
        time.sleep(2)
    open_now = sum(1 for s in socks if still_open(s))
    print(f"trickle: 50 connections sending a byte every 2 s; {open_now} open after 45 s (idle limit 20 s)")
    server.stop()
    return open_now == 0


def spectators(binary, folder):
    server = Server(binary, folder)
    black, white = Client(server.tcp), Client(server.tcp)
    black.send(200000, "b", "BLACK", "9")
    white.send(200000, "w", "WHITE", "9")
    black.recv(), white.recv()
    watchers = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", server.tcp))
        s.sendall(message(200100, "9"))
        watchers.append(s)
    text = "x" * 60000
    peak = 0
    for i in range(4000):
        try:
            (black if i % 2 else white).send(200005, "", text)
        except OSError:
            break
        if i % 200 == 0:
            peak = max(peak, server.rss_mib())
    time.sleep(2)
    peak = max(peak, server.rss_mib())
    print(f"spectators: 20 that never read, 240 MB of chat sent; server peak {peak:.0f} MiB")
    server.stop()
    return peak < 300


def kill_rounds(binary, folder):
    server = Server(binary, folder, "--max-connections-per-ip", "10000")
    db = os.path.join(folder, "games.sqlite")
    lost_total, forwarded_total = 0, 0
    for round_no in range(4):
        forwarded = {}
        lock = threading.Lock()

        def play(room):
            try:
                red, blue = Client(server.tcp), Client(server.tcp)
                for c, colour in ((red, "RED"), (blue, "BLUE")):
                    c.send(200000, f"p{room}", colour, str(1000 + room), game="duck", max_no_capture_round=0)
                red.recv(), blue.recv()
                cycle = ["a0-a1", "a9-a8", "a1-a0", "a8-a9"]
                ply = 0
                while True:
                    mover, other = (red, blue) if ply % 2 == 0 else (blue, red)
                    a, b = cycle[ply % 4].split("-")
                    mover.send(200001, a, b)
                    if other.recv()["op"] != 200001:
                        return
                    ply += 1
                    with lock:
                        forwarded[room] = ply
            except (ConnectionError, OSError, ValueError):
                return

        threads = [threading.Thread(target=play, args=(room,), daemon=True) for room in range(20)]
        for t in threads:
            t.start()
        time.sleep(random.uniform(1.0, 3.0))
        server.proc.kill()
        server.proc.wait()
        time.sleep(0.2)
        with lock:
            acknowledged = dict(forwarded)
        server.start()
        conn = sqlite3.connect(db)
        for room, plies in acknowledged.items():
            stored = conn.execute(
                "SELECT count(*) FROM moves JOIN games ON games.id = moves.game_id WHERE games.room = ?",
                (1000 + room,)).fetchone()[0]
            lost_total += max(0, plies - stored)
            forwarded_total += plies
            conn.execute("DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE room = ?)", (1000 + room,))
            conn.execute("DELETE FROM games WHERE room = ?", (1000 + room,))
        running = conn.execute("SELECT count(*) FROM games WHERE ended_at IS NULL").fetchone()[0]
        conn.commit()
        conn.close()
        if running:
            print(f"kill: round {round_no}: {running} games still running after the restart")
            lost_total += 1
    print(f"kill: 4 rounds of kill -9 during 20 games; {forwarded_total} forwarded moves, {lost_total} lost")
    server.stop()
    return lost_total == 0


ATTACKS = {"idle-http": idle_http, "trickle": trickle, "spectators": spectators, "kill": kill_rounds}


def main():
    binary = os.path.abspath(sys.argv[1])
    chosen = sys.argv[2:] or list(ATTACKS)
    failures = 0
    for name in chosen:
        with tempfile.TemporaryDirectory(prefix=f"arbiter-{name}-") as folder:
            ok = ATTACKS[name](binary, folder)
        print(f"{name}: {'PASS' if ok else 'FAIL'}")
        failures += 0 if ok else 1
    sys.exit(failures)


if __name__ == "__main__":
    main()
