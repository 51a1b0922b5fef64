#!/usr/bin/env python3
"""Compare a chessalg rule file with Fairy-Stockfish's variant of the same
game, move by move, over raw UCI text (standard library only: boards may be
9x10 or 10x8, which python-chess cannot hold).

    python3 scripts/fairy_compare.py --rules rules/xiangqi.alg --variant xiangqi
        [--games 4] [--plies 120] [--depth 1] [--fsf /usr/games/fairy-stockfish]
        [--binary target/release/chessalg] [--fen FEN]
        [--perft-every 10 --perft-depth 2]

Both engines (`chessalg uci RULES`, and Fairy-Stockfish with UCI_Variant
NAME, and UCI_Chess960 when the FEN has Chess960 castling rights such as
`AHah`) get the same `position startpos|fen FEN moves ...` at every ply and
are asked `go perft 1`: their move lists must be the same set. Every
--perft-every plies their `go perft --perft-depth` counts must agree too,
in total and per first move (the moves whose counts differ are listed).
The move played comes from `go depth D`, alternately from chessalg and
Fairy-Stockfish; chessalg moves first in odd games, second in even ones
(both engines are deterministic: games 3 and 4 repeat games 1 and 2, unless
--opening-plies N starts each pair of games from its own N random plies).
To measure strength, give chessalg a time and Fairy-Stockfish a depth:

    python3 scripts/fairy_compare.py --rules rules/shogi.alg --variant shogi \\
        --movetime 1 --fsf-depth 4 --opening-plies 4 --games 8 --perft-every 0 \\
        --tolerate-extra

A game ends when the move list is empty (scored as a loss for the side to
move, as in xiangqi, shatranj and extinction; a stalemate in makruk,
capablanca or knightmate is really a draw, so the game's line also shows
Fairy-Stockfish's score there: `mate 0` for a loss, `cp 0` for a draw),
when an engine answers `bestmove (none)` although moves remain (chessalg
does at a threefold repetition; scored a draw), at --plies (a draw), or at
a disagreement about the move list or the move played (not scored). Every
disagreement prints the position (as a `position` command and as
Fairy-Stockfish's FEN) and both move lists. Exits 1 if anything disagreed,
2 if an engine failed (e.g. no answer within --timeout seconds); both
engines are always quit.
"""
import argparse
import queue
import random
import re
import subprocess
import sys
import threading

DIVIDE = re.compile(r"^(\S+): (\d+)$")  # `e2e4: 20` in `go perft` output


class EngineError(Exception):
    pass


class Engine:
    """A UCI engine on a pipe; a reader thread feeds a queue, so that every
    read times out instead of hanging on a silent engine."""

    def __init__(self, name, command, timeout):
        self.name, self.timeout = name, timeout
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # end of output

    def send(self, command):
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except OSError as e:
            code = self.proc.poll()
            raise EngineError(f"{self.name}: " + (f"exited with code {code}" if code is not None else str(e)))

    def read_until(self, done):
        """The lines up to and including the first one for which done() holds."""
        lines = []
        while True:
            try:
                line = self.lines.get(timeout=self.timeout)
            except queue.Empty:
                raise EngineError(f"{self.name}: no answer within {self.timeout} s after {lines[-3:]}")
            if line is None:
                raise EngineError(f"{self.name}: exited after {lines[-3:]}")
            if line.startswith("info string") and "variant" not in line:
                print(f"  {self.name} says: {line}")
            lines.append(line)
            if done(line):
                return lines

    def ask(self, command, last):
        """Sends the command and reads up to the line starting with `last`."""
        self.send(command)
        return self.read_until(lambda l: l.startswith(last))

    def perft(self, position, depth):
        """({move: count}, total) from `go perft depth`."""
        self.send(position)
        lines = self.ask(f"go perft {depth}", "Nodes searched:")
        divide = {m[1]: int(m[2]) for m in map(DIVIDE.match, lines) if m}
        return divide, int(lines[-1].split(":")[1])

    def bestmove(self, position, depth, info=False, movetime=None):
        """The move `go depth D` (or `go movetime MS`) chooses, or None for
        `bestmove (none)`; with info, the last score it printed instead
        (`score mate 0`)."""
        self.send(position)
        go = f"go movetime {movetime}" if movetime else f"go depth {depth}"
        lines = self.ask(go, "bestmove")
        if info:
            return next((l[l.index("score"):] for l in reversed(lines) if " score " in l), "no score")
        words = lines[-1].split()
        return words[1] if len(words) > 1 and words[1] != "(none)" else None

    def quit(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=2)
        except (EngineError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def position_command(fen, moves):
    command = f"position fen {fen}" if fen else "position startpos"
    return command + (" moves " + " ".join(moves) if moves else "")


def show_position(fsf, position, what):
    fsf.send(position)
    fsf.send("d")
    fen = next((l[5:] for l in fsf.ask("isready", "readyok") if l.startswith("Fen: ")), "?")
    print(f"  DISAGREEMENT ({what}) at: {position}\n  FEN {fen}")


def show_lists(ours, theirs):
    ours, theirs = set(ours), set(theirs)
    print(f"  only chessalg: {' '.join(sorted(ours - theirs)) or '-'}")
    print(f"  only Fairy-Stockfish: {' '.join(sorted(theirs - ours)) or '-'}")
    print(f"  chessalg ({len(ours)}): {' '.join(sorted(ours))}")
    print(f"  Fairy-Stockfish ({len(theirs)}): {' '.join(sorted(theirs))}")


def play_game(number, chessalg, fsf, args, stats):
    """Plays one game; returns (moves, how it ended, chessalg's score or None)."""
    ours_first = number % 2 == 1
    rng = random.Random(args.seed * 1000 + (number + 1) // 2)
    first_colour = args.fen.split()[1] if args.fen else "w"
    for engine in (chessalg, fsf):
        engine.send("ucinewgame")
        engine.ask("isready", "readyok")
    moves = []
    for ply in range(args.plies + 1):
        position = position_command(args.fen, moves)
        ours, _ = chessalg.perft(position, 1)
        theirs, _ = fsf.perft(position, 1)
        stats["positions"] += 1
        if args.tolerate_extra and set(ours) < set(theirs):
            pass  # Fairy-Stockfish lists moves the rules forbid (see --tolerate-extra)
        elif set(ours) != set(theirs):
            stats["disagreements"] += 1
            show_position(fsf, position, "move lists")
            show_lists(ours, theirs)
            return moves, f"move lists differ at ply {ply}", None
        if args.perft_every and ply % args.perft_every == 0 and ours:
            stats["perfts"] += 1
            (our_divide, our_total), (their_divide, their_total) = (
                e.perft(position, args.perft_depth) for e in (chessalg, fsf))
            if (our_divide, our_total) != (their_divide, their_total):
                stats["disagreements"] += 1
                show_position(fsf, position, f"perft {args.perft_depth}")
                print(f"  nodes: chessalg {our_total}, Fairy-Stockfish {their_total}")
                for move in sorted(set(our_divide) | set(their_divide)):
                    if our_divide.get(move) != their_divide.get(move):
                        print(f"  {move}: chessalg {our_divide.get(move)}, Fairy-Stockfish {their_divide.get(move)}")
        ours_to_move = (ply % 2 == 0) == ours_first
        if not ours:
            colour = "white" if (ply % 2 == 0) == (first_colour == "w") else "black"
            verdict = fsf.bestmove(position, 1, info=True)  # `info depth 0 score mate 0` or `cp 0`
            return (moves, f"no legal moves at ply {ply}, side to move {colour} (Fairy-Stockfish: {verdict})",
                    0 if ours_to_move else 1)
        if ply == args.plies:
            return moves, "ply limit (draw)", 0.5
        mover = chessalg if ours_to_move else fsf
        if ply < args.opening_plies:
            # The opening: a random legal move, the same for both games of a pair.
            move = sorted(ours)[rng.randrange(len(ours))]
        elif mover is chessalg:
            move = mover.bestmove(position, args.depth, movetime=args.movetime and int(args.movetime * 1000))
        else:
            move = mover.bestmove(position, args.fsf_depth or args.depth)
        if move is None:
            return moves, f"{mover.name} answered bestmove (none) at ply {ply} (draw)", 0.5
        if move not in ours and args.tolerate_extra and mover is fsf:
            return moves + [move], f"Fairy-Stockfish played {move}, which the rules forbid, at ply {ply} (a loss)", 1
        if move not in ours:
            stats["disagreements"] += 1
            show_position(fsf, position, f"{mover.name} played {move}, not in the move list")
            show_lists(ours, theirs)
            return moves, f"illegal bestmove {move} at ply {ply}", None
        moves.append(move)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", required=True, help="the rule file, e.g. rules/xiangqi.alg")
    ap.add_argument("--variant", required=True, help="Fairy-Stockfish's UCI_Variant, e.g. xiangqi")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--plies", type=int, default=120, help="a game still going after this many plies is a draw")
    ap.add_argument("--depth", type=int, default=1, help="both engines choose moves with `go depth D`")
    ap.add_argument("--movetime", type=float, help="chessalg chooses with `go movetime` of this many seconds instead")
    ap.add_argument("--fsf-depth", type=int, help="Fairy-Stockfish chooses with this depth instead of --depth")
    ap.add_argument("--opening-plies", type=int, default=0,
                    help="the first N plies are random legal moves, the same in both games of a pair")
    ap.add_argument("--seed", type=int, default=1, help="the seed of the random openings")
    ap.add_argument("--tolerate-extra", action="store_true",
                    help="go on where Fairy-Stockfish lists more moves than chessalg (shogi's checkmating pawn "
                         "drop, which it lists and scores as a loss); if it plays one, it loses")
    ap.add_argument("--fsf", default="/usr/games/fairy-stockfish")
    ap.add_argument("--binary", default="target/release/chessalg")
    ap.add_argument("--fen", help="start here instead of the start position")
    ap.add_argument("--perft-every", type=int, default=10, help="compare deeper perft every N plies (0: never)")
    ap.add_argument("--perft-depth", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60, help="seconds to wait for any answer")
    args = ap.parse_args()

    stats = {"positions": 0, "perfts": 0, "disagreements": 0}
    score = [0.0, 0.0]  # chessalg, Fairy-Stockfish
    engines = []
    try:
        engines.append(Engine("chessalg", [args.binary, "uci", args.rules], args.timeout))
        engines.append(Engine("Fairy-Stockfish", [args.fsf], args.timeout))
        chessalg, fsf = engines
        for engine in engines:
            engine.options = engine.ask("uci", "uciok")
            engine.id = next((l[8:] for l in engine.options if l.startswith("id name ")), "?")
        variants = next((l for l in fsf.options if l.startswith("option name UCI_Variant ")), "").split(" var ")[1:]
        if args.variant not in variants:
            print(f"Fairy-Stockfish ({fsf.id}) does not know the variant {args.variant!r}")
            return 2
        fsf.send(f"setoption name UCI_Variant value {args.variant}")
        castling = args.fen.split()[2] if args.fen and len(args.fen.split()) > 2 else "-"
        if set(castling) - set("KQkq-"):  # Chess960 rights name the rook's file
            fsf.send("setoption name UCI_Chess960 value true")
        said = [l for l in fsf.ask("isready", "readyok") if l.startswith("info string variant")]
        chessalg.ask("isready", "readyok")
        print(f"chessalg: {chessalg.id}, {args.rules}")
        print(f"Fairy-Stockfish: {fsf.id}, {said[0] if said else 'variant ' + args.variant}")

        for number in range(1, args.games + 1):
            moves, ending, ours = play_game(number, chessalg, fsf, args, stats)
            first = "chessalg" if number % 2 else "Fairy-Stockfish"
            if ours is not None:
                score[0] += ours
                score[1] += 1 - ours
            print(f"game {number}: {first} first, {len(moves)} plies, {ending}: {' '.join(moves)}", flush=True)
    except (EngineError, OSError) as e:
        print(f"error: {e}")
        return 2
    finally:
        for engine in engines:
            engine.quit()

    print(f"summary: {args.games} games, {stats['positions']} positions compared (perft 1), "
          f"{stats['perfts']} perft {args.perft_depth} counts compared, {stats['disagreements']} disagreements; "
          f"score chessalg {score[0]:g} - {score[1]:g} Fairy-Stockfish")
    return 1 if stats["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
