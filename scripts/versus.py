#!/usr/bin/env python3
"""Play chessalg's AI against a UCI engine (or another chessalg binary) and
print the score with a 95% error margin.

Needs python-chess (`pip install chess`); the UCI engine is any program that
speaks UCI, e.g. Debian's `fairy-stockfish` (`apt-get install fairy-stockfish`).
chessalg is driven through `chessalg play --line --quiet`: the opponent's
moves go in as coordinates (`e2e4`), chessalg's come out as SAN.

    python3 scripts/versus.py --engine fairy-stockfish --engine-depth 2 --games 8 --time 1
    python3 scripts/versus.py --old /tmp/chessalg-old --games 8 --time 1

Games alternate colours and start from a fixed set of openings (each opening
is played twice, once with each colour), so both sides meet the same
positions. A game still going after --max-plies is scored a draw. The rule
file is chess (rules/chess.alg) unless --rules says otherwise; it must be a
game python-chess knows (chess or a lichess variant via --variant).
"""

import argparse
import math
import subprocess
import sys

import chess
import chess.engine
import chess.pgn
import chess.variant

# Short, common openings (UCI moves from the start), so that games differ.
OPENINGS = [
    "e2e4 e7e5 g1f3 b8c6",
    "d2d4 d7d5 c2c4 e7e6",
    "e2e4 c7c5 g1f3 d7d6",
    "d2d4 g8f6 c2c4 g7g6",
    "e2e4 e7e6 d2d4 d7d5",
    "c2c4 e7e5 b1c3 g8f6",
    "e2e4 c7c6 d2d4 d7d5",
    "g1f3 d7d5 g2g3 g8f6",
]


class Chessalg:
    """One side played by `chessalg play` in line mode."""

    def __init__(self, binary, rules, colour, fen, args, time=None):
        me, them = ("ai", "human")
        sides = ["--white", me, "--black", them] if colour == chess.WHITE else ["--white", them, "--black", me]
        cmd = [binary, "play", rules, *sides, "--line", "--quiet", "--fen", fen]
        time = time or args.time
        if time:
            cmd += ["--time", str(time)]
        if args.depth:
            cmd += ["--depth", str(args.depth)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.colour = colour

    def read_san(self):
        """Reads chessalg's next move as it writes it (SAN), or the result
        (`1-0`, `0-1`, `1/2-1/2`) if chessalg says the game is over."""
        buf = ""
        seen = []
        while True:
            ch = self.proc.stdout.read(1)
            if ch == "":
                raise RuntimeError("chessalg ended: " + "".join(seen[-3:]) + buf + self.proc.stderr.read())
            buf += ch
            if ch == "\n":
                if " plays " in buf:
                    return ("move", buf.split(" plays ")[1].split(" ")[0])
                if "Game over" in buf:
                    return ("over", buf.split()[-1])
                seen.append(buf)
                buf = ""

    def read_move(self, board):
        """Reads chessalg's next move as a python-chess move, or the result
        if chessalg says the game is over (its rules may end a game that
        python-chess's chess would go on with)."""
        kind, text = self.read_san()
        return board.parse_san(text) if kind == "move" else text

    def tell_san(self, san):
        self.proc.stdin.write(san + "\n")
        self.proc.stdin.flush()

    def tell(self, move):
        self.proc.stdin.write(move.uci() + "\n")
        self.proc.stdin.flush()

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        self.proc.kill()
        self.proc.wait()


def start_fen(args):
    """The rule file's start position, as `chessalg show` writes it."""
    out = subprocess.run([args.chessalg, "show", args.rules], capture_output=True, text=True, check=True).stdout
    return next(line[len("FEN: "):] for line in out.splitlines() if line.startswith("FEN: "))


def score_of(result, new_is_white):
    """chessalg's score for a result token (`1-0`, `0-1`; anything else a draw)."""
    if result == "1-0":
        return 1.0 if new_is_white else 0.0
    if result == "0-1":
        return 0.0 if new_is_white else 1.0
    return 0.5


def play_own_rules(args, opening, new_is_white):
    """A game between two chessalg binaries under the rule file's own rules,
    which python-chess does not know (Irreversible Chess: a rook does not
    attack backwards): moves pass from one to the other as SAN, and the
    binaries say when the game is over. python-chess only plays the opening."""
    board = chess.Board(args.start)
    for uci in opening.split():
        board.push_uci(uci)
    fen = board.fen()
    new_colour = chess.WHITE if new_is_white else chess.BLACK
    new = Chessalg(args.chessalg, args.rules, new_colour, fen, args)
    old = Chessalg(args.old, args.rules, not new_colour, fen, args, args.old_time)
    turn, plies, result = board.turn, board.ply(), "*"
    try:
        while plies < args.max_plies:
            mover, other = (new, old) if turn == new_colour else (old, new)
            kind, text = mover.read_san()
            if kind == "over":
                result = text
                break
            other.tell_san(text)
            turn, plies = not turn, plies + 1
    finally:
        new.close()
        old.close()
    return score_of(result, new_is_white), result, plies


def play_game(args, opening, new_is_white, engine):
    board = chess.variant.find_variant(args.variant)() if args.variant else chess.Board()
    board.set_fen(args.start)
    for uci in opening.split():
        board.push_uci(uci)
    fen = board.fen()
    new_colour = chess.WHITE if new_is_white else chess.BLACK
    new = Chessalg(args.chessalg, args.rules, new_colour, fen, args)
    old = Chessalg(args.old, args.rules, not new_colour, fen, args, args.old_time) if args.old else None
    ended = None
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < args.max_plies:
            if board.turn == new_colour:
                move = new.read_move(board)
                if isinstance(move, str):
                    ended = move
                    break
                if old:
                    old.tell(move)
            elif old:
                move = old.read_move(board)
                if isinstance(move, str):
                    ended = move
                    break
                new.tell(move)
            else:
                move = engine.play(board, chess.engine.Limit(depth=args.engine_depth)).move
                new.tell(move)
            board.push(move)
    finally:
        new.close()
        if old:
            old.close()
    result = ended or board.result(claim_draw=True)
    return score_of(result, new_is_white), result, board


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chessalg", default="target/release/chessalg", help="the chessalg binary under test")
    ap.add_argument("--old", help="play against this chessalg binary instead of a UCI engine")
    ap.add_argument("--engine", default="fairy-stockfish", help="the UCI engine to play against")
    ap.add_argument("--engine-depth", type=int, default=1, help="the UCI engine's `go depth`")
    ap.add_argument("--rules", default="rules/chess.alg")
    ap.add_argument("--variant", help="python-chess variant name (for lichess variants)")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--time", type=float, default=1.0, help="chessalg's seconds per move")
    ap.add_argument("--depth", type=int, help="chessalg's depth limit (with or instead of --time)")
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--pgn", help="append every game to this PGN file")
    ap.add_argument("--first-game", type=int, default=1, help="start at this game of the fixed series (its opening and colours)")
    ap.add_argument(
        "--own-rules",
        action="store_true",
        help="with --old: the rule file is not chess (Irreversible Chess); python-chess plays only the openings",
    )
    ap.add_argument("--old-time", type=float, help="the old binary's seconds per move (default: --time)")
    args = ap.parse_args()
    # The rule file's own start (Irreversible Chess puts the kings on d1 and d8).
    args.start = start_fen(args)
    if args.own_rules and not args.old:
        ap.error("--own-rules needs --old: only chessalg knows the rule file's rules")

    engine = None
    if not args.old:
        engine = chess.engine.SimpleEngine.popen_uci(args.engine)
        if args.variant:
            engine.configure({"UCI_Variant": args.variant})
    scores = []
    try:
        for g in range(args.first_game - 1, args.first_game - 1 + args.games):
            opening = OPENINGS[(g // 2) % len(OPENINGS)]
            new_is_white = g % 2 == 0
            colour = "white" if new_is_white else "black"
            if args.own_rules:
                score, result, plies = play_own_rules(args, opening, new_is_white)
                scores.append(score)
                print(f"game {g + 1}: chessalg {colour}, {result} in {plies} plies, score {score}", flush=True)
                continue
            score, result, board = play_game(args, opening, new_is_white, engine)
            scores.append(score)
            print(f"game {g + 1}: chessalg {colour}, {result} in {board.ply()} plies, score {score}", flush=True)
            if args.pgn:
                game = chess.pgn.Game.from_board(board)
                game.headers["White"] = "chessalg" if new_is_white else "opponent"
                game.headers["Black"] = "opponent" if new_is_white else "chessalg"
                game.headers["Round"] = str(g + 1)
                with open(args.pgn, "a") as f:
                    print(game, file=f, end="\n\n")
    finally:
        if engine:
            engine.quit()
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(n - 1, 1)
    margin = 1.96 * math.sqrt(var / n)
    opponent = f"chessalg {args.old}" if args.old else f"{args.engine} depth {args.engine_depth}"
    print(f"chessalg scored {sum(scores)}/{n} = {100 * mean:.0f}% ± {100 * margin:.0f}% against {opponent}")


if __name__ == "__main__":
    sys.exit(main())
