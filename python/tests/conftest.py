import os

import pytest

RULES = os.path.join(os.path.dirname(__file__), "..", "..", "rules")


def rules(name):
    """The path of a rule file of the repository."""
    return os.path.join(RULES, name)


def all_rule_files():
    """Every game of rules/ (prelude.alg is a library, not a game)."""
    return sorted(f for f in os.listdir(RULES) if f.endswith(".alg") and f != "prelude.alg")


@pytest.fixture
def chess():
    import chessalg
    return chessalg.Game(rules("chess.alg"))
