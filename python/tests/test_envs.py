"""The PettingZoo and Gymnasium environments."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import arbiter
import arbiter.gymnasium
import arbiter.pettingzoo
from conftest import GAMES


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test_passes(name):
    api_test(arbiter.pettingzoo.env(name), num_cycles=1000)


@pytest.mark.parametrize("name", GAMES)
def test_a_pettingzoo_game_runs_to_its_end_with_opposite_rewards(name):
    env = arbiter.pettingzoo.env(name)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
    game = env.unwrapped.game
    assert game.is_over()
    winner = game.winner()
    expected = [0, 0] if winner is None else [1 if i == winner else -1 for i in range(2)]
    assert [totals[a] for a in env.possible_agents] == expected


def test_pettingzoo_illegal_moves_raise_bare_and_lose_wrapped():
    raw = arbiter.pettingzoo.raw_env("rc02", size=4)
    raw.reset()
    with pytest.raises(arbiter.IllegalMoveError):
        raw.step(0)
    env = arbiter.pettingzoo.env("rc02", size=4)
    env.reset()
    env.step(0)
    assert env.rewards["player_0"] == -1 and all(env.terminations.values())


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_env_checker_passes(name):
    check_env(arbiter.gymnasium.make(name, opponent="random"), skip_render_check=True)


@pytest.mark.parametrize("side", [0, 1])
def test_a_gymnasium_episode_against_random_ends_with_the_games_result(side):
    env = arbiter.gymnasium.make("surakarta", opponent="random", side=side)
    observation, info = env.reset(seed=5)
    assert env.game.to_move() == side
    rng = np.random.default_rng(5)
    terminated, reward = False, 0.0
    while not terminated:
        assert observation[-1].all() == (side == 0)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        assert not truncated
    winner = env.game.winner()
    assert reward == (0.0 if winner is None else 1.0 if winner == side else -1.0)
    assert info["end"] == env.game.end_reason()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gymnasium_default_opponent_and_illegal_actions():
    env = arbiter.gymnasium.make("rc02", size=6)
    assert env._spec == "alphabeta:ms=50"
    observation, info = env.reset(seed=2)
    legal = np.flatnonzero(info["action_mask"])
    _, reward, terminated, _, info = env.step(int(legal[0]))
    assert env.game.ply == 2 and env.game.to_move() == 0
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and "illegal" in info
    with pytest.raises(ValueError, match="unknown player"):
        arbiter.gymnasium.make("duck", opponent="deep")


def test_environments_render_the_board_as_text(capsys):
    env = arbiter.pettingzoo.raw_env("rc02", size=4, render_mode="ansi")
    env.reset()
    assert env.render() == "RRbb\nR..b\nR..b\nRRbb\nred to move\n"
    gym = arbiter.gymnasium.make("rc02", opponent="random", size=4, render_mode="human")
    gym.reset(seed=0)
    assert capsys.readouterr().out == "RRbb\nR..b\nR..b\nRRbb\nred to move\n\n"
    with pytest.raises(ValueError, match="render_mode must be one of"):
        arbiter.pettingzoo.env("duck", render_mode="rgb_array")
