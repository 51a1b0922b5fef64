//! Legality on the walker: `attacked`, and the moves that leave a side's
//! protected pieces where no other side's move can change their squares.
//!
//! Whether a square can change is a targeted walk of each other side's
//! moves ([`Walker::changes_at`]): only the pieces whose reach covers the
//! square are bound, only the paths that can still write it are followed.
//! For safe moves each protected square is tested once on the position as
//! it is, noting the squares that test read; a move that changes none of
//! them (and puts or takes no piece that could reach the square) leaves the
//! answer as it was, the way a chess engine knows a quiet move far from the
//! king cannot expose it. Only the other moves are made (as the walker's
//! change list over the position) and tested again.

use std::cell::RefCell;
use std::ops::ControlFlow;

use smallvec::SmallVec;

use super::scratch::FastScratch;
use super::squares::{Squares, TALLY_BASE};
use super::strategy::Strategies;
use super::walk::{AttackTest, ChangeQuery, Keep, Query, TooLong, WalkScratch};
use super::walk::{Walker, cells_and_tallies};
use crate::core::{Change, Code, CodeSet, Content, Coord};
use crate::engine::meter::Meter;
use crate::engine::position::Position;
use crate::engine::side::Roles;
use crate::engine::successor::Successor;

/// The walkers of every side of a game with who owns what: a view that
/// answers `attacked` and finds safe moves without the backtracker.
#[derive(Clone, Copy)]
pub(crate) struct Walkers<'a> {
    /// Per side: its moves' strategies, if it has them (all walked where
    /// legality is asked of them: a walk answers every question).
    pub(crate) sides: &'a [Option<&'a Strategies>],
    /// Who owns what and what each side protects.
    pub(crate) roles: &'a Roles,
    /// One more than the largest code a walker's square sets cover.
    pub(crate) codes: usize,
    /// The work the question may still do.
    pub(crate) meter: &'a Meter,
    /// Whether `no_reply` is asked: not inside the replies another
    /// `no_reply` lists (replies do not nest, as attack tests do not).
    pub(crate) replies: bool,
}

/// What legality may expect of a side's strategies: the walk answers every question.
const WALKED: &str = "legality runs on walked sides, and a walk answers every question";

/// A protected square, tested once on the position as it is.
#[derive(Clone, Copy, Debug)]
struct Guarded {
    at: u32,
    /// Whether another side can change it.
    hit: bool,
    /// The squares those tests read.
    reads: Squares,
}

/// The `attacked` test of one side's walk: the other sides' walkers, as
/// the backtracker's `OpponentPrograms` are its other sides' programs.
struct OpponentWalkers<'w> {
    walkers: &'w Walkers<'w>,
    side: usize,
    /// The position the side's walk searches (`no_reply` makes the
    /// walk's changes on it).
    position: &'w Position,
    scratch: RefCell<Box<WalkScratch>>,
}

impl AttackTest for OpponentWalkers<'_> {
    fn attacked(
        &self,
        base: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        at: u32,
        code: Code,
    ) -> Result<bool, TooLong> {
        let side = self.walkers.roles.defender(code, self.side);
        let mut scratch = self.scratch.borrow_mut();
        self.walkers
            .others_change(side, base, occupied, overlay, at, &mut scratch)
            .map(|(hit, _)| hit)
    }

    fn no_reply(&self, _base: &[Code], overlay: &[(u32, Code)]) -> Result<bool, TooLong> {
        let sides = self.walkers.sides.len();
        if sides == 0 || !self.walkers.replies {
            return Ok(false);
        }
        let next = (self.side + 1) % sides;
        let Some(moves) = self.walkers.sides[next] else {
            // (Not reached: a walk asks the other sides only when every
            // side is walked.)
            return Ok(false);
        };
        // The position the walk has made: its changes, each square's last.
        let width = self.position.width as i32;
        let changes: Vec<Change> = (overlay.iter())
            .map(|&(at, code)| match at.checked_sub(TALLY_BASE) {
                Some(slot) => Change {
                    at: Coord::tally(slot as usize),
                    content: Content::Count(code),
                },
                None => Change {
                    at: Coord::new(at as i32 % width, at as i32 / width),
                    content: Content::from_code(code),
                },
            })
            .collect();
        let after = self.position.with_changes(&changes);
        let inner = Walkers {
            replies: false,
            ..*self.walkers
        };
        let mut any = false;
        inner
            .each(
                next,
                moves,
                &after,
                true,
                &mut FastScratch::default(),
                &mut |_| {
                    any = true;
                    ControlFlow::Break(())
                },
            )
            .expect(WALKED)?;
        Ok(!any)
    }
}

impl Walkers<'_> {
    /// Whether a side other than `side` can change `at` on `base` with
    /// `overlay` made, and the squares the tests read (all of them when it
    /// can: the first test that finds a change ends the search).
    fn others_change(
        &self,
        side: usize,
        base: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        at: u32,
        scratch: &mut WalkScratch,
    ) -> Result<(bool, Squares), TooLong> {
        let mut reads = 0;
        for (q, w) in self.sides.iter().enumerate() {
            if q == side {
                continue;
            }
            let w = w.expect("a complete set of walkers");
            let mut query = ChangeQuery {
                base,
                occupied,
                overlay,
                at,
                scratch,
                meter: self.meter,
            };
            let (hit, r) = w.changes_at(&mut query).expect(WALKED)?;
            reads |= r;
            if hit {
                return Ok((true, reads));
            }
        }
        Ok((false, reads))
    }

    /// Whether a change from `old` to `new` at `s` may change what another
    /// side than `side` can do to `at` without its walk having read `s`.
    fn may_bind_anew(&self, side: usize, s: u32, old: Code, new: Code, at: u32) -> bool {
        self.sides.iter().enumerate().any(|(q, w)| {
            q != side
                && w.and_then(Strategies::walker)
                    .is_some_and(|w| w.may_bind_anew(s, old, new, at))
        })
    }

    /// Whether a side other than `side` can change `at` on `position` (which fits).
    pub(crate) fn can_change(
        &self,
        side: usize,
        position: &Position,
        at: Coord,
        scratch: &mut FastScratch,
    ) -> Result<bool, TooLong> {
        if position.code_at(at.x, at.y) == crate::core::OFF {
            return Ok(false);
        }
        scratch.sets.load(position, self.codes);
        let i = (at.y * position.width as i32 + at.x) as u32;
        let cells = cells_and_tallies(position, &mut scratch.boxed);
        self.others_change(
            side,
            cells,
            &scratch.sets.occupied,
            &[],
            i,
            scratch.aux.get_or_insert_with(Default::default),
        )
        .map(|(hit, _)| hit)
    }

    /// Calls `found` with each move of `side` (listed by `mover`) on
    /// `position` (which fits), until it says to stop; with `safe`, only
    /// those after which no other side can change a square holding one of
    /// `side`'s protected pieces. `None` when no strategy of `mover` answers.
    pub(crate) fn each(
        &self,
        side: usize,
        mover: &Strategies,
        position: &Position,
        safe: bool,
        scratch: &mut FastScratch,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        self.with_oracle(side, mover, position, scratch, |scratch, oracle, attacks| {
            let cells = cells_and_tallies(position, &mut scratch.boxed);
            let mut query = Query {
                position,
                occupied: &scratch.sets.occupied,
                scratch: &mut scratch.walk,
                meter: self.meter,
                attacks,
            };
            if safe {
                self.safe_each(side, mover, &mut query, cells, oracle, found)
            } else {
                mover.each(&mut query, found)
            }
        })
    }

    /// How many moves [`Walkers::each`] would give, without building them.
    pub(crate) fn count(
        &self,
        side: usize,
        mover: &Strategies,
        position: &Position,
        safe: bool,
        scratch: &mut FastScratch,
    ) -> Option<Result<u64, TooLong>> {
        self.with_oracle(side, mover, position, scratch, |scratch, oracle, attacks| {
            let occupied = &scratch.sets.occupied;
            let mut query = Query {
                position,
                occupied,
                scratch: &mut scratch.walk,
                meter: self.meter,
                attacks,
            };
            if !safe {
                return mover.count(&mut query, None);
            }
            let cells = cells_and_tallies(position, &mut scratch.boxed);
            let guarded = match self.guards(side, cells, occupied, &mut oracle.scratch.borrow_mut()) {
                Ok(guarded) => guarded,
                Err(e) => return Some(Err(e)),
            };
            let (cold, calm, other) = self.cold(side, &guarded);
            let none = CodeSet::default();
            let mut failed = None;
            let mut test = |diff: &[(u32, Code)]| {
                let aux = &mut oracle.scratch.borrow_mut();
                match self.leaves_safe(side, &guarded, cells, occupied, diff, aux) {
                    Ok(safe) => safe,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            };
            let mut keep = Keep {
                cold,
                hot: &self.roles.protected[side],
                calm,
                wary: other.map_or(&none, |w| w.bound()),
                wary_codes: other.map_or(&[], |w| w.bound_codes()),
                test: &mut test,
            };
            let n = mover.count(&mut query, Some(&mut keep))?;
            Some(n.and_then(|n| failed.map_or(Ok(n), Err)))
        })
    }

    /// The squares a move of `side` may change, writing none of its
    /// protected pieces, and be safe untested ([`Walkers::leaves_safe`]
    /// would say so): none while a protected piece can be changed; else
    /// every square but the protected pieces' and what their tests read.
    /// Of those, the squares where it may also put or take a piece the
    /// other side binds (where such a piece could not reach a protected
    /// piece), and that side's walker (none: with several other sides,
    /// where their pieces could reach is not cold).
    fn cold(&self, side: usize, guarded: &[Guarded]) -> (Squares, Squares, Option<&Walker>) {
        if guarded.iter().any(|g| g.hit) {
            return (0, 0, None);
        }
        let hot = guarded
            .iter()
            .fold(0, |hot: Squares, g| hot | g.reads | 1 << g.at);
        // Where putting or taking another side's bound piece may matter
        // (one other side: its binds; else anywhere).
        let others: SmallVec<[&Walker; 2]> = (self.sides.iter().enumerate())
            .filter(|&(q, _)| q != side)
            .filter_map(|(_, w)| w.and_then(Strategies::walker))
            .collect();
        let reach = |w: &Walker| guarded.iter().fold(0, |r: Squares, g| r | w.suspects_at(g.at));
        let [other] = others[..] else {
            let reach = others.iter().fold(0, |r, w| r | reach(w));
            return (!(hot | reach), 0, None);
        };
        (!hot, !reach(other), Some(other))
    }

    /// Each square of `cells` holding a protected piece of `side`, tested
    /// once: whether another side can change it, and what that test read.
    fn guards(
        &self,
        side: usize,
        cells: &[Code],
        occupied: &[Squares],
        aux: &mut WalkScratch,
    ) -> Result<SmallVec<[Guarded; 4]>, TooLong> {
        let protected = &self.roles.protected[side];
        let mut guarded = SmallVec::new();
        for (i, &c) in cells.iter().enumerate().take(TALLY_BASE as usize) {
            if protected.contains(c) {
                let at = i as u32;
                let (hit, reads) = self.others_change(side, cells, occupied, &[], at, aux)?;
                guarded.push(Guarded { at, hit, reads });
            }
        }
        Ok(guarded)
    }

    /// Loads `position` and runs `f` with the `attacked` test of `side`'s
    /// walk (`Some` only if `mover` runs `attacked`), which borrows the
    /// scratch's second walk scratch meanwhile.
    fn with_oracle<T>(
        &self,
        side: usize,
        mover: &Strategies,
        position: &Position,
        scratch: &mut FastScratch,
        f: impl FnOnce(&mut FastScratch, &OpponentWalkers<'_>, Option<&dyn AttackTest>) -> T,
    ) -> T {
        scratch.sets.load(position, self.codes.max(mover.codes()));
        let oracle = OpponentWalkers {
            walkers: self,
            side,
            position,
            scratch: RefCell::new(scratch.take_aux()),
        };
        let attacks = mover.attacks().then_some(&oracle as &dyn AttackTest);
        let result = f(scratch, &oracle, attacks);
        scratch.put_aux(oracle.scratch.into_inner());
        result
    }

    /// [`Walkers::each`] with `safe`: each move of `mover` on the query's
    /// position (whose cells and tallies are `cells`) that `oracle` finds
    /// leaves `side`'s protected pieces where no other side can change them.
    fn safe_each(
        &self,
        side: usize,
        mover: &Strategies,
        query: &mut Query<'_>,
        cells: &[Code],
        oracle: &OpponentWalkers<'_>,
        found: &mut dyn FnMut(&Successor<'_>) -> ControlFlow<()>,
    ) -> Option<Result<(), TooLong>> {
        let occupied = query.occupied;
        let guarded = match self.guards(side, cells, occupied, &mut oracle.scratch.borrow_mut()) {
            Ok(guarded) => guarded,
            Err(e) => return Some(Err(e)),
        };
        let width = query.position.width as i32;
        let mut overlay: SmallVec<[(u32, Code); 8]> = SmallVec::new();
        let mut failed = None;
        let walked = mover.each(query, &mut |s| {
            overlay.clear();
            overlay.extend_from_slice(s.cells);
            overlay.extend(s.changes.iter().map(|c| match (c.at.tally_slot(), c.content) {
                (Some(slot), Content::Count(n)) => (TALLY_BASE + slot as u32, n),
                _ => ((c.at.y * width + c.at.x) as u32, c.content.code()),
            }));
            let safe = self.leaves_safe(
                side,
                &guarded,
                cells,
                occupied,
                &overlay,
                &mut oracle.scratch.borrow_mut(),
            );
            match safe {
                Ok(true) => found(s),
                Ok(false) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        })?;
        Some(match failed {
            Some(e) => Err(e),
            None => walked,
        })
    }

    /// Whether the move making `overlay` on `cells` leaves every protected
    /// square of `side` (`guarded`, tested on `cells` before) and every
    /// protected piece it writes where no other side can change it.
    fn leaves_safe(
        &self,
        side: usize,
        guarded: &[Guarded],
        cells: &[Code],
        occupied: &[Squares],
        overlay: &[(u32, Code)],
        aux: &mut WalkScratch,
    ) -> Result<bool, TooLong> {
        let mut test = |at: u32| {
            self.others_change(side, cells, occupied, overlay, at, aux)
                .map(|(hit, _)| hit)
        };
        for g in guarded {
            if overlay.iter().any(|&(s, _)| s == g.at) {
                // Moved or taken; a protected piece written is tested below.
                continue;
            }
            // The first test's answer stands unless the move touched what
            // it read (a box: what a drop may read).
            let touched = overlay.iter().any(|&(s, new)| {
                s >= TALLY_BASE
                    || g.reads >> s & 1 == 1
                    || self.may_bind_anew(side, s, cells[s as usize], new, g.at)
            });
            if if touched { test(g.at)? } else { g.hit } {
                return Ok(false);
            }
        }
        let protected = &self.roles.protected[side];
        for &(s, new) in overlay {
            if s < TALLY_BASE && protected.contains(new) && test(s)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
