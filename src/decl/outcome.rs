//! `outcome CONDITION = RESULT`: how a game ends, tried in file order when a
//! turn begins.

use super::{Collect, Declare, Place};
use crate::core::{PieceId, PlayerId};
use crate::ir::Move;
use crate::syntax::ast::{ConditionKind, OutcomeDecl};

/// When an outcome applies (see the grammar's `outcome` for each); `W` is
/// what a `when` holds: the move here, a compiled program in the game layer.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition<W = Move> {
    /// The player to move has no legal move (and, if `checked`, a royal piece
    /// of theirs is attacked).
    NoMoves {
        /// Whether a royal piece must be attacked.
        checked: bool,
    },
    /// The position has occurred this many times.
    Repetition(u32),
    /// This many plies without a move that resets the quiet count.
    Quiet(u32),
    /// Exactly these pieces are left.
    Material {
        /// Pieces that must be there, once per listing.
        exact: Vec<PieceId>,
        /// Pieces that may be there any number of times.
        any: Vec<PieceId>,
        /// Whether the `any` pieces must all stand on squares of one colour.
        same_colour: bool,
    },
    /// A player has no piece left of one of these kinds (each piece stands
    /// for its colour pair); the verdict is that player's.
    Extinct(Vec<PieceId>),
    /// A player has nothing left but pieces of these kinds (and pairs), while
    /// the other has more; the verdict is that player's.
    Bare(Vec<PieceId>),
    /// The last this many moves each changed nothing on the board.
    Passes(u32),
    /// This move has a result.
    When(W),
    /// This move has a result in this position and in the positions before
    /// it, this many in all (since the game or its FEN began).
    WhenFor(W, u32),
}

impl<W> Condition<W> {
    /// The same condition with its `when` move turned into something else.
    pub fn try_map_when<V, E>(&self, f: impl FnOnce(&W) -> Result<V, E>) -> Result<Condition<V>, E> {
        Ok(match self {
            Condition::NoMoves { checked } => Condition::NoMoves { checked: *checked },
            Condition::Repetition(n) => Condition::Repetition(*n),
            Condition::Quiet(n) => Condition::Quiet(*n),
            Condition::Material {
                exact,
                any,
                same_colour,
            } => Condition::Material {
                exact: exact.clone(),
                any: any.clone(),
                same_colour: *same_colour,
            },
            Condition::Extinct(k) => Condition::Extinct(k.clone()),
            Condition::Bare(k) => Condition::Bare(k.clone()),
            Condition::Passes(n) => Condition::Passes(*n),
            Condition::When(w) => Condition::When(f(w)?),
            Condition::WhenFor(w, n) => Condition::WhenFor(f(w)?, *n),
        })
    }
}

/// Who an outcome favours.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// A win: for the named player, or (`None`) the player to move.
    Win(Option<PlayerId>),
    /// A loss for the player to move.
    Loss,
    /// A draw.
    Draw,
    /// A win for the player who owns most of these pieces on the board; a
    /// draw when no player has more than every other (`majority P Q`).
    Majority(Vec<PieceId>),
    /// A win for the player whose pieces on the board are worth most (their
    /// `value`s), the named player given this much more; a draw when no
    /// player has more than every other (`points black 1.5`).
    Points(Option<(PlayerId, f64)>),
}

/// `outcome CONDITION = RESULT`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeRule {
    /// When it applies.
    pub condition: Condition,
    /// What it means.
    pub verdict: Verdict,
    /// Whether it ends the game in perft too (`when`, `passes`, `no_moves`,
    /// `extinct` and `bare` always do; `repetition`, `quiet` and `material`
    /// when marked `automatic`).
    pub automatic: bool,
    /// Where it is written.
    pub place: Place,
    /// The player who must be to move for it to apply (`turn PLAYER`).
    pub turn: Option<PlayerId>,
    /// A `when` condition as the file writes it (`four(●)`), to say why a
    /// game ended; empty for the others.
    pub written: String,
    /// How results call it (`= loss "checkmate"`), if the file names it.
    pub name: Option<String>,
}

impl Declare for OutcomeDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let turn = match &self.turn {
            Some(p) => match cx.player(p) {
                Some(i) => Some(i),
                None => return,
            },
            None => None,
        };
        let verdict = match (self.verdict.as_str(), &self.player) {
            ("win", None) => Verdict::Win(None),
            ("win", Some(p)) => match cx.player(p) {
                Some(i) => Verdict::Win(Some(i)),
                None => return,
            },
            ("loss", _) => Verdict::Loss,
            ("majority", _) => {
                let mut counted = Vec::new();
                for &(c, span) in &self.counted {
                    match cx.piece(c, span) {
                        Some(p) => counted.push(p),
                        None => return,
                    }
                }
                Verdict::Majority(counted)
            }
            ("points", None) => Verdict::Points(None),
            ("points", Some(p)) => match cx.player(p) {
                Some(i) => Verdict::Points(Some((i, self.bonus.unwrap_or(0.0)))),
                None => return,
            },
            _ => Verdict::Draw,
        };
        let condition = match &self.condition {
            ConditionKind::NoMoves { checked } => Condition::NoMoves { checked: *checked },
            ConditionKind::Repetition(n) => Condition::Repetition(*n),
            ConditionKind::Quiet(n) => Condition::Quiet(*n),
            ConditionKind::Material { items, same_colour } => {
                let (mut exact, mut any) = (Vec::new(), Vec::new());
                for &(c, many, span) in items {
                    match cx.piece(c, span) {
                        Some(p) if many => any.push(p),
                        Some(p) => exact.push(p),
                        None => {}
                    }
                }
                Condition::Material {
                    exact,
                    any,
                    same_colour: *same_colour,
                }
            }
            ConditionKind::Extinct(items) | ConditionKind::Bare(items) => {
                let mut kinds = Vec::new();
                for &(c, span) in items {
                    match cx.piece(c, span) {
                        Some(p) => kinds.push(p),
                        None => return,
                    }
                }
                if matches!(self.condition, ConditionKind::Extinct(_)) {
                    Condition::Extinct(kinds)
                } else {
                    Condition::Bare(kinds)
                }
            }
            ConditionKind::Passes(n) => Condition::Passes(*n),
            ConditionKind::When(e) => match cx.expand_move(e, "an outcome's `when`") {
                Some(m) => Condition::When(m),
                None => return,
            },
            ConditionKind::WhenFor(e, n) => match cx.expand_move(e, "an outcome's `when`") {
                Some(m) => Condition::WhenFor(m, *n),
                None => return,
            },
        };
        if matches!(
            self.condition,
            ConditionKind::Passes(0) | ConditionKind::WhenFor(_, 0)
        ) {
            cx.error(crate::ir::ExpandError::ZeroCount { span: self.span });
            return;
        }
        if let Some(n) = &self.name
            && !cx.display_name(n, "an outcome's name")
        {
            return;
        }
        let place = cx.place(self.span);
        let written = match self.condition.when_expr() {
            Some(e) => {
                let text = &cx.rules.source_of(cx.origin).text;
                let raw = text.get(e.span.start..e.span.end).unwrap_or_default();
                let words = raw.split_whitespace().collect::<Vec<_>>().join(" ");
                match self.condition {
                    ConditionKind::WhenFor(_, n) => format!("{words} for {n} positions"),
                    _ => words,
                }
            }
            None => String::new(),
        };
        let automatic = self.automatic
            || matches!(
                condition,
                Condition::When(_)
                    | Condition::WhenFor(..)
                    | Condition::Passes(_)
                    | Condition::NoMoves { .. }
                    | Condition::Extinct(_)
                    | Condition::Bare(_)
            );
        cx.spec.outcomes.push(OutcomeRule {
            condition,
            verdict,
            automatic,
            place,
            turn,
            written,
            name: self.name.as_ref().map(|n| n.text.clone()),
        });
    }
}
