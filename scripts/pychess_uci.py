#!/usr/bin/env python3
"""A UCI engine that only lists legal moves, over python-chess: what
`chessalg diff RULES --uci "python3 scripts/pychess_uci.py"` needs to check a
rule file against python-chess's chess, Chess960 and lichess variants
(atomic, antichess, kingofthehill, 3check, horde, racingkings, crazyhouse),
including those a Fairy-Stockfish build lacks.

    chessalg diff rules/atomic.alg --uci "python3 scripts/pychess_uci.py" --variant atomic

It answers `uci` (offering UCI_Variant and UCI_Chess960), `isready`,
`setoption`, `position fen|startpos [moves ...]` and `go perft 1` (each
legal move with `: 1`, then `Nodes searched: N`), and `quit`. Needs
`pip install chess`.
"""
import sys

import chess
import chess.variant

VARIANTS = {v.uci_variant: v for v in chess.variant.VARIANTS}


def main():
    variant, chess960, board = "chess", False, None

    def new_board(fen=None):
        cls = VARIANTS.get(variant, chess.Board)
        return cls(fen, chess960=chess960) if fen else cls(chess960=chess960)

    def say(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "uci":
            say("id name python-chess " + chess.__version__)
            names = " ".join("var " + n for n in sorted(VARIANTS))
            say("option name UCI_Variant type combo default chess " + names)
            say("option name UCI_Chess960 type check default false")
            say("uciok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "setoption" and "value" in words:
            name = " ".join(words[2:words.index("value")])
            value = " ".join(words[words.index("value") + 1:])
            if name == "UCI_Variant":
                variant = value
            elif name == "UCI_Chess960":
                chess960 = value == "true"
        elif cmd == "position":
            rest = words[1:]
            moves = rest[rest.index("moves") + 1:] if "moves" in rest else []
            head = rest[:rest.index("moves")] if "moves" in rest else rest
            try:
                board = new_board(" ".join(head[1:]) if head[0] == "fen" else None)
                for m in moves:
                    board.push_uci(m)
            except ValueError as e:
                say("info string bad position: %s" % e)
                board = None
        elif cmd == "go" and words[1:2] == ["perft"]:
            moves = []
            if board is not None and not board.is_variant_end():
                moves = [m.uci() for m in board.legal_moves]
            for m in moves:
                say("%s: 1" % m)
            say("")
            say("Nodes searched: %d" % len(moves))
        elif cmd == "quit":
            break


if __name__ == "__main__":
    main()
