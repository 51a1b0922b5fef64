#!/usr/bin/env python3
"""Random self-play steps per second from Python: chessalg's rule files
against PettingZoo's own classic environments, in the same run.

Each environment is played through the same PettingZoo AEC loop (`last()`
for the observation and action mask, a uniformly random legal action from
the mask, `step`), game after game, for `--seconds` each; chessalg's state
API alone (`state.legal_actions()`, `state.step()`) is timed too.

    python3 python/bench/throughput.py [--seconds 5] [--rules-dir rules]
"""
import argparse
import os
import random
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")


def aec_steps(make, seconds, seed=1):
    """Steps per second of random play through the AEC API."""
    rng = np.random.default_rng(seed)
    env = make()
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(1 << 30)))
        games += 1
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                # The mask is int8 0/1 in both: seen as bool, nonzero is ten
                # times faster (the same for every environment timed).
                action = int(rng.choice(np.flatnonzero(obs["action_mask"].view(bool))))
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start), games


def state_steps(game, seconds, seed=1):
    """Steps per second of random play on chessalg's states alone."""
    rnd = random.Random(seed)
    steps, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.start()
        games += 1
        while not state.is_over():
            state = state.step(rnd.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start), games


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rules-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "rules"))
    args = ap.parse_args()
    import chessalg
    from chessalg.pettingzoo import env as chessalg_env
    from pettingzoo.classic import chess_v6, connect_four_v3

    from chessalg.pettingzoo import raw_env as chessalg_raw_env

    rows = []
    for name, rules, theirs in [("chess", "chess.alg", chess_v6),
                                ("connect four", "connect4.alg", connect_four_v3)]:
        path = os.path.join(args.rules_dir, rules)
        pz, _ = aec_steps(theirs.env, args.seconds)
        ours, _ = aec_steps(lambda: chessalg_env(path), args.seconds)
        pz_raw, _ = aec_steps(theirs.raw_env, args.seconds)
        ours_raw, _ = aec_steps(lambda: chessalg_raw_env(path), args.seconds)
        states, _ = state_steps(chessalg.Game(path), args.seconds)
        rows.append((name, "env() (wrapped)", pz, ours))
        rows.append((name, "raw_env()", pz_raw, ours_raw))
        rows.append((name, "chessalg states", pz, states))
    print(f"{'game':13} {'API':17} {'PettingZoo':>12} {'chessalg':>12} {'ratio':>7}")
    for name, api, pz, ours in rows:
        print(f"{name:13} {api:17} {pz:10,.0f}/s {ours:10,.0f}/s {ours / pz:6.1f}x")
    print("(chessalg states: state.legal_actions() and state.step() alone, against PettingZoo's env())")


if __name__ == "__main__":
    main()
