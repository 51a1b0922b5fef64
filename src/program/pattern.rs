//! Rewrites lowered to offset lists: each left-side alternative becomes a
//! list of checks with its possible anchors, each replacement choice a list
//! of changes.

use crate::core::Offset;
use crate::core::{BoxId, Marks, PieceId};
use crate::ir::{Cell, CellSet, Pattern, Rewrite, Term};

use super::error::{CompileError, RewriteSide};
use super::inst::{Alternative, Anchor, Check, CompiledRewrite, SquareWrite, TallyCheck, TallyWrite, Write};
use crate::core::{self as code, Code, CodeSet};

/// The most alternatives one side of a rewrite may have after multiplying out.
pub const MAX_ALTERNATIVES: usize = 4096;

/// The deepest nesting of `|` inside a pattern the compiler follows.
const MAX_PATTERN_DEPTH: usize = 256;

/// One alternative of a pattern: squares with their possible contents.
type Squares = Vec<(Offset, CellSet)>;

/// The pieces one alternative of a pattern has in boxes: (box, piece, how many).
type Tallies = Vec<(BoxId, PieceId, u32)>;

/// One choice of a replacement: what each square becomes, and what goes into boxes.
type Choice = (Vec<(Offset, Cell)>, Tallies);

/// The alternatives of `p`, its `Either` terms multiplied out (disjunctive
/// normal form), without repeats, in a deterministic order.
fn alternatives(p: &Pattern, depth: usize) -> Result<Vec<(Squares, Tallies)>, CompileError> {
    if depth > MAX_PATTERN_DEPTH {
        return Err(CompileError::TooDeep {
            limit: MAX_PATTERN_DEPTH,
        });
    }
    let mut out: Vec<(Squares, Tallies)> = vec![(Vec::new(), Vec::new())];
    for term in p.terms() {
        match term {
            Term::Square { at, contents } => out.iter_mut().for_each(|a| a.0.push((*at, contents.clone()))),
            Term::Boxed { bx, piece, count } => out.iter_mut().for_each(|a| a.1.push((*bx, *piece, *count))),
            Term::Either(alts) => {
                let mut choices = Vec::new();
                for alt in alts {
                    choices.extend(alternatives(alt, depth + 1)?);
                }
                if out.len().saturating_mul(choices.len()) > MAX_ALTERNATIVES {
                    return Err(CompileError::TooManyAlternatives {
                        limit: MAX_ALTERNATIVES,
                    });
                }
                let mut next = Vec::with_capacity(out.len() * choices.len());
                for a in &out {
                    for c in &choices {
                        let mut joined = a.clone();
                        joined.0.extend(c.0.iter().cloned());
                        joined.1.extend(c.1.iter().cloned());
                        next.push(joined);
                    }
                }
                out = next;
            }
        }
    }
    for a in &mut out {
        a.0.sort();
        a.1.sort();
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The replacement choices of `p`: every alternative with every choice of
/// contents for squares that offer several.
fn choices(p: &Pattern) -> Result<Vec<Choice>, CompileError> {
    let mut out = Vec::new();
    for (alt, tallies) in alternatives(p, 0)? {
        let mut partial: Vec<Vec<(Offset, Cell)>> = vec![Vec::new()];
        for (at, contents) in alt {
            let cells = contents.cells();
            if partial.len().saturating_mul(cells.len()) + out.len() > MAX_ALTERNATIVES {
                return Err(CompileError::TooManyAlternatives {
                    limit: MAX_ALTERNATIVES,
                });
            }
            let mut next = Vec::with_capacity(partial.len() * cells.len());
            for p in &partial {
                for c in cells {
                    let mut v = p.clone();
                    v.push((at, *c));
                    next.push(v);
                }
            }
            partial = next;
        }
        out.extend(partial.into_iter().map(|p| (p, tallies.clone())));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// How many marks and pieces the piece table declares, as the compiler needs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Declared {
    /// The declared marks.
    pub(crate) marks: usize,
    /// The declared pieces.
    pub(crate) pieces: usize,
}

/// The codes a left-side cell accepts: a piece with at least its marks, or
/// for `_` every square's contents. (`%` is checked against the piece of
/// interest instead.)
pub(crate) fn accept_codes(cell: Cell, declared: Declared) -> Vec<Code> {
    match cell {
        Cell::Empty => vec![code::EMPTY],
        Cell::Piece(p, m) => code::at_least(p, m, declared.marks).collect(),
        Cell::OffBoard => vec![code::OFF],
        Cell::Poi(_) => Vec::new(),
        Cell::Any => std::iter::once(code::EMPTY)
            .chain(
                (0..declared.pieces)
                    .flat_map(|p| code::at_least(PieceId::new(p as u16), Marks::NONE, declared.marks)),
            )
            .collect(),
    }
}

/// What a right-side cell writes: a piece with exactly its marks.
fn write_of(cell: Cell) -> Write {
    match cell {
        Cell::Empty => Write::Code(code::EMPTY),
        Cell::Piece(p, m) => Write::Code(code::piece_code(p, m)),
        Cell::OffBoard => Write::Code(code::OFF),
        Cell::Poi(m) => Write::Poi(m),
        // `_` on a right side keeps the square (see `lower_changes`).
        Cell::Any => Write::Code(code::OFF),
    }
}

fn poi_marks(contents: &CellSet) -> Option<Marks> {
    contents.cells().iter().find_map(|c| match c {
        Cell::Poi(m) => Some(*m),
        _ => None,
    })
}

fn accepts_of(contents: &CellSet, declared: Declared) -> Vec<Code> {
    let mut codes: Vec<Code> = contents
        .cells()
        .iter()
        .flat_map(|c| accept_codes(*c, declared))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// How selective a check is expected to be: lower is checked first.
fn selectivity(check: &Check, contents: &CellSet) -> u8 {
    let cells = contents.cells();
    if cells.contains(&Cell::Any) {
        4
    } else if check.poi && cells.len() == 1 {
        0
    } else if cells.iter().all(|c| matches!(c, Cell::Piece(..))) {
        1
    } else if !cells.contains(&Cell::Empty) {
        2
    } else {
        3
    }
}

fn lower_left(squares: &Squares, declared: Declared) -> Result<(Vec<Check>, Vec<Anchor>), CompileError> {
    let mut checks: Vec<(u8, Check)> = squares
        .iter()
        .map(|(at, contents)| {
            let poi = poi_marks(contents);
            let check = Check {
                dx: at.x,
                dy: at.y,
                accepts: CodeSet::of(accepts_of(contents, declared)),
                poi: poi.is_some(),
                poi_marks: poi.unwrap_or_default(),
                on_board: match contents.single() {
                    Some(Cell::Any) => Some(true),
                    Some(Cell::OffBoard) => Some(false),
                    _ => None,
                },
            };
            (selectivity(&check, contents), check)
        })
        .collect();
    // Stable: ties keep the canonical (offset) order.
    checks.sort_by_key(|(s, _)| *s);
    let mut anchors = Vec::new();
    for (i, (_, check)) in checks.iter().enumerate() {
        let (_, contents) = squares
            .iter()
            .find(|(at, _)| at.x == check.dx && at.y == check.dy)
            .expect("every check comes from a square");
        if contents.cells().contains(&Cell::OffBoard) {
            continue;
        }
        anchors.push(Anchor {
            check: i as u32,
            poi: check.poi,
            codes: accepts_of(contents, declared).into_boxed_slice(),
        });
    }
    if anchors.is_empty() {
        return Err(CompileError::Unanchored);
    }
    // A square that can only be the piece of interest has one candidate:
    // no other anchor can beat it, so the engine need not compare them.
    if let Some(i) = anchors.iter().position(|a| a.poi && a.codes.is_empty()) {
        anchors = vec![anchors.swap_remove(i)];
    }
    Ok((checks.into_iter().map(|(_, c)| c).collect(), anchors))
}

/// The changes one replacement choice makes where `left` matched: what the
/// choice writes, and the removal of left squares it does not cover. Writes
/// that cannot change anything (the left side already fixes the same single
/// contents there) are left out.
fn lower_changes(left: &Squares, choice: &[(Offset, Cell)], declared: Declared) -> Box<[SquareWrite]> {
    let mut changes = Vec::new();
    for (at, cell) in choice {
        // `_` keeps a square of the left side as it was (the expander checked
        // that the left side has one there).
        if *cell == Cell::Any {
            continue;
        }
        let write = write_of(*cell);
        if let Write::Code(c) = write {
            let fixed = left.iter().any(|(l, contents)| {
                l == at && poi_marks(contents).is_none() && accepts_of(contents, declared) == [c]
            });
            if fixed {
                continue;
            }
        }
        changes.push(SquareWrite {
            dx: at.x,
            dy: at.y,
            write,
        });
    }
    for (at, contents) in left {
        let covered = choice.iter().any(|(c, _)| c == at);
        // A square the left side only looks at (`_`, a place such as `@2`
        // or a region) stays as it was where the right side leaves it out.
        let looked_at = contents.single() == Some(Cell::Any);
        if !covered && !looked_at && contents.single() != Some(Cell::OffBoard) {
            changes.push(SquareWrite {
                dx: at.x,
                dy: at.y,
                write: Write::Code(code::OFF),
            });
        }
    }
    changes.into_boxed_slice()
}

/// Per tally slot, the sum of the counts in `tallies`, sorted by slot.
fn per_slot(tallies: &Tallies, declared: Declared) -> Vec<(u32, i64)> {
    let mut out: Vec<(u32, i64)> = Vec::new();
    for &(bx, piece, count) in tallies {
        let slot = (bx.index() * declared.pieces + piece.index()) as u32;
        match out.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, n)) => *n += count as i64,
            None => out.push((slot, count as i64)),
        }
    }
    out.sort_unstable();
    out
}

/// What a left side needs in its boxes: at least its count of each piece.
fn tally_checks(taken: &Tallies, declared: Declared) -> Box<[TallyCheck]> {
    per_slot(taken, declared)
        .into_iter()
        .map(|(slot, n)| TallyCheck {
            slot,
            at_least: n.min(u16::MAX as i64) as u16,
        })
        .collect()
}

/// The box changes of one replacement: what it puts in, less what the left side took out.
fn tally_writes(taken: &Tallies, put: &Tallies, declared: Declared) -> Box<[TallyWrite]> {
    let mut delta = per_slot(put, declared);
    for (slot, n) in per_slot(taken, declared) {
        match delta.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, d)) => *d -= n,
            None => delta.push((slot, -n)),
        }
    }
    delta.sort_unstable();
    delta
        .into_iter()
        .filter(|&(_, d)| d != 0)
        .map(|(slot, d)| TallyWrite {
            slot,
            delta: d.clamp(-(u16::MAX as i64), u16::MAX as i64) as i32,
        })
        .collect()
}

/// Compiles one rewrite; `poi_bound` says whether a `%p:` encloses it.
pub(crate) fn lower_rewrite(
    rw: &Rewrite,
    poi_bound: bool,
    declared: Declared,
) -> Result<CompiledRewrite, CompileError> {
    if !poi_bound {
        if rw.lhs.mentions_poi() {
            return Err(CompileError::UnboundPoi {
                side: RewriteSide::Left,
            });
        }
        if rw.rhs.mentions_poi() {
            return Err(CompileError::UnboundPoi {
                side: RewriteSide::Right,
            });
        }
    }
    let lefts = alternatives(&rw.lhs, 0)?;
    let rights = choices(&rw.rhs)?;
    for (choice, _) in &rights {
        let count = choice.iter().filter(|(_, c)| matches!(c, Cell::Poi(_))).count();
        if count > 1 {
            return Err(CompileError::SeveralPoiWrites { count });
        }
    }
    if lefts.len().saturating_mul(rights.len()) > MAX_ALTERNATIVES {
        return Err(CompileError::TooManyAlternatives {
            limit: MAX_ALTERNATIVES,
        });
    }
    let mut alternatives = Vec::with_capacity(lefts.len());
    for (left, taken) in &lefts {
        let (checks, anchors) = if left.is_empty() && !taken.is_empty() {
            // Only boxes: nothing on the board to anchor, one place to match.
            (Vec::new(), Vec::new())
        } else {
            lower_left(left, declared)?
        };
        let choices = rights
            .iter()
            .map(|(c, _)| lower_changes(left, c, declared))
            .collect();
        let tally_writes = rights
            .iter()
            .map(|(_, put)| tally_writes(taken, put, declared))
            .collect();
        alternatives.push(Alternative {
            checks: checks.into_boxed_slice(),
            anchors: anchors.into_boxed_slice(),
            choices,
            tally_checks: tally_checks(taken, declared),
            tally_writes,
        });
    }
    Ok(CompiledRewrite {
        alternatives: alternatives.into_boxed_slice(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE_DECLARED: Declared = Declared { marks: 0, pieces: 1 };

    fn sq(x: i32, y: i32, c: Cell) -> Pattern {
        Pattern::square(Offset::new(x, y), CellSet::one(c))
    }

    fn glue(ps: &[Pattern]) -> Pattern {
        ps.iter().fold(Pattern::empty(), |acc, p| acc.glue(p).unwrap())
    }

    const ROOK: Cell = Cell::Piece(PieceId(5), Marks::NONE);

    #[test]
    fn pawn_push_lowers_to_two_checks_and_two_changes() {
        let rw = Rewrite {
            lhs: glue(&[sq(0, 0, ROOK), sq(0, 1, Cell::Empty)]),
            rhs: glue(&[sq(0, 0, Cell::Empty), sq(0, 1, ROOK)]),
        };
        let c = lower_rewrite(&rw, false, NONE_DECLARED).unwrap();
        assert_eq!(c.alternatives.len(), 1);
        let alt = &c.alternatives[0];
        assert_eq!(alt.checks.len(), 2);
        // The piece is checked first and is an anchor.
        assert!(
            alt.checks[0]
                .accepts
                .is_only(code::piece_code(PieceId(5), Marks::NONE))
        );
        assert_eq!(alt.anchors.len(), 2);
        assert_eq!(alt.choices.len(), 1);
        assert_eq!(alt.choices[0].len(), 2);
    }

    #[test]
    fn either_multiplies_out() {
        let either = Pattern::either(vec![
            sq(1, 1, ROOK),
            glue(&[sq(1, 1, Cell::Empty), sq(2, 2, Cell::Empty)]),
        ]);
        let lhs = glue(&[sq(0, 0, ROOK), either]);
        let rw = Rewrite {
            lhs: lhs.clone(),
            rhs: lhs,
        };
        let c = lower_rewrite(&rw, false, NONE_DECLARED).unwrap();
        assert_eq!(c.alternatives.len(), 2);
        assert_eq!(c.alternatives[0].choices.len(), 2);
    }

    #[test]
    fn unbound_poi_is_an_error() {
        let rw = Rewrite {
            lhs: sq(0, 0, Cell::Poi(Marks::NONE)),
            rhs: sq(0, 0, Cell::Empty),
        };
        assert_eq!(
            lower_rewrite(&rw, false, NONE_DECLARED),
            Err(CompileError::UnboundPoi {
                side: RewriteSide::Left
            })
        );
        let rw = Rewrite {
            lhs: sq(0, 0, Cell::Empty),
            rhs: sq(0, 0, Cell::Poi(Marks::NONE)),
        };
        assert_eq!(
            lower_rewrite(&rw, false, NONE_DECLARED),
            Err(CompileError::UnboundPoi {
                side: RewriteSide::Right
            })
        );
        assert!(lower_rewrite(&rw, true, NONE_DECLARED).is_ok());
    }

    #[test]
    fn off_board_only_or_empty_left_is_unanchored() {
        for lhs in [Pattern::empty(), sq(0, 0, Cell::OffBoard)] {
            let rw = Rewrite {
                lhs,
                rhs: sq(0, 0, Cell::Empty),
            };
            assert_eq!(
                lower_rewrite(&rw, false, NONE_DECLARED),
                Err(CompileError::Unanchored)
            );
        }
    }

    #[test]
    fn two_poi_writes_are_an_error() {
        let rw = Rewrite {
            lhs: sq(0, 0, Cell::Poi(Marks::NONE)),
            rhs: glue(&[sq(0, 0, Cell::Poi(Marks::NONE)), sq(0, 1, Cell::Poi(Marks::NONE))]),
        };
        assert_eq!(
            lower_rewrite(&rw, true, NONE_DECLARED),
            Err(CompileError::SeveralPoiWrites { count: 2 })
        );
    }

    #[test]
    fn uncovered_left_squares_are_removed_and_fixed_writes_dropped() {
        // dd# + ♖ -> dd# + .  : the `#` write is a no-op; nothing removed.
        let rw = Rewrite {
            lhs: glue(&[sq(0, -2, Cell::OffBoard), sq(0, 0, ROOK)]),
            rhs: glue(&[sq(0, -2, Cell::OffBoard), sq(0, 0, Cell::Empty)]),
        };
        let c = lower_rewrite(&rw, false, NONE_DECLARED).unwrap();
        assert_eq!(
            &*c.alternatives[0].choices[0],
            &[SquareWrite {
                dx: 0,
                dy: 0,
                write: Write::Code(code::EMPTY)
            }]
        );
        // ♖ + u. -> u♖ : the rook's square stops being a square.
        let rw = Rewrite {
            lhs: glue(&[sq(0, 0, ROOK), sq(0, 1, Cell::Empty)]),
            rhs: sq(0, 1, ROOK),
        };
        let c = lower_rewrite(&rw, false, NONE_DECLARED).unwrap();
        assert!(c.alternatives[0].choices[0].contains(&SquareWrite {
            dx: 0,
            dy: 0,
            write: Write::Code(code::OFF)
        }));
        // hand + . + d_ -> ♖ : the square only looked at stays as it was.
        let rw = Rewrite {
            lhs: glue(&[sq(0, 0, Cell::Empty), sq(0, -1, Cell::Any)]),
            rhs: sq(0, 0, ROOK),
        };
        let c = lower_rewrite(&rw, false, NONE_DECLARED).unwrap();
        assert_eq!(
            c.alternatives[0].choices[0].len(),
            1,
            "{:?}",
            c.alternatives[0].choices[0]
        );
    }
}
