"""Shared fixtures: the repository's official judge data and the `arbiter` binary that the
Python results are compared with."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
GAMES = ["duck", "surakarta", "rc02"]

# The official judge inputs of each game (each `X.in` has its answer `X.ans`).
OFFICIAL = {
    "duck": sorted((DATA / "duck" / "official").glob("*.in")),
    "surakarta": sorted((DATA / "surakarta" / "reference").glob("*.in")),
    "rc02": sorted((DATA / "rc02").glob("*.in")),
}


@pytest.fixture(scope="session")
def arbiter_bin():
    """The `arbiter` binary (`ARBITER_BIN`, else target/release/arbiter); python/tests/run.sh
    builds it when it is missing."""
    path = pathlib.Path(os.environ.get("ARBITER_BIN", REPO / "target" / "release" / "arbiter"))
    assert path.is_file(), f"no arbiter binary at {path}: cargo build --release -p arbiter-cli"
    return path


def run_cli(binary, *args, stdin=None):
    return subprocess.run(
        [str(binary), *args], input=stdin, capture_output=True, text=True, timeout=600
    )
