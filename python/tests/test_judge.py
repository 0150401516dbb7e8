"""`arbiter.judge` prints exactly what `arbiter judge` prints, on the official data too."""

import pytest

import arbiter
from conftest import GAMES, OFFICIAL, run_cli


def test_every_game_has_its_official_data():
    assert arbiter.games() == GAMES
    for game in GAMES:
        assert len(OFFICIAL[game]) >= 5, game


@pytest.mark.parametrize(
    "game,case",
    [(game, case) for game in GAMES for case in OFFICIAL[game]],
    ids=lambda v: getattr(v, "name", v),
)
def test_judge_equals_the_command_line_and_the_answer(arbiter_bin, game, case):
    text = case.read_text()
    got = arbiter.judge(game, text)
    cli = run_cli(arbiter_bin, "judge", game, str(case))
    assert cli.returncode == 0, cli.stderr
    assert got == cli.stdout
    assert got == case.with_suffix(".ans").read_text()


@pytest.mark.parametrize(
    "game,text,line",
    [
        ("duck", "2\n0 0 1 0\n0 x 1 1\n", 3),
        ("surakarta", "new 6 40\nBOARD 6\n", 2),
        ("rc02", "4 2\n1 2 2 2\n1 y 2 2\n", 3),
    ],
)
def test_malformed_input_names_the_line_as_the_command_line_does(arbiter_bin, game, text, line):
    with pytest.raises(arbiter.JudgeInputError) as caught:
        arbiter.judge(game, text)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.line == line
    assert str(error).startswith(f"line {line}: ")
    cli = run_cli(arbiter_bin, "judge", game, stdin=text)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"arbiter judge: malformed input: {error}"
    assert error.output == cli.stdout


def test_unknown_games_are_refused_with_the_list():
    with pytest.raises(ValueError, match=r"unknown game `chess` \(games: duck, surakarta, rc02\)"):
        arbiter.judge("chess", "")
