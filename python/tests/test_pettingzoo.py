"""PettingZoo's own API test on every rule file, and a game through the AEC loop."""
import warnings

import numpy as np
import pytest

from conftest import all_rule_files, rules

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

from chessalg.pettingzoo import env  # noqa: E402


@pytest.mark.parametrize("name", all_rule_files())
def test_pettingzoo_api_test_passes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(rules(name)), num_cycles=300, verbose_progress=False)


def test_a_game_through_the_aec_loop_gives_the_winner_its_reward():
    e = env(rules("connect4.alg"))
    e.reset(seed=1)
    assert e.possible_agents == ["red", "yellow"]
    rng = np.random.default_rng(1)
    rewards = {a: 0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        rewards[agent] += reward
        if termination or truncation:
            action = None
        else:
            assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    assert sorted(rewards.values()) in ([-1, 1], [0, 0])


def test_an_illegal_action_ends_the_game_as_a_loss():
    e = env(rules("tictactoe.alg"))
    e.reset()
    # At the start every square is legal; after one mark, its square is not.
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


def test_the_submodule_is_reached_from_the_package_alone():
    # A fresh interpreter, so that no other test has imported it by name.
    import subprocess
    import sys

    code = "import chessalg; e = chessalg.pettingzoo.env('connect4'); e.reset(seed=1); print(e.agents)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['red', 'yellow']"
