//! Errors of the expand layer: text that parses but does not mean anything.

use miette::Diagnostic;
use thiserror::Error;

use crate::source::Span;

/// Something that parses but cannot be given a meaning.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum ExpandError {
    /// `_` on the right of `->` where the left side has no square.
    #[error("`_` on the right of `->` keeps a square as it was, but the left side has no square there")]
    #[diagnostic(
        code(chessalg::expand::any_written),
        help(
            "on the right, `_` leaves a square of the left side unchanged (`X + u_ -> . + u_`); to create a square, write what it holds (`.` or a piece)"
        )
    )]
    AnyWritten {
        /// The right side.
        #[label("this fragment says `_`")]
        span: Span,
    },

    /// A name that is neither defined, a parameter, a movement nor a piece.
    #[error("`{name}` is not defined")]
    #[diagnostic(code(chessalg::expand::undefined_name), help("{help}"))]
    UndefinedName {
        /// Where it is used.
        #[label("not defined")]
        span: Span,
        /// The name.
        name: String,
        /// A suggestion.
        help: String,
    },

    /// A call to a function that does not exist.
    #[error("there is no function `{name}`")]
    #[diagnostic(code(chessalg::expand::undefined_function), help("{help}"))]
    UndefinedFunction {
        /// Where it is called.
        #[label("no such function")]
        span: Span,
        /// The name.
        name: String,
        /// A suggestion.
        help: String,
    },

    /// A function of no parameters used without its brackets.
    #[error("`{name}` is a function and is used without `()`")]
    #[diagnostic(code(chessalg::expand::arity), help("call it as `{name}()`"))]
    NotCalled {
        /// Where it is used.
        #[label("a function, not a value")]
        span: Span,
        /// The function's name.
        name: String,
    },

    /// `pieces(X)` where X is not one player's name.
    #[error("`pieces` takes one player's name, or nothing")]
    #[diagnostic(code(chessalg::expand::pieces), help("{help}"))]
    PiecesOf {
        /// The call.
        #[label("not a player of this game")]
        span: Span,
        /// How to call it.
        help: String,
    },

    /// A function called with the wrong number of arguments.
    #[error("`{name}` takes {expected} argument(s) but is given {found}")]
    #[diagnostic(code(chessalg::expand::arity), help("{help}"))]
    WrongArity {
        /// The call.
        #[label("{found} argument(s) here")]
        span: Span,
        /// The function.
        name: String,
        /// How many it takes.
        expected: usize,
        /// How many it got.
        found: usize,
        /// How to call it.
        help: String,
    },

    /// A definition that uses itself, directly or through others.
    #[error("`{name}` is defined in terms of itself: {chain}")]
    #[diagnostic(
        code(chessalg::expand::recursive),
        help(
            "definitions are expanded in place, so they cannot refer to themselves; use `*` or `+` to repeat a move"
        )
    )]
    Recursive {
        /// The use that closes the cycle.
        #[label("`{name}` used here, inside its own definition")]
        span: Span,
        /// The name.
        name: String,
        /// The cycle, e.g. `a -> b -> a`.
        chain: String,
    },

    /// A name defined twice.
    #[error("`{name}` is defined twice")]
    #[diagnostic(
        code(chessalg::expand::duplicate),
        help("rename one of the two definitions or delete one")
    )]
    Duplicate {
        /// The second definition.
        #[label("defined again here")]
        span: Span,
        /// The first definition.
        #[label("first defined here")]
        first: Span,
        /// The name.
        name: String,
    },

    /// A name that the language reserves.
    #[error("`{name}` cannot be defined: {why}")]
    #[diagnostic(code(chessalg::expand::reserved), help("choose another name"))]
    Reserved {
        /// The definition's name.
        #[label("reserved")]
        span: Span,
        /// The name.
        name: String,
        /// Why it is reserved.
        why: String,
    },

    /// Two squares glued onto one spot.
    #[error("two squares are glued onto one spot ({spot})")]
    #[diagnostic(
        code(chessalg::expand::overlap),
        help("each square of a fragment may appear once; move one part with a movement such as `u` or `r`")
    )]
    Overlap {
        /// The gluing.
        #[label("this `+` puts two squares at {spot}")]
        span: Span,
        /// The spot, as a movement from the centre (`1` for the centre).
        spot: String,
    },

    /// A repetition applied to something that is not a move.
    #[error("a repetition applies to a move, not to {found}")]
    #[diagnostic(code(chessalg::expand::repeat_not_move), help("{help}"))]
    RepeatNotMove {
        /// The repetition.
        #[label("this is {found}")]
        span: Span,
        /// What it was applied to.
        found: &'static str,
        /// How to fix it.
        help: String,
    },

    /// A power applied to something that is not a movement.
    #[error("a power applies to a movement, not to {found}")]
    #[diagnostic(
        code(chessalg::expand::power_not_movement),
        help("powers such as `u³` or `R^-1` raise movements; repeat a move with `M{{n}}`")
    )]
    PowerNotMovement {
        /// The power.
        #[label("this is {found}")]
        span: Span,
        /// What it was applied to.
        found: &'static str,
    },

    /// A movement that goes further than the interpreter supports.
    #[error("this movement goes too far")]
    #[diagnostic(
        code(chessalg::expand::movement_too_far),
        help("movements may shift at most about a million squares")
    )]
    MovementTooFar {
        /// The movement.
        #[label("too far")]
        span: Span,
    },

    /// A symbol used as a piece that no `piece` line declares.
    #[error("`{symbol}` is not a declared piece")]
    #[diagnostic(code(chessalg::expand::undeclared_piece), help("{help}"))]
    UndeclaredPiece {
        /// Where it is used.
        #[label("not a piece of this file")]
        span: Span,
        /// The symbol.
        symbol: char,
        /// How to declare it.
        help: String,
    },

    /// An `import` that cannot be followed.
    #[error("cannot import \"{path}\": {reason}")]
    #[diagnostic(
        code(chessalg::expand::import),
        help("the path is relative to the folder of the importing file")
    )]
    Import {
        /// The path as written.
        #[label("this import")]
        span: Span,
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },

    /// A `weights` file that cannot be read.
    #[error("cannot use weights \"{path}\": {reason}")]
    #[diagnostic(
        code(chessalg::expand::weights),
        help("the path is relative to the rule file's folder; `chessalg train RULES --out FILE` writes one")
    )]
    WeightsFile {
        /// The path as written.
        #[label("these weights")]
        span: Span,
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },

    /// A mark symbol that no `mark` line declares.
    #[error("`{symbol}` is not a declared mark")]
    #[diagnostic(
        code(chessalg::expand::undeclared_mark),
        help("declare it with `mark {symbol}` at the start of a line")
    )]
    UndeclaredMark {
        /// The marked expression.
        #[label("marked here")]
        span: Span,
        /// The mark.
        symbol: char,
    },

    /// Marks on something that is not a piece or `%`.
    #[error("only pieces and `%` carry marks")]
    #[diagnostic(
        code(chessalg::expand::bad_marks),
        help("write marks right after a piece or `%`, e.g. `X°` or `%ᵉ`; empty squares and `#` have none")
    )]
    BadMarks {
        /// The marked expression.
        #[label("this cannot carry marks")]
        span: Span,
    },

    /// `moves` for a player that `players` does not name.
    #[error("`{name}` is not a player")]
    #[diagnostic(code(chessalg::expand::unknown_player), help("the players are: {players}"))]
    UnknownPlayer {
        /// The player's name as written.
        #[label("not declared by `players`")]
        span: Span,
        /// The name.
        name: String,
        /// The declared players.
        players: String,
    },

    /// A player's moves (or an outcome's `when`) use `%` where no `%p:` binds it.
    #[error("in {what}, the piece of interest `%` is used {place}, but no `%p:` binds it there")]
    #[diagnostic(
        code(chessalg::expand::unbound_poi),
        help(
            "choose the piece first, as in `%X: (% + u. -> . + u%)+`; a definition that uses `%` must be used inside a `%p:`"
        )
    )]
    UnboundPoi {
        /// The expression.
        #[label("`%` is not bound in this move")]
        span: Span,
        /// What the expression is (`the moves of white`).
        what: String,
        /// Where `%` is used (`on the left of a rewrite`).
        place: String,
    },

    /// A player without a `moves` line.
    #[error("player `{player}` has no moves")]
    #[diagnostic(
        code(chessalg::expand::missing_moves),
        help("add a line `moves {player} = ...`")
    )]
    MissingMoves {
        /// The `players` declaration.
        #[label("declared here")]
        span: Span,
        /// The player.
        player: String,
    },

    /// A square name that is not a file letter and a rank number.
    #[error("`{name}` is not a square name")]
    #[diagnostic(
        code(chessalg::expand::square_name),
        help(
            "name squares by file letter and rank number (`e1`), a rank alone (`1`), \
             or the piece's first square on a rank from the left or right (`1<`, `1>`)"
        )
    )]
    BadSquareName {
        /// The name.
        #[label("not a square")]
        span: Span,
        /// The name as written.
        name: String,
    },

    /// FEN letters that do not match the declared symbols one to one.
    #[error("{symbols} piece symbol(s) but {letters} FEN letter(s)")]
    #[diagnostic(
        code(chessalg::expand::fen_letters),
        help("give one FEN letter per symbol, e.g. `piece X O fen X O`")
    )]
    FenLetters {
        /// The `fen` attribute.
        #[label("here")]
        span: Span,
        /// How many symbols.
        symbols: usize,
        /// How many letters.
        letters: usize,
    },

    /// `fen turn` letters that do not match the players one to one.
    #[error("{players} player(s) but {letters} turn letter(s)")]
    #[diagnostic(
        code(chessalg::expand::turn_letters),
        help("give one letter per player, in turn order, e.g. `fen turn w b`")
    )]
    TurnLetters {
        /// The declaration.
        #[label("here")]
        span: Span,
        /// How many players.
        players: usize,
        /// How many letters.
        letters: usize,
    },

    /// A character in a board diagram that is not a square or a piece.
    #[error("`{symbol}` in the board is not a declared piece")]
    #[diagnostic(
        code(chessalg::expand::board_symbol),
        help("a board diagram holds `.` (an empty square), pieces with their marks, and spaces (no square)")
    )]
    BadBoardSymbol {
        /// The character.
        #[label("unknown")]
        span: Span,
        /// The character.
        symbol: char,
    },

    /// A board diagram without squares.
    #[error("the board has no squares")]
    #[diagnostic(
        code(chessalg::expand::empty_board),
        help("write the diagram on indented lines below `board`")
    )]
    EmptyBoard {
        /// The declaration.
        #[label("empty")]
        span: Span,
    },

    /// A `piece` declaration that cannot stand.
    #[error("bad piece declaration: {reason}")]
    #[diagnostic(
        code(chessalg::expand::bad_piece),
        help(
            "declare each symbol once, as `piece A` or as a colour pair `piece A B`; `u d l r R` are movements"
        )
    )]
    BadPiece {
        /// The symbol.
        #[label("here")]
        span: Span,
        /// What is wrong.
        reason: String,
    },

    /// The thing after `%` in `%p:` is not a piece.
    #[error("`%p:` needs a piece (or a choice of pieces) after `%`, found {found}")]
    #[diagnostic(
        code(chessalg::expand::poi_piece),
        help("write e.g. `%X: M` or `%(X | Y): M` with declared pieces X and Y")
    )]
    PoiPiece {
        /// What follows `%`.
        #[label("not a piece")]
        span: Span,
        /// What it is.
        found: String,
    },

    /// An operator given the wrong kind of operand.
    #[error("{operator} {expects}, but this is {found}")]
    #[diagnostic(code(chessalg::expand::kind), help("{help}"))]
    Kind {
        /// The offending operand.
        #[label("{found}")]
        span: Span,
        /// The operator, e.g. "`+`".
        operator: String,
        /// What it expects, e.g. "glues fragments".
        expects: String,
        /// What it got.
        found: &'static str,
        /// How to fix it.
        help: String,
    },

    /// Definitions or calls nested beyond the expander's limit.
    #[error("expansion nests more than {limit} levels deep")]
    #[diagnostic(
        code(chessalg::expand::too_deep),
        help("this usually means a very long chain of definitions; simplify it")
    )]
    TooDeep {
        /// Where the limit was reached.
        #[label("limit reached here")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// An expansion that grew beyond the size limit.
    #[error("the expansion is too large (more than {limit} nodes)")]
    #[diagnostic(
        code(chessalg::expand::too_large),
        help(
            "definitions that repeat each other several times grow exponentially; use `{{n}}` or `*` instead"
        )
    )]
    TooLarge {
        /// What grew too large.
        #[label("this expands too far")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// A definition whose name is also a movement (a warning).
    #[error("`{name}` is also a movement; here it means this definition")]
    #[diagnostic(
        code(chessalg::expand::name_is_movement),
        severity(Warning),
        help("a word made of `u d l r R` is a movement unless defined; rename it to avoid confusion")
    )]
    NameIsMovement {
        /// The definition's name.
        #[label("shadows the movement `{name}`")]
        span: Span,
        /// The name.
        name: String,
    },
}

impl ExpandError {
    /// Whether this is only a warning (the rules still load).
    pub fn is_warning(&self) -> bool {
        matches!(self, ExpandError::NameIsMovement { .. })
    }
}
