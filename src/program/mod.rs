//! The core IR compiled to a matcher program.
//!
//! [`compile`] turns a [`Move`] into an immutable [`Program`], much as the
//! `regex` crate's Thompson compiler turns its HIR into an NFA:
//!
//! - `f -> g` becomes one `Rewrite` instruction. Its left side is multiplied
//!   out into alternatives, each an offset list of checks plus the squares the
//!   search may start from (the piece of interest, a piece, an empty square);
//!   the engine starts from whichever has the fewest candidates, so a match
//!   costs one lookup per square of the pattern, never a scan per square.
//!   Its right side becomes one change list per choice.
//! - `M | N` and repetitions become `Split`s and jumps: `M{i, j}` is `i`
//!   copies of M then `j - i` nested optional copies, `M*` a loop.
//! - `%p: M` becomes `Bind`, M, `Unbind`.
//! - `?{M}`, `!{M}` and each alternative of `M / N` become sub-programs the
//!   engine runs as separate, bounded searches.
//!
//! Instructions where the search can reach the same state along two paths
//! (loop heads, joins, after a rewrite) are marked so that the engine checks
//! its visited set there; that makes closures terminate on finite boards.

mod entry;
mod error;
mod inst;
mod pattern;

pub use error::{CompileError, RewriteSide};
pub use inst::Program;
pub(crate) use inst::{
    Alternative, BindId, Check, EntryCheck, Inst, ListId, Pc, RewriteId, SplitEntry, SquareWrite, SubId,
    TallyWrite, Write,
};
pub use pattern::MAX_ALTERNATIVES;

use crate::core::{self as code, Code, MAX_PIECES, PieceTable};
use crate::ir::{Cell, CellSet, Move, Rewrite};
use pattern::Declared;

/// The most instructions one program may have.
pub const MAX_INSTRUCTIONS: usize = 1 << 20;

/// The deepest nesting of moves (and of guards and ordered choices) compiled.
pub const MAX_DEPTH: usize = 512;

/// Compiles `mv` for positions whose pieces come from `pieces`.
pub fn compile(mv: &Move, pieces: &PieceTable) -> Result<Program, CompileError> {
    if pieces.len() > MAX_PIECES {
        return Err(CompileError::TooManyPieces {
            count: pieces.len(),
            limit: MAX_PIECES,
        });
    }
    let mut c = Compiler {
        insts: Vec::new(),
        rewrites: Vec::new(),
        binds: Vec::new(),
        subs: Vec::new(),
        ordered: Vec::new(),
        pending: Vec::new(),
        depth: 0,
        declared: Declared {
            marks: pieces.mark_count(),
            pieces: pieces.len(),
        },
        unbound_writes: false,
    };
    c.compile(mv, 0, 0)?;
    c.emit(Inst::Match)?;
    // Sub-programs are laid out after the main one, breadth first.
    let mut i = 0;
    while i < c.pending.len() {
        let Pending {
            sub,
            mv,
            poi_depth,
            nesting,
        } = c.pending[i];
        c.subs[sub.index()] = c.insts.len() as Pc;
        c.depth = c.depth.max(nesting);
        if nesting > MAX_DEPTH {
            return Err(CompileError::TooDeep { limit: MAX_DEPTH });
        }
        c.compile_nested(mv, poi_depth, nesting)?;
        c.emit(Inst::Match)?;
        i += 1;
    }
    Ok(c.finish(2 + (pieces.len() << code::MARK_BITS)))
}

/// A guard body or ordered alternative waiting to be laid out.
#[derive(Clone, Copy)]
struct Pending<'m> {
    sub: SubId,
    mv: &'m Move,
    poi_depth: usize,
    nesting: usize,
}

struct Compiler<'m> {
    insts: Vec<Inst>,
    rewrites: Vec<inst::CompiledRewrite>,
    binds: Vec<Box<[Code]>>,
    subs: Vec<Pc>,
    ordered: Vec<Box<[SubId]>>,
    pending: Vec<Pending<'m>>,
    depth: usize,
    declared: Declared,
    /// Whether some rewrite runs with no piece of interest bound.
    unbound_writes: bool,
}

impl<'m> Compiler<'m> {
    fn emit(&mut self, inst: Inst) -> Result<Pc, CompileError> {
        if self.insts.len() >= MAX_INSTRUCTIONS {
            return Err(CompileError::TooLarge {
                limit: MAX_INSTRUCTIONS,
            });
        }
        self.insts.push(inst);
        Ok((self.insts.len() - 1) as Pc)
    }

    fn here(&self) -> Pc {
        self.insts.len() as Pc
    }

    fn set_second(&mut self, split: Pc, target: Pc) {
        if let Inst::Split { second, .. } = &mut self.insts[split as usize] {
            *second = target;
        }
    }

    fn set_jump(&mut self, jump: Pc, target: Pc) {
        if let Inst::Jump { to } = &mut self.insts[jump as usize] {
            *to = target;
        }
    }

    fn sub(&mut self, mv: &'m Move, poi_depth: usize, nesting: usize) -> SubId {
        let id = SubId(self.subs.len() as u32);
        self.subs.push(0);
        self.pending.push(Pending {
            sub: id,
            mv,
            poi_depth,
            nesting: nesting + 1,
        });
        id
    }

    /// Compiles a sub-program body: its structural depth starts again, its
    /// nesting of sub-programs does not.
    fn compile_nested(&mut self, mv: &'m Move, poi_depth: usize, nesting: usize) -> Result<(), CompileError> {
        self.compile_at(mv, poi_depth, 0, nesting)
    }

    fn compile(&mut self, mv: &'m Move, poi_depth: usize, depth: usize) -> Result<(), CompileError> {
        self.compile_at(mv, poi_depth, depth, 0)
    }

    /// Compiles `mv` under `poi` bindings of the piece of interest, at
    /// structural `depth` and sub-program `nesting`: the simple moves here,
    /// bindings, choices and repetitions by methods of their own.
    fn compile_at(
        &mut self,
        mv: &'m Move,
        poi: usize,
        depth: usize,
        nesting: usize,
    ) -> Result<(), CompileError> {
        if depth > MAX_DEPTH {
            return Err(CompileError::TooDeep { limit: MAX_DEPTH });
        }
        let d = depth + 1;
        match mv {
            Move::Nil => {}
            Move::Rewrite(rw) => {
                self.unbound_writes |= poi == 0;
                let id = self.add_rewrite(rw, poi)?;
                let next = self.here() + 1;
                self.emit(Inst::Rewrite { id, next })?;
            }
            Move::WithPoi { pieces, body } => self.compile_bind(pieces, body, poi, d, nesting)?,
            Move::Seq(ms) => {
                for m in ms {
                    self.compile_at(m, poi, d, nesting)?;
                }
            }
            Move::Union(ms) => self.compile_union(ms, poi, d, nesting)?,
            Move::Repeat { body, min, max } => self.compile_repeat(body, (*min, *max), poi, d, nesting)?,
            Move::AtOrigin(body) => {
                if poi == 0 {
                    return Err(CompileError::OriginWithoutPoi);
                }
                let next = self.here() + 1;
                self.emit(Inst::Origin { next })?;
                self.compile_at(body, poi + 1, d, nesting)?;
                let next = self.here() + 1;
                self.emit(Inst::Unbind { next })?;
            }
            Move::NoReply => {
                let next = self.here() + 1;
                self.emit(Inst::NoReply { next })?;
            }
            Move::Attacked => {
                if poi == 0 {
                    return Err(CompileError::AttackedWithoutPoi);
                }
                let next = self.here() + 1;
                self.emit(Inst::Attacked { next })?;
            }
            // A guard on one rewrite only asks whether its left side matches:
            // no sub-search, no change made.
            Move::Guard { holds, body } if matches!(**body, Move::Rewrite(_)) => {
                let Move::Rewrite(rw) = &**body else {
                    unreachable!("matched above")
                };
                let id = self.add_rewrite(rw, poi)?;
                let next = self.here() + 1;
                self.emit(Inst::Test {
                    holds: *holds,
                    id,
                    next,
                })?;
            }
            Move::Guard { holds, body } => {
                let sub = self.sub(body, poi, nesting);
                let next = self.here() + 1;
                self.emit(Inst::Guard {
                    holds: *holds,
                    sub,
                    next,
                })?;
            }
            Move::Ordered(ms) => {
                let list: Box<[SubId]> = ms.iter().map(|m| self.sub(m, poi, nesting)).collect();
                let id = ListId(self.ordered.len() as u32);
                self.ordered.push(list);
                let next = self.here() + 1;
                self.emit(Inst::Ordered { id, next })?;
            }
        }
        Ok(())
    }

    /// Lowers rewrite `rw` (with a piece of interest bound if `poi` > 0)
    /// and adds it to the program's rewrites.
    fn add_rewrite(&mut self, rw: &Rewrite, poi: usize) -> Result<RewriteId, CompileError> {
        let compiled = pattern::lower_rewrite(rw, poi > 0, self.declared)?;
        let id = RewriteId(self.rewrites.len() as u32);
        self.rewrites.push(compiled);
        Ok(id)
    }

    /// `%p: M`: `Bind` to the codes of the pieces `pieces` names (which
    /// must all be pieces), M with one binding more, `Unbind`.
    fn compile_bind(
        &mut self,
        pieces: &CellSet,
        body: &'m Move,
        poi: usize,
        depth: usize,
        nesting: usize,
    ) -> Result<(), CompileError> {
        let mut codes = Vec::new();
        for cell in pieces.cells() {
            match cell {
                Cell::Piece(p, m) => codes.extend(code::at_least(*p, *m, self.declared.marks)),
                Cell::Empty => return Err(CompileError::PoiNotAPiece { what: "." }),
                Cell::Poi(_) => return Err(CompileError::PoiNotAPiece { what: "%" }),
                Cell::OffBoard => return Err(CompileError::PoiNotAPiece { what: "#" }),
                Cell::Any => return Err(CompileError::PoiNotAPiece { what: "_" }),
            }
        }
        let id = BindId(self.binds.len() as u32);
        self.binds.push(codes.into_boxed_slice());
        let next = self.here() + 1;
        self.emit(Inst::Bind { id, next })?;
        self.compile_at(body, poi + 1, depth, nesting)?;
        let next = self.here() + 1;
        self.emit(Inst::Unbind { next })?;
        Ok(())
    }

    /// `M | N | ...`: a `Split` before each alternative but the last, each
    /// alternative jumping to the end.
    fn compile_union(
        &mut self,
        ms: &'m [Move],
        poi: usize,
        depth: usize,
        nesting: usize,
    ) -> Result<(), CompileError> {
        let mut jumps = Vec::new();
        for (i, m) in ms.iter().enumerate() {
            if i + 1 < ms.len() {
                let split = self.emit(Inst::Split {
                    first: self.here() + 1,
                    second: 0,
                })?;
                self.compile_at(m, poi, depth, nesting)?;
                jumps.push(self.emit(Inst::Jump { to: 0 })?);
                let here = self.here();
                self.set_second(split, here);
            } else {
                self.compile_at(m, poi, depth, nesting)?;
            }
        }
        let end = self.here();
        for j in jumps {
            self.set_jump(j, end);
        }
        Ok(())
    }

    /// `M{min, max}`: `min` copies of M, then `max - min` nested optional
    /// copies, or (no `max`) a loop.
    fn compile_repeat(
        &mut self,
        body: &'m Move,
        (min, max): (u32, Option<u32>),
        poi: usize,
        depth: usize,
        nesting: usize,
    ) -> Result<(), CompileError> {
        // Every copy takes at least one instruction: refuse early.
        let copies = max.unwrap_or(min) as usize;
        if copies.saturating_add(self.insts.len()) > MAX_INSTRUCTIONS {
            return Err(CompileError::TooLarge {
                limit: MAX_INSTRUCTIONS,
            });
        }
        for _ in 0..min {
            self.compile_at(body, poi, depth, nesting)?;
        }
        match max {
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    splits.push(self.emit(Inst::Split {
                        first: self.here() + 1,
                        second: 0,
                    })?);
                    self.compile_at(body, poi, depth, nesting)?;
                }
                let end = self.here();
                for s in splits {
                    self.set_second(s, end);
                }
            }
            None => {
                let head = self.emit(Inst::Split {
                    first: self.here() + 1,
                    second: 0,
                })?;
                self.compile_at(body, poi, depth, nesting)?;
                self.emit(Inst::Jump { to: head })?;
                let end = self.here();
                self.set_second(head, end);
            }
        }
        Ok(())
    }

    /// Resolves jumps away and marks where the engine consults its visited set.
    fn finish(self, codes: usize) -> Program {
        let insts = self.insts;
        let n = insts.len();
        let resolve = |mut pc: Pc| {
            // A chain of jumps is at most as long as the program.
            for _ in 0..n {
                match insts[pc as usize] {
                    Inst::Jump { to } => pc = to,
                    _ => break,
                }
            }
            pc
        };
        let mut resolved: Vec<Inst> = insts
            .iter()
            .map(|inst| match *inst {
                Inst::Rewrite { id, next } => Inst::Rewrite {
                    id,
                    next: resolve(next),
                },
                Inst::Split { first, second } => Inst::Split {
                    first: resolve(first),
                    second: resolve(second),
                },
                Inst::Jump { to } => Inst::Jump { to: resolve(to) },
                Inst::Bind { id, next } => Inst::Bind {
                    id,
                    next: resolve(next),
                },
                Inst::Unbind { next } => Inst::Unbind { next: resolve(next) },
                Inst::Attacked { next } => Inst::Attacked { next: resolve(next) },
                Inst::NoReply { next } => Inst::NoReply { next: resolve(next) },
                Inst::Origin { next } => Inst::Origin { next: resolve(next) },
                Inst::Test { holds, id, next } => Inst::Test {
                    holds,
                    id,
                    next: resolve(next),
                },
                Inst::Guard { holds, sub, next } => Inst::Guard {
                    holds,
                    sub,
                    next: resolve(next),
                },
                Inst::Ordered { id, next } => Inst::Ordered {
                    id,
                    next: resolve(next),
                },
                Inst::Match => Inst::Match,
            })
            .collect();
        let start = resolve(0);
        let subs: Vec<Pc> = self.subs.iter().map(|&s| resolve(s)).collect();

        let mut indegree = vec![0u32; n];
        let mut merges = vec![false; n];
        indegree[start as usize] += 1;
        for &s in &subs {
            indegree[s as usize] += 1;
        }
        for inst in &resolved {
            match *inst {
                // Termination needs the visited set only where paths join
                // (every loop head is a join); after a rewrite it would
                // merely dedupe states, at the price of a lookup per step.
                Inst::Rewrite { next, .. } => indegree[next as usize] += 1,
                Inst::Unbind { next } | Inst::Ordered { next, .. } => {
                    indegree[next as usize] += 1;
                    merges[next as usize] = true;
                }
                Inst::Bind { next, .. }
                | Inst::Guard { next, .. }
                | Inst::Attacked { next }
                | Inst::NoReply { next }
                | Inst::Origin { next }
                | Inst::Test { next, .. } => indegree[next as usize] += 1,
                Inst::Split { first, second } => {
                    indegree[first as usize] += 1;
                    indegree[second as usize] += 1;
                }
                // Jumps are never executed once resolved.
                Inst::Jump { .. } | Inst::Match => {}
            }
        }
        // From a "cheap" instruction only unbinds lead to the match: a state
        // reached twice there costs one more (deduplicated) result, less than
        // a visited-set lookup. Loops always contain a split, so loop heads
        // are never cheap and closures still stop.
        let mut cheap = vec![false; n];
        for pc in (0..n).rev() {
            cheap[pc] = match resolved[pc] {
                Inst::Match => true,
                Inst::Unbind { next } => next as usize > pc && cheap[next as usize],
                _ => false,
            };
        }
        let visit = (0..n)
            .map(|pc| {
                !matches!(resolved[pc], Inst::Jump { .. }) && !cheap[pc] && (indegree[pc] > 1 || merges[pc])
            })
            .collect();
        // A loop head: a split that an instruction after it comes back to.
        let mut loop_heads = vec![false; n];
        for (q, inst) in resolved.iter().enumerate() {
            if matches!(inst, Inst::Jump { .. }) {
                continue;
            }
            for t in inst.successors() {
                if t as usize <= q && matches!(resolved[t as usize], Inst::Split { .. }) {
                    loop_heads[t as usize] = true;
                }
            }
        }
        resolved.shrink_to_fit();

        let mut max_code = codes;
        for rw in &self.rewrites {
            for alt in rw.alternatives.iter() {
                for ch in alt.choices.iter().flat_map(|c| c.iter()) {
                    if let Write::Code(c) = ch.write {
                        max_code = max_code.max(c as usize + 1);
                    }
                }
            }
        }
        let entry = entry::entry_checks(&resolved, &self.rewrites);
        let skip = entry::skips(&resolved, &entry);
        Program {
            entry,
            skip,
            insts: resolved,
            visit,
            loop_heads,
            rewrites: self.rewrites,
            binds: self.binds,
            subs,
            ordered: self.ordered,
            start,
            codes: max_code,
            depth: self.depth,
            unbound_writes: self.unbound_writes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Offset;
    use crate::core::{Marks, PieceId};
    use crate::ir::{CellSet, Pattern};

    fn sq(x: i32, y: i32, c: Cell) -> Pattern {
        Pattern::square(Offset::new(x, y), CellSet::one(c))
    }

    fn step_up() -> Move {
        Move::rewrite(
            sq(0, 0, Cell::Poi(Marks::NONE))
                .glue(&sq(0, 1, Cell::Empty))
                .unwrap(),
            sq(0, 0, Cell::Empty)
                .glue(&sq(0, 1, Cell::Poi(Marks::NONE)))
                .unwrap(),
        )
    }

    fn table() -> PieceTable {
        let mut t = PieceTable::new();
        t.declare('♖');
        t
    }

    /// `% + u. + u²♖ -> ...` and `% + u. + r♖ -> ...`: rewrites that both
    /// need the square above the piece of interest empty.
    fn needs_above_empty(second: (i32, i32)) -> Move {
        let lhs = sq(0, 0, Cell::Poi(Marks::NONE))
            .glue(&sq(0, 1, Cell::Empty))
            .unwrap()
            .glue(&sq(second.0, second.1, Cell::Piece(PieceId(0), Marks::NONE)))
            .unwrap();
        Move::rewrite(lhs.clone(), lhs)
    }

    #[test]
    fn a_run_of_alternatives_sharing_a_check_is_skipped_at_once() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::union(vec![
                needs_above_empty((0, 2)),
                needs_above_empty((1, 0)),
                step_up(),
            ]),
        );
        let p = compile(&mv, &table()).unwrap();
        let listing = p.to_string();
        let (pc, skip) = p
            .skip
            .iter()
            .enumerate()
            .find_map(|(pc, s)| s.as_ref().map(|s| (pc, s)))
            .unwrap_or_else(|| panic!("no skip in {listing}"));
        // The three alternatives all need `u.`: one check, and nothing past them.
        assert!(matches!(p.insts[pc], Inst::Split { .. }));
        assert_eq!(skip.checks.len(), 1, "{listing}");
        assert_eq!((skip.checks[0].dx, skip.checks[0].dy), (0, 1));
        assert_eq!(skip.past, None);
        // Each rewrite alone needs its own squares.
        let rewrite = p
            .insts
            .iter()
            .position(|i| matches!(i, Inst::Rewrite { .. }))
            .unwrap();
        assert!(!p.entry[rewrite].is_empty());
    }

    #[test]
    fn star_is_a_loop_with_a_visited_head() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::repeat(step_up(), 0, None),
        );
        let p = compile(&mv, &table()).unwrap();
        let listing = p.to_string();
        assert!(listing.contains("bind"), "{listing}");
        // The loop head is a split marked for the visited set.
        let head = p
            .insts
            .iter()
            .position(|i| matches!(i, Inst::Split { .. }))
            .unwrap();
        assert!(p.visit[head], "{listing}");
        assert!(matches!(p.insts.last(), Some(Inst::Match)));
    }

    #[test]
    fn bounded_repeat_unrolls() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::repeat(step_up(), 1, Some(3)),
        );
        let p = compile(&mv, &table()).unwrap();
        let rewrites = p
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Rewrite { .. }))
            .count();
        assert_eq!(rewrites, 3);
        let splits = p.insts.iter().filter(|i| matches!(i, Inst::Split { .. })).count();
        assert_eq!(splits, 2);
    }

    #[test]
    fn unbound_poi_is_reported_not_a_panic() {
        assert_eq!(
            compile(&step_up(), &table()),
            Err(CompileError::UnboundPoi {
                side: RewriteSide::Left
            })
        );
        // Guards inherit the binding.
        let guarded = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::guard(false, step_up()),
        );
        assert!(compile(&guarded, &table()).is_ok());
        let outside = Move::seq(vec![
            Move::with_poi(CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)), Move::Nil),
            Move::guard(true, step_up()),
        ]);
        assert!(compile(&outside, &table()).is_err());
    }

    #[test]
    fn poi_must_name_pieces() {
        let mv = Move::with_poi(CellSet::one(Cell::Empty), Move::Nil);
        assert_eq!(
            compile(&mv, &table()),
            Err(CompileError::PoiNotAPiece { what: "." })
        );
    }

    #[test]
    fn huge_repeats_are_refused() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::repeat(step_up(), 2_000_000, Some(2_000_000)),
        );
        assert_eq!(
            compile(&mv, &table()),
            Err(CompileError::TooLarge {
                limit: MAX_INSTRUCTIONS
            })
        );
    }

    #[test]
    fn a_guard_on_one_rewrite_is_a_test_not_a_sub_program() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::guard(false, step_up()),
        );
        let p = compile(&mv, &table()).unwrap();
        assert!(p.subs.is_empty());
        assert!(
            p.insts
                .iter()
                .any(|i| matches!(i, Inst::Test { holds: false, .. }))
        );
    }

    #[test]
    fn sub_programs_are_laid_out_after_the_main_one() {
        let mv = Move::with_poi(
            CellSet::one(Cell::Piece(PieceId(0), Marks::NONE)),
            Move::ordered(vec![
                step_up(),
                Move::guard(true, Move::seq(vec![step_up(), step_up()])),
            ]),
        );
        let p = compile(&mv, &table()).unwrap();
        assert_eq!(p.nesting(), 2);
        assert_eq!(p.subs.len(), 3);
        for &s in &p.subs {
            assert!(s > p.start);
        }
    }
}
