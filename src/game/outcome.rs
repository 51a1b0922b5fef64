//! Outcomes: whether a game has ended, how, and why, by the rule file's
//! `outcome` lines.

use crate::core::Content;
use crate::core::PieceId;
use crate::decl::{Condition, Verdict};
use crate::engine::{Cache, Position};

use super::{Action, Candidates, CompiledOutcome, Ended, Ending, Game, PlayError, Reason, State};
use crate::core::PlayerId;

impl Game {
    /// How the game stands: ended (and how) or not, given the legal moves.
    pub fn ending(
        &self,
        state: &State,
        legal: &[Action],
        cache: &mut Cache,
    ) -> Result<Option<Ending>, PlayError> {
        Ok(self.ending_reason(state, legal, cache)?.map(|(e, _)| e))
    }

    /// How the game stands, with the outcome rule that ended it.
    pub fn ending_reason(
        &self,
        state: &State,
        legal: &[Action],
        cache: &mut Cache,
    ) -> Result<Option<(Ending, Reason)>, PlayError> {
        self.judge(state, cache, Some(legal.is_empty()))
    }

    /// How the game stands, as results show it: the ending, its rule, the
    /// rule's name and, for a count, each player's count.
    pub fn ended(
        &self,
        state: &State,
        legal: &[Action],
        cache: &mut Cache,
    ) -> Result<Option<Ended>, PlayError> {
        let Some((ending, reason, i)) = self.judge_at(state, cache, Some(legal.is_empty()))? else {
            return Ok(None);
        };
        let outcome = &self.outcomes[i];
        let counts = match &outcome.verdict {
            Verdict::Majority(counted) => {
                Some(self.owned_sums(state.position(), |p| if counted.contains(&p) { 1.0 } else { 0.0 }))
            }
            Verdict::Points(bonus) => Some(self.point_sums(state.position(), *bonus)),
            _ => None,
        };
        let detail = counts.map(|c| c.iter().map(|n| format!("{n}")).collect::<Vec<_>>().join("-"));
        Ok(Some(Ended {
            ending,
            reason,
            name: outcome.name.clone(),
            detail,
        }))
    }

    /// How the game stands at `state` when whether the player to move has no
    /// legal move is `no_moves` (searched for, if a rule needs it, when `None`).
    pub fn ending_known(
        &self,
        state: &State,
        no_moves: Option<bool>,
        cache: &mut Cache,
    ) -> Result<Option<Ending>, PlayError> {
        Ok(self.judge(state, cache, no_moves)?.map(|(e, _)| e))
    }

    /// Whether an outcome rule asks if the player to move has no legal move.
    pub fn ends_without_moves(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| matches!(o.condition, Condition::NoMoves { .. }))
    }

    /// Whether the game ended at `state` by an outcome that ends it at once
    /// whatever the players do: an `outcome when ...` pattern that holds, or
    /// a `repetition`, `quiet` or `material` outcome marked `automatic`.
    /// What perft counts as a position without children; "no legal move"
    /// needs no test (it has none), and unmarked `repetition`, `quiet` and
    /// `material` are the kind of rule perft tables leave out.
    pub fn ends_tree(&self, state: &State, cache: &mut Cache) -> Result<bool, PlayError> {
        for o in &self.outcomes {
            if o.automatic
                && o.turn.is_none_or(|p| p == state.turn())
                && !matches!(o.condition, Condition::NoMoves { .. })
                && self.holds(&o.condition, state, cache, &mut None)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether an outcome's `when` move has a result for the player to move.
    fn when_holds(&self, when: usize, state: &State, cache: &mut Cache) -> Result<bool, PlayError> {
        Ok(self
            .engine
            .pattern_holds(when, state.turn().index(), state.position(), cache, &self.limits)?)
    }

    /// Whether some `outcome when ...` line can end the game in a win: a
    /// pattern a single quiet move may complete, which a search should look
    /// for one move past its horizon.
    pub fn wins_by_pattern(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| matches!(o.condition, Condition::When(_)) && !matches!(o.verdict, Verdict::Draw))
    }

    /// A legal move of `moves` (the moves of `state`) after which the game has
    /// ended in the mover's win, if there is one: the AI's look one move past
    /// its horizon. Each reply position is only searched as far as its
    /// outcome rules need (a check before "no legal move", one legal move).
    pub fn winning_move(
        &self,
        state: &State,
        moves: &Candidates,
        cache: &mut Cache,
    ) -> Result<Option<usize>, PlayError> {
        let mut next = state.clone();
        for (i, action) in moves.actions.iter().enumerate() {
            let Some(undo) = self.try_make(&mut next, action, moves, cache)? else {
                continue;
            };
            let won = self.won_by(&next, state.turn(), cache)?;
            self.unmake(&mut next, undo);
            if won {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// Whether the game has ended at `state` in `player`'s win, searching the
    /// position only as far as the outcome rules need.
    pub(super) fn won_by(
        &self,
        state: &State,
        player: PlayerId,
        cache: &mut Cache,
    ) -> Result<bool, PlayError> {
        let ending = self.judge(state, cache, None)?;
        Ok(matches!(ending, Some((Ending::Win(p), _)) if p == player))
    }

    /// The first outcome rule that holds in `state`. Whether the player to
    /// move has no legal move is `known`, or searched for (up to the first
    /// legal move) only when a rule needs to know, after the cheaper
    /// royal-attacked test.
    fn judge(
        &self,
        state: &State,
        cache: &mut Cache,
        known: Option<bool>,
    ) -> Result<Option<(Ending, Reason)>, PlayError> {
        Ok(self.judge_at(state, cache, known)?.map(|(e, r, _)| (e, r)))
    }

    /// [`Game::judge`], with the index of the outcome rule that holds.
    fn judge_at(
        &self,
        state: &State,
        cache: &mut Cache,
        mut known: Option<bool>,
    ) -> Result<Option<(Ending, Reason, usize)>, PlayError> {
        for (
            i,
            CompiledOutcome {
                condition,
                verdict,
                turn,
                written,
                ..
            },
        ) in self.outcomes.iter().enumerate()
        {
            if turn.is_some_and(|p| p != state.turn()) {
                continue;
            }
            // `extinct` and `bare` judge the player who ran out, not the
            // player to move.
            let subject = match condition {
                Condition::Extinct(_) | Condition::Bare(_) => match self.ran_out(condition, state) {
                    Some(p) => p,
                    None => continue,
                },
                _ if self.holds(condition, state, cache, &mut known)? => state.turn(),
                _ => continue,
            };
            let ending = match verdict {
                Verdict::Win(Some(p)) => Ending::Win(*p),
                Verdict::Win(None) => Ending::Win(subject),
                Verdict::Loss => Ending::Win(self.next_turn(subject)),
                Verdict::Draw => Ending::Draw,
                Verdict::Majority(counted) => self.majority(state.position(), counted),
                Verdict::Points(bonus) => self.points(state.position(), *bonus),
            };
            let reason = match condition {
                Condition::NoMoves { checked } => Reason::NoMoves { checked: *checked },
                Condition::Repetition(n) => Reason::Repetition(*n),
                Condition::Quiet(n) => Reason::Quiet(*n),
                Condition::Material { .. } => Reason::Material,
                Condition::Extinct(_) => Reason::Extinct,
                Condition::Bare(_) => Reason::Bare,
                Condition::Passes(n) => Reason::Passes(*n),
                Condition::When(_) | Condition::WhenFor(..) => Reason::When(written.clone()),
            };
            return Ok(Some((ending, reason, i)));
        }
        Ok(None)
    }

    /// Whether an outcome's condition holds at `state`; `known` is whether
    /// the player to move has no legal move, once that is known.
    fn holds(
        &self,
        condition: &Condition<usize>,
        state: &State,
        cache: &mut Cache,
        known: &mut Option<bool>,
    ) -> Result<bool, PlayError> {
        Ok(match condition {
            Condition::NoMoves { checked } => {
                *known != Some(false)
                    && (!checked || self.royal_attacked(state.position(), state.turn(), cache)?)
                    && match *known {
                        Some(v) => v,
                        None => *known.insert(!self.has_legal(state, cache)?),
                    }
            }
            Condition::Repetition(n) => state.occurrences() >= *n as usize,
            Condition::Quiet(n) => state.quiet_plies() >= *n,
            Condition::Material {
                exact,
                any,
                same_colour,
            } => self.material_matches(state.position(), exact, any, *same_colour),
            Condition::Extinct(_) | Condition::Bare(_) => self.ran_out(condition, state).is_some(),
            Condition::Passes(n) => state.passes() >= *n,
            Condition::When(p) => self.when_holds(*p, state, cache)?,
            Condition::WhenFor(p, n) => self
                .when_for_patterns
                .iter()
                .position(|q| q == p)
                .is_some_and(|i| state.runs()[i] >= *n),
        })
    }

    /// The player an `extinct` or `bare` condition holds for at `state`: the
    /// players who just moved first (in the order before the player to move),
    /// the player to move last.
    fn ran_out(&self, condition: &Condition<usize>, state: &State) -> Option<PlayerId> {
        let n = self.players.len();
        let counts = self.piece_counts(state.position());
        let owned = |p: PieceId, q: PlayerId| self.info[p.index()].owner == Some(q);
        let kind_of = |k: PieceId| [Some(k), self.pieces.partner(k)];
        let turn = state.turn().index();
        (1..=n)
            .map(|back| PlayerId::new((turn + n - back % n) % n))
            .find(|&q| match condition {
                Condition::Extinct(kinds) => kinds.iter().any(|&k| {
                    let mine: Vec<PieceId> = kind_of(k)
                        .into_iter()
                        .flatten()
                        .filter(|&m| owned(m, q))
                        .collect();
                    !mine.is_empty() && mine.iter().all(|m| counts[m.index()] == 0)
                }),
                Condition::Bare(kinds) => {
                    let listed = |p: PieceId| kinds.iter().any(|&k| kind_of(k).contains(&Some(p)));
                    let beyond = |who: &dyn Fn(PlayerId) -> bool| -> u32 {
                        self.pieces
                            .ids()
                            .filter(|&p| !listed(p) && self.info[p.index()].owner.is_some_and(who))
                            .map(|p| counts[p.index()])
                            .sum()
                    };
                    // The other side must have more; two more when the bare
                    // player is to move, who could bare the other in return.
                    let need = if q == state.turn() { 2 } else { 1 };
                    beyond(&|o| o == q) == 0 && beyond(&|o| o != q) >= need
                }
                _ => false,
            })
    }

    /// How many of each piece there are, on the board and in every box.
    fn piece_counts(&self, position: &Position) -> Vec<u32> {
        let mut counts = vec![0u32; self.pieces.len()];
        for (_, c) in position.squares() {
            if let Content::Piece(p, _) = c {
                counts[p.index()] += 1;
            }
        }
        for b in 0..self.pieces.box_count() {
            for p in self.pieces.ids() {
                counts[p.index()] +=
                    u32::from(position.tally(self.pieces.slot(crate::core::BoxId(b as u16), p)));
            }
        }
        counts
    }

    /// The player who owns most of the `counted` pieces on the board, or a
    /// draw when no player has more than every other.
    fn majority(&self, position: &Position, counted: &[PieceId]) -> Ending {
        let per_player = self.owned_sums(position, |p| if counted.contains(&p) { 1.0 } else { 0.0 });
        match sole_leader(&per_player) {
            Some(i) if per_player[i] > 0.0 => Ending::Win(PlayerId::new(i)),
            _ => Ending::Draw,
        }
    }

    /// The player whose pieces on the board are worth most (their `value`s;
    /// `bonus`: a player given that much more), or a draw when no player
    /// has more than every other.
    fn points(&self, position: &Position, bonus: Option<(PlayerId, f64)>) -> Ending {
        let per_player = self.point_sums(position, bonus);
        match sole_leader(&per_player) {
            Some(i) => Ending::Win(PlayerId::new(i)),
            None => Ending::Draw,
        }
    }

    /// Per player, the values of the pieces they own on the board, `bonus`
    /// given to a player.
    fn point_sums(&self, position: &Position, bonus: Option<(PlayerId, f64)>) -> Vec<f64> {
        let mut per_player = self.owned_sums(position, |p| self.info[p.index()].value.unwrap_or(0.0));
        if let Some((p, n)) = bonus {
            per_player[p.index()] += n;
        }
        per_player
    }

    /// Per player, the sum of `weight` over the pieces they own on the board.
    fn owned_sums(&self, position: &Position, weight: impl Fn(PieceId) -> f64) -> Vec<f64> {
        let mut per_player = vec![0.0f64; self.players.len()];
        for (_, c) in position.squares() {
            if let Content::Piece(p, _) = c
                && let Some(owner) = self.info[p.index()].owner
            {
                per_player[owner.index()] += weight(p);
            }
        }
        per_player
    }

    fn material_matches(
        &self,
        position: &Position,
        exact: &[PieceId],
        any: &[PieceId],
        same_colour: bool,
    ) -> bool {
        let mut needed = exact.to_vec();
        let mut colours = [false, false];
        for (at, c) in position.squares() {
            let Content::Piece(p, _) = c else { continue };
            if let Some(i) = needed.iter().position(|&q| q == p) {
                needed.swap_remove(i);
            } else if any.contains(&p) {
                colours[((at.x + at.y).rem_euclid(2)) as usize] = true;
            } else {
                return false;
            }
        }
        needed.is_empty() && !(same_colour && colours[0] && colours[1])
    }
}

/// The index of the one highest of `sums`, if no other equals it.
fn sole_leader(sums: &[f64]) -> Option<usize> {
    let best = sums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut leaders = (0..sums.len()).filter(|&i| sums[i] == best);
    match (leaders.next(), leaders.next()) {
        (Some(i), None) => Some(i),
        _ => None,
    }
}
