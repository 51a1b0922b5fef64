"""A PettingZoo AEC environment for any rule file, in the shape of
PettingZoo's classic environments: each agent observes
`{"observation": planes, "action_mask": mask}`, the rewards come when the
game ends (1 for the winner, -1 for the others, 0 in a draw), and an illegal
action ends the game as a loss for the agent that took it.

    from chessalg.pettingzoo import env
    e = env("rules/connect4.alg")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

The agents are the rule file's players. A move of more than two squares (a
checkers chain, Amazons' arrow) takes several steps of the same agent; the
observation's last plane shows the squares chosen so far.
"""

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import Game


def env(rules, **kwargs):
    """The environment of the rule file `rules`, wrapped as PettingZoo's
    classic environments are (illegal actions end the game, bounds and
    order enforced)."""
    e = raw_env(rules, **kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """The game of a rule file as an AEC environment (unwrapped)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "chessalg_v0", "is_parallelizable": False}

    def __init__(self, rules, render_mode=None, fen=None, max_plies=1000):
        super().__init__()
        self.game = rules if isinstance(rules, Game) else Game(str(rules))
        self.fen = fen
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"chessalg_{self.game.name}_v0")
        self.possible_agents = list(self.game.players)
        self.agents = self.possible_agents[:]
        n = self.game.num_actions
        shape = self.game.observation_shape
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=0.0, high=np.inf, shape=shape, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        # The state's bool mask seen as int8 (no copy), as the classic
        # environments give it; other agents than the one to act see none.
        if agent == self.agent_selection:
            mask = self.state.action_mask().view(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.state.observation(), "action_mask": mask}

    def reset(self, seed=None, options=None):
        self.state = self.game.start() if self.fen is None else self.game.from_fen(self.fen)
        self.plies = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.state.to_move
        self._ended()

    def _ended(self):
        """Ends the episode if the game is over (or long enough)."""
        if self.state.is_over():
            for a, r in zip(self.possible_agents, self.state.returns()):
                self.rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.plies >= self.max_plies:
            self.truncations = dict.fromkeys(self.agents, True)

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        self.rewards = dict.fromkeys(self.agents, 0)
        before = len(self.state.pending)
        self.state = self.state.step(int(action))
        if len(self.state.pending) <= before:
            self.plies += 1
        self.agent_selection = self.state.to_move
        self._ended()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = str(self.state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self):
        pass
