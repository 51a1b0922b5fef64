#!/usr/bin/env python3
"""Drive `chessalg uci` with python-chess's engine module: whole games of
chessalg against itself (or against another UCI engine), each move checked
legal by python-chess, and `go perft` compared with python-chess's own count.

Usage:
  python3 scripts/uci_selfplay.py [--binary target/release/chessalg]
      [--rules rules/chess.alg] [--games 2] [--time 0.05] [--opponent CMD]
      [--opponent-depth N]

Needs python-chess (`pip install chess`). Exits 1 on any disagreement.
"""
import argparse
import subprocess
import sys

import chess
import chess.engine


def perft(board, depth):
    if depth == 0:
        return 1
    n = 0
    for move in board.legal_moves:
        board.push(move)
        n += perft(board, depth - 1)
        board.pop()
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/chessalg")
    ap.add_argument("--rules", default="rules/chess.alg")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--time", type=float, default=0.05)
    ap.add_argument("--opponent", help="another UCI engine's command line (default: chessalg itself)")
    ap.add_argument("--opponent-depth", type=int, help="the opponent searches to this depth instead of for --time")
    ap.add_argument("--own-rules", action="store_true",
                    help="the rule file is not chess (Irreversible Chess): python-chess only relays the moves, "
                         "each checked against `chessalg moves`, and the engine says when the game is over")
    args = ap.parse_args()

    command = [args.binary, "uci", args.rules]
    white = chess.engine.SimpleEngine.popen_uci(command)
    black = chess.engine.SimpleEngine.popen_uci(args.opponent.split() if args.opponent else command)
    try:
        return run(args, command, white, black)
    finally:
        white.quit()
        black.quit()


class Relay(chess.Board):
    """A board that takes the engine's word for what is legal (its rules are not chess's)."""

    def is_legal(self, move):
        return True


def legal_by_chessalg(args, board):
    out = subprocess.run([args.binary, "moves", args.rules, "--lenient", "--fen", board.fen()],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return out.split()


def over_by_chessalg(args, board):
    out = subprocess.run([args.binary, "show", args.rules, "--lenient", "--fen", board.fen()],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return "Game over" in out


def own_rules(args, white, black):
    """Games of a rule file python-chess does not know, relayed and checked by chessalg itself."""
    # The game's own start, which python-chess then sends as `position fen`.
    shown = subprocess.run([args.binary, "show", args.rules], capture_output=True, text=True, check=True).stdout
    start = next(line[len("FEN: "):] for line in shown.splitlines() if line.startswith("FEN: "))
    # python-chess asks for its board's variant by name (`setoption name
    # UCI_Variant`): the rule file's own.
    Relay.uci_variant = args.rules.rsplit("/", 1)[-1].removesuffix(".alg")
    for g in range(args.games):
        board = Relay(start)
        while board.ply() < 300:
            engine = white if board.turn == chess.WHITE else black
            result = engine.play(board, chess.engine.Limit(time=args.time))
            if result.move is None:
                if not over_by_chessalg(args, board):
                    print(f"game {g + 1}: no move, but the game is not over at {board.fen()}")
                    return 1
                break
            if result.move.uci() not in legal_by_chessalg(args, board):
                print(f"game {g + 1}: {result.move} is not legal at {board.fen()}")
                return 1
            board.push(result.move)
        print(f"game {g + 1}: over after {board.ply()} plies, every move legal by chessalg's rules")
    return 0


def run(args, command, white, black):
    print(f"engine: {white.id.get('name')}")
    if args.own_rules:
        return own_rules(args, white, black)

    # go perft against python-chess, after a few moves.
    board = chess.Board()
    for san in ["e4", "c5", "Nf3", "d6"]:
        board.push_san(san)
    moves = " ".join(m.uci() for m in board.move_stack)
    proc = subprocess.run(command, input=f"position startpos moves {moves}\ngo perft 3\nquit\n",
                          capture_output=True, text=True, check=True, timeout=120)
    total = int(proc.stdout.strip().splitlines()[-1].split(": ")[1])
    want = perft(board, 3)
    print(f"go perft 3 after {moves}: {total} (python-chess {want})")
    if total != want:
        return 1

    score = 0.0
    for g in range(args.games):
        board = chess.Board()
        engines = [white, black] if g % 2 == 0 else [black, white]
        while not board.is_game_over(claim_draw=True) and board.ply() < 300:
            engine = engines[0] if board.turn == chess.WHITE else engines[1]
            limit = chess.engine.Limit(time=args.time)
            if engine is black and args.opponent_depth:
                limit = chess.engine.Limit(depth=args.opponent_depth)
            result = engine.play(board, limit)
            if result.move is None or result.move not in board.legal_moves:
                print(f"game {g + 1}: illegal or no move {result.move} at {board.fen()}")
                return 1
            board.push(result.move)
        result = board.result(claim_draw=True)
        ours = chess.WHITE if g % 2 == 0 else chess.BLACK
        points = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
        score += points if ours == chess.WHITE else 1.0 - points
        print(f"game {g + 1}: {result} in {board.ply()} plies (chessalg {'white' if ours == chess.WHITE else 'black'})")
    print(f"chessalg (the first engine) scored {score}/{args.games}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
