#!/usr/bin/env bash
# Trains the AI's evaluation by self-play for checkers, Connect Four and
# Breakthrough, then plays each trained AI against the untrained one (the
# declared values only) at the same depth, 100 games, sides alternating:
# the figures the README reports. Usage: bash scripts/learn_three.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/learned}"
mkdir -p "$out"
cargo build --release --quiet
bin=target/release/chessalg
for spec in "checkers 4000" "connect4 6000" "breakthrough 4000"; do
  set -- $spec
  game=$1 games=$2
  $bin train "rules/$game.alg" --games "$games" --out "$out/$game.json" \
    --curve "$out/$game.svg" --curve-every 500 --curve-games 40
  $bin train "rules/$game.alg" --games 0 --out "$out/$game-start.json" >/dev/null
  players=$(grep -m1 '^players' "rules/$game.alg" | awk '{print $2, $3}')
  set -- $players
  echo "== $game: trained ($1's setup) against the declared values only, depth 2, 100 games"
  $bin match "rules/$game.alg" --white ai --black ai --depth 2 --games 100 --alternate \
    --weights "$1=$out/$game.json" --weights "$2=$out/$game-start.json" | tail -2
done
