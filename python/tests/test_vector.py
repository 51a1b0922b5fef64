"""chessalg.VectorEnv: many games stepped in one call, as the states play them."""
import numpy as np
import pytest

import chessalg
from conftest import rules


def random_actions(rng, mask):
    """A uniformly random legal action per row of `mask`."""
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def test_reset_and_step_give_arrays_for_every_game():
    v = chessalg.VectorEnv(rules("chess.alg"), 5)
    assert (v.num_envs, v.num_actions, v.players) == (5, chessalg.Game("chess").num_actions, ["white", "black"])
    obs, infos = v.reset(seed=1)
    assert obs["observation"].shape == (5, 8, 8, chessalg.Game("chess").observation_shape[2])
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (5, v.num_actions) and obs["action_mask"].dtype == np.bool_
    assert (obs["action_mask"].sum(axis=1) == 20).all()
    assert (infos["to_move"] == 0).all()
    out = v.step(random_actions(np.random.default_rng(1), obs["action_mask"]))
    obs, rewards, terminations, truncations, infos = out
    assert rewards.shape == (5, 2) and terminations.shape == (5,) and truncations.shape == (5,)
    assert (infos["to_move"] == 1).all() and not terminations.any()


def test_the_games_play_as_states_do_and_start_again_when_over():
    game = chessalg.Game(rules("tictactoe.alg"))
    v = chessalg.VectorEnv(game, 3)
    obs, _ = v.reset()
    states = [game.start() for _ in range(3)]
    start = game.start().observation()
    rng = np.random.default_rng(7)
    ended = 0
    for _ in range(60):
        for i, s in enumerate(states):
            assert (obs["observation"][i] == s.observation()).all()
            assert sorted(np.flatnonzero(obs["action_mask"][i])) == sorted(s.legal_actions())
        actions = random_actions(rng, obs["action_mask"])
        obs, rewards, terminations, truncations, _ = v.step(actions)
        for i in range(3):
            states[i] = states[i].step(int(actions[i]))
            if states[i].is_over():
                assert terminations[i]
                assert list(rewards[i]) == states[i].returns()
                assert (obs["observation"][i] == start).all(), "a finished game starts again"
                states[i] = game.start()
                ended += 1
            else:
                assert not terminations[i] and not rewards[i].any()
    assert ended > 5


def test_moves_of_several_actions_and_the_ply_limit():
    v = chessalg.VectorEnv(rules("amazons.alg"), 4, max_plies=6)
    obs, _ = v.reset()
    rng = np.random.default_rng(3)
    cut = 0
    for _ in range(24):
        obs, _, terminations, truncations, _ = v.step(random_actions(rng, obs["action_mask"]))
        assert obs["action_mask"].any(axis=1).all()
        cut += truncations.sum()
    # A move is two actions (the queen, the arrow): 6 moves in 12 steps.
    assert cut == 8


def test_bad_actions_are_refused_with_the_game_named():
    v = chessalg.VectorEnv("connect4", 2)
    obs, _ = v.reset()
    with pytest.raises(ValueError, match="2 actions for 2 games|actions for 2 games"):
        v.step(np.array([0, 1, 2]))
    illegal = int(np.flatnonzero(~obs["action_mask"][1])[0])
    legal = int(np.flatnonzero(obs["action_mask"][0])[0])
    with pytest.raises(ValueError, match="game 1"):
        v.step(np.array([legal, illegal]))
    after, *_ = v.step(np.array([legal, legal]))
    assert after["observation"][0].sum() == after["observation"][1].sum(), "the refused step changed nothing"
    with pytest.raises(ValueError, match="no action"):
        v.step(np.array([10**6, 10**6]))
    with pytest.raises(ValueError):
        chessalg.VectorEnv("connect4", 0)


def test_random_actions_are_legal_and_follow_the_seed():
    v = chessalg.VectorEnv(rules("checkers.alg"), 6)
    obs, _ = v.reset(seed=5)
    first = []
    for _ in range(30):
        actions = v.random_actions()
        assert obs["action_mask"][np.arange(6), actions].all()
        first.append(actions)
        obs, *_ = v.step(actions)
    v.reset(seed=5)
    assert all((v.random_actions() == a).all() for a in first[:1])
