"""A Duck Chess engine spoken to over arbiter's engine protocol (docs/engine-protocol.md): our
own `arbiter engine` or Fairy-Stockfish through its adapter. Shared by probe-duck.py and
label-duck.py."""
import os
import subprocess

ADAPTER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "../../shared/peers/fairy-stockfish/adapter")


class Engine:
    def __init__(self, command, options=""):
        """Starts `command` on Duck Chess with the game's `options` (`max_no_capture_round 0`,
        as a record's `[Options]` header gives them); an engine that refuses them raises
        RuntimeError with its answer, so a game is never judged under other rules unnoticed."""
        self.name = command[0]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.send(f"game duck {options}".strip())
        self.send("isready")
        for line in self.process.stdout:
            if line.startswith("error"):
                raise RuntimeError(f"{self.name}: {line.strip()}")
            if line.strip() == "readyok":
                return
        raise RuntimeError(f"{self.name} ended before answering isready")

    def send(self, text):
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def search(self, moves, ms):
        """(best move, (kind, amount) of the last score or None, depth or None) of a fresh
        search of `ms` milliseconds after `moves` (a list in the game's notation)."""
        self.send("newgame")
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go movetime {ms}")
        score, depth = None, None
        for line in self.process.stdout:
            words = line.split()
            if words[:1] == ["info"] and "score" in words and "string" not in words:
                at = words.index("score")
                score = (words[at + 1], int(words[at + 2]))
                if "depth" in words:
                    depth = int(words[words.index("depth") + 1])
            if words[:1] == ["bestmove"]:
                return words[1], score, depth
        raise RuntimeError(f"{self.name} ended before answering")

    def quit(self):
        self.send("quit")
        self.process.wait(timeout=10)
