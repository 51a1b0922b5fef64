"""Every rule file as an OpenSpiel game (`pip install open_spiel`).

    from chessalg.openspiel import load
    game = load("rules/connect4.alg")            # or a bundled name: "chess"
    state = game.new_initial_state()
    state.legal_actions(), state.apply_action(a), state.returns()

The game is registered with OpenSpiel as `python_chessalg`, so
`pyspiel.load_game("python_chessalg", {"rules": "chess"})` gives it too,
and OpenSpiel's algorithms take it: its MCTS bot, `pyspiel.random_sim_test`,
CFR on small games, AlphaZero. The actions are those of `chessalg.Game`'s
compact action space (`game.num_distinct_actions()` is its `num_actions`):
a move is one action or a few (the move then the promotion's piece, a
checkers chain jump by jump), the same player acting until the move is
complete. The observation tensor is `chessalg.State.observation()`'s planes
(shape `game.observation_tensor_shape()`). A game that reaches `max_plies`
moves ends as a draw.
"""

import numpy as np
import pyspiel

from . import Game

_SHORT_NAME = "python_chessalg"

_GAME_TYPE = pyspiel.GameType(
    short_name=_SHORT_NAME,
    long_name="A chessalg rule file",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "tictactoe", "max_plies": 1000},
)

# The most actions one move takes, for OpenSpiel's bound on a game's
# length: a move, a choice, and clicks beyond (a long checkers chain).
_ACTIONS_PER_MOVE = 16


def load(rules, max_plies=1000):
    """The OpenSpiel game of the rule file `rules` (a path or a bundled
    name such as "chess"), ending as a draw after `max_plies` moves."""
    return ChessalgGame({"rules": str(rules), "max_plies": int(max_plies)})


class ChessalgGame(pyspiel.Game):
    """A rule file as an OpenSpiel game."""

    def __init__(self, params=None):
        params = dict(params or {})
        rules = params.get("rules", "tictactoe")
        max_plies = int(params.get("max_plies", 1000))
        self.game = Game(rules)
        if len(self.game.players) != 2:
            raise ValueError(
                f"{rules}: OpenSpiel's chessalg games are for two players; this one has {len(self.game.players)}"
            )
        self.max_plies = max_plies
        info = pyspiel.GameInfo(
            num_distinct_actions=self.game.num_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_plies * _ACTIONS_PER_MOVE,
        )
        super().__init__(_GAME_TYPE, info, {"rules": str(rules), "max_plies": max_plies})

    def new_initial_state(self):
        """The rule file's start."""
        return ChessalgState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the planes (the game is of perfect information:
        every player sees the same)."""
        return Observer(self.game, params)


class ChessalgState(pyspiel.State):
    """A position of a rule file's game, with the move being made."""

    def __init__(self, game):
        super().__init__(game)
        self._state = game.game.start()
        self._plies = 0
        self._actions = 0
        self._max_plies = game.max_plies
        self._max_actions = game.max_plies * _ACTIONS_PER_MOVE
        self._cut = False

    def _over(self):
        return self._cut or self._state.is_over()

    def current_player(self):
        """The player to move, or TERMINAL once the game is over."""
        return pyspiel.PlayerId.TERMINAL if self._over() else self._state.to_move_index

    def _legal_actions(self, player):
        return sorted(self._state.legal_actions())

    def _apply_action(self, action):
        before = len(self._state.pending)
        self._state = self._state.step(int(action))
        self._actions += 1
        if len(self._state.pending) <= before:
            self._plies += 1
        if not self._state.is_over() and (self._plies >= self._max_plies or self._actions >= self._max_actions):
            self._cut = True

    def _action_to_string(self, player, action):
        return " ".join(self.get_game().game.describe_action(int(action)))

    def is_terminal(self):
        """Whether the game is over (or reached its length)."""
        return self._over()

    def returns(self):
        """1 for the winner, -1 for the other, 0 each in a draw and while
        the game goes on."""
        if self._cut:
            return [0.0, 0.0]
        return list(self._state.returns())

    def fen(self):
        """The position as FEN."""
        return self._state.fen()

    def __str__(self):
        pending = self._state.pending
        return str(self._state) + (f"\n(move being made: actions {pending})" if pending else "")


class Observer:
    """The observation planes of `chessalg.State.observation()`, as a flat
    tensor and a shaped view (`dict["observation"]`)."""

    def __init__(self, game, params):
        if params:
            raise ValueError(f"Observation parameters not supported; passed {params}")
        shape = game.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}

    def set_from(self, state, player):
        """The planes of `state` (the same for either player)."""
        del player
        self.tensor[:] = state._state.observation().ravel()

    def string_from(self, state, player):
        """The position as `chessalg show` draws it."""
        del player
        return str(state)


pyspiel.register_game(_GAME_TYPE, ChessalgGame)
