//! A game in progress between humans, the AI and the random player: the
//! moves so far, undo, whose turn, the legal moves in SAN, the ending, and
//! the record as PGN. Front ends (line mode, the terminal board) drive it and
//! do the printing.

mod clock;
pub mod journal;

use std::time::{Duration, Instant};

pub use clock::{Clock, TimeControl, TimeControlError, clock_text, now_ms};

use std::sync::Arc;

use crate::ai::{Ai, Budget, Choice, Weights};
use crate::core::PlayerId;
use crate::core::Rng;
use crate::engine::Cache;
use crate::game::{Action, Ended, Ending, Game, PgnTags, PlayError, Reason, State, pgn};

/// The PGN tag that says who plays each player, in turn order (`human ai`).
pub const SEATS_TAG: &str = "Seats";
/// The PGN tag of the clock a match is played on (seconds `+` increment).
pub const TIME_CONTROL_TAG: &str = "TimeControl";

/// Who makes a player's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    /// A person, typing or picking moves.
    Human,
    /// The alpha-beta AI.
    Ai,
    /// A uniformly random legal move.
    Random,
}

impl Controller {
    /// The name PGN's player tags use.
    pub fn label(self) -> &'static str {
        match self {
            Controller::Human => "Human",
            Controller::Ai => "chessalg AI",
            Controller::Random => "Random mover",
        }
    }

    /// The word the command line and a saved game's `Seats` tag use:
    /// `human`, `ai` or `random`.
    pub fn word(self) -> &'static str {
        match self {
            Controller::Human => "human",
            Controller::Ai => "ai",
            Controller::Random => "random",
        }
    }

    /// The controller a word of [`Controller::word`] names.
    pub fn from_word(word: &str) -> Option<Controller> {
        [Controller::Human, Controller::Ai, Controller::Random]
            .into_iter()
            .find(|c| c.word() == word)
    }
}

/// How a match stands after the last move.
#[derive(Clone, Debug)]
pub struct Status {
    /// The legal moves of the player to move.
    pub legal: Vec<Action>,
    /// Their SAN, in the same order.
    pub sans: Vec<String>,
    /// Whether a royal piece of the player to move is attacked.
    pub in_check: bool,
    /// How the game ended, if it did: who won, by which rule, and what the
    /// rule file calls it.
    pub ending: Option<Ended>,
}

/// A match: the game, where it started, every move since, and who plays whom.
pub struct Session {
    /// The game.
    pub game: Arc<Game>,
    /// The position it started from.
    pub start: State,
    /// The state before each move, then the current one (never empty).
    pub states: Vec<State>,
    /// The moves played.
    pub actions: Vec<Action>,
    /// Who plays each side, in turn order.
    pub controllers: Vec<Controller>,
    /// The AI's budget per move.
    pub budget: Budget,
    /// The players' clocks, if the match is played on a clock.
    pub clock: Option<Clock>,
    /// One AI per player (each its own table and, maybe, weights).
    ais: Vec<Ai>,
    rng: Rng,
    /// Scratch space for the game's searches.
    pub cache: Cache,
    /// More tag pairs for the record (a journal's `Rules`), after the
    /// `Seats` and `TimeControl` tags the match writes itself.
    pub tags: Vec<(String, String)>,
}

/// What the AI or the random player chose.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The index of the move among the legal ones.
    pub index: usize,
    /// The AI's findings (none for the random player).
    pub choice: Option<Choice>,
    /// How long choosing took.
    pub elapsed: Duration,
}

impl Session {
    /// A match from `start`; `seed` fixes the random player's and the AI's choices.
    pub fn new(
        game: Arc<Game>,
        start: State,
        controllers: Vec<Controller>,
        budget: Budget,
        seed: u64,
    ) -> Session {
        let mut cache = Cache::new();
        if controllers.contains(&Controller::Ai) {
            // Worked out now, so the AI's first move keeps its whole time budget.
            game.prospects(&mut cache);
        }
        Session {
            ais: (0..game.players().len()).map(|_| Ai::new(seed ^ 0xA1)).collect(),
            game,
            states: vec![start.clone()],
            start,
            actions: Vec::new(),
            controllers,
            budget,
            clock: None,
            rng: Rng::new(seed),
            cache,
            tags: Vec::new(),
        }
    }

    /// The AI of each player scores positions with these learned weights
    /// (in turn order; `None`: the declared values).
    pub fn with_weights(mut self, weights: &[Option<Arc<Weights>>]) -> Session {
        for (ai, w) in self.ais.iter_mut().zip(weights) {
            *ai = std::mem::replace(ai, Ai::new(0)).with_weights(w.clone());
        }
        self
    }

    /// This match played on a clock: each player's time runs on their turn
    /// (the player to move's from now), the AI spends a share of what it
    /// has left, and a player whose time runs out loses.
    pub fn with_clock(mut self, control: TimeControl) -> Session {
        let mut clock = Clock::new(control, self.game.players().len());
        clock.start(now_ms());
        self.clock = Some(clock);
        self
    }

    /// Each player's time left (`white 4:59.3  black 5:00.0`), if there is a clock.
    pub fn clock_line(&self) -> Option<String> {
        let clock = self.clock.as_ref()?;
        let (turn, now) = (self.state().turn(), now_ms());
        let parts: Vec<String> = self
            .game
            .players()
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{name} {}", clock_text(clock.left(PlayerId::new(i), turn, now))))
            .collect();
        Some(parts.join("  "))
    }

    /// The end of the match if a player's time ran out: the next player wins.
    fn time_loss(&self) -> Option<(Ending, Reason)> {
        let p = self.clock.as_ref()?.flagged()?;
        Some((Ending::Win(p.next(self.game.players().len())), Reason::Time))
    }

    /// The current state.
    pub fn state(&self) -> &State {
        self.states.last().expect("a match always has a state")
    }

    /// Who moves now.
    pub fn controller(&self) -> Controller {
        self.controllers
            .get(self.state().turn().index())
            .copied()
            .unwrap_or(Controller::Ai)
    }

    /// The legal moves, their SAN, check and the ending.
    pub fn status(&mut self) -> Result<Status, PlayError> {
        let state = self.states.last().expect("a match always has a state").clone();
        let legal = self.game.legal_actions(&state, &mut self.cache)?;
        let sans = self.game.san_all(&state, &legal, &mut self.cache)?;
        let in_check = self
            .game
            .royal_attacked(state.position(), state.turn(), &mut self.cache)?;
        let ending = match self.time_loss() {
            Some((ending, reason)) => Some(Ended {
                ending,
                reason,
                name: None,
                detail: None,
            }),
            None => self.game.ended(&state, &legal, &mut self.cache)?,
        };
        Ok(Status {
            legal,
            sans,
            in_check,
            ending,
        })
    }

    /// Plays a legal move now.
    pub fn push(&mut self, action: Action) {
        self.push_at(action, now_ms());
    }

    /// Plays a legal move at `now` (milliseconds, see [`now_ms`]): the
    /// mover's clock is charged up to then.
    pub fn push_at(&mut self, action: Action, now: u64) {
        let mover = self.state().turn();
        if let Some(clock) = &mut self.clock {
            clock.moved(mover, now);
        }
        let next = self.game.play(self.state(), &action);
        self.actions.push(action);
        self.states.push(next);
    }

    /// Takes back the last move, and then the moves of players who are not
    /// human until a human is to move again (or the start is reached).
    /// Returns how many moves were taken back.
    pub fn undo(&mut self) -> usize {
        let mut n = 0;
        while !self.actions.is_empty() {
            self.actions.pop();
            self.states.pop();
            n += 1;
            if self.controller() == Controller::Human || !self.controllers.contains(&Controller::Human) {
                break;
            }
        }
        if let Some(clock) = &mut self.clock {
            clock.restart(now_ms());
        }
        n
    }

    /// The AI's or the random player's move (`legal` not empty).
    pub fn decide(&mut self, legal: &[Action]) -> Result<Decision, PlayError> {
        let started = Instant::now();
        let state = self.state().clone();
        let (index, choice) = match self.controller() {
            Controller::Random => (self.rng.below(legal.len()), None),
            _ => {
                let mut budget = self.budget;
                if let Some(clock) = &self.clock {
                    let share = clock.allowance(state.turn(), now_ms());
                    budget.time = Some(budget.time.map_or(share, |t| t.min(share)));
                }
                let c = self.ais[state.turn().index()].choose(
                    &self.game,
                    &state,
                    legal,
                    budget,
                    &mut self.cache,
                )?;
                (c.index, Some(c))
            }
        };
        Ok(Decision {
            index,
            choice,
            elapsed: started.elapsed(),
        })
    }

    /// Plays on without humans until the game ends (its ending) or `max_plies`
    /// moves have been played in all (`None`). Moves are not named, so this
    /// is what many-game matches use.
    pub fn play_out(&mut self, max_plies: Option<usize>) -> Result<Option<(Ending, Reason)>, PlayError> {
        loop {
            let state = self.state().clone();
            let legal = self.game.legal_actions(&state, &mut self.cache)?;
            if let Some(loss) = self.time_loss() {
                return Ok(Some(loss));
            }
            if let Some(ending) = self.game.ending_reason(&state, &legal, &mut self.cache)? {
                return Ok(Some(ending));
            }
            if max_plies.is_some_and(|n| self.actions.len() >= n) {
                return Ok(None);
            }
            let d = self.decide(&legal)?;
            self.push(legal[d.index].clone());
        }
    }

    /// Plays up to `plies` uniformly random legal moves from the current
    /// state (fewer if the game ends), drawn with `seed`: an opening that
    /// varies many games between the same deterministic players.
    pub fn random_opening(&mut self, plies: usize, seed: u64) -> Result<(), PlayError> {
        let mut rng = Rng::new(seed);
        for _ in 0..plies {
            let state = self.state().clone();
            let legal = self.game.legal_actions(&state, &mut self.cache)?;
            if self
                .game
                .ending_reason(&state, &legal, &mut self.cache)?
                .is_some()
            {
                break;
            }
            let pick = legal[rng.below(legal.len())].clone();
            self.push(pick);
        }
        Ok(())
    }

    /// The game so far as PGN, with `ending` as its result and `termination` as a closing comment.
    pub fn pgn(&mut self, ending: Option<Ending>, termination: Option<String>) -> Result<String, PlayError> {
        let players = self
            .controllers
            .iter()
            .zip(self.game.players())
            .map(|(c, name)| format!("{} ({name})", c.label()))
            .collect();
        let seats = self.controllers.iter().map(|c| c.word()).collect::<Vec<_>>();
        let mut extra = vec![(SEATS_TAG.to_string(), seats.join(" "))];
        if let Some(clock) = &self.clock {
            extra.push((TIME_CONTROL_TAG.to_string(), clock.control().to_string()));
        }
        extra.extend(self.tags.iter().cloned());
        let tags = PgnTags {
            event: Some(format!("{}: chessalg play", self.game.name())),
            date: Some(pgn::today()),
            players,
            termination,
            extra,
        };
        self.game
            .pgn(&self.start, &self.actions, ending, &tags, &mut self.cache)
    }
}
