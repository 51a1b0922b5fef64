"""Self-play learning spread over a Ray cluster: each self-play game is a
Ray task (the game itself runs in chessalg's Rust code, without the GIL),
and the driver learns from the trajectories the tasks return, batch by
batch, exactly as `chessalg train` does on one machine (TD(λ) over the
same generic features; the same weights file).

    from chessalg.distributed import train
    weights = train("rules/checkers.alg", games=4000, batch=64)              # a local Ray
    weights = train("rules/checkers.alg", games=40000, address="ray://head:10001")
    open("checkers.json", "w").write(weights)

    python3 -m chessalg.distributed rules/checkers.alg --games 4000 --out checkers.json [--address ...]

A batch's games all use the weights of that batch, so they are independent
and as many run at once as the cluster has CPUs; the driver's learning step
is small (milliseconds). Workers read the rule file at its path where they
can (one machine, a shared disk), else from its text, sent with the task (a
file that imports others needs them on the workers' disk, or a bundled
game's name).
"""
import argparse
import os
import sys
import time

from . import Game


_GAMES = {}


def _game(rules_path, rules_text):
    """The game on a worker: from the path where the worker can read it
    (one machine, a shared disk), else from the text sent; read once per
    worker process."""
    key = (rules_path, rules_text)
    if key not in _GAMES:
        if os.path.exists(rules_path):
            _GAMES[key] = Game(rules_path)
        else:
            import tempfile
            with tempfile.NamedTemporaryFile("w", suffix=".alg", delete=False, encoding="utf-8") as f:
                f.write(rules_text)
            try:
                _GAMES[key] = Game(f.name)
            finally:
                os.unlink(f.name)
    return _GAMES[key]


def _play(rules_path, rules_text, weights, seed, depth, epsilon, max_plies):
    """One self-play game on a worker: its trajectory (JSON)."""
    game = _game(rules_path, rules_text)
    return game.self_play(weights, seed, depth=depth, epsilon=epsilon, max_plies=max_plies)


def train(rules, games=1000, batch=32, depth=1, epsilon=0.1, rate=100.0, lam=0.8, max_plies=300,
          seed=1, weights=None, address=None, num_cpus=None, progress=None):
    """Learns weights for the rule file `rules` from `games` self-play
    games run as Ray tasks, `batch` at a time; returns the weights' JSON.
    `address` is a Ray cluster's (`ray.init(address=...)`); without it a
    local Ray is started (with `num_cpus`). `progress(games_done, weights)`
    is called after each batch."""
    import ray

    path = os.path.abspath(str(rules))
    game = Game(path)
    with open(rules, encoding="utf-8") as f:
        rules_text = f.read()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
    try:
        play = ray.remote(_play)
        text = ray.put(rules_text)
        weights = weights or game.initial_weights()
        done = 0
        while done < games:
            n = min(batch, games - done)
            w = ray.put(weights)
            tasks = [play.remote(path, text, w, seed + done + k, depth, epsilon, max_plies) for k in range(n)]
            trajectories = ray.get(tasks)
            weights = game.learn(weights, trajectories, rate=rate, lam=lam)
            done += n
            if progress:
                progress(done, weights)
        return weights
    finally:
        if started_here:
            ray.shutdown()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m chessalg.distributed",
                                 description="Self-play learning on a Ray cluster (or a local Ray).")
    ap.add_argument("rules")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--address", help="a Ray cluster's address (default: a local Ray)")
    ap.add_argument("--num-cpus", type=int)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    start = time.time()

    def progress(done, _):
        print(f"\r{done}/{args.games} games, {time.time() - start:.1f} s", end="", file=sys.stderr, flush=True)

    weights = train(args.rules, games=args.games, batch=args.batch, depth=args.depth, seed=args.seed,
                    address=args.address, num_cpus=args.num_cpus, progress=progress)
    print(file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(weights + "\n")
    print(f"{args.games} games in {time.time() - start:.1f} s; weights written to {args.out}")


if __name__ == "__main__":
    main()
