"""What `scripts/hostile.py --watch` checks around every attack (issue 27's "done when"):

* the server runs under a memory limit (a cgroup, 2 GiB by default) and its peak resident
  memory (VmHWM) stays under a bound (512 MiB by default);
* an honest game of Duck Chess, played from another network (127.1.0.0/24) in a process of its
  own (so the attack's Python threads cannot slow it down), keeps its move round trip p99 under
  100 ms and is never ended by the server;
* after the attack every endpoint answers normally: the page, the rooms and games lists, the
  protocol, the judge, the AI, and a new game on the course's TCP port.
"""
import json
import multiprocessing
import os
import socket
import time

HONEST_ROOM = 424242
CYCLE = ["a0-a1", "a9-a8", "a1-a0", "a8-a9"]


class MemoryLimit:
    """A memory cgroup (v1 or v2) the server is started in; nothing when not permitted."""

    def __init__(self, limit_bytes):
        self.path, self.description = None, "none (no writable memory cgroup)"
        for root, limit_file in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes"),
                                 ("/sys/fs/cgroup/unified", "memory.max"),
                                 ("/sys/fs/cgroup", "memory.max")):
            path = os.path.join(root, f"arbiter-hostile-{os.getpid()}")
            try:
                os.makedirs(path, exist_ok=True)
                with open(os.path.join(path, limit_file), "w") as f:
                    f.write(str(limit_bytes))
            except OSError:
                continue
            self.path = path
            self.description = f"{limit_bytes / 2**30:.1f} GiB ({path})"
            return

    def enter(self):
        """Runs in the child before exec: moves it into the cgroup."""
        if self.path:
            with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def remove(self):
        if self.path:
            try:
                os.rmdir(self.path)
            except OSError:
                pass


def _line(op, d1="", d2="", d3="", **extra):
    m = {"op": op, "data1": d1, "data2": d2, "data3": d3, **extra}
    return (json.dumps(m, separators=(",", ":")) + "\n").encode()


class _Player:
    def __init__(self, port, source):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        self.file = self.sock.makefile("r")

    def send(self, *args, **extra):
        self.sock.sendall(_line(*args, **extra))

    def recv(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("closed by the server")
        return json.loads(line)


def start_pair(port, room, sources=("127.1.0.10", "127.1.0.11")):
    red, blue = _Player(port, sources[0]), _Player(port, sources[1])
    for player, name, colour in ((red, "honest_red", "RED"), (blue, "honest_blue", "BLUE")):
        player.send(200000, name, colour, str(room), game="duck", max_no_capture_round=0)
    for player in (red, blue):
        answer = player.recv()
        if answer.get("op") != 200000:
            raise ConnectionError(f"refused a seat: {answer}")
    return red, blue


def normal_priority():
    """Back to nice 0 (from the attacker's nice 10; allowed as root, else left as it is)."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    except OSError:
        pass


def honest_game(port, playing, stop, results):
    """Plays until `stop` is set, a move every 50 ms; sets `playing` once seated; puts (round
    trips in ms, what broke it)."""
    normal_priority()
    trips, broke = [], None
    try:
        red, blue = start_pair(port, HONEST_ROOM)
        playing.set()
        ply = 0
        while not stop.is_set():
            mover, other = (red, blue) if ply % 2 == 0 else (blue, red)
            sent = time.perf_counter()
            mover.send(200001, *CYCLE[ply % 4].split("-"))
            answer = other.recv()
            trips.append((time.perf_counter() - sent) * 1000)
            if answer.get("op") != 200001:
                broke = f"the server ended it: {answer}"
                break
            ply += 1
            time.sleep(0.05)
    except (OSError, ValueError, ConnectionError) as e:
        broke = f"{type(e).__name__}: {e}"
    playing.set()
    results.put((trips, broke))


def p99(values):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def peak_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """User and system CPU time the process has used."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _http(port, method, path, body=b""):
    s = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=("127.2.0.1", 0))
    s.sendall((f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body)
    data = b""
    while chunk := s.recv(1 << 16):
        data += chunk
    s.close()
    first = data.split(b"\r\n", 1)[0].split()
    return int(first[1]) if len(first) > 1 else 0


def endpoints_after(http_port, tcp_port):
    """The endpoints that do not answer 200 (or do not start a game), by name."""
    ai = json.dumps({"game": "duck", "level": "easy", "moves": []}).encode()
    official = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "duck", "official", "2.in")
    with open(official) as f:
        judge = json.dumps({"input": f.read()}).encode()
    checks = {"page": ("GET", "/", b""), "rooms": ("GET", "/api/rooms", b""),
              "games": ("GET", "/api/games", b""), "protocol": ("GET", "/api/protocol", b""),
              "judge": ("POST", "/api/judge/duck", judge), "ai": ("POST", "/api/ai", ai)}
    failed = []
    for name, (method, path, body) in checks.items():
        try:
            status = _http(http_port, method, path, body)
        except OSError as e:
            status = str(e)
        if status != 200:
            failed.append(f"{name} {status}")
    try:
        red, blue = start_pair(tcp_port, HONEST_ROOM + 1, ("127.3.0.1", "127.3.0.2"))
        red.send(200001, "a0", "a1")
        if blue.recv().get("op") != 200001:
            failed.append("tcp game")
    except (OSError, ValueError, ConnectionError) as e:
        failed.append(f"tcp game ({e})")
    return failed


class Watch:
    """Watches every server an attack starts; `report()` is the attack's row."""

    def __init__(self, memory_limit, rss_bound_mib, p99_bound_ms, honest=True):
        self.memory_limit, self.rss_bound, self.p99_bound = memory_limit, rss_bound_mib, p99_bound_ms
        self.honest = honest
        self.rows = []
        self.game = None

    def started(self, server):
        if not self.honest or self.game:
            return
        playing, stop, results = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Queue()
        process = multiprocessing.Process(target=honest_game, args=(server.tcp, playing, stop, results),
                                          daemon=True)
        process.start()
        playing.wait(30)  # the attack starts once the honest game is under way
        self.game = (stop, results, process)

    def finishing(self, server):
        """Before `server` stops: the honest game's figures, the peak memory, the endpoints."""
        trips, broke = [], None
        if self.game:
            stop, results, process = self.game
            stop.set()
            try:
                trips, broke = results.get(timeout=30)
            except Exception:  # noqa: BLE001 - a stuck game is reported, not raised
                broke = "the honest game did not report"
            process.join(5)
            self.game = None
        failed = endpoints_after(server.http, server.tcp)
        self.rows.append({"p99": p99(trips), "moves": len(trips), "broke": broke,
                          "peak": peak_rss_mib(server.proc.pid), "failed": failed,
                          "cpu": cpu_seconds(server.proc.pid)})

    def verdict(self):
        """(held, a line for the table)."""
        if not self.rows:
            return True, "no server of ours to watch"
        held, parts = True, []
        for row in self.rows:
            if self.honest:
                slow = row["p99"] is None or row["p99"] >= self.p99_bound
                held &= not slow and row["broke"] is None
                p99_text = "-" if row["p99"] is None else f"{row['p99']:.1f} ms"
                parts.append(f"honest p99 {p99_text} over {row['moves']} moves"
                             + (f" (broken: {row['broke']})" if row["broke"] else ""))
            peak = row["peak"]
            held &= peak is not None and peak < self.rss_bound and not row["failed"]
            parts.append(f"peak {peak:.0f} MiB" if peak is not None else "peak ?")
            if row["cpu"] is not None:
                parts.append(f"server CPU {row['cpu']:.1f} s")
            parts.append("endpoints ok" if not row["failed"] else f"endpoints FAILED: {', '.join(row['failed'])}")
        return held, "; ".join(parts)
