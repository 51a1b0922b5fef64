//! The AST: what the user wrote, every node with its span.

use crate::source::Span;

pub use super::declaration::*;

/// A parsed rule file: its items in the order written.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    /// Definitions and declarations.
    pub items: Vec<Item>,
}

/// One top-level item of a rule file.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `name = expr` or `name(M, N) = expr`.
    Definition(Definition),
    /// Any other line: `piece`, `board`, `moves`, `outcome`, ...
    Declaration(Declaration),
}

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// `name = body` or a function `name(params) = body`.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// The defined name.
    pub name: Ident,
    /// Parameter names; empty for a plain definition.
    pub params: Vec<Ident>,
    /// Whether the definition was written with parentheses (`f() = ...`).
    pub is_function: bool,
    /// The right-hand side.
    pub body: Expr,
    /// The whole definition.
    pub span: Span,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What kind of expression.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

impl Expr {
    /// The direct sub-expressions, in the order written.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::PoiBind { piece, body } => vec![piece, body],
            ExprKind::Arrow { lhs, rhs } => vec![lhs, rhs],
            ExprKind::Ordered(xs) | ExprKind::Union(xs) | ExprKind::Glue(xs) | ExprKind::Juxtapose(xs) => {
                xs.iter().collect()
            }
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Group(x)
            | ExprKind::Marked { body: x, .. }
            | ExprKind::Guard { body: x, .. }
            | ExprKind::Repeat { body: x, .. }
            | ExprKind::Power { base: x, .. } => vec![x],
            _ => vec![],
        }
    }

    /// This expression and every one inside it, outermost first.
    pub fn descendants(&self) -> Vec<&Expr> {
        let mut out = vec![self];
        let mut i = 0;
        while i < out.len() {
            let e = out[i];
            out.extend(e.children());
            i += 1;
        }
        out
    }

    /// The names this expression refers to, with where each is written:
    /// words (definitions, parameters, movements) and called functions.
    pub fn names(&self) -> Vec<(&str, Span)> {
        self.descendants()
            .into_iter()
            .filter_map(|e| match &e.kind {
                ExprKind::Word(w) => Some((w.as_str(), e.span)),
                ExprKind::Call { name, .. } => Some((name.text.as_str(), name.span)),
                _ => None,
            })
            .collect()
    }
}

/// How a repetition was spelled, kept so the AST stays faithful.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatSyntax {
    /// `M*`
    Star,
    /// `M+`
    Plus,
    /// `M?`
    Optional,
    /// `M{n}`, `M{i, j}`, `M{i,}`
    Braces,
    /// `M<n>`
    Angle,
}

/// The kinds of expression, one per construct of the algebra.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `%p: body`.
    PoiBind {
        /// The piece (or pieces) that may become the POI.
        piece: Box<Expr>,
        /// The move made with it.
        body: Box<Expr>,
    },
    /// `M / N / ...`.
    Ordered(Vec<Expr>),
    /// `f -> g`.
    Arrow {
        /// The pattern to find.
        lhs: Box<Expr>,
        /// What it becomes.
        rhs: Box<Expr>,
    },
    /// `a | b | ...`.
    Union(Vec<Expr>),
    /// `f + g + ...`.
    Glue(Vec<Expr>),
    /// `a b ...`: movements applied, or moves in sequence.
    Juxtapose(Vec<Expr>),
    /// `( e )`.
    Group(Box<Expr>),
    /// `?{M}` (holds) or `!{M}`.
    Guard {
        /// `?` (true) or `!` (false).
        holds: bool,
        /// The tested move.
        body: Box<Expr>,
    },
    /// `name(args)`.
    Call {
        /// The function's name.
        name: Ident,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A repetition suffix: `M*`, `M+`, `M?`, `M{i}`, `M{i, j}`, `M<n>`.
    Repeat {
        /// The repeated expression.
        body: Box<Expr>,
        /// Fewest repetitions.
        min: u32,
        /// Most repetitions (`None`: unbounded).
        max: Option<u32>,
        /// How it was spelled.
        syntax: RepeatSyntax,
    },
    /// Marks written right after a piece or `%`: `♔°`, `%ᵉ`.
    Marked {
        /// The marked piece, `%` or pattern.
        body: Box<Expr>,
        /// The marks.
        marks: Vec<char>,
    },
    /// `m^i` or a superscript power `m²`, `m⁻¹`.
    Power {
        /// The movement raised to the power.
        base: Box<Expr>,
        /// The exponent.
        exponent: i64,
    },
    /// `nil`.
    Nil,
    /// `0`: the empty fragment.
    Empty,
    /// `1`: the identity movement.
    Identity,
    /// `2` as an argument: a count (`fewer(♖, 2)`).
    Count(u32),
    /// `.`: an empty square.
    Square,
    /// `%`: the piece of interest.
    Poi,
    /// `#`: off the board.
    OffBoard,
    /// `_`: any square of the board.
    AnySquare,
    /// `@d4`, `@d`, `@4`: the file (0 = a) and rank (0 = 1) counted from the
    /// board's left and bottom edges.
    Place {
        /// The file, if given.
        file: Option<u32>,
        /// The rank, if given.
        rank: Option<u32>,
    },
    /// `@palace`: here is a square of the region of that name.
    Region(String),
    /// A word: a defined name, a parameter, a movement like `ur`, or a letter piece.
    Word(String),
    /// A piece symbol such as `♙`.
    Piece(char),
}
