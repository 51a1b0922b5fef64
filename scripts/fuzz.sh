#!/usr/bin/env bash
# Fuzzing: seed corpora from rules/ and tests/data/, then a run of each
# target (cargo-fuzz, libFuzzer, on a nightly toolchain).
#
#   scripts/fuzz.sh                 every target, 60 s each
#   scripts/fuzz.sh 3600 engines    one target for an hour
#   FUZZ_JOBS=2 scripts/fuzz.sh ... (libFuzzer's -jobs/-workers: runs in parallel)
#
# Crashes land in fuzz/artifacts/TARGET/; replay one with
# `cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-...`.
# Exit status: 0 when every target ran without a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(rules engines fen pgn uci web playground lsp)
fi

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain (rustup toolchain install nightly); not fuzzing" >&2
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --quiet --locked cargo-fuzz
fi

# Seeds: the inputs the repository already holds.
byte() { printf "\\x$(printf %02x "$1")"; }
for t in rules engines fen pgn uci web playground lsp; do mkdir -p "fuzz/corpus/$t"; done
for t in rules engines; do
  for f in rules/*.alg tests/data/*/*.alg; do
    cp "$f" "fuzz/corpus/$t/seed-$(echo "$f" | tr '/' '_')"
  done
done
# FEN and PGN: the first byte picks the game (fuzz/src/lib.rs: GAMES).
n=0
for g in chess crazyhouse shogi xiangqi checkers othello hex seirawan amazons atomic; do
  f="tests/data/perft/$g.perft"
  if [ -f "$f" ]; then
    i=0
    grep -v '^#' "$f" | cut -d';' -f1 | sed 's/ *$//' | grep -v '^start$' | grep . | head -20 |
      while IFS= read -r fen; do
        { byte "$n"; printf '%s' "$fen"; } >"fuzz/corpus/fen/seed-$g-$i"
        i=$((i + 1))
      done || true
  fi
  n=$((n + 1))
done
{ byte 0; printf '[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O Nf6 5. Re1 *\n'; } >fuzz/corpus/pgn/seed-chess
{ byte 1; printf '[Variant "Crazyhouse"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d4 *\n'; } >fuzz/corpus/pgn/seed-crazyhouse
{ byte 4; printf '[Event "x"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n'; } >fuzz/corpus/pgn/seed-checkers
printf 'uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5\ngo depth 2\nstop\nposition fen 8/8/8/8/8/8/8/K1k5 w - - 0 1\ngo perft 2\nsetoption name Hash value 4\nsetoption name UCI_Variant value shogi\nquit\n' >fuzz/corpus/uci/seed-session
printf 'setoption name RulesFile value xiangqi\nposition startpos\ngo movetime 10\nisready\n' >fuzz/corpus/uci/seed-variant
# Web: a line per request, its first byte the method and path (fuzz_targets/web.rs).
printf '\x00{}\n\x02{"move": "e2e4"}\n\x81\n\x86\n\x04{"random": true}\n\x03{}\n\x87\n' >fuzz/corpus/web/seed-play
printf '\x00{"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}\n\x12{"move": "Kb1"}\n\x91\n' >fuzz/corpus/web/seed-fen
printf '\x00{"pgn": "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"}\n\x85\n' >fuzz/corpus/web/seed-pgn
# Playground: a byte (odd: play it), then a rule text (fuzz_targets/playground.rs).
for f in rules/tictactoe.alg rules/chess.alg rules/checkers.alg rules/shogi.alg tests/data/untrusted/*.alg; do
  { byte 1; cat "$f"; } >"fuzz/corpus/playground/seed-$(echo "$f" | tr '/' '_')"
done
# LSP: the first byte 0, a stream as an editor writes it; 1, JSON-RPC
# messages separated by NUL bytes, framed by the target after `initialize`
# (fuzz_targets/lsp.rs).
lsp_session() {
  local doc='file:///tmp/fuzz-lsp/game.alg'
  local text='import \"chess.alg\"\n\nmoves white = piece_moves | kingg\nunused = nil\n'
  local at='"textDocument": {"uri": "'"$doc"'"}, "position": {"line": 2, "character": 16}'
  printf '%s\n' \
    '{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "'"$doc"'", "languageId": "chessalg", "version": 1, "text": "'"$text"'"}}}' \
    '{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {'"$at"'}}' \
    '{"jsonrpc": "2.0", "id": 2, "method": "textDocument/definition", "params": {'"$at"'}}' \
    '{"jsonrpc": "2.0", "id": 3, "method": "textDocument/references", "params": {'"$at"', "context": {"includeDeclaration": true}}}' \
    '{"jsonrpc": "2.0", "id": 4, "method": "textDocument/completion", "params": {'"$at"'}}' \
    '{"jsonrpc": "2.0", "id": 5, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "'"$doc"'"}}}' \
    '{"jsonrpc": "2.0", "id": 6, "method": "textDocument/formatting", "params": {"textDocument": {"uri": "'"$doc"'"}, "options": {"tabSize": 4, "insertSpaces": true}}}' \
    '{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "'"$doc"'", "version": 2}, "contentChanges": [{"text": "moves white = nil\n"}]}}' \
    '{"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": "'"$doc"'"}}}' \
    '{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}' \
    '{"jsonrpc": "2.0", "method": "exit"}'
}
lsp_frame() { printf 'Content-Length: %d\r\n\r\n%s' "$(printf '%s' "$1" | wc -c)" "$1"; }
{
  byte 0
  lsp_frame '{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}'
  lsp_frame '{"jsonrpc": "2.0", "method": "initialized", "params": {}}'
  lsp_session | while IFS= read -r m; do lsp_frame "$m"; done
} >fuzz/corpus/lsp/seed-stream
{ byte 1; lsp_session | tr '\n' '\0'; } >fuzz/corpus/lsp/seed-messages

status=0
for t in "${targets[@]}"; do
  echo "fuzz: $t for ${seconds} s" >&2
  (cd fuzz && cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$seconds" -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
    ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} -print_final_stats=1) \
    >"fuzz/last-$t.log" 2>&1 || true
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)|ERROR|panicked|Test unit written' \
    "fuzz/last-$t.log" >&2 || true
  if [ -n "$(ls "fuzz/artifacts/$t" 2>/dev/null)" ]; then
    echo "fuzz: $t found a crash (fuzz/artifacts/$t)" >&2
    status=1
  fi
done
exit $status
