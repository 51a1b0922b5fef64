#!/usr/bin/env python3
"""Random self-play steps per second from Python, in one run: chessalg's
batched `VectorEnv`, chessalg's states one at a time, OpenSpiel's games
(`pip install open_spiel`) and PettingZoo's classic environments, on
Connect Four, chess, Othello and checkers.

- batched: `chessalg.VectorEnv(rules, --envs)`, a uniformly random legal
  action per game (`random_actions()`), one `step` for all, observations
  and masks included;
- chessalg states: `state.legal_actions()`, `random.choice`, `state.step()`;
- OpenSpiel: the same loop on `pyspiel.load_game(name)`'s states
  (`legal_actions()`, `apply_action()`), the per-step loop its examples use;
- PettingZoo: its AEC loop (`last()`, a random action from the mask,
  `step`) on its own environments, where it has the game.

Each is timed for `--seconds`; the last column is batched / OpenSpiel.

    python3 python/bench/throughput.py [--seconds 5] [--envs 256]
"""
import argparse
import os
import random
import time
import warnings

import numpy as np

warnings.simplefilter("ignore")

GAMES = [
    # name, rule file, OpenSpiel's game, PettingZoo's module (classic)
    ("connect four", "connect4.alg", "connect_four", "connect_four_v3"),
    ("chess", "chess.alg", "chess", "chess_v6"),
    ("othello", "othello.alg", "othello", None),
    ("checkers", "checkers.alg", "checkers", None),
]


def batched_steps(path, seconds, envs, seed=1):
    """Steps per second of random play on a VectorEnv of `envs` games."""
    import chessalg

    env = chessalg.VectorEnv(path, envs)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, _, _, _ = env.step(env.random_actions())
        steps += envs
    return steps / (time.perf_counter() - start)


def state_steps(path, seconds, seed=1):
    """Steps per second of random play on chessalg's states alone."""
    import chessalg

    game = chessalg.Game(path)
    rnd = random.Random(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.start()
        plies = 0
        while not state.is_over() and plies < 1000:
            state = state.step(rnd.choice(state.legal_actions()))
            steps += 1
            plies += 1
    return steps / (time.perf_counter() - start)


def openspiel_steps(name, seconds, seed=1):
    """Steps per second of random play on OpenSpiel's game, one state at a time."""
    import pyspiel

    game = pyspiel.load_game(name)
    rnd = random.Random(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rnd.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - start)


def pettingzoo_steps(module, seconds, seed=1):
    """Steps per second of random play through PettingZoo's AEC API."""
    import importlib

    env = importlib.import_module(f"pettingzoo.classic.{module}").env()
    rng = np.random.default_rng(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"].view(bool))))
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--envs", type=int, default=256, help="games in the VectorEnv")
    ap.add_argument("--rules-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "rules"))
    args = ap.parse_args()
    print(f"{'game':13} {'batched':>12} {'states':>12} {'OpenSpiel':>12} {'PettingZoo':>12} {'batched/OS':>11}")
    for name, rules, openspiel, pettingzoo in GAMES:
        path = os.path.join(args.rules_dir, rules)
        batched = batched_steps(path, args.seconds, args.envs)
        states = state_steps(path, args.seconds)
        theirs = openspiel_steps(openspiel, args.seconds)
        pz = pettingzoo_steps(pettingzoo, args.seconds) if pettingzoo else None
        pz_text = f"{pz:10,.0f}/s" if pz else f"{'-':>12}"
        print(
            f"{name:13} {batched:10,.0f}/s {states:10,.0f}/s {theirs:10,.0f}/s {pz_text} {batched / theirs:10.1f}x",
            flush=True,
        )
    print(f"(steps per second from Python, random legal moves; batched: {args.envs} games per VectorEnv.step)")


if __name__ == "__main__":
    main()
