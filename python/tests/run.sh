#!/usr/bin/env bash
# The Python package's tests as a user meets it: a fresh virtual environment in a temporary
# folder, `pip install ./python` (maturin builds the extension from the workspace), then
# pytest with pettingzoo, gymnasium and numpy. Needs python3 with venv and a Rust toolchain;
# the comparisons with the command line use target/release/arbiter (built when missing).
set -euo pipefail
python_dir=$(cd "$(dirname "$0")/.." && pwd)
repo=$(dirname "$python_dir")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

export ARBITER_BIN=${ARBITER_BIN:-$repo/target/release/arbiter}
if [ ! -x "$ARBITER_BIN" ]; then
  (cd "$repo" && cargo build --release --locked -p arbiter-cli)
fi

python3 -m venv "$tmp/venv"
py=$tmp/venv/bin/python
"$py" -m pip install --quiet --disable-pip-version-check "$python_dir" pytest pettingzoo gymnasium numpy
cd "$python_dir/tests"
"$py" -m pytest -q -p no:cacheprovider "$@"
