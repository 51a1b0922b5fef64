"""The game layer from Python: names, play, outcomes, FEN, errors."""
import copy
import random

import numpy as np
import pytest

import chessalg
from conftest import all_rule_files, rules


def test_a_game_has_its_players_and_start(chess):
    assert chess.name == "Chess"
    assert chess.players == ["white", "black"]
    s = chess.start()
    assert s.to_move == "white" and s.to_move_index == 0
    assert len(s.legal_moves()) == 20
    assert s.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert not s.is_over() and s.outcome() is None and s.returns() == [0.0, 0.0]


def test_moves_are_named_as_the_command_line_names_them(chess):
    s = chess.start().play("e2e4").play("e5").play("Nf3")
    assert s.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert "b8c6" in s.legal_moves()


def test_fools_mate_ends_the_game_with_returns(chess):
    s = chess.start()
    for m in ["f3", "e5", "g4", "Qh4"]:
        s = s.play(m)
    assert s.is_over()
    winner, reason = s.outcome()
    assert winner == "black" and "royal piece attacked" in reason
    assert s.returns() == [-1.0, 1.0]
    assert s.legal_moves() == [] and s.legal_actions() == []
    with pytest.raises(ValueError, match="the game is over"):
        s.play("a3")


def test_states_do_not_change_and_copy_cheaply(chess):
    s = chess.start()
    t = s.play("e4")
    assert s.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP")
    assert copy.copy(t).fen() == t.fen() == copy.deepcopy(t).fen()


def test_bad_input_raises_with_the_command_lines_message(chess, tmp_path):
    with pytest.raises(ValueError, match="`e2e5` is not a legal move"):
        chess.start().play("e2e5")
    with pytest.raises(ValueError, match="bad FEN"):
        chess.from_fen("8/8 w")
    with pytest.raises(OSError, match="cannot read"):
        chessalg.Game(str(tmp_path / "missing.alg"))
    bad = tmp_path / "bad.alg"
    bad.write_text("game Bad\nplayers a b\nboard\n  ..\nmoves a = (. -> ♙\n")
    with pytest.raises(ValueError) as e:
        chessalg.Game(str(bad))
    assert "bad.alg" in str(e.value)
    with pytest.raises(ValueError, match="not legal here"):
        chess.start().step(0)
    with pytest.raises(ValueError):
        chess.describe_action(chess.num_actions)


def test_a_bundled_game_loads_by_name():
    assert chessalg.Game("connect4").name == chessalg.Game(rules("connect4.alg")).name


def test_actions_play_the_moves_they_encode(chess):
    s = chess.from_fen("k7/4P3/8/8/8/8/8/7K w - - 0 1")
    acts = s.actions_of("e7e8n")
    assert [chess.describe_action(a) for a in acts] == [["move", "e7", "e8"], ["choose", "♘"]]
    assert s.move_of(acts) == "e7e8n"
    assert s.step(acts[0]).step(acts[1]).fen() == s.play("e7e8n").fen()
    assert len(s.actions_of("h1g1")) == 1, "a move that is not a promotion is one action"
    mask = s.action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (chess.num_actions,)
    assert sorted(np.flatnonzero(mask)) == sorted(s.legal_actions())


def test_a_checkers_chain_takes_one_action_per_jump():
    g = chessalg.Game(rules("checkers.alg"))
    s = g.from_fen("B:W14,22,23,30:B9")
    first = s.legal_actions()
    assert len(first) == 1
    mid = s.step(first[0])
    assert mid.to_move == "black" and mid.pending == first
    assert mid.fen() == s.fen()
    assert len(mid.legal_actions()) == 2
    assert mid.observation()[..., -1].sum() == 2, "the chosen jump's squares are marked"
    done = mid.step(mid.legal_actions()[1])
    assert done.pending == [] and done.to_move == "white"
    assert s.move_of(first + [mid.legal_actions()[1]]) in ("9x18x25", "9x18x27")


def test_observations_have_the_games_shape():
    for name in ["chess.alg", "crazyhouse.alg", "checkers.alg", "xiangqi.alg", "hex.alg"]:
        g = chessalg.Game(rules(name))
        o = g.start().observation()
        assert o.shape == g.observation_shape and o.dtype == np.float32, name


@pytest.mark.parametrize("name", all_rule_files())
def test_random_games_by_actions_reach_an_end_or_go_on_legally(name):
    g = chessalg.Game(rules(name))
    rnd = random.Random(3)
    s = g.start()
    for _ in range(300):
        if s.is_over():
            assert s.outcome() is not None
            assert sum(s.returns()) <= 0
            break
        acts = s.legal_actions()
        assert acts, name
        s = s.step(rnd.choice(acts))
