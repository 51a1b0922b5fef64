#!/usr/bin/env python3
"""Replays PGN files written by `chessalg play` with python-chess, move by move.

Usage: python3 scripts/check_pgn.py GAME.pgn...   (needs `pip install chess`)
Exits non-zero if a move does not parse or is illegal, or a result disagrees.
"""
import sys

import chess
import chess.pgn

failed = 0
for path in sys.argv[1:]:
    with open(path) as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if game.errors:
                print(f"{path}: {game.errors}")
                failed += 1
                continue
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
            result = game.headers.get("Result", "*")
            outcome = board.outcome(claim_draw=True)
            if result != "*" and outcome is not None and outcome.result() != result:
                print(f"{path}: result {result} but python-chess says {outcome.result()}")
                failed += 1
            print(f"{path}: {len(list(game.mainline_moves()))} plies ok, result {result}")
sys.exit(1 if failed else 0)
