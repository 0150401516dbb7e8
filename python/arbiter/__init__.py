"""arbiter from Python: Duck Chess (鸭棋), Surakarta and the RC-02 game.

The judges, rules and players are arbiter's Rust crates; this package calls them:

- ``games()``: the game ids; ``judge(game, text)``: exactly what ``arbiter judge GAME`` prints;
- ``Game(game, **options)``: a game with legal moves, play, the result, numpy observations
  and a fixed action space (``legal_mask``), ``to_text``/``from_text``;
- ``Player(spec)``: a built-in player (``random``, ``greedy``, ``alphabeta:ms=50``, ``mcts``,
  ``easy``/``medium``/``hard``) whose ``choose(game)`` returns a move;
- ``random_playouts(game, n, seed=1, **options)``: random games played in Rust;
- ``VectorGame(game, n)``: ``n`` games stepped together with numpy arrays in and out;
- ``arbiter.pettingzoo.env(game)`` and ``arbiter.gymnasium.make(game)``: environments (they
  need the ``pettingzoo``/``gymnasium`` packages, imported only when used).

See python/README.md for the observation planes and the action numbers of each game.
"""

import importlib

from ._arbiter import (
    Game,
    IllegalMoveError,
    JudgeInputError,
    Player,
    VectorGame,
    games,
    judge,
    random_playouts,
)

__all__ = [
    "Game",
    "IllegalMoveError",
    "JudgeInputError",
    "Player",
    "VectorGame",
    "games",
    "judge",
    "random_playouts",
    "pettingzoo",
    "gymnasium",
]


def __getattr__(name):
    # The environments import pettingzoo/gymnasium, which the rules do not need.
    if name in ("pettingzoo", "gymnasium"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'arbiter' has no attribute {name!r}")
