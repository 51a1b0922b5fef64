"""chessalg for Python: every rule file of the chess algebra as a game.

    import chessalg
    game = chessalg.Game("rules/chess.alg")      # or a bundled name: "chess"
    state = game.start()
    state = state.play("e2e4")                  # names as `chessalg moves` prints them, or SAN
    state.legal_moves(), state.to_move, state.is_over(), state.outcome(), state.fen()

For learning, each rule file has a fixed, compact action space
(`game.num_actions`): a move is one action (a start square and a square at
one of the displacements its pieces make), then one per further square
clicked and a choice where moves share their squares (a promotion's piece),
the same player acting until the move is complete (`state.pending`).
`state.legal_actions()`, `state.action_mask()`, `state.step(action)`,
`state.observation()` (planes, shape `game.observation_shape`),
`state.actions_of(name)`, `state.move_of(actions)`, `game.describe_action(a)`.

`chessalg.VectorEnv(path, num_envs)` steps many games at once in Rust (in
the shape of gymnasium's vector environments), `chessalg.pettingzoo.env(path)`
is a PettingZoo AEC environment and `chessalg.openspiel.load(path)` an
OpenSpiel game.
"""

from ._chessalg import Game, State, VectorEnv

__all__ = ["Game", "State", "VectorEnv"]

# The submodules that need packages of their own (PettingZoo, Ray) are
# imported when first named: `import chessalg` then `chessalg.pettingzoo.env(path)`.
_SUBMODULES = ("pettingzoo", "distributed", "openspiel")


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'chessalg' has no attribute {name!r}")
