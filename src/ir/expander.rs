//! The AST to the core IR: one recursive walk with a bounded depth.

use std::collections::HashMap;

use super::error::ExpandError;
use super::tree::{Cell, CellSet, Move, Pattern, Term, Value};
use crate::core::{BoxId, Marks, PieceId, PieceTable};
use crate::core::{Movement, Offset};
use crate::source::Span;
use crate::syntax::ast::{Definition, Expr, ExprKind, Ident};

/// How deep definitions, calls and expressions may nest during expansion.
pub const MAX_DEPTH: usize = 256;

/// The largest expanded value, in IR nodes.
pub const MAX_SIZE: usize = 200_000;

/// The most expressions one expansion may work out, each use of a function
/// counted anew: a function that uses its argument twice, called within
/// itself level after level (`f1(M) = f0(f0(M))`, `f2(M) = f1(f1(M))`, ...),
/// doubles the work at each level while its value stays small.
pub const MAX_STEPS: usize = 2_000_000;

/// How many expressions are worked out between two looks at the clock.
const STEPS_PER_LOOK: usize = 1024;

/// The builtin functions, each of one argument (see [`super::BUILTINS`]).
pub(crate) const FUNCTIONS: [&str; 2] = ["colour_swapped", "flipped"];

/// The builtin fragment functions: `pieces()` (any piece of any player, with
/// any marks) and `pieces(white)` (any piece of that player).
pub(crate) const PIECES: &str = "pieces";

/// `fewer(X, n)`: holds while the board has fewer than n pieces of X.
pub(crate) const FEWER: &str = "fewer";

/// The largest count `fewer(X, n)` takes (a guard n bindings deep).
const MAX_FEWER: u32 = 64;

/// `%from: M`: the word that makes the square the piece of interest
/// started on the piece of interest.
pub(crate) const ORIGIN: &str = "from";

/// The builtin moves, written as bare words.
pub(crate) const BUILTIN_MOVES: [&str; 2] = ["attacked", "no_reply"];

/// Which source a definition or expression came from (an index the caller assigns).
pub(crate) type SourceId = usize;

/// An error tagged with the source its span points into. `None` marks an
/// error already reported elsewhere (a use of a broken definition).
pub(crate) type Tagged = Option<(SourceId, ExpandError)>;

/// A definition the expander can look up.
#[derive(Clone, Copy)]
pub(crate) struct Def<'a> {
    /// The definition as written.
    pub ast: &'a Definition,
    /// Where it was written.
    pub source: SourceId,
}

/// Parameter bindings of the function call being expanded.
type Scope = Vec<(String, Value)>;

/// The expander's state: definitions by name, memoised values, the stack of
/// names being expanded (to catch recursion) and the current depth.
pub(crate) struct Expander<'a> {
    pieces: &'a PieceTable,
    defs: HashMap<&'a str, Def<'a>>,
    memo: HashMap<&'a str, Result<Value, ()>>,
    stack: Vec<&'a str>,
    depth: usize,
    /// Warnings found while expanding (each with its source).
    pub(crate) warnings: Vec<(SourceId, ExpandError)>,
    /// Every place and region expanded so far: the pattern it gave, and
    /// where it is written (to warn when a rotation turns it).
    places: Vec<(Pattern, SourceId, Span)>,
    /// Expressions expanded so far (calls counted each time).
    steps: usize,
    /// The outermost expression being expanded: where a limit of the
    /// whole expansion is reported.
    root: Option<(Span, SourceId)>,
    /// A limit of the whole expansion was reached and reported: whatever
    /// else is expanded fails quietly.
    stopped: bool,
}

/// Whether a word is a movement: only `u d l r R` (and `1`, as in `m1 = m`).
pub(crate) fn is_movement_word(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| "udlrR1".contains(c))
}

/// The movement a word of `u d l r R` (and `1`) stands for.
pub fn movement_of_word(w: &str) -> Movement {
    w.chars()
        .rev()
        .fold(Movement::IDENTITY, |acc, c| match Movement::from_letter(c) {
            Some(m) => m.compose(acc).unwrap_or(acc),
            None => acc, // `1`
        })
}

/// Counts IR nodes, stopping early once past `MAX_SIZE`.
fn size(v: &Value) -> usize {
    fn pat(p: &Pattern, budget: &mut usize) {
        for t in p.terms() {
            if *budget > MAX_SIZE {
                return;
            }
            *budget += 1;
            if let Term::Either(alts) = t {
                alts.iter().for_each(|a| pat(a, budget));
            }
        }
    }
    fn mv(m: &Move, budget: &mut usize) {
        if *budget > MAX_SIZE {
            return;
        }
        *budget += 1;
        match m {
            Move::Nil | Move::Attacked | Move::NoReply => {}
            Move::Rewrite(r) => {
                pat(&r.lhs, budget);
                pat(&r.rhs, budget);
            }
            Move::WithPoi { body, .. }
            | Move::Repeat { body, .. }
            | Move::Guard { body, .. }
            | Move::AtOrigin(body) => mv(body, budget),
            Move::Seq(ms) | Move::Union(ms) | Move::Ordered(ms) => ms.iter().for_each(|m| mv(m, budget)),
        }
    }
    let mut n = 0;
    match v {
        Value::Movement(_) => n = 1,
        Value::Pattern(p) => pat(p, &mut n),
        Value::Move(m) => mv(m, &mut n),
        Value::Box(_) => n = 1,
    }
    n
}

/// The closest of `names` to `name`, if one is close enough to suggest.
pub(crate) fn closest<'n>(name: &str, names: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut cur = vec![i + 1];
            for (j, cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(ca != *cb);
                cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let limit = (name.chars().count() / 3).clamp(1, 3);
    names
        .map(|n| (distance(name, n), n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n)
}

fn spot(at: Offset) -> String {
    let m = Movement::translation(at.x, at.y);
    if m.is_identity() {
        "the centre `1`".to_string()
    } else {
        format!("`{m}` from the centre")
    }
}

impl<'a> Expander<'a> {
    /// An expander over `defs` (already checked for duplicates) and `pieces`.
    pub(crate) fn new(pieces: &'a PieceTable, defs: HashMap<&'a str, Def<'a>>) -> Self {
        Expander {
            pieces,
            defs,
            memo: HashMap::new(),
            stack: Vec::new(),
            depth: 0,
            warnings: Vec::new(),
            places: Vec::new(),
            steps: 0,
            root: None,
            stopped: false,
        }
    }

    /// The value of a plain (argument-free) definition, expanded once.
    pub(crate) fn definition(&mut self, name: &'a str) -> Result<Value, Tagged> {
        let def = self.defs[name];
        self.use_definition(name, def, def.ast.name.span, def.source)
    }

    /// The value of an expression written in `source`.
    pub(crate) fn expression(&mut self, e: &'a Expr, source: SourceId) -> Result<Value, Tagged> {
        self.expr(e, &Scope::new(), source)
    }

    /// The value of an expression written in `source` with parameters bound
    /// (as inside a call of the function they belong to).
    pub(crate) fn expression_in(
        &mut self,
        e: &'a Expr,
        scope: &[(String, Value)],
        source: SourceId,
    ) -> Result<Value, Tagged> {
        self.expr(e, &scope.to_vec(), source)
    }

    /// Reports names in a function body that can never resolve (the body is
    /// only expanded when called, with its arguments).
    pub(crate) fn check_function_body(&self, def: Def<'a>) -> Vec<ExpandError> {
        let params: Vec<&str> = def.ast.params.iter().map(|p| p.text.as_str()).collect();
        let mut errors = Vec::new();
        let mut todo = vec![&def.ast.body];
        while let Some(e) = todo.pop() {
            match &e.kind {
                ExprKind::Word(w) => {
                    if !params.contains(&w.as_str())
                        && let Err(err) = self.word_is_known(w, e.span)
                    {
                        errors.push(err);
                    }
                }
                ExprKind::Call { name, args } => {
                    let n = name.text.as_str();
                    let known = self.defs.get(n).is_some_and(|d| d.ast.is_function)
                        || FUNCTIONS.contains(&n)
                        || n == PIECES
                        || (is_movement_word(n) && !self.defs.contains_key(n));
                    if !known && !params.contains(&n) {
                        errors.push(self.undefined_function(name));
                    }
                    todo.extend(args.iter());
                }
                _ => todo.extend(e.children()),
            }
        }
        errors.sort_by_key(|e| format!("{e:?}"));
        errors
    }

    fn word_is_known(&self, w: &str, span: Span) -> Result<(), ExpandError> {
        if self.defs.contains_key(w)
            || is_movement_word(w)
            || self.letter_piece(w).is_some()
            || BUILTIN_MOVES.contains(&w)
            || self.pieces.box_named(w).is_some()
        {
            Ok(())
        } else {
            Err(self.undefined_name(w, span))
        }
    }

    fn letter_piece(&self, w: &str) -> Option<Cell> {
        let mut cs = w.chars();
        let c = cs.next()?;
        if cs.next().is_some() {
            return None;
        }
        self.pieces.lookup(c).map(|p| Cell::Piece(p, Marks::NONE))
    }

    fn undefined_name(&self, name: &str, span: Span) -> ExpandError {
        // A movement glued to a letter piece (`uX`): the space is missing.
        let glued = name.char_indices().last().filter(|&(i, _)| {
            i > 0 && is_movement_word(&name[..i]) && self.letter_piece(&name[i..]).is_some()
        });
        if let Some((i, _)) = glued {
            return ExpandError::UndefinedName {
                span,
                name: name.to_string(),
                help: format!(
                    "write `{} {}`: a movement, a space, then the piece (letters glued together make one name)",
                    &name[..i],
                    &name[i..]
                ),
            };
        }
        let help = match closest(name, self.defs.keys().copied().filter(|n| !self.defs[n].ast.is_function)) {
            Some(s) => format!("did you mean `{s}`? (a word of only `u d l r R` is a movement)"),
            None => "define it with `name = ...` at the start of a line (a word of only `u d l r R` is a movement)"
                .to_string(),
        };
        ExpandError::UndefinedName {
            span,
            name: name.to_string(),
            help,
        }
    }

    fn undefined_function(&self, name: &Ident) -> ExpandError {
        let functions = self
            .defs
            .keys()
            .copied()
            .filter(|n| self.defs[n].ast.is_function)
            .chain(FUNCTIONS);
        let help = match closest(&name.text, functions) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!(
                "define it with `{}(M) = ...`; the builtins are `colour_swapped` and `flipped`",
                name.text
            ),
        };
        ExpandError::UndefinedFunction {
            span: name.span,
            name: name.text.clone(),
            help,
        }
    }

    fn use_definition(
        &mut self,
        name: &'a str,
        def: Def<'a>,
        at: Span,
        from: SourceId,
    ) -> Result<Value, Tagged> {
        if let Some(done) = self.memo.get(name) {
            return done.clone().map_err(|()| None);
        }
        if let Some(cycle) = self.cycle(name) {
            return Err(Some((
                from,
                ExpandError::Recursive {
                    span: at,
                    name: name.to_string(),
                    chain: cycle,
                },
            )));
        }
        self.stack.push(name);
        let result = self.expr(&def.ast.body, &Scope::new(), def.source);
        self.stack.pop();
        let result = result.and_then(|v| self.within_size(v, def.ast.body.span, def.source));
        // A definition that failed is reported once; its uses fail quietly.
        self.memo.insert(name, result.clone().map_err(|_| ()));
        // (Its own expansion, from its name, is no use.)
        if failed_inside(&result) && !(from == def.source && def.ast.span.contains(at)) {
            self.note_use(name, at, from);
        }
        result
    }

    /// Notes where a definition whose expansion failed is used.
    fn note_use(&mut self, name: &str, span: Span, src: SourceId) {
        let note = ExpandError::UsedHere {
            span,
            name: name.to_string(),
        };
        if !self.warnings.iter().any(|(s, e)| *s == src && *e == note) {
            self.warnings.push((src, note));
        }
    }

    fn within_size(&self, v: Value, span: Span, source: SourceId) -> Result<Value, Tagged> {
        if size(&v) > MAX_SIZE {
            return Err(Some((
                source,
                ExpandError::TooLarge {
                    span,
                    limit: MAX_SIZE,
                },
            )));
        }
        Ok(v)
    }

    /// Counts one expression worked out; an error at the outermost
    /// expression once the expansion passes [`MAX_STEPS`] or its job's
    /// deadline ([`crate::core::budget`]), reported once.
    fn count_step(&mut self) -> Result<(), Tagged> {
        if self.stopped {
            return Err(None);
        }
        self.steps += 1;
        let (span, source) = self.root.unwrap_or_default();
        let error = if self.steps > MAX_STEPS {
            ExpandError::TooMuchWork {
                span,
                limit: MAX_STEPS,
            }
        } else if self.steps.is_multiple_of(STEPS_PER_LOOK) && crate::core::budget::passed() {
            ExpandError::OutOfTime { span }
        } else {
            return Ok(());
        };
        self.stopped = true;
        Err(Some((source, error)))
    }

    fn cycle(&self, name: &str) -> Option<String> {
        let start = self.stack.iter().position(|n| *n == name)?;
        let mut chain: Vec<&str> = self.stack[start..].to_vec();
        chain.push(name);
        Some(chain.join(" -> "))
    }

    fn expr(&mut self, e: &'a Expr, scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        if self.depth == 0 {
            self.root = Some((e.span, src));
        }
        self.count_step()?;
        if self.depth >= MAX_DEPTH {
            return Err(Some((
                src,
                ExpandError::TooDeep {
                    span: e.span,
                    limit: MAX_DEPTH,
                },
            )));
        }
        self.depth += 1;
        // Debug builds use large frames; grow the stack rather than overflow it.
        let result = stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || self.expr_inner(e, scope, src));
        self.depth -= 1;
        result
    }

    /// Expands one expression by its kind: the leaves here, each operator
    /// by a method of its own.
    fn expr_inner(&mut self, e: &'a Expr, scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        match &e.kind {
            ExprKind::Nil => Ok(Value::Move(Move::Nil)),
            ExprKind::Empty => Ok(Value::Pattern(Pattern::empty())),
            ExprKind::Identity => Ok(Value::Movement(Movement::IDENTITY)),
            ExprKind::Count(_) => Err(Some((
                src,
                ExpandError::Fewer {
                    span: e.span,
                    help: "a count is only the second argument of `fewer(♖, 2)`".into(),
                },
            ))),
            ExprKind::Square => Ok(origin(Cell::Empty)),
            ExprKind::Poi => Ok(origin(Cell::Poi(Marks::NONE))),
            ExprKind::OffBoard => Ok(origin(Cell::OffBoard)),
            ExprKind::AnySquare => Ok(origin(Cell::Any)),
            ExprKind::Place { file, rank } => {
                let p = self.place(*file, *rank);
                self.note_place(&p, src, e.span);
                Ok(Value::Pattern(p))
            }
            ExprKind::Region(name) => self.region(name, e.span, src),
            ExprKind::Piece(c) => self.declared_piece(*c, e.span, src),
            ExprKind::Word(w) => self.word(w, e.span, scope, src),
            ExprKind::Group(inner) => self.expr(inner, scope, src),
            ExprKind::Call { name, args } => self.call(name, args, e.span, scope, src),
            ExprKind::Juxtapose(items) => self.juxtapose(items, scope, src),
            ExprKind::Glue(items) => self.glue(items, scope, src),
            ExprKind::Union(items) => self.union(items, scope, src),
            ExprKind::Arrow { lhs, rhs } => self.arrow(lhs, rhs, e.span, scope, src),
            ExprKind::Ordered(items) => {
                let ms = items
                    .iter()
                    .map(|i| self.a_move(i, scope, src, "`/`", "chooses between moves"))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Value::Move(Move::ordered(ms)))
            }
            // `%from: M`: the square the piece of interest started on (unless
            // the file names something `from`).
            ExprKind::PoiBind { piece, body } if matches!(&piece.kind, ExprKind::Word(w) if w == ORIGIN && !self.defs.contains_key(ORIGIN)) =>
            {
                let m = self.a_move(
                    body,
                    scope,
                    src,
                    "`%from:`",
                    "moves at the square the piece started on",
                )?;
                Ok(Value::Move(Move::AtOrigin(Box::new(m))))
            }
            ExprKind::PoiBind { piece, body } => self.poi_bind(piece, body, scope, src),
            ExprKind::Guard { holds, body } => self.guard(*holds, body, scope, src),
            ExprKind::Repeat { body, min, max, .. } => self.repeat(body, (*min, *max), e.span, scope, src),
            ExprKind::Marked { body, marks } => self.marked(body, marks, e.span, scope, src),
            ExprKind::Power { base, exponent } => self.power(base, *exponent, e.span, scope, src),
        }
    }

    /// `@palace`: a choice of the region's squares, each noted as a place
    /// (a guard takes a region's squares one by one), and the whole.
    fn region(&mut self, name: &str, span: Span, src: SourceId) -> Result<Value, Tagged> {
        let Some(squares) = self.pieces.region(name) else {
            return Err(Some((
                src,
                ExpandError::UndefinedName {
                    span,
                    name: format!("@{name}"),
                    help: format!(
                        "declare the region with `region {name} a1-c3 e4 ...` (squares and rectangles)"
                    ),
                },
            )));
        };
        let each: Vec<Pattern> = squares
            .iter()
            .map(|&(f, r)| self.place(Some(f), Some(r)))
            .collect();
        // Each square alone too: a guard takes a region's squares one by one.
        for p in &each {
            self.note_place(p, src, span);
        }
        let p = Pattern::either(each);
        self.note_place(&p, src, span);
        Ok(Value::Pattern(p))
    }

    /// A piece symbol (`♖`): the fragment of that piece, if it is declared.
    fn declared_piece(&self, c: char, span: Span, src: SourceId) -> Result<Value, Tagged> {
        match self.pieces.lookup(c) {
            Some(id) => Ok(origin(Cell::Piece(id, Marks::NONE))),
            None => Err(Some((
                src,
                ExpandError::UndeclaredPiece {
                    span,
                    symbol: c,
                    help: format!(
                        "declare it with `piece {c}` (or `piece {c} X` for a colour pair); a file with its own `piece` lines does not see the prelude's chess pieces"
                    ),
                },
            ))),
        }
    }

    /// `f + g`: the fragments glued into one; an error where two of them
    /// claim the same square.
    fn glue(&mut self, items: &'a [Expr], scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        let mut acc = Pattern::empty();
        let mut whole = items[0].span;
        for item in items {
            let p = self.pattern(item, scope, src, "`+`", "glues fragments", GLUE_HELP)?;
            whole = whole.join(item.span);
            acc = match acc.glue(&p) {
                Ok(g) => g,
                Err(o) => {
                    return Err(Some((
                        src,
                        ExpandError::Overlap {
                            span: whole,
                            spot: spot(o.at),
                        },
                    )));
                }
            };
        }
        Ok(Value::Pattern(acc))
    }

    /// `A | B`: a choice of fragments if every alternative is one, else a
    /// choice of moves, which every alternative must then be.
    fn union(&mut self, items: &'a [Expr], scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        let values = items
            .iter()
            .map(|i| self.expr(i, scope, src))
            .collect::<Result<Vec<_>, _>>()?;
        if values.iter().all(|v| matches!(v, Value::Pattern(_))) {
            let ps = values
                .into_iter()
                .map(|v| match v {
                    Value::Pattern(p) => p,
                    _ => unreachable!("checked above"),
                })
                .collect();
            return Ok(Value::Pattern(Pattern::either(ps)));
        }
        let mut moves = Vec::new();
        for (v, i) in values.into_iter().zip(items) {
            match v {
                Value::Move(m) => moves.push(m),
                other => {
                    return Err(Some((
                        src,
                        ExpandError::Kind {
                            span: i.span,
                            operator: "`|`".into(),
                            expects: "chooses between fragments or between moves".into(),
                            found: other.kind(),
                            help: "all alternatives of one `|` must be fragments, or all moves".into(),
                        },
                    )));
                }
            }
        }
        Ok(Value::Move(Move::union(moves)))
    }

    /// `f -> g` (the whole written at `span`): the rewrite, checked.
    fn arrow(
        &mut self,
        lhs: &'a Expr,
        rhs: &'a Expr,
        span: Span,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        let l = self.pattern(lhs, scope, src, "`->`", "rewrites a fragment", ARROW_HELP)?;
        let r = self.pattern(rhs, scope, src, "`->`", "rewrites into a fragment", ARROW_HELP)?;
        if r.any_offsets().iter().any(|o| !l.fixes(*o)) {
            return Err(Some((src, ExpandError::AnyWritten { span: rhs.span })));
        }
        self.check_rewrite(&l, &r, span, rhs, src)?;
        Ok(Value::Move(Move::rewrite(l, r)))
    }

    /// `%p: M`: the move with the pieces `piece` names bound as the piece
    /// of interest.
    fn poi_bind(
        &mut self,
        piece: &'a Expr,
        body: &'a Expr,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        let pieces = match self.expr(piece, scope, src)? {
            Value::Pattern(p) => poi_pieces(&p),
            _ => None,
        };
        let Some(pieces) = pieces else {
            return Err(Some((
                src,
                ExpandError::PoiPiece {
                    span: piece.span,
                    found: "something else".into(),
                },
            )));
        };
        let m = self.a_move(body, scope, src, "`%p:`", "binds a piece for a move")?;
        Ok(Value::Move(Move::with_poi(pieces, m)))
    }

    /// `?{M}` or `!{M}` (`holds` false): a guard on a move.
    fn guard(&mut self, holds: bool, body: &'a Expr, scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        // `?{f}` over a fragment only looks: it is `?{f -> f}`, as a
        // choice of such rewrites where `f` is a choice of fragments
        // (`% + @palace`), which the square-set engines answer.
        if let Value::Pattern(p) = self.expr(body, scope, src)? {
            let looks = match p.alternatives(64) {
                Some(alts) => Move::union(alts.into_iter().map(|a| Move::rewrite(a.clone(), a)).collect()),
                None => Move::rewrite(p.clone(), p),
            };
            return Ok(Value::Move(Move::guard(holds, looks)));
        }
        let m = self.a_move(body, scope, src, "a guard", "tests a move")?;
        Ok(Value::Move(Move::guard(holds, m)))
    }

    /// `M{min, max}` (and `M*`, `M+`, `M?`), written at `span`: a move
    /// repeated.
    fn repeat(
        &mut self,
        body: &'a Expr,
        (min, max): (u32, Option<u32>),
        span: Span,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        match self.expr(body, scope, src)? {
            Value::Move(m) => Ok(Value::Move(Move::repeat(m, min, max))),
            other => {
                let help = match other {
                    Value::Movement(_) => "to repeat a movement use a power, e.g. `u³` or `u^3`",
                    _ => {
                        "make it a move first, e.g. `(% + u. -> . + u%)+`; to glue fragments write ` + ` with spaces"
                    }
                };
                Err(Some((
                    src,
                    ExpandError::RepeatNotMove {
                        span,
                        found: other.kind(),
                        help: help.into(),
                    },
                )))
            }
        }
    }

    /// `f°ᵉ`, written at `span`: a fragment whose pieces carry `marks`, each
    /// of which must be declared.
    fn marked(
        &mut self,
        body: &'a Expr,
        marks: &[char],
        span: Span,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        let mut set = Marks::NONE;
        for &c in marks {
            match self.pieces.mark(c) {
                Some(m) => set = set.union(m),
                None => {
                    return Err(Some((src, ExpandError::UndeclaredMark { span, symbol: c })));
                }
            }
        }
        let marked = match self.expr(body, scope, src)? {
            Value::Pattern(p) => p.marked(set),
            _ => None,
        };
        match marked {
            Some(p) => Ok(Value::Pattern(p)),
            None => Err(Some((src, ExpandError::BadMarks { span }))),
        }
    }

    /// `m^i` (or `m³`), written at `span`: a movement made `exponent` times.
    fn power(
        &mut self,
        base: &'a Expr,
        exponent: i64,
        span: Span,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        match self.expr(base, scope, src)? {
            Value::Movement(m) => match m.pow(exponent) {
                Ok(p) => Ok(Value::Movement(p)),
                Err(_) => Err(Some((src, ExpandError::MovementTooFar { span }))),
            },
            other => Err(Some((
                src,
                ExpandError::PowerNotMovement {
                    span,
                    found: other.kind(),
                },
            ))),
        }
    }

    fn word(&mut self, w: &'a str, span: Span, scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == w) {
            return Ok(v.clone());
        }
        if let Some(def) = self.defs.get(w).copied() {
            if def.ast.is_function {
                let n = def.ast.params.len();
                if n == 0 {
                    return Err(Some((
                        src,
                        ExpandError::NotCalled {
                            span,
                            name: w.to_string(),
                        },
                    )));
                }
                return Err(Some((
                    src,
                    ExpandError::WrongArity {
                        span,
                        name: w.to_string(),
                        expected: n,
                        found: 0,
                        help: format!("`{w}` is a function; call it as `{w}(...)` with {n} argument(s)"),
                    },
                )));
            }
            return self.use_definition(w, def, span, src);
        }
        if let Some(cell) = self.letter_piece(w) {
            return Ok(origin(cell));
        }
        if w == "attacked" {
            return Ok(Value::Move(Move::Attacked));
        }
        if w == "no_reply" {
            return Ok(Value::Move(Move::NoReply));
        }
        if let Some(bx) = self.pieces.box_named(w) {
            return Ok(Value::Box(bx));
        }
        if is_movement_word(w) {
            return Ok(Value::Movement(movement_of_word(w)));
        }
        Err(Some((src, self.undefined_name(w, span))))
    }

    fn call(
        &mut self,
        name: &'a Ident,
        args: &'a [Expr],
        span: Span,
        scope: &Scope,
        src: SourceId,
    ) -> Result<Value, Tagged> {
        let n = name.text.as_str();
        let arity_error = |expected: usize, help: String| {
            Err(Some((
                src,
                ExpandError::WrongArity {
                    span,
                    name: n.to_string(),
                    expected,
                    found: args.len(),
                    help,
                },
            )))
        };
        if let Some((_, value)) = scope.iter().rev().find(|(p, _)| p == n) {
            // `m(f + g)` with a parameter `m`: a movement applied to a
            // bracketed operand, as `u(f + g)` is.
            let Value::Movement(movement) = value else {
                return Err(Some((
                    src,
                    ExpandError::Kind {
                        span: name.span,
                        operator: format!("`{n}(...)`"),
                        expects: "applies a movement to its operand".into(),
                        found: value.kind(),
                        help: format!(
                            "only a parameter that holds a movement applies to an operand; here `{n}` holds {}",
                            value.kind()
                        ),
                    },
                )));
            };
            let movement = *movement;
            if args.len() != 1 {
                return arity_error(1, format!("a movement applies to one operand: `{n}(f)`"));
            }
            let v = self.expr(&args[0], scope, src)?;
            return v
                .moved(movement)
                .map_err(|_| Some((src, ExpandError::MovementTooFar { span })));
        }
        if let Some(def) = self.defs.get(n).copied() {
            if !def.ast.is_function {
                return arity_error(
                    0,
                    format!("`{n}` is not a function; write `{n}` without parentheses"),
                );
            }
            let params = &def.ast.params;
            if params.len() != args.len() {
                let names: Vec<&str> = params.iter().map(|p| p.text.as_str()).collect();
                return arity_error(params.len(), format!("call it as `{n}({})`", names.join(", ")));
            }
            let mut values = Vec::with_capacity(args.len());
            for a in args {
                values.push(self.expr(a, scope, src)?);
            }
            if let Some(cycle) = self.cycle(n) {
                return Err(Some((
                    src,
                    ExpandError::Recursive {
                        span: name.span,
                        name: n.to_string(),
                        chain: cycle,
                    },
                )));
            }
            let inner: Scope = params.iter().map(|p| p.text.clone()).zip(values).collect();
            self.stack.push(n);
            let result = self.expr(&def.ast.body, &inner, def.source);
            self.stack.pop();
            if failed_inside(&result) {
                self.note_use(n, name.span, src);
            }
            return result.and_then(|v| self.within_size(v, span, src));
        }
        if n == PIECES && !self.defs.contains_key(n) {
            return self.pieces_of(args, span, src);
        }
        if n == FEWER && !self.defs.contains_key(n) {
            return self.fewer(args, span, scope, src);
        }
        if FUNCTIONS.contains(&n) {
            if args.len() != 1 {
                return arity_error(1, format!("call it as `{n}(X)`"));
            }
            let v = self.expr(&args[0], scope, src)?;
            let swapped = v.colour_swapped(self.pieces);
            if n == "flipped" {
                let turned = swapped.moved(Movement::TURN.pow(2).expect("R² is small"));
                return turned.map_err(|_| Some((src, ExpandError::MovementTooFar { span })));
            }
            return Ok(swapped);
        }
        if is_movement_word(n) {
            // `m(f + g)`: a movement applied to a bracketed operand.
            if args.len() != 1 {
                return arity_error(1, format!("a movement applies to one operand: `{n}(f)`"));
            }
            let v = self.expr(&args[0], scope, src)?;
            return v
                .moved(movement_of_word(n))
                .map_err(|_| Some((src, ExpandError::MovementTooFar { span })));
        }
        Err(Some((src, self.undefined_function(name))))
    }

    /// `fewer(X, n)`: nothing changes, and the move goes on, while the
    /// board holds fewer than n pieces that X matches. It is the guard
    /// `!{%X: (% -> .) %X: (% -> .) ... %X: nil}` with n bindings: "there
    /// are not n distinct such pieces".
    fn fewer(&mut self, args: &'a [Expr], span: Span, scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        let bad = |help: &str| {
            Err(Some((
                src,
                ExpandError::Fewer {
                    span,
                    help: help.into(),
                },
            )))
        };
        let [piece, count] = args else {
            return bad("call it as `fewer(♖, 2)`: a piece and a count");
        };
        let n = match count.kind {
            ExprKind::Count(n) => n,
            ExprKind::Empty => 0,
            ExprKind::Identity => 1,
            _ => return bad("the second argument is a count, written in digits: `fewer(♖, 2)`"),
        };
        if n > MAX_FEWER {
            return bad("the count is at most 64");
        }
        let pieces = match self.expr(piece, scope, src)? {
            Value::Pattern(p) => poi_pieces(&p),
            _ => None,
        };
        let Some(pieces) = pieces else {
            return bad("the first argument is a piece (`♖`, `♖°`, `(♖ | ♕)`), as after `%`");
        };
        let take = Move::rewrite(
            Pattern::square(Offset::new(0, 0), CellSet::one(Cell::Poi(Marks::NONE))),
            Pattern::square(Offset::new(0, 0), CellSet::one(Cell::Empty)),
        );
        // Innermost first: the n-th piece need only be there.
        let mut body = Move::Nil;
        for i in 0..n {
            let inner = if i == 0 {
                body
            } else {
                Move::seq(vec![take.clone(), body])
            };
            body = Move::with_poi(pieces.clone(), inner);
        }
        Ok(Value::Move(Move::guard(false, body)))
    }

    /// `@d4`, `@d`, `@4`: "here is that square (file, rank)". On a board
    /// without holes, the squares between here and the left and bottom
    /// edges ([`place`]). On a board with holes, where a hole also reads
    /// as off the board, the paths to the edges name each square and hole
    /// on the way (and, if that is not yet one square alone, the paths to
    /// the right and top edges too); a file or a rank alone is the choice
    /// of its squares.
    fn place(&self, file: Option<u32>, rank: Option<u32>) -> Pattern {
        if !self.pieces.has_holes() {
            return place(file, rank);
        }
        let (files, ranks) = self.pieces.rectangle();
        let squares: Vec<(u32, u32)> = (0..files)
            .flat_map(|f| (0..ranks).map(move |r| (f, r)))
            .filter(|&(f, r)| file.is_none_or(|x| x == f) && rank.is_none_or(|y| y == r))
            .filter(|&(f, r)| self.pieces.is_square(f as i64, r as i64))
            .collect();
        let each: Vec<Pattern> = squares
            .iter()
            .map(|&(f, r)| self.square_on_holed_board(f, r))
            .collect();
        if each.is_empty() {
            // No such square: a place no square matches (as off the board).
            return place(file, rank);
        }
        Pattern::either(each)
    }

    /// The pattern that holds on square (f, r) of a board with holes and on
    /// no other square of it.
    fn square_on_holed_board(&self, f: u32, r: u32) -> Pattern {
        let (files, ranks) = self.pieces.rectangle();
        let (f, r) = (f as i64, r as i64);
        let path = |dx: i64, dy: i64, n: i64| -> Vec<(i64, i64, bool)> {
            (1..=n + 1)
                .map(|i| {
                    (
                        dx * i,
                        dy * i,
                        i <= n && self.pieces.is_square(f + dx * i, r + dy * i),
                    )
                })
                .collect()
        };
        let mut cells = path(-1, 0, f);
        cells.extend(path(0, -1, r));
        let matches_only_here = |cells: &[(i64, i64, bool)]| {
            (0..files as i64)
                .flat_map(|x| (0..ranks as i64).map(move |y| (x, y)))
                .filter(|&(x, y)| self.pieces.is_square(x, y))
                .filter(|&(x, y)| {
                    cells
                        .iter()
                        .all(|&(dx, dy, sq)| self.pieces.is_square(x + dx, y + dy) == sq)
                })
                .count()
                == 1
        };
        if !matches_only_here(&cells) {
            cells.extend(path(1, 0, files as i64 - 1 - f));
            cells.extend(path(0, 1, ranks as i64 - 1 - r));
        }
        cells
            .iter()
            .map(|&(dx, dy, sq)| {
                let cell = if sq { Cell::Any } else { Cell::OffBoard };
                Pattern::square(Offset::new(dx as i32, dy as i32), CellSet::one(cell))
            })
            .try_fold(Pattern::empty(), |acc, t| acc.glue(&t))
            .expect("a place's squares are distinct")
    }

    /// `pieces()`: every declared piece, with any marks; `pieces(white)`: the
    /// pieces of that player (the first symbol of each `piece` pair is the
    /// first player's).
    fn pieces_of(&mut self, args: &'a [Expr], span: Span, src: SourceId) -> Result<Value, Tagged> {
        let bad = |help: String| Err(Some((src, ExpandError::PiecesOf { span, help })));
        let side = match args {
            [] => None,
            [a] => match &a.kind {
                ExprKind::Word(w) if self.pieces.player(w).is_some() => self.pieces.player(w),
                _ => return bad("give a player's name, as `players` declares it: `pieces(white)`".into()),
            },
            _ => return bad("call it as `pieces()` or `pieces(PLAYER)`".into()),
        };
        let cells: Vec<Cell> = self
            .pieces
            .ids()
            .filter(|&p| side.is_none() || self.pieces.side(p) == side)
            .map(|p| Cell::Piece(p, Marks::NONE))
            .collect();
        match CellSet::new(cells) {
            Some(set) => Ok(Value::Pattern(Pattern::square(Offset::new(0, 0), set))),
            None => bad("that player owns no declared piece".into()),
        }
    }

    /// `a b c`: runs of movements apply to the operand after them; the
    /// operands that remain are moves in sequence (or one value alone).
    /// Notes a place or region expanded at `span` (see [`Expander::places`]).
    fn note_place(&mut self, p: &Pattern, src: SourceId, span: Span) {
        if !self
            .places
            .iter()
            .any(|(q, s, sp)| *s == src && *sp == span && q == p)
        {
            self.places.push((p.clone(), src, span));
        }
    }

    /// Warns for every place or region inside `v`, which a rotation turns.
    fn warn_turned_places(&mut self, v: &Value) {
        if self.places.is_empty() {
            return;
        }
        let mut patterns = Vec::new();
        collect_patterns(v, &mut patterns);
        let mut found: Vec<(SourceId, Span)> = Vec::new();
        for (place, src, span) in &self.places {
            if !found.contains(&(*src, *span)) && patterns.iter().any(|p| contains_terms(p, place)) {
                found.push((*src, *span));
            }
        }
        for (src, span) in found {
            let w = ExpandError::PlaceTurned { span };
            if !self.warnings.iter().any(|(s, e)| *s == src && *e == w) {
                self.warnings.push((src, w));
            }
        }
    }

    /// The checks of a rewrite `l -> r` written at `span` (right side
    /// `rhs`): errors the compiler would find without saying where, and a
    /// warning for a square of the left side the right side leaves out,
    /// unless the right side writes `0` (a removal said on purpose).
    fn check_rewrite(
        &mut self,
        l: &Pattern,
        r: &Pattern,
        span: Span,
        rhs: &Expr,
        src: SourceId,
    ) -> Result<(), Tagged> {
        const MOST: usize = 64;
        let (Some(lefts), Some(rights)) = (l.alternatives(MOST), r.alternatives(MOST)) else {
            return Ok(());
        };
        for alt in &lefts {
            let squares = alt.terms().iter().any(|t| matches!(t, Term::Square { .. }));
            let boxed = alt.terms().iter().any(|t| matches!(t, Term::Boxed { .. }));
            let anchored = alt.terms().iter().any(
                |t| matches!(t, Term::Square { contents, .. } if !contents.cells().contains(&Cell::OffBoard)),
            );
            // Only boxes (`checks ⊕ -> 0`): one place to match, nothing on the board.
            if !anchored && (squares || !boxed) {
                return Err(Some((src, ExpandError::Unanchored { span })));
            }
        }
        for alt in &rights {
            let count = alt
                .terms()
                .iter()
                .filter(|t| matches!(t, Term::Square { contents, .. } if contents.cells().iter().any(|c| matches!(c, Cell::Poi(_)))))
                .count();
            if count > 1 {
                return Err(Some((
                    src,
                    ExpandError::SeveralPoiWrites {
                        span: rhs.span,
                        count,
                    },
                )));
            }
        }
        // A rewrite into `0`, or one that writes `0` (`% + u♟ -> 0 + u%`),
        // removes squares on purpose.
        if r.is_empty() || writes_empty(rhs) {
            return Ok(());
        }
        for alt in &lefts {
            for t in alt.terms() {
                let Term::Square { at, contents } = t else {
                    continue;
                };
                // Off the board, or only looked at (`_`, `@2`, a region): kept.
                let kept = contents.single() == Some(Cell::Any);
                if kept || contents.cells().iter().all(|c| *c == Cell::OffBoard) || r.fixes(*at) {
                    continue;
                }
                let w = ExpandError::SquareLeftOut {
                    span,
                    spot: spot(*at),
                };
                if !self.warnings.iter().any(|(s, e)| *s == src && *e == w) {
                    self.warnings.push((src, w));
                }
                return Ok(());
            }
        }
        Ok(())
    }

    fn juxtapose(&mut self, items: &'a [Expr], scope: &Scope, src: SourceId) -> Result<Value, Tagged> {
        let mut pending: Option<(Movement, Span)> = None;
        let mut operands: Vec<(Value, Span)> = Vec::new();
        let mut boxed: Option<(BoxId, Span)> = None;
        for item in items {
            let v = self.expr(item, scope, src)?;
            if let Value::Box(b) = v {
                if boxed.is_some() || pending.is_some() {
                    return Err(Some((src, box_error(item.span))));
                }
                boxed = Some((b, item.span));
                continue;
            }
            let v = match boxed.take() {
                None => v,
                Some((b, s)) => match lone_piece(&v) {
                    Some(piece) => Value::Pattern(Pattern::boxed(b, piece, 1)),
                    None => return Err(Some((src, box_error(s.join(item.span))))),
                },
            };
            match (v, pending) {
                (Value::Movement(m), None) => pending = Some((m, item.span)),
                (Value::Movement(m), Some((p, s))) => match p.compose(m) {
                    Ok(c) => pending = Some((c, s.join(item.span))),
                    Err(_) => {
                        return Err(Some((
                            src,
                            ExpandError::MovementTooFar {
                                span: s.join(item.span),
                            },
                        )));
                    }
                },
                (v, None) => operands.push((v, item.span)),
                (v, Some((p, s))) => {
                    let span = s.join(item.span);
                    if p.quarter_turns % 4 != 0 {
                        self.warn_turned_places(&v);
                    }
                    let moved = v
                        .moved(p)
                        .map_err(|_| Some((src, ExpandError::MovementTooFar { span })))?;
                    operands.push((moved, span));
                    pending = None;
                }
            }
        }
        if let Some((_, s)) = boxed {
            return Err(Some((src, box_error(s))));
        }
        if let Some((m, s)) = pending {
            if operands.is_empty() {
                return Ok(Value::Movement(m));
            }
            return Err(Some((
                src,
                ExpandError::Kind {
                    span: s,
                    operator: "a movement".into(),
                    expects: "must be followed by what it moves".into(),
                    found: "a movement at the end",
                    help: "write the fragment or move after it, e.g. `u.` or `R M`".into(),
                },
            )));
        }
        if operands.len() == 1 {
            return Ok(operands.pop().expect("one operand").0);
        }
        let mut moves = Vec::with_capacity(operands.len());
        for (v, span) in operands {
            match v {
                Value::Move(m) => moves.push(m),
                other => {
                    return Err(Some((
                        src,
                        ExpandError::Kind {
                            span,
                            operator: "writing things side by side".into(),
                            expects: "sequences moves".into(),
                            found: other.kind(),
                            help: "glue fragments with ` + `; a movement goes before what it moves (`ur X`)"
                                .into(),
                        },
                    )));
                }
            }
        }
        Ok(Value::Move(Move::seq(moves)))
    }

    fn pattern(
        &mut self,
        e: &'a Expr,
        scope: &Scope,
        src: SourceId,
        operator: &str,
        expects: &str,
        help: &str,
    ) -> Result<Pattern, Tagged> {
        let picked = self.operand(e, scope, src, |v| match v {
            Value::Pattern(p) => Ok(p),
            other => Err(other),
        })?;
        picked.map_err(|found| kind_error(src, e, operator, expects, found, help))
    }

    fn a_move(
        &mut self,
        e: &'a Expr,
        scope: &Scope,
        src: SourceId,
        operator: &str,
        expects: &str,
    ) -> Result<Move, Tagged> {
        let picked = self.operand(e, scope, src, |v| match v {
            Value::Move(m) => Ok(m),
            other => Err(other),
        })?;
        picked.map_err(|found| kind_error(src, e, operator, expects, found, MOVE_HELP))
    }

    /// Expands an operand and picks the kind of value an operator needs.
    fn operand<T>(
        &mut self,
        e: &'a Expr,
        scope: &Scope,
        src: SourceId,
        pick: impl FnOnce(Value) -> Result<T, Value>,
    ) -> Result<Result<T, Value>, Tagged> {
        Ok(pick(self.expr(e, scope, src)?))
    }
}

/// An operand of the wrong kind, located at the operand.
fn kind_error(src: SourceId, e: &Expr, operator: &str, expects: &str, found: Value, help: &str) -> Tagged {
    Some((
        src,
        ExpandError::Kind {
            span: e.span,
            operator: operator.into(),
            expects: expects.into(),
            found: found.kind(),
            help: help.into(),
        },
    ))
}

const MOVE_HELP: &str = "a fragment becomes a move with `->`, e.g. `% + u. -> . + u%`";
const GLUE_HELP: &str = "to repeat a move one or more times write `+` right after it, e.g. `(M)+ N`";
const ARROW_HELP: &str = "both sides of `->` are fragments (or patterns), e.g. `% + u. -> . + u%`";

/// `@d4`: the squares from here to the left edge (`file` of them on the
/// board, then `#`) and to the bottom edge (`rank` of them): the pattern
/// that holds exactly where "here" is that file and rank.
fn place(file: Option<u32>, rank: Option<u32>) -> Pattern {
    let mut terms = Vec::new();
    let mut edge = |n: u32, step: fn(i32) -> Offset| {
        for i in 1..=n as i32 {
            terms.push(Pattern::square(step(i), CellSet::one(Cell::Any)));
        }
        terms.push(Pattern::square(step(n as i32 + 1), CellSet::one(Cell::OffBoard)));
    };
    if let Some(f) = file {
        edge(f, |i| Offset::new(-i, 0));
    }
    if let Some(r) = rank {
        edge(r, |i| Offset::new(0, -i));
    }
    terms
        .iter()
        .try_fold(Pattern::empty(), |acc, t| acc.glue(t))
        .expect("a place's squares are distinct")
}

/// The piece of a value that is one unmarked piece at the centre (`♘`).
fn lone_piece(v: &Value) -> Option<PieceId> {
    let Value::Pattern(p) = v else { return None };
    match p.terms() {
        [Term::Square { at, contents }] if *at == Offset::new(0, 0) => match contents.single() {
            Some(Cell::Piece(piece, m)) if m.is_empty() => Some(piece),
            _ => None,
        },
        _ => None,
    }
}

/// A box name not followed by one bare piece (`hand ♘`).
fn box_error(span: Span) -> ExpandError {
    ExpandError::Kind {
        span,
        operator: "a box".into(),
        expects: "is followed by one piece".into(),
        found: "something else",
        help: "write a box's name before the piece it holds, e.g. `hand X`; `hand X + hand X` is two".into(),
    }
}

fn origin(cell: Cell) -> Value {
    Value::Pattern(Pattern::square(Offset::new(0, 0), CellSet::one(cell)))
}

/// The pieces of a `%p:` binder: one square at the centre holding only pieces.
fn poi_pieces(p: &Pattern) -> Option<CellSet> {
    match p.terms() {
        [Term::Square { at, contents }]
            if *at == Offset::new(0, 0) && contents.cells().iter().all(|c| matches!(c, Cell::Piece(..))) =>
        {
            Some(contents.clone())
        }
        _ => None,
    }
}

/// Whether an expansion failed with an error of its own (not a cycle,
/// which names its uses itself), so that its use is worth a note.
fn failed_inside(result: &Result<Value, Tagged>) -> bool {
    // (A limit of the whole expansion is placed at its outermost
    // expression, not in the definitions it went through.)
    matches!(result, Err(Some((_, e))) if !matches!(
        e,
        ExpandError::Recursive { .. } | ExpandError::TooMuchWork { .. } | ExpandError::OutOfTime { .. }
    ))
}

/// Every pattern inside `v` (rewrites' sides, and the alternatives of
/// either-terms).
fn collect_patterns(v: &Value, out: &mut Vec<Pattern>) {
    fn pattern(p: &Pattern, out: &mut Vec<Pattern>) {
        out.push(p.clone());
        for t in p.terms() {
            if let Term::Either(alts) = t {
                alts.iter().for_each(|a| pattern(a, out));
            }
        }
    }
    fn a_move(m: &Move, out: &mut Vec<Pattern>) {
        match m {
            Move::Rewrite(r) => {
                pattern(&r.lhs, out);
                pattern(&r.rhs, out);
            }
            Move::WithPoi { body, .. } | Move::Repeat { body, .. } | Move::Guard { body, .. } => {
                a_move(body, out)
            }
            Move::AtOrigin(body) => a_move(body, out),
            Move::Seq(ms) | Move::Union(ms) | Move::Ordered(ms) => ms.iter().for_each(|m| a_move(m, out)),
            Move::Nil | Move::Attacked | Move::NoReply => {}
        }
    }
    match v {
        Value::Pattern(p) => pattern(p, out),
        Value::Move(m) => a_move(m, out),
        _ => {}
    }
}

/// Whether every term of `part` is a term of `whole` (as many times).
/// Whether `e` writes `0` (the empty fragment) anywhere.
fn writes_empty(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Empty) || e.children().into_iter().any(writes_empty)
}

fn contains_terms(whole: &Pattern, part: &Pattern) -> bool {
    if part.terms().is_empty() || part.terms().len() > whole.terms().len() {
        return false;
    }
    let mut rest: Vec<&Term> = whole.terms().iter().collect();
    for t in part.terms() {
        match rest.iter().position(|w| *w == t) {
            Some(i) => {
                rest.swap_remove(i);
            }
            None => return false,
        }
    }
    true
}
