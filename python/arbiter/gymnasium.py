"""A Gymnasium environment: one agent plays an arbiter game against a built-in player.

``make(game, opponent="alphabeta:ms=50", side=0, **options)``. The observation is the planes
of ``Game.observation`` for the agent (float32 ``(planes, rows, cols)``), an action is one of
the game's ``num_actions`` (see python/README.md), and ``info["action_mask"]`` (and
``action_masks()``) holds the legal ones. The reward is +1 when the agent wins, -1 when it
loses, 0 otherwise. An illegal action ends the episode with ``illegal_reward`` and
``info["illegal"]`` saying why, so an unmasked random agent cannot crash a training loop.
"""

import gymnasium
import numpy as np
from gymnasium import spaces

from ._text import RENDER_MODES, check_render_mode, render
from ._arbiter import Game, IllegalMoveError, Player


def make(game, opponent="alphabeta:ms=50", side=0, render_mode=None, illegal_reward=-1.0, **options):
    """The environment of ``game`` (options such as ``size=8``) against ``opponent`` (a
    player spec), the agent playing ``side`` (0 moves first)."""
    return ArbiterEnv(
        game,
        opponent=opponent,
        side=side,
        render_mode=render_mode,
        illegal_reward=illegal_reward,
        **options,
    )


class ArbiterEnv(gymnasium.Env):
    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, game, opponent="alphabeta:ms=50", side=0, render_mode=None, illegal_reward=-1.0, **options):
        if side not in (0, 1):
            raise ValueError(f"side must be 0 (first) or 1, not {side!r}")
        check_render_mode(render_mode)
        self._name = game
        self._options = options
        self._spec = opponent
        self.side = side
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.game = Game(game, **options)
        Player(opponent)  # refuses a bad spec now rather than at the first reset
        self.opponent = None
        self._done = True
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=self.game.observation_shape, dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.game.num_actions)

    def _observe(self):
        return self.game.observation(self.side)

    def _info(self, **extra):
        return dict(action_mask=self.action_masks(), **extra)

    def action_masks(self):
        """The legal actions of the agent (for masking a policy)."""
        if self.game.is_over() or self.game.to_move() != self.side:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.game.legal_mask()

    def _reward(self):
        winner = self.game.winner()
        return 0.0 if winner is None else (1.0 if winner == self.side else -1.0)

    def _opponent_moves(self):
        while not self.game.is_over() and self.game.to_move() != self.side:
            self.game.play(self.opponent.choose(self.game))

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.game = Game(self._name, **self._options)
        self.opponent = Player(self._spec, seed=int(self.np_random.integers(2**63)))
        self._opponent_moves()
        self._done = self.game.is_over()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over (or not begun): call reset()")
        try:
            self.game.play_action(int(action))
        except IllegalMoveError as illegal:
            self._done = True
            return self._observe(), self.illegal_reward, True, False, self._info(illegal=str(illegal))
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        terminated = self._done = self.game.is_over()
        info = self._info(end=self.game.end_reason()) if terminated else self._info()
        return self._observe(), self._reward(), terminated, False, info

    def render(self):
        return render(self.game, self.render_mode)
