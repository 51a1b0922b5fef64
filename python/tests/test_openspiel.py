"""Every rule file as an OpenSpiel game: OpenSpiel's own random-simulation
check on each, and its MCTS bot against a random one."""
import numpy as np
import pytest

from conftest import all_rule_files, rules

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install open_spiel)")
from open_spiel.python.algorithms import mcts  # noqa: E402

from chessalg.openspiel import load  # noqa: E402


@pytest.mark.parametrize("name", all_rule_files())
def test_openspiels_random_simulation_check_passes(name):
    game = load(rules(name), max_plies=80)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_the_game_is_registered_and_its_actions_are_chessalgs():
    import chessalg

    game = pyspiel.load_game("python_chessalg", {"rules": "chess"})
    assert game.num_distinct_actions() == chessalg.Game("chess").num_actions
    state = game.new_initial_state()
    assert len(state.legal_actions()) == 20
    assert list(game.observation_tensor_shape()) == list(chessalg.Game("chess").observation_shape)
    e2e4 = chessalg.Game("chess").start().actions_of("e2e4")
    assert state.action_to_string(0, e2e4[0]) == "move e2 e4"
    state.apply_action(e2e4[0])
    assert state.current_player() == 1


def play(game, bot, seat, seed):
    """One game of `bot` in `seat` against uniformly random moves: the bot's return."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == seat:
            action = bot.step(state)
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    return state.returns()[seat]


@pytest.mark.parametrize("name, simulations, plies", [("connect4.alg", 100, 42), ("losalamos.alg", 40, 40)])
def test_openspiels_mcts_bot_plays_against_a_random_one(name, simulations, plies):
    game = load(rules(name), max_plies=plies)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 2, simulations, evaluator, random_state=np.random.RandomState(2))
    score = sum(play(game, bot, seat, seed) for seed, seat in enumerate([0, 1, 0, 1]))
    # The search wins more than it loses against moves picked at random.
    assert score > 0, f"{name}: MCTS scored {score} in 4 games"


def test_the_submodule_is_reached_from_the_package_alone():
    import subprocess
    import sys

    code = "import chessalg; print(chessalg.openspiel.load('connect4').num_distinct_actions())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(__import__("chessalg").Game("connect4").num_actions)
