"""Self-play learning from Python: trajectories, TD(λ) steps, the Ray driver."""
import json

import pytest

import chessalg
from conftest import rules


def test_self_play_and_learn_change_the_weights():
    g = chessalg.Game(rules("connect4.alg"))
    start = g.initial_weights()
    trajectories = [g.self_play(start, seed) for seed in range(8)]
    t = json.loads(trajectories[0])
    assert t["positions"] and -1.0 <= t["last"] <= 1.0
    learned = g.learn(start, trajectories)
    assert json.loads(learned)["games"] == 8
    assert json.loads(learned)["squares"] != json.loads(start)["squares"]
    assert 0.0 <= g.compare(learned, start, games=4) <= 1.0


def test_bad_weights_and_trajectories_raise():
    g = chessalg.Game(rules("connect4.alg"))
    other = chessalg.Game(rules("checkers.alg")).initial_weights()
    with pytest.raises(ValueError, match="Checkers"):
        g.self_play(other, 1)
    with pytest.raises(ValueError, match="not weights JSON"):
        g.learn("{", [])
    with pytest.raises(ValueError, match="not a trajectory"):
        g.learn(g.initial_weights(), ["[1, 2]"])
    # A trajectory naming features the weights lack is learned from, not a crash.
    odd = json.dumps({"positions": [[[[10**6, 1.0], [0, 1.0]], 0]], "last": 5.0})
    json.loads(g.learn(g.initial_weights(), [odd]))


def test_the_ray_driver_trains_in_a_local_ray():
    pytest.importorskip("ray")
    from chessalg.distributed import train

    seen = []
    weights = train(rules("tictactoe.alg"), games=32, batch=16, num_cpus=2,
                    progress=lambda done, w: seen.append(done))
    assert seen == [16, 32]
    w = json.loads(weights)
    assert w["game"] == "Tic-tac-toe"
    assert w["games"] == 32
    g = chessalg.Game(rules("tictactoe.alg"))
    assert 0.0 <= g.compare(weights, g.initial_weights(), games=4) <= 1.0


def test_a_rule_file_names_its_weights():
    w = json.loads(chessalg.Game(rules("checkers.alg")).declared_weights())
    assert w["game"] == "Checkers" and w["games"] > 0
    assert chessalg.Game(rules("chess.alg")).declared_weights() is None
    # Weights written before the threat features still load (as zeros).
    g = chessalg.Game(rules("connect4.alg"))
    old = json.loads(g.initial_weights())
    del old["threats"]
    assert 0.0 <= g.compare(json.dumps(old), g.initial_weights(), games=2) <= 1.0
