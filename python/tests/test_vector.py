"""`arbiter.VectorGame`: n games stepped in Rust play exactly what n `Game`s play."""

import numpy as np
import pytest

import arbiter
from conftest import GAMES


@pytest.mark.parametrize("name", GAMES)
def test_a_batch_plays_the_games_single_games_play(name):
    n = 4
    batch = arbiter.VectorGame(name, n, seed=3)
    assert len(batch) == n
    observations, masks = batch.reset()
    assert observations.shape == (n, *batch.observation_shape)
    assert masks.shape == (n, batch.num_actions)
    games = [arbiter.Game(name) for _ in range(n)]
    ended = 0
    for _ in range(700):
        for i, game in enumerate(games):
            assert np.array_equal(observations[i], game.observation())
            assert np.array_equal(masks[i], game.legal_mask())
        assert list(batch.to_move()) == [g.to_move() for g in games]
        actions = batch.random_actions()
        assert all(masks[i, a] for i, a in enumerate(actions))
        movers = [g.to_move() for g in games]
        observations, masks, rewards, dones = batch.step(actions)
        for i, game in enumerate(games):
            game.play_action(int(actions[i]))
            if game.is_over():
                winner = game.winner()
                assert dones[i]
                assert rewards[i] == (0 if winner is None else 1 if winner == movers[i] else -1)
                ended += 1
                games[i] = arbiter.Game(name)
            else:
                assert not dones[i] and rewards[i] == 0
                assert batch.game(i).to_text() == game.to_text()
    assert ended >= 2


def test_an_illegal_action_names_the_game_and_plays_nothing():
    batch = arbiter.VectorGame("surakarta", 3, seed=1)
    _, masks = batch.reset()
    actions = batch.random_actions()
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(arbiter.IllegalMoveError, match=r"^game 2: action \d+ \(\w+-\w+\): "):
        batch.step(bad)
    assert [batch.game(i).ply for i in range(3)] == [0, 0, 0]
    with pytest.raises(ValueError, match="expected 3 actions, one a game, got 2"):
        batch.step(actions[:2])
    observations, masks, rewards, dones = batch.step(list(actions), observe=False)
    assert observations is None and [batch.game(i).ply for i in range(3)] == [1, 1, 1]
    with pytest.raises(IndexError):
        batch.game(3)
    with pytest.raises(ValueError, match="at least 1"):
        arbiter.VectorGame("duck", 0)
    with pytest.raises(ValueError, match="size must be"):
        arbiter.VectorGame("rc02", 2, size=3)
