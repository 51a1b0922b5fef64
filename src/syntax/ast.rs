//! The AST: what the user wrote, every node with its span.

use crate::source::Span;

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
    /// `piece ♙ ♟ ...`: piece symbols, optionally a colour pair, with attributes.
    Piece(PieceDecl),
    /// `import "FILE"`: the path as written, without quotes.
    Import(Named),
    /// `game NAME`.
    Game(Named),
    /// `players white black`: the players in turn order.
    Players(Vec<Ident>),
    /// `mark °` or `mark ᵉ expires`.
    Mark(MarkDecl),
    /// `board` and its diagram rows.
    Board(BoardDecl),
    /// `moves PLAYER = EXPR`.
    Moves(MovesDecl),
    /// `fen castling K ♔° e1 ♖° h1`.
    FenRights(FenRightsDecl),
    /// `fen passant ♙ᵉ d`.
    FenTarget(FenTargetDecl),
    /// `outcome CONDITION = RESULT`.
    Outcome(OutcomeDecl),
    /// `quiet resets capture ♙ ♟`.
    QuietResets(Vec<(String, Span)>),
}

/// When an outcome applies.
#[derive(Clone, Debug, PartialEq)]
pub enum ConditionKind {
    /// `no_moves` or `no_moves checked`.
    NoMoves {
        /// Whether a royal piece of the player to move must be attacked.
        checked: bool,
    },
    /// `repetition N`.
    Repetition(u32),
    /// `quiet N`.
    Quiet(u32),
    /// `material ♔ ♚ ♗* ... [same_colour]`.
    Material {
        /// Each piece symbol, whether it may occur any number of times, and where.
        items: Vec<(char, bool, Span)>,
        /// Whether the `*` pieces must all stand on squares of one colour.
        same_colour: bool,
    },
    /// `when EXPR`.
    When(Expr),
}

/// `outcome CONDITION = RESULT`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeDecl {
    /// The condition.
    pub condition: ConditionKind,
    /// `win`, `loss` or `draw`.
    pub verdict: String,
    /// The player named after `win`, if any.
    pub player: Option<Ident>,
    /// The declaration.
    pub span: Span,
}

/// A piece symbol with marks, as in `♔°`.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkedPiece {
    /// The piece symbol.
    pub piece: char,
    /// The marks.
    pub marks: Vec<char>,
    /// Where it was written.
    pub span: Span,
}

/// A free-text name with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// The text.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// `mark °` or `mark ᵉ expires`.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkDecl {
    /// The mark character.
    pub symbol: char,
    /// Whether the mark is cleared when its piece's owner begins a turn.
    pub expires: bool,
    /// The declaration.
    pub span: Span,
}

/// `board` and its diagram: rows top to bottom, indentation removed.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardDecl {
    /// Each row's text (comments removed) and the span of the row.
    pub rows: Vec<(String, Span)>,
    /// The declaration.
    pub span: Span,
}

/// `moves PLAYER = EXPR`.
#[derive(Clone, Debug, PartialEq)]
pub struct MovesDecl {
    /// The player.
    pub player: Ident,
    /// What the player may do.
    pub body: Expr,
    /// The declaration.
    pub span: Span,
}

/// `fen castling K ♔° e1 ♖° h1`: a FEN castling letter and the marked pieces
/// on named squares it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct FenRightsDecl {
    /// The FEN letter.
    pub letter: char,
    /// Each marked piece and its square name (`e1`).
    pub squares: Vec<(MarkedPiece, Ident)>,
    /// The declaration.
    pub span: Span,
}

/// `fen passant ♙ᵉ d`: the FEN en passant square lies at this movement from
/// the marked piece.
#[derive(Clone, Debug, PartialEq)]
pub struct FenTargetDecl {
    /// The marked piece.
    pub piece: MarkedPiece,
    /// The movement word from the piece to the en passant square.
    pub offset: Ident,
    /// The declaration.
    pub span: Span,
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

/// `piece A` or `piece A B` (A and B colour partners), with attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct PieceDecl {
    /// The declared symbols with their spans.
    pub symbols: Vec<(char, Span)>,
    /// FEN letters, one per symbol (`fen P p`), with the attribute's span.
    pub fen: Option<(Vec<char>, Span)>,
    /// The value for the AI (`value 3`).
    pub value: Option<f64>,
    /// Whether the pieces are royal.
    pub royal: bool,
    /// Whether SAN names the pieces by letter (`san -` says no).
    pub san_letter: bool,
    /// The whole declaration.
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
    /// `.`: an empty square.
    Square,
    /// `%`: the piece of interest.
    Poi,
    /// `#`: off the board.
    OffBoard,
    /// A word: a defined name, a parameter, a movement like `ur`, or a letter piece.
    Word(String),
    /// A piece symbol such as `♙`.
    Piece(char),
}
