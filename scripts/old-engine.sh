#!/bin/sh
# Runs `BIN engine` for a build made before the game registry (commit a8e933c and older), whose
# `game` command knew `maxnocapture` for Surakarta and no quiet-round option for Duck Chess and
# RC-02, translating today's `game` lines for it. Use it as an arena player:
#   --player "old=cmd:scripts/old-engine.sh /path/to/old/arbiter"
# (the arena still ends every game by today's rules).
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: scripts/old-engine.sh PATH-TO-OLD-arbiter" >&2
  exit 2
fi
sed -u -e '/^game surakarta/s/max_no_capture_round/maxnocapture/' \
  -e '/^game \(rc02\|duck\)/s/ max_no_capture_round [0-9]*//' | "$1" engine
