"""`arbiter.Game`: the rules of each game through Python, its encodings and its text form."""

import copy
import pickle
import random

import numpy as np
import pytest

import arbiter
from conftest import GAMES, run_cli


def play_randomly(game, rng, check=lambda game: None):
    """Plays uniformly random legal moves to the end, calling `check` before each."""
    while not game.is_over():
        check(game)
        game.play(rng.choice(game.legal_moves()))
    return game


def check_encodings(game):
    """The mask, the actions and the moves agree; the planes hold the pieces on the board."""
    moves = game.legal_moves()
    actions = game.legal_actions()
    assert list(actions) == [game.action_of(m) for m in moves]
    assert [game.move_of(a) for a in actions] == moves
    mask = game.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.num_actions,)
    assert sorted(np.flatnonzero(mask)) == sorted(actions)
    planes = game.observation()
    assert planes.shape == game.observation_shape and planes.dtype == np.float32
    board = game.render().splitlines()[:-1]
    pieces = sum(ch != "." for row in board for ch in row)
    kinds = (planes.shape[0] - 1) // 2
    assert planes[: 2 * kinds].sum() == pieces
    # The side to move's pieces are the capitals (first player) or small letters (second).
    own = sum((ch.isupper() if game.to_move() == 0 else ch.islower()) for row in board for ch in row)
    assert planes[:kinds].sum() == own
    assert planes[-1].all() == (game.to_move() == 0) and planes[-1].any() == (game.to_move() == 0)


@pytest.mark.parametrize("name", GAMES)
def test_a_random_game_plays_to_its_end(name):
    rng = random.Random(7)
    game = play_randomly(arbiter.Game(name), rng, check_encodings)
    assert game.is_over()
    assert game.legal_moves() == [] and not game.legal_mask().any()
    assert game.winner() in (0, 1, None)
    assert isinstance(game.end_reason(), str) and game.end_reason()
    assert game.ply > 0
    with pytest.raises(arbiter.IllegalMoveError):
        game.play_action(0)


@pytest.mark.parametrize("name,options", [("surakarta", {"size": 8}), ("rc02", {"size": 4})])
def test_options_change_the_board_and_the_action_space(name, options):
    game = arbiter.Game(name, **options)
    n = options["size"]
    assert game.options["size"] == n
    assert game.num_actions == (n * n) ** 2
    assert game.observation_shape == (3, n, n)
    play_randomly(game, random.Random(3), check_encodings)


def test_bad_games_and_options_are_refused_with_what_exists():
    with pytest.raises(ValueError, match=r"unknown game `chess` \(games: duck, surakarta, rc02\)"):
        arbiter.Game("chess")
    with pytest.raises(ValueError, match=r"surakarta: size must be 6, 8, 10 or 12, not 7"):
        arbiter.Game("surakarta", size=7)
    with pytest.raises(ValueError, match=r"duck: there is no option `size` \(duck takes max_no_capture_round\)"):
        arbiter.Game("duck", size=8)
    with pytest.raises(ValueError, match="must be a non-negative integer"):
        arbiter.Game("rc02", size="big")


def test_an_illegal_move_raises_naming_why_and_changes_nothing():
    game = arbiter.Game("duck")
    before = game.state_text()
    with pytest.raises(arbiter.IllegalMoveError, match=r"move `a0-a5`: .*car.*"):
        game.play("a0-a5")
    with pytest.raises(arbiter.IllegalMoveError, match=r"action 7000 \(\w+-\w+\): "):
        game.play_action(7000)
    with pytest.raises(arbiter.IllegalMoveError, match=r"action 8100 is not in 0..8100"):
        game.play_action(8100)
    with pytest.raises(ValueError, match="not a square"):
        game.action_of("z9-a0")
    surakarta = arbiter.Game("surakarta")
    assert surakarta.action_of("a2-a3") == surakarta.action_of("A2-A3") == 882
    assert game.state_text() == before and game.ply == 0


@pytest.mark.parametrize("name", GAMES)
def test_legal_moves_and_perft_agree_with_the_command_line(arbiter_bin, name):
    start = arbiter.Game(name)
    divide = run_cli(arbiter_bin, "perft", name, "2", "--divide")
    assert divide.returncode == 0, divide.stderr
    lines = divide.stdout.split()
    counted = dict(zip(lines[0:-1:2], map(int, lines[1:-1:2])))
    assert sorted(start.legal_moves()) == sorted(counted)
    for move in start.legal_moves():
        child = start.copy()
        child.play(move)
        assert len(child.legal_moves()) == counted[move], move
    assert int(lines[-1]) == sum(counted.values())


@pytest.mark.parametrize("name", GAMES)
def test_text_form_copy_and_pickle_keep_the_game(name):
    game = arbiter.Game(name)
    rng = random.Random(11)
    for _ in range(12):
        game.play(rng.choice(game.legal_moves()))
    text = game.to_text()
    lines = text.splitlines()
    assert lines[0].startswith(f"game {name} ")
    assert lines[1].startswith("position startpos moves ") and len(lines[1].split()) == 3 + 12
    for again in (arbiter.Game.from_text(text), pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert again.state_text() == game.state_text()
        assert again.legal_moves() == game.legal_moves()
        assert again.to_text() == text
    other = game.copy()
    other.play(other.legal_moves()[0])
    assert other.ply == game.ply + 1 and game.to_text() == text


def test_from_text_names_the_line_at_fault():
    with pytest.raises(ValueError, match=r"line 1: unknown game `go`"):
        arbiter.Game.from_text("game go\n")
    with pytest.raises(ValueError, match=r"line 2: move 2 of the list: move `a1-a1`"):
        arbiter.Game.from_text("game rc02 size 4\nposition startpos moves a2-b2 a1-a1\n")
    with pytest.raises(ValueError, match=r"line 3: expected `position"):
        arbiter.Game.from_text("# a comment\ngame rc02\nplay a2-b2\n")
    game = arbiter.Game.from_text("game rc02 size 4\n")
    assert game.options == {"size": 4, "max_no_capture_round": 80}


def test_duck_observation_planes_name_what_they_hold():
    game = arbiter.Game("duck")
    names = game.plane_names
    assert names[0] == "own captain" and names[7] == "opponent captain"
    assert names[-1] == "observer moves first"
    planes = game.observation()
    squares = game.square_names
    # Red's captain stands on e0, the bottom row's middle; blue's on e9, the top row's.
    rows, cols = game.observation_shape[1:]
    e0 = squares.index("e0")
    assert (e0 // cols, e0 % cols) == (rows - 1, 4)
    assert planes[0].flatten()[e0] == 1 and planes[7].flatten()[squares.index("e9")] == 1
    seen_by_blue = game.observation(1)
    assert seen_by_blue[7].flatten()[e0] == 1 and not seen_by_blue[-1].any()
    assert game.action_of("e0-e1") == e0 * len(squares) + squares.index("e1")
