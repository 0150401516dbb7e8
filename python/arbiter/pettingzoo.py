"""PettingZoo AEC environments of arbiter's games, shaped like PettingZoo's classic games.

``env(game, **options)`` is the environment with PettingZoo's usual wrappers (an illegal move
ends the game with reward -1 for the player who made it); ``raw_env`` is the bare one, whose
illegal moves raise ``arbiter.IllegalMoveError``.

Agents ``player_0`` (moves first) and ``player_1``. Each observation is a dict:
``observation``, the planes of ``Game.observation`` for that agent, float32
``(planes, rows, cols)``; and ``action_mask``, int8 over the game's ``num_actions`` (all zero
when it is not that agent's turn). Rewards: +1 to the winner and -1 to the loser at the end, 0
for a draw.
"""

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._text import RENDER_MODES, check_render_mode, render
from ._arbiter import Game

AGENTS = ["player_0", "player_1"]


def env(game, render_mode=None, **options):
    """The environment of ``game`` with its options (``size=8``), wrapped as PettingZoo's
    classic games are."""
    wrapped = raw_env(game, render_mode=render_mode, **options)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    """One game of ``game`` between two agents."""

    metadata = {
        "render_modes": RENDER_MODES,
        "name": "arbiter_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, game, render_mode=None, **options):
        EzPickle.__init__(self, game, render_mode, **options)
        super().__init__()
        check_render_mode(render_mode)
        self._name = game
        self._options = options
        self.game = Game(game, **options)
        self.metadata = dict(self.metadata, name=f"arbiter_{game}_v0")
        self.render_mode = render_mode
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        actions = self.game.num_actions
        shape = self.game.observation_shape
        self.action_spaces = {a: spaces.Discrete(actions) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(actions,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        player = AGENTS.index(agent)
        if agent == self.agent_selection and not self.game.is_over():
            mask = self.game.legal_mask().astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.game.observation(player), "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.game = Game(self._name, **self._options)
        self.agents = AGENTS[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.game.to_move()]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.game.play_action(int(action))
        if self.game.is_over():
            winner = self.game.winner()
            for i, a in enumerate(AGENTS):
                self.rewards[a] = 0 if winner is None else (1 if i == winner else -1)
                self.infos[a] = {"end": self.game.end_reason()}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[self.game.to_move()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return render(self.game, self.render_mode)

    def close(self):
        pass
