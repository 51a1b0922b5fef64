#!/usr/bin/env bash
# Perft speed: chessalg against Regular Boardgames (RBG), the compiled one.
#
# RBG compiles a game description to C++; its perft driver, with the last
# ply counted in bulk as chessalg's perft counts it, gives one binary per
# game. This script runs those binaries (it does not fetch or build RBG) and
# chessalg on the same games from their start positions, one thread,
# interleaved (chessalg, RBG, next game, ...) for ROUNDS rounds, and prints
# the median leaves per second of each side, from each program's own timing
# of its perft (parsing and compilation are not timed), with the node counts
# of both sides.
#
# Usage:
#   scripts/rbg-compare.sh           compare (says what it needs and exits 0 when RBG is absent)
#   scripts/rbg-compare.sh --help
#
# Environment:
#   RBG_DIR   where RBG's perft binaries are: RBG_DIR/bin/perft-GAME, one per game
#             below, each taking the depth as its argument and printing
#             "time: MS ms" and "perft: LEAVES" (default /tmp/rbg)
#   ROUNDS    rounds of each game on each side (default 3)
#   MIN_SECONDS  a round of a side repeats its perft until this much perft time (default 0.5)
#   CHESSALG  the chessalg binary (default ./target/release/chessalg of this repo)
#   GAMES     the games to run, space-separated (default: all of them:
#             chess checkers connect4 breakthrough othello amazons hex)
#   PIN       a CPU list for taskset (e.g. 0): run both sides pinned (default: not pinned)
#
# Needs bash, coreutils and awk.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RBG_DIR=${RBG_DIR:-/tmp/rbg}
ROUNDS=${ROUNDS:-3}
MIN_SECONDS=${MIN_SECONDS:-0.5}
CHESSALG=${CHESSALG:-$REPO/target/release/chessalg}
PIN=${PIN:-}
RUN_TMP=''

# game id | label | depth | chessalg rule file (rules/ID.alg)
GAME_TABLE="
chess|chess|5|chess|chess
checkers|English checkers|10|checkers|englishDraughts
connect4|Connect Four|9|connect4|connect4
breakthrough|Breakthrough|5|breakthrough|breakthrough
othello|Othello|8|othello|reversi
amazons|Amazons|2|amazons|amazons
hex|Hex 9x9|4|hex|hex_9x9
"
ALL_GAMES=$(awk -F'|' 'NF { printf "%s ", $1 }' <<<"$GAME_TABLE")
GAMES=${GAMES:-$ALL_GAMES}

die() {
  echo "rbg-compare: $*" >&2
  exit 1
}
log() { echo "rbg-compare: $*" >&2; }

# field N (2 label, 3 depth, 4 alg, 5 rbg) of game $1
field() {
  local f
  f=$(awk -F'|' -v id="$1" -v n="$2" '$1 == id { print $n }' <<<"$GAME_TABLE")
  [[ -n $f ]] || die "unknown game '$1' (games: $ALL_GAMES)"
  printf '%s\n' "$f"
}

how_to_get_rbg() {
  cat <<EOF
RBG's perft binaries are not in RBG_DIR=$RBG_DIR/bin (perft-GAME for: $GAMES).
This script does not fetch or build RBG. RBG is public (the rbg2cpp compiler
with rbgParser, and the rbgGames collection); build its perft driver with the
last ply counted in bulk (count the legal moves there instead of playing
them) for each game's RBG description, name the binaries perft-GAME, put them
in RBG_DIR/bin, and run this script again.
EOF
}

have_binaries() {
  local g
  for g in $GAMES; do
    [[ -x $RBG_DIR/bin/perft-$g ]] || return 1
  done
}

pinned() {
  if [[ -n $PIN ]]; then
    taskset -c "$PIN" "$@"
  else
    "$@"
  fi
}

# prints "LEAVES SECONDS" of one chessalg perft of game $1
run_chessalg() {
  local out
  # The count goes to stdout, "4865609 nodes in 1.523 s (3194745 nodes/s)" to stderr: read both.
  out=$(pinned "$CHESSALG" perft "$REPO/rules/$(field "$1" 4).alg" -d "$(field "$1" 3)" 2>&1) ||
    die "chessalg perft failed on $1: $out"
  awk 'match($0, /[0-9]+ nodes in [0-9.]+ s/) { split(substr($0, RSTART, RLENGTH), f, " "); n = f[1]; s = f[4] }
       END { if (n == "") exit 1; print n, s }' <<<"$out" ||
    die "unexpected chessalg output: $out"
}

# prints "LEAVES SECONDS" of one RBG perft of game $1
run_rbg() {
  local out
  out=$(pinned "$RBG_DIR/bin/perft-$1" "$(field "$1" 3)") || die "RBG perft failed on $1"
  # "time: 319 ms" / "perft: 4865609"
  awk '$1 == "time:" { ms = $2 } $1 == "perft:" { n = $2 }
       END { if (ms == "" || n == "") exit 1; print n, ms / 1000 }' <<<"$out" ||
    die "unexpected RBG output: $out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# leaves/s in millions, 3 significant digits
mega() { awk -v r="$1" 'BEGIN { m = r / 1e6; if (m >= 100) printf "%.0f M", m; else if (m >= 10) printf "%.1f M", m; else if (m >= 1) printf "%.2f M", m; else printf "%.3f M", m }'; }

compare() {
  [[ -x $CHESSALG ]] || die "no chessalg binary at $CHESSALG (cargo build --release, or set CHESSALG)"
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
  [[ $MIN_SECONDS =~ ^[0-9]*\.?[0-9]+$ && ! $MIN_SECONDS =~ ^[0.]+$ ]] || die "MIN_SECONDS must be a number of seconds, not '$MIN_SECONDS'"
  if ! have_binaries; then
    how_to_get_rbg
    exit 0
  fi

  local tmp g r n s out side total_n total_s runs
  RUN_TMP=$(mktemp -d)
  trap 'rm -rf "${RUN_TMP}"' EXIT
  tmp=$RUN_TMP
  for ((r = 1; r <= ROUNDS; r++)); do
    for g in $GAMES; do
      for side in chessalg rbg; do
        # One round of a side: its perft again and again until MIN_SECONDS have passed in all,
        # so that a run of a few milliseconds (RBG times in whole ms) is not one noisy sample.
        total_n=0 total_s=0 runs=0
        while :; do
          out=$("run_$side" "$g")
          read -r n s <<<"$out"
          echo "$n" >>"$tmp/$g.$side.leaves"
          total_n=$((total_n + n))
          total_s=$(awk -v a="$total_s" -v b="$s" 'BEGIN { print a + b }')
          runs=$((runs + 1))
          awk -v t="$total_s" -v m="$MIN_SECONDS" 'BEGIN { exit !(t >= m) }' && break
        done
        awk -v n="$total_n" -v s="$total_s" 'BEGIN { printf "%.6g\n", n / s }' >>"$tmp/$g.$side.rate"
        log "round $r/$ROUNDS $g $side: $n leaves, $runs run(s) in $total_s s"
      done
    done
  done

  local label depth cr rr cl rl ratio
  echo "| game | depth | chessalg | RBG (bulk) | RBG is faster by |"
  echo "|---|---|---|---|---|"
  for g in $GAMES; do
    label=$(field "$g" 2)
    depth=$(field "$g" 3)
    cr=$(median <"$tmp/$g.chessalg.rate")
    rr=$(median <"$tmp/$g.rbg.rate")
    ratio=$(awk -v a="$rr" -v b="$cr" 'BEGIN { x = a / b; printf (x >= 10 ? "%.0fx" : (x >= 1 ? "%.1fx" : "%.2fx")), x }')
    echo "| $label | $depth | $(mega "$cr") | $(mega "$rr") | $ratio |"
  done
  echo
  echo "Leaves per second, median of $ROUNDS rounds (each at least $MIN_SECONDS s of perft), one thread${PIN:+, pinned to CPU $PIN};"
  echo "each program's own timing of its perft, start position, last ply counted in bulk on both sides."
  echo
  echo "| game | depth | chessalg leaves | RBG leaves | same |"
  echo "|---|---|---|---|---|"
  for g in $GAMES; do
    cl=$(sort -u "$tmp/$g.chessalg.leaves" | paste -sd/)
    rl=$(sort -u "$tmp/$g.rbg.leaves" | paste -sd/)
    echo "| $(field "$g" 2) | $(field "$g" 3) | $cl | $rl | $([[ $cl == "$rl" ]] && echo yes || echo NO) |"
  done
}

case "${1:-}" in
  "") compare ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" ;;
  *) die "unknown argument '$1' (try --help)" ;;
esac
