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
        code = "chessalg::expand::any_written",
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
    #[diagnostic(code = "chessalg::expand::undefined_name", help("{help}"))]
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
    #[diagnostic(code = "chessalg::expand::undefined_function", help("{help}"))]
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
    #[diagnostic(code = "chessalg::expand::arity", help("call it as `{name}()`"))]
    NotCalled {
        /// Where it is used.
        #[label("a function, not a value")]
        span: Span,
        /// The function's name.
        name: String,
    },

    /// `pieces(X)` where X is not one player's name.
    #[error("`pieces` takes one player's name, or nothing")]
    #[diagnostic(code = "chessalg::expand::pieces", help("{help}"))]
    PiecesOf {
        /// The call.
        #[label("not a player of this game")]
        span: Span,
        /// How to call it.
        help: String,
    },

    /// `fewer(X, n)` called with something else, or a count elsewhere.
    #[error("`fewer` takes a piece and a count")]
    #[diagnostic(code = "chessalg::expand::fewer", help("{help}"))]
    Fewer {
        /// The call, or the count.
        #[label("here")]
        span: Span,
        /// How to write it.
        help: String,
    },

    /// A function called with the wrong number of arguments.
    #[error("`{name}` takes {expected} argument(s) but is given {found}")]
    #[diagnostic(code = "chessalg::expand::arity", help("{help}"))]
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
        code = "chessalg::expand::recursive",
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
        code = "chessalg::expand::duplicate",
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
    #[diagnostic(code = "chessalg::expand::reserved", help("choose another name"))]
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
        code = "chessalg::expand::overlap",
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
    #[diagnostic(code = "chessalg::expand::repeat_not_move", help("{help}"))]
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
        code = "chessalg::expand::power_not_movement",
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
        code = "chessalg::expand::movement_too_far",
        help("movements may shift at most about a million squares")
    )]
    MovementTooFar {
        /// The movement.
        #[label("too far")]
        span: Span,
    },

    /// A symbol used as a piece that no `piece` line declares.
    #[error("`{symbol}` is not a declared piece")]
    #[diagnostic(code = "chessalg::expand::undeclared_piece", help("{help}"))]
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
        code = "chessalg::expand::import",
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
        code = "chessalg::expand::weights",
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
        code = "chessalg::expand::undeclared_mark",
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
        code = "chessalg::expand::bad_marks",
        help("write marks right after a piece or `%`, e.g. `X°` or `%ᵉ`; empty squares and `#` have none")
    )]
    BadMarks {
        /// The marked expression.
        #[label("this cannot carry marks")]
        span: Span,
    },

    /// `moves` for a player that `players` does not name.
    #[error("`{name}` is not a player")]
    #[diagnostic(code = "chessalg::expand::unknown_player", help("the players are: {players}"))]
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
        code = "chessalg::expand::unbound_poi",
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
        code = "chessalg::expand::missing_moves",
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
        code = "chessalg::expand::square_name",
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
        code = "chessalg::expand::fen_letters",
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

    /// Characters to draw (`draw pentagon "玉" "王"`) that do not match the
    /// declared symbols: two for one symbol.
    #[error("{symbols} piece symbol(s) but {given} texts to draw")]
    #[diagnostic(
        code = "chessalg::expand::draw_characters",
        help("give one text for every symbol or one per symbol, e.g. `piece ♔ ♚ draw glyph \"玉\" \"王\"`")
    )]
    DrawCharacters {
        /// The text past the symbols.
        #[label("no symbol for this")]
        span: Span,
        /// How many symbols.
        symbols: usize,
        /// How many texts.
        given: usize,
    },

    /// A display name (a player's, an outcome's) that cannot be shown: empty,
    /// too long, or with a character no one can read.
    #[error("{what} {why}")]
    #[diagnostic(
        code = "chessalg::expand::bad_name",
        help(
            "write a short name people read, e.g. `player white \"Sente\"`, `outcome no_moves checked = loss \"checkmate\"`"
        )
    )]
    BadName {
        /// The quoted name.
        #[label("this name")]
        span: Span,
        /// What it names (`a player's name`).
        what: String,
        /// What is wrong with it (`is empty`).
        why: String,
    },

    /// `labels files ...` with another number of labels than the board has files.
    #[error("{given} label(s) for the board's {board} {axis}")]
    #[diagnostic(
        code = "chessalg::expand::label_count",
        help("give one label per file (left to right) or rank (bottom to top)")
    )]
    LabelCount {
        /// The declaration.
        #[label("here")]
        span: Span,
        /// `files` or `ranks`.
        axis: String,
        /// How many labels.
        given: usize,
        /// How many files or ranks the board has.
        board: usize,
    },

    /// `outcome passes 0` or `outcome when EXPR for 0`: a count of moves
    /// or positions that every position meets.
    #[error("a count of 0 holds in every position: the game would end at once")]
    #[diagnostic(
        code = "chessalg::expand::zero_count",
        help(
            "count from 1: `passes 2` is two moves in a row that changed nothing, `when EXPR for 2` EXPR in two positions in a row"
        )
    )]
    ZeroCount {
        /// The count.
        #[label("here")]
        span: Span,
    },

    /// `fen turn` letters that do not match the players one to one.
    #[error("{players} player(s) but {letters} turn letter(s)")]
    #[diagnostic(
        code = "chessalg::expand::turn_letters",
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
        code = "chessalg::expand::board_symbol",
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
        code = "chessalg::expand::empty_board",
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
        code = "chessalg::expand::bad_piece",
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
        code = "chessalg::expand::poi_piece",
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
    #[diagnostic(code = "chessalg::expand::kind", help("{help}"))]
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
        code = "chessalg::expand::too_deep",
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
        code = "chessalg::expand::too_large",
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

    /// An expansion that worked out more expressions than the expander's
    /// limit (a function's uses counted each time).
    #[error("this expands past {limit} nodes")]
    #[diagnostic(
        code = "chessalg::expand::too_much_work",
        help(
            "a function that uses its argument more than once, called within itself level after level (`f1(M) = f0(f0(M))`, `f2(M) = f1(f1(M))`, ...), doubles its work at each level; write the repetition with `{{n}}` or `*`"
        )
    )]
    TooMuchWork {
        /// The outermost expression being expanded.
        #[label("this expands past the limit")]
        span: Span,
        /// The limit.
        limit: usize,
    },

    /// An expansion stopped because the time of the job it is part of (a
    /// rule text checked for a browser) ran out.
    #[error("the expansion stopped: the time for this check ran out")]
    #[diagnostic(
        code = "chessalg::expand::out_of_time",
        help(
            "an expansion this slow likely repeats a function within itself; write the repetition with `{{n}}` or `*`"
        )
    )]
    OutOfTime {
        /// The outermost expression being expanded.
        #[label("expanding this when the time ran out")]
        span: Span,
    },

    /// A rewrite whose left side has no square that must be on the board.
    #[error(
        "the left side of this rewrite has no square that must be on the board, so it matches at infinitely many places"
    )]
    #[diagnostic(
        code = "chessalg::expand::unanchored",
        help("add a square that must exist (`.`, a piece or `%`) to every alternative of the left side")
    )]
    Unanchored {
        /// The rewrite.
        #[label("nothing here ties it to a square")]
        span: Span,
    },

    /// A replacement that writes the piece of interest on several squares.
    #[error("the right side writes `%` on {count} squares; the piece of interest can only be on one")]
    #[diagnostic(
        code = "chessalg::expand::several_poi_writes",
        help("write `%` on one square of the right side; name the piece on the others (`% + r. -> X + r%`)")
    )]
    SeveralPoiWrites {
        /// The right side.
        #[label("`%` more than once")]
        span: Span,
        /// How many squares.
        count: usize,
    },

    /// A rewrite whose right side leaves out a square of its left side,
    /// which the rewrite then takes off the board (a warning).
    #[error(
        "the right side leaves out a square of the left side ({spot}), so the rewrite takes it off the board"
    )]
    #[diagnostic(
        code = "chessalg::lint::square_left_out",
        severity(Warning),
        help(
            "write the square on the right too: `.` for an empty square, `_` for the square as it was (`dd# + % -> dd# + .` keeps both); a rewrite into `0` removes squares on purpose"
        )
    )]
    SquareLeftOut {
        /// The rewrite.
        #[label("{spot} is on the left, not on the right")]
        span: Span,
        /// The square, from the centre.
        spot: String,
    },

    /// A place or a region under a rotation (a warning): it turns with the
    /// move, counted from other edges of the board.
    #[error("this place is turned with the move around it")]
    #[diagnostic(
        code = "chessalg::lint::place_turned",
        severity(Warning),
        help(
            "a rotation (`R`, `in_any_direction(...)`) turns `@...` too, so it no longer means the squares it names; test the place outside the rotation: `in_any_direction(step(u)) ?{{% + @palace}}`"
        )
    )]
    PlaceTurned {
        /// The place or region.
        #[label("turned by a rotation")]
        span: Span,
    },

    /// A board row shorter than the others where no hole is written (a warning).
    #[error("this row has {squares} squares where the longest has {longest}")]
    #[diagnostic(
        code = "chessalg::lint::ragged_row",
        severity(Warning),
        help(
            "the squares missing at its end are no squares of the board; write `.` for an empty square (a space is a hole, where there is no square)"
        )
    )]
    RaggedRow {
        /// The row.
        #[label("{squares} squares")]
        span: Span,
        /// Its squares.
        squares: usize,
        /// The longest row's.
        longest: usize,
    },

    /// An ordered choice between whole moves in a game whose legality
    /// filter runs after it (a warning): an illegal first choice hides the rest.
    #[error(
        "the legality filter runs after this `/` has chosen: when every move of an earlier choice leaves a royal piece attacked, there is no move at all"
    )]
    #[diagnostic(
        code = "chessalg::lint::filtered_choice",
        severity(Warning),
        help(
            "to take the legal moves of M first, test them inside the choice: `(M !{{%K: attacked}}) / N`, where K is the mover's royal piece (`flipped(...)` turns it for the other side)"
        )
    )]
    FilteredChoice {
        /// The moves declaration.
        #[label("an ordered choice between moves")]
        span: Span,
    },

    /// A definition of the file that nothing uses (a warning).
    #[error("`{name}` is never used")]
    #[diagnostic(
        code = "chessalg::lint::unused_definition",
        severity(Warning),
        help("no move, outcome or definition the game uses refers to it; use it, or remove it")
    )]
    UnusedDefinition {
        /// The defined name.
        #[label("defined here")]
        span: Span,
        /// The name.
        name: String,
    },

    /// A declared piece that can never be on the board (a warning).
    #[error("`{symbol}` can never be on the board")]
    #[diagnostic(
        code = "chessalg::lint::piece_never_on_board",
        severity(Warning),
        help(
            "it is not on the board nor in a box, and no move of the game leaves it anywhere; place it, write the move that makes it, or leave it out"
        )
    )]
    PieceNeverOnBoard {
        /// The symbol in its declaration.
        #[label("declared here")]
        span: Span,
        /// The piece.
        symbol: char,
    },

    /// Where a definition whose expansion failed is used (a note that
    /// follows the error, which points into the definition).
    #[error("the definition `{name}` with the error above is used here")]
    #[diagnostic(code = "chessalg::expand::used_here", severity(Advice))]
    UsedHere {
        /// The use.
        #[label("`{name}` used here")]
        span: Span,
        /// The definition's name.
        name: String,
    },

    /// A definition whose name is also a movement (a warning).
    #[error("`{name}` is also a movement; here it means this definition")]
    #[diagnostic(
        code = "chessalg::expand::name_is_movement",
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
        matches!(
            self,
            ExpandError::NameIsMovement { .. }
                | ExpandError::SquareLeftOut { .. }
                | ExpandError::PlaceTurned { .. }
                | ExpandError::RaggedRow { .. }
                | ExpandError::FilteredChoice { .. }
                | ExpandError::UnusedDefinition { .. }
                | ExpandError::PieceNeverOnBoard { .. }
                | ExpandError::UsedHere { .. }
        )
    }

    /// Whether this is a note that goes with an error (not a warning of its own).
    pub fn is_note(&self) -> bool {
        matches!(self, ExpandError::UsedHere { .. })
    }
}
