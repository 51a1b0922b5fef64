#!/usr/bin/env bash
# Trains the AI's evaluation by self-play for checkers, Connect Four and
# Breakthrough, then plays each trained AI against the untrained one (the
# declared values only) at depths 1 and 2, 100 games each, sides alternating
# and every pair of games opened by the same 4 random plies: the figures the
# manual reports (docs/python.md). The weights `rules/weights/` holds (and the three rule
# files name) were made by this script.
# Usage: bash scripts/learn_three.sh [OUTDIR]   (BIN=path overrides the build)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/learned}"
mkdir -p "$out"
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/chessalg
fi
# game, self-play games, training depth
for spec in "checkers 4000 1" "connect4 6000 1" "breakthrough 8000 2"; do
  set -- $spec
  game=$1 games=$2 depth=$3
  start=$(date +%s.%N)
  "$BIN" train "rules/$game.alg" --games "$games" --depth "$depth" --out "$out/$game.json" \
    --curve "$out/$game.svg" --curve-every 1000 --curve-games 40
  echo "== $game: trained in $(echo "$(date +%s.%N) - $start" | bc) s (with its curve)"
  "$BIN" train "rules/$game.alg" --games 0 --out "$out/$game-start.json" >/dev/null
  players=$(grep -m1 '^players' "rules/$game.alg" | awk '{print $2, $3}')
  set -- $players
  for d in 1 2; do
    echo "== $game: trained ($1's setup) against the declared values only, depth $d, 100 games"
    "$BIN" match "rules/$game.alg" --player "$1=ai" --player "$2=ai" --depth "$d" --games 100 \
      --alternate --opening 4 --weights "$1=$out/$game.json" --weights "$2=$out/$game-start.json" | tail -1
  done
done
