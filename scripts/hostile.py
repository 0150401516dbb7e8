#!/usr/bin/env python3
"""The slow attacks on `arbiter serve` that do not fit in `cargo test` (standard library only).

  scripts/hostile.sh            # builds the release binary, then runs every attack
  scripts/hostile.py BINARY [--no-watch] [--memory-limit MIB] [ATTACK ...]

Around every attack (unless --no-watch) the server runs under a memory limit (2048 MiB) and is
watched as issue 27 asks: an honest game from another network keeps its move round trip p99
under 100 ms, the server's peak memory stays under 512 MiB, and afterwards every endpoint
answers normally (scripts/hostile_watch.py). A table of all attacks ends the run.

Attacks: idle-http (20,000 idle HTTP sockets), trickle (50 trickling connections),
spectators (20 spectators that never read, under a chat flood; the server's memory),
kill (four rounds of kill -9 during 20 games; no forwarded move may be lost);
the HTTP API's limits (docs/security.md): judge-flood (32 judge requests of 180 KB and 32 valid
ones at once), ai-hangup (50 AI requests whose clients hang up, then one that must be answered),
games-flood (POST /api/games from one address for 10 s), api-errors (bad encodings, bodies and
methods: every answer JSON, 413 for big bodies), rooms-page (5,000 rooms, listed in pages);
deadlines and caps (docs/security.md, "Transports and deadlines"): body-deadline (200 POSTs
whose body never comes), h2-idle (200 HTTP/2 connections that only ping), watch-idle (100
WATCHes of an empty room beside a spectator of a live game), network-cap (40 addresses of one
/24 against a client of another network);
storage, seats and connections: db-links (a second server on a symlink and a hard link to the
database), ctrl-c-pipe (Ctrl-C with stderr a full pipe nobody reads), token-guess (20 s of
wrong seat tokens against a held seat), seat-hoard (one address asks for seats in 200 rooms);
the last round's: old-tricks (request smuggling, path traversal, malformed WebSocket frames,
200 WebSockets trickling a frame).
Each prints what it measured and PASS or FAIL; the exit status is the number of failures.

The attack's own clients run at a lower CPU priority (nice 10) than the server and the honest
game: on a real network the attacker's CPU is another machine's, and on two shared cores a Python
flood would otherwise slow the honest client itself. `--same-priority` turns this off.
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

import hostile_watch

# Set by main: what watches the servers the attacks start (None with --no-watch).
WATCH = None
# Attacks whose server is meant to go down, or that start no `Server`: no honest game there.
NO_HONEST_GAME = {"kill", "ctrl-c-pipe"}

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_setup():
    """In the server's process before exec: normal priority, and the memory limit if watched."""
    hostile_watch.normal_priority()
    if WATCH:
        WATCH.memory_limit.enter()


class Server:
    def __init__(self, binary, folder, *extra):
        self.binary, self.folder, self.extra = binary, folder, extra
        self.tcp, self.http = free_port(), free_port()
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--tcp", f"127.0.0.1:{self.tcp}", "--http", f"127.0.0.1:{self.http}",
             "--db", os.path.join(self.folder, "games.sqlite"), *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_server_setup)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.http), timeout=1).close()
                if WATCH:
                    WATCH.started(self)
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
        if WATCH and self.proc.poll() is None:
            WATCH.finishing(self)
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


# ---- The HTTP API's limits (issue 27): each attack against its own server. ----

def http_request(port, method, path, body=b"", source="127.0.0.1", timeout=60, headers=""):
    """One request with `Connection: close`: (status, lower-cased headers, body bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{headers}Connection: close\r\n\r\n").encode()
    data = b""
    try:
        s.sendall(head + body)
    except OSError:
        pass  # answered and closed before the whole body was sent; the answer is still read
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if len(lines[0].split()) > 1 else 0
    fields = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return status, fields, rest


def json_error(fields, body):
    try:
        return fields.get("content-type", "").startswith("application/json") and "error" in json.loads(body)
    except ValueError:
        return False


def judge_flood(binary, folder):
    """32 judge requests of 180 KB and 32 of a valid 8 KB input at once (the old answer: 94x)."""
    server = Server(binary, folder)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "duck", "official", "2.in")
    valid = open(data).read()
    big = json.dumps({"input": (valid * 23)[:180_000]}).encode()
    small = json.dumps({"input": valid}).encode()
    answers, peak = [], [0.0]
    lock = threading.Lock()

    def ask(body, source):
        answer = http_request(server.http, "POST", "/api/judge/duck", body, source=source)
        with lock:
            answers.append(answer)

    sources = [f"127.0.1.{i}" for i in range(1, 65)]  # many addresses: the rate limits do not hide the gate
    threads = [threading.Thread(target=ask, args=(big if i % 2 else small, sources[i])) for i in range(64)]
    started = time.time()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        peak[0] = max(peak[0], server.rss_mib())
        time.sleep(0.05)
    took = time.time() - started
    alive = server.proc.poll() is None
    honest = time.time()
    status, _, _ = http_request(server.http, "GET", "/api/catalogue")
    honest = time.time() - honest
    counts = {}
    for st, _, _ in answers:
        counts[st] = counts.get(st, 0) + 1
    largest = max(len(b) for _, _, b in answers)
    all_json = all(st == 200 or json_error(f, b) for st, f, b in answers)
    print(f"judge-flood: 64 requests (32 of 180 KB) in {took:.1f} s: statuses {counts}; largest answer "
          f"{largest / 1024:.0f} KiB; server peak {peak[0]:.0f} MiB; alive {alive}; catalogue then in {honest:.2f} s")
    server.stop()
    return alive and status == 200 and honest < 2 and all_json and largest <= 4 << 20 and peak[0] < 400 \
        and counts.get(413, 0) == 32


def ai_hangup(binary, folder):
    """Rounds of 10 /api/ai requests whose clients hang up; then the AI must still answer."""
    server = Server(binary, folder, "--cpu-workers", "1")
    hard = json.dumps({"game": "duck", "level": "hard", "moves": []}).encode()
    for _ in range(5):
        socks = []
        for _ in range(10):
            s = socket.create_connection(("127.0.0.1", server.http), timeout=10)
            s.sendall((f"POST /api/ai HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(hard)}\r\n\r\n").encode() + hard)
            socks.append(s)
        time.sleep(0.3)
        for s in socks:
            s.close()
        time.sleep(1.2)
    easy = json.dumps({"game": "duck", "level": "easy", "moves": []}).encode()
    ai, _, body = http_request(server.http, "POST", "/api/ai", easy)
    analyze, _, _ = http_request(server.http, "POST", "/api/analyze", easy)
    print(f"ai-hangup: 50 AI requests whose clients hung up; then /api/ai {ai}, /api/analyze {analyze}")
    server.stop()
    return ai == 200 and analyze == 200


def games_flood(binary, folder):
    """POST /api/games as fast as 8 threads can for 10 s from one address (the old rate: 6,900/s)."""
    server = Server(binary, folder)
    create = json.dumps({"game": "duck", "mode": "local"}).encode()
    counts, retry_after = {}, []
    lock = threading.Lock()
    until = time.time() + 10

    def flood():
        while time.time() < until:
            status, fields, _ = http_request(server.http, "POST", "/api/games", create)
            with lock:
                counts[status] = counts.get(status, 0) + 1
                if status == 429 and "retry-after" in fields:
                    retry_after.append(fields["retry-after"])

    threads = [threading.Thread(target=flood) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wal = os.path.join(folder, "games.sqlite-wal")
    wal_mib = os.path.getsize(wal) / (1 << 20) if os.path.exists(wal) else 0
    other, _, _ = http_request(server.http, "POST", "/api/games", create, source="127.0.0.77")
    created = counts.get(200, 0)
    print(f"games-flood: 10 s of POST /api/games from one address: {counts}; {created / 10:.0f} games/s "
          f"stored, WAL {wal_mib:.1f} MiB; 429s with Retry-After {len(retry_after)}; another network's "
          f"address then {other}")
    server.stop()
    # Burst 100 and 20/s from one address, 60/s from its /24: at most ~700 in 10 s.
    return created <= 800 and counts.get(429, 0) > 0 and len(retry_after) == counts.get(429, 0) \
        and other == 200 and wal_mib < 50


def api_errors(binary, folder):
    """Every error is JSON: bad path encoding, bad JSON, unknown routes, wrong methods, big bodies."""
    server = Server(binary, folder)
    cases = [
        ("POST", "/api/judge/%FF", b'{"input":""}', 400),
        ("GET", "/api/games/%FF", b"", 400),
        ("POST", "/api/state", b"{", 400),
        ("GET", "/nowhere", b"", 404),
        ("DELETE", "/api/games", b"", 405),
        ("POST", "/api/state", b"[" + b"0," * 1_500_000 + b"0]", 413),
        ("POST", "/api/games", b" " * 3_000_000, 413),
    ]
    failed = []
    for method, path, body, expected in cases:
        status, fields, answer = http_request(server.http, method, path, body)
        if status != expected or not json_error(fields, answer):
            failed.append(f"{method} {path} ({len(body)} bytes): {status} {answer[:80]!r}")
    print(f"api-errors: {len(cases)} malformed requests; not JSON or the wrong status: {failed or 'none'}")
    server.stop()
    return not failed


def rooms_page(binary, folder):
    """5,000 waiting players in 5,000 rooms: /api/rooms answers a page, and the pages add up."""
    server = Server(binary, folder, "--max-connections", "12000", "--max-connections-per-ip", "12000",
                    "--max-seats-per-ip", "6000", "--max-seats-per-network", "6000")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    n = min(5000, hard - 500)
    players = []
    for room in range(n):
        c = Client(server.tcp)
        c.send(200000, f"p{room}", "RED", str(room), game="duck")  # the extension: rooms past 255
        players.append(c)
    time.sleep(2)
    status, _, body = http_request(server.http, "GET", "/api/rooms")
    first = len(body)
    seen, after, pages = 0, None, 0
    while True:
        path = "/api/rooms?limit=200" + (f"&after={after}" if after is not None else "")
        _, _, page = http_request(server.http, "GET", path)
        page = json.loads(page)
        seen += len(page["rooms"])
        pages += 1
        after = page["next"]
        if after is None:
            break
    print(f"rooms-page: {n} open rooms; GET /api/rooms answered {status} with {first / 1024:.0f} KiB; "
          f"{pages} pages of 200 held {seen} rooms")
    for c in players:
        c.sock.close()
    server.stop()
    # The honest game of the watch (scripts/hostile_watch.py) is one more room.
    honest = 1 if WATCH and WATCH.honest else 0
    return status == 200 and first < 256 << 10 and seen == n + honest


# Deadlines and caps on every transport (docs/security.md, "Transports and deadlines").

def connect_from(source, port, timeout=5):
    """A connection to the server from the loopback address `source` (any 127.x.y.z is here)."""
    return socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))


def read_until_closed(sock, within):
    """What the server sent before closing the socket, or None if it is still open after `within`."""
    sock.settimeout(0.2)
    got, deadline = b"", time.time() + within
    while time.time() < deadline:
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            continue
        except OSError:
            return got
        if not chunk:
            return got
        got += chunk
    return None


def body_deadline(binary, folder):
    server = Server(binary, folder)
    head = (f"POST /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: 1000\r\n\r\n{{").encode()
    socks = []
    for i in range(200):
        s = connect_from(f"127.0.{1 + i // 100}.{2 + i % 100}", server.http)
        s.sendall(head)
        socks.append(s)
    started = time.time()
    answers = [read_until_closed(s, 15 - (time.time() - started)) for s in socks]
    elapsed = time.time() - started
    timed_out = sum(1 for a in answers if a is not None and a.startswith(b"HTTP/1.1 408") and b'"error"' in a)
    served = server.get("/api/rooms").startswith("HTTP/1.1 200")
    print(f"body-deadline: 200 POSTs whose body never came; {timed_out} answered 408 and closed "
          f"within {elapsed:.1f} s (deadline 10 s); a new client {'served' if served else 'refused'}")
    for s in socks:
        s.close()
    server.stop()
    return timed_out == 200 and elapsed < 14 and served


H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
H2_PING = b"\x00\x00\x08\x06\x00\x00\x00\x00\x00pingping"


def h2_idle(binary, folder):
    server = Server(binary, folder)
    socks = []
    for i in range(200):
        s = connect_from(f"127.0.{1 + i // 100}.{2 + i % 100}", server.http)
        s.sendall(H2_PREFACE)
        socks.append(s)
    started, open_now = time.time(), len(socks)
    while time.time() - started < 25 and open_now:
        for s in socks:
            try:
                s.sendall(H2_PING)
            except OSError:
                pass
        time.sleep(2)
        open_now = sum(1 for s in socks if still_open(s))
    elapsed = time.time() - started
    print(f"h2-idle: 200 HTTP/2 connections sending only pings every 2 s; {open_now} open after "
          f"{elapsed:.0f} s (header deadline 10 s)")
    for s in socks:
        s.close()
    server.stop()
    return open_now == 0


def watch_idle(binary, folder):
    server = Server(binary, folder, "--watch-idle-timeout", "20", "--timeout-ms", "30000")
    idle = []
    for i in range(100):
        s = connect_from(f"127.0.1.{2 + i}", server.tcp)
        s.sendall(message(200100, "5"))
        idle.append(s)
    black, white = Client(server.tcp), Client(server.tcp)
    black.send(200000, "b", "BLACK", "6")
    white.send(200000, "w", "WHITE", "6")
    black.recv(), white.recv()
    spectator = Client(server.tcp)
    spectator.send(200100, "6")
    spectator.recv()
    moves = [("A2", "A3"), ("F5", "E4"), ("A3", "A2"), ("E4", "F5")]
    seen, started = 0, time.time()
    while time.time() - started < 40:
        mover, other = (black, white) if seen % 2 == 0 else (white, black)
        mover.send(200001, *moves[seen % 4])
        other.recv()
        if spectator.recv()["op"] == 200001:
            seen += 1
        time.sleep(2)
    open_now = sum(1 for s in idle if still_open(s))
    print(f"watch-idle: 100 WATCHes of an empty room, then silence: {open_now} open after 40 s "
          f"(watch deadline 20 s); a spectator of a live game saw {seen} moves in 40 s")
    for s in idle:
        s.close()
    server.stop()
    return open_now == 0 and seen >= 15


def network_cap(binary, folder):
    server = Server(binary, folder)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    held, refused = [], 0
    for i in range(40):
        for _ in range(30):
            s = connect_from(f"127.0.0.{2 + i}", server.tcp)
            held.append(s)
    time.sleep(0.5)
    for s in held:
        if not still_open(s):
            refused += 1
    s = connect_from("127.0.1.2", server.tcp)
    s.sendall(message(200100, "7"))
    other_served = json.loads(s.makefile("r").readline())["op"] == 200101
    s.close()
    print(f"network-cap: 40 addresses of 127.0.0.0/24 asked for 1,200 connections; "
          f"{len(held) - refused} held, {refused} refused (cap 1,000 a network); "
          f"a client of 127.0.1.0/24 {'served' if other_served else 'refused'}")
    for s in held:
        s.close()
    server.stop()
    return len(held) - refused == 1000 and other_served

# ---- Storage, seats and connections (docs/security.md, "Storage, seats and connections") ----

DUCK_CYCLE = ["a0-a1", "a9-a8", "a1-a0", "a8-a9"]


def duck_pair(port, room, tokens=(None, None)):
    """Red and blue in a Duck Chess game without a no-capture limit, started."""
    red, blue = Client(port), Client(port)
    for client, name, colour, token in ((red, "r", "RED", tokens[0]), (blue, "b", "BLUE", tokens[1])):
        extra = {"game": "duck", "max_no_capture_round": 0, **({"token": token} if token else {})}
        client.send(200000, name, colour, str(room), **extra)
    red.recv(), blue.recv()
    return red, blue


def play_cycle(red, blue, plies):
    for ply in range(plies):
        mover, other = (red, blue) if ply % 2 == 0 else (blue, red)
        mover.send(200001, *DUCK_CYCLE[ply % 4].split("-"))
        if other.recv()["op"] != 200001:
            return False
    return True


def db_links(binary, folder):
    server = Server(binary, folder)
    red, blue = duck_pair(server.tcp, 5)
    play_cycle(red, blue, 4)
    db = os.path.join(folder, "games.sqlite")
    outcomes = {}
    for kind, make in (("symlink", os.symlink), ("hard link", os.link)):
        other = os.path.join(folder, kind.replace(" ", "-") + ".sqlite")
        make(db, other)
        try:
            done = subprocess.run([binary, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--db", other],
                                  capture_output=True, timeout=10)
            outcomes[kind] = "refused" if done.returncode != 0 and b"another arbiter server" in done.stderr else "?"
        except subprocess.TimeoutExpired:
            outcomes[kind] = "STARTED"
    going_on = play_cycle(red, blue, 4)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        ended = conn.execute("SELECT ended_at FROM games WHERE id = 1").fetchone()[0]
    print(f"db-links: a second server on a {outcomes}; the first's game goes on: {going_on}, "
          f"still open in the database: {ended is None}")
    server.stop()
    return set(outcomes.values()) == {"refused"} and going_on and ended is None


def ctrl_c_pipe(binary, folder):
    tcp, http = free_port(), free_port()
    proc = subprocess.Popen([binary, "serve", "--tcp", f"127.0.0.1:{tcp}", "--http", f"127.0.0.1:{http}",
                             "--db", os.path.join(folder, "games.sqlite"), "--shutdown-grace", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # never read
    time.sleep(1)
    red, blue = duck_pair(tcp, 6)
    play_cycle(red, blue, 4000)
    started = time.time()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(15)
        took = time.time() - started
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        took = None
    print(f"ctrl-c-pipe: stderr a full pipe nobody reads, 4000 moves logged; Ctrl-C (grace 2 s) stopped it in "
          f"{'never (killed after 15 s)' if took is None else f'{took:.1f} s'}")
    return took is not None and took < 10


def token_guess(binary, folder):
    server = Server(binary, folder)
    tokens = ("a" * 32, "b" * 32)
    red, blue = duck_pair(server.tcp, 7, tokens)
    blue.sock.close()  # blue's seat is held for 30 s; its token takes it back
    guesser = Client(server.tcp)
    guesser.sock.settimeout(2)
    compared = backed_off = 0
    until = time.time() + 20
    while time.time() < until:
        guesser.send(200000, "b", "", "7", game="duck", max_no_capture_round=0, token=os.urandom(16).hex())
        try:
            answer = guesser.recv()
        except (OSError, ValueError):
            break
        if "too many wrong seat tokens" in answer.get("data2", ""):
            backed_off += 1
        else:
            compared += 1
        time.sleep(0.01)
    print(f"token-guess: 20 s of wrong 128-bit seat tokens: {compared} compared, {backed_off} refused by the back-off")
    server.stop()
    return compared <= 12 and backed_off > 0


def seat_hoard(binary, folder):
    server = Server(binary, folder)
    clients = []
    for room in range(100, 300):
        c = Client(server.tcp)
        c.send(200000, f"h{room}", "", str(room), game="duck")
        clients.append(c)
    time.sleep(2)
    refused = 0
    for c in clients:
        c.sock.settimeout(0.05)
        try:
            if "too many seats" in c.recv().get("data2", ""):
                refused += 1
        except (OSError, ValueError):
            pass
    held = len(clients) - refused
    print(f"seat-hoard: one address asked for seats in 200 rooms: {held} held, {refused} refused (cap 16)")
    server.stop()
    return held <= 16


def raw_exchange(port, data, within=5.0):
    """Sends `data`; what came back until the server closed, and whether it closed in time."""
    s = socket.create_connection(("127.0.0.1", port), timeout=within)
    s.sendall(data)
    got, closed = b"", False
    try:
        while chunk := s.recv(1 << 16):
            got += chunk
        closed = True
    except OSError:
        pass
    s.close()
    return got.decode(errors="replace"), closed


def ws_handshake():
    return (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def baseline(binary, folder):
    """No attack: 20 s of the honest game alone, the reference for the other rows."""
    server = Server(binary, folder)
    time.sleep(20)
    print("baseline: no attack for 20 s")
    server.stop()
    return True


def old_tricks(binary, folder):
    """The last round's attacks with no attack of their own here: request smuggling, path
    traversal, malformed WebSocket frames, and 200 WebSockets trickling a frame a byte at a time."""
    server = Server(binary, folder, "--idle-timeout", "10")
    smuggle = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
               b"GET /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer, closed = raw_exchange(server.http, smuggle)
    smuggled = answer.count("HTTP/1.1 ") != 1 or not closed
    leaked = []
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd"):
        answer, _ = raw_exchange(server.http, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        if "root:" in answer:
            leaked.append(path)
    open_frames = 0
    for frame in (b"\x81\x05hello", b"\x8b\x80\x01\x02\x03\x04", b"\x82\xff" + b"\x7f" + b"\xff" * 7 + b"\x01\x02\x03\x04"):
        _, closed = raw_exchange(server.http, ws_handshake() + frame)
        open_frames += 0 if closed else 1
    tricklers = []
    for i in range(200):
        s = socket.create_connection(("127.0.0.1", server.http), source_address=(f"127.0.{1 + i // 100}.{2 + i % 100}", 0))
        s.sendall(ws_handshake() + b"\x81\xe4\x01\x02\x03\x04")
        tricklers.append(s)
    until = time.time() + 25
    while time.time() < until:
        for s in tricklers:
            try:
                s.sendall(b"x")
            except OSError:
                pass
        time.sleep(1)
    trickling = sum(1 for s in tricklers if still_open(s))
    for s in tricklers:
        s.close()
    print(f"old-tricks: smuggled request answered: {smuggled}; files leaked: {leaked or 'none'}; "
          f"WebSockets left open by bad frames: {open_frames} of 3; trickling WebSockets open after 25 s "
          f"(idle limit 10 s): {trickling} of 200")
    server.stop()
    return not smuggled and not leaked and open_frames == 0 and trickling == 0


ATTACKS = {"baseline": baseline, "idle-http": idle_http, "trickle": trickle, "spectators": spectators, "kill": kill_rounds,
           "judge-flood": judge_flood, "ai-hangup": ai_hangup, "games-flood": games_flood,
           "api-errors": api_errors, "rooms-page": rooms_page,
           "body-deadline": body_deadline, "h2-idle": h2_idle, "watch-idle": watch_idle,
           "network-cap": network_cap,
           "db-links": db_links, "ctrl-c-pipe": ctrl_c_pipe, "token-guess": token_guess, "seat-hoard": seat_hoard,
           "old-tricks": old_tricks}


def main():
    global WATCH
    args = sys.argv[1:]
    binary = os.path.abspath(args.pop(0))
    watching = "--no-watch" not in args
    limit_mib = 2048
    if "--memory-limit" in args:
        at = args.index("--memory-limit")
        limit_mib = int(args[at + 1])
        del args[at:at + 2]
    if "--same-priority" in args:
        args.remove("--same-priority")
    else:
        os.nice(10)
    chosen = [a for a in args if a != "--no-watch"] or list(ATTACKS)
    unknown = [a for a in chosen if a not in ATTACKS]
    if unknown:
        sys.exit(f"unknown attacks: {', '.join(unknown)} (known: {', '.join(ATTACKS)})")
    limit = hostile_watch.MemoryLimit(limit_mib * 2**20) if watching else None
    if limit:
        print(f"memory limit of the server: {limit.description}")
    table, failures = [], 0
    # The memory cgroup goes however the run ends (an attack that raises, Ctrl-C).
    try:
        for name in chosen:
            if watching:
                WATCH = hostile_watch.Watch(limit, 512, 100, honest=name not in NO_HONEST_GAME)
            with tempfile.TemporaryDirectory(prefix=f"arbiter-{name}-") as folder:
                ok = ATTACKS[name](binary, folder)
            held, watched = WATCH.verdict() if watching else (True, "not watched")
            ok = ok and held
            print(f"{name}: {'PASS' if ok else 'FAIL'}" + (f" ({watched})" if watching else ""), flush=True)
            table.append((name, ok, watched))
            failures += 0 if ok else 1
    finally:
        if limit:
            limit.remove()
    print("\n| attack | held | honest game, memory, endpoints after |\n|---|---|---|")
    for name, ok, watched in table:
        print(f"| {name} | {'PASS' if ok else 'FAIL'} | {watched} |")
    sys.exit(failures)


if __name__ == "__main__":
    main()
