"""Built-in players and random playouts from Python."""

import re

import pytest

import arbiter
from conftest import GAMES, run_cli


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2", "mcts:iterations=200"])
def test_players_choose_legal_moves_without_changing_the_game(name, spec):
    game = arbiter.Game(name)
    player = arbiter.Player(spec, seed=4)
    for _ in range(6):
        before = game.state_text()
        move = player.choose(game)
        assert game.state_text() == before
        assert move in game.legal_moves()
        game.play(move)


def test_a_searching_player_takes_the_winning_capture():
    # Red's car on a0 can take blue's captain on a9 up the open file.
    game = arbiter.Game.from_text("game duck\nposition fen k8/9/9/9/9/9/9/9/9/R3K4 r\n")
    assert arbiter.Player("alphabeta:depth=2").choose(game) == "a0-a9"


def test_bad_specs_and_finished_games_are_refused():
    with pytest.raises(ValueError, match="unknown player `deep`"):
        arbiter.Player("deep")
    with pytest.raises(ValueError, match="outside engine"):
        arbiter.Player("cmd:./engine")
    with pytest.raises(ValueError, match="unknown weight"):
        arbiter.Player("greedy:sparkle=3").choose(arbiter.Game("duck"))
    game = arbiter.Game.from_text("game duck\nposition fen k8/9/9/9/9/9/9/9/9/R3K4 r moves a0-a9\n")
    assert game.is_over() and game.winner() == 0
    with pytest.raises(ValueError, match="the game is over"):
        arbiter.Player("random").choose(game)


@pytest.mark.parametrize("name", GAMES)
def test_random_playouts_are_the_benchs_games(arbiter_bin, name):
    n, seed = 3000, 5
    result = arbiter.random_playouts(name, n, seed=seed)
    assert result["games"] == n and sum(result["wins"]) == n
    assert result == {**arbiter.random_playouts(name, n, seed=seed), "seconds": result["seconds"]}
    bench = run_cli(arbiter_bin, "bench", name, "--playouts", str(n), "--seed", str(seed))
    assert bench.returncode == 0, bench.stderr
    mean = float(re.search(r"mean ([0-9.]+) plies", bench.stdout).group(1))
    assert f"{result['plies'] / n:.1f}" == f"{mean:.1f}"
    assert arbiter.random_playouts(name, n, seed=seed + 1)["plies"] != result["plies"]


def test_random_playouts_take_options():
    small = arbiter.random_playouts("surakarta", 200, size=8, max_no_capture_round=10)
    assert small["games"] == 200 and sum(small["wins"]) == 200
    with pytest.raises(ValueError, match="size must be"):
        arbiter.random_playouts("surakarta", 1, size=5)
