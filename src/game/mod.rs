//! The game layer: turns, state beyond the board, legality, outcomes,
//! notation and FEN, for any game a rule file declares.
//!
//! A [`Game`] is built from a rule file's [`GameSpec`]: each player's moves
//! compiled to a program, the initial position, the pieces' owners and
//! royalty. The layer knows nothing of any particular game: legality is "no
//! royal piece of the mover may be left where an opponent's move could change
//! its square", outcomes are the file's `outcome` lines, and a move is named
//! by the squares its piece of interest left and reached.

mod legal;
mod notation;
mod outcome;
mod perft;
mod plausible;
mod policy;
mod prospects;
mod state;

use crate::core::{Change, Content, Coord};
use std::fmt;
use std::sync::{Mutex, OnceLock, PoisonError, TryLockError};

use miette::{Diagnostic, SourceSpan};
use smallvec::SmallVec;
use thiserror::Error;

use crate::core::{Marks, PieceId, PieceTable, PlayerId};
use crate::decl::{BoardCell, Condition, GameSpec, Notation, PieceInfo, Place, QuietResets, Spec, Verdict};
use crate::engine::{self, Cache, Engine, EngineChoice, EngineError, Limits, Position, Successor};
use crate::ir::Move;
use crate::program::{self, CompileError};

pub use legal::Candidates;
pub use notation::FenError;
pub use notation::MoveInputError;
pub use notation::pgn;
pub use notation::pgn::{PgnGame, PgnReadError, PgnTags};
pub use notation::square_name;
pub use perft::{
    PerftProgress, PerftTable, divide, divide_parallel, divide_until, divide_with, perft, perft_parallel,
    perft_watched, perft_with,
};
pub use policy::{Legality, SearchOptions, TurnOrder};
pub use prospects::Prospects;
pub use state::{State, Undo};

/// Why a rule file is not a playable game.
#[derive(Clone, Debug, Error, Diagnostic)]
pub enum GameError {
    /// The file declares no players.
    #[error("the rule file declares no game")]
    #[diagnostic(
        code = "chessalg::game::no_game",
        help("a game needs `players`, a `board` and a `moves` line per player")
    )]
    NoGame,
    /// The file declares no board.
    #[error("the rule file declares no board")]
    #[diagnostic(
        code = "chessalg::game::no_board",
        help("write the initial position on indented lines below `board`")
    )]
    NoBoard,
    /// A player's moves, or an outcome's `when`, that the matcher compiler refuses.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Compile(Box<RefusedMove>),
    /// A board larger than where it is played allows (the web playground's
    /// limit on a text from a browser).
    #[error("the board has {squares} squares, more than the {limit} allowed here")]
    #[diagnostic(
        code = "chessalg::game::board_too_large",
        help(
            "the web playground plays boards of up to {limit} squares; play a larger one on your own machine (`chessalg play FILE`, `chessalg serve FILE`)"
        )
    )]
    BoardTooLarge {
        /// The board's squares.
        squares: usize,
        /// The most allowed.
        limit: usize,
    },
    /// Building the game stopped: the time of the job it is part of (a rule
    /// text checked for a browser) ran out.
    #[error("building the game stopped: the time for this check ran out")]
    #[diagnostic(
        code = "chessalg::game::out_of_time",
        help(
            "a move that explores very much (an unbounded repetition on a large board) makes building slow; bound it (`{{1,8}}`)"
        )
    )]
    OutOfTime,
}

/// A move of the rule file that the matcher compiler refuses, where it is written.
#[derive(Clone, Debug, Error, Diagnostic)]
#[error("{what} cannot be compiled: {error}")]
#[diagnostic(code = "chessalg::compile::refused", help("{help}"))]
pub struct RefusedMove {
    /// What it is (`the moves of white`).
    what: String,
    /// Why.
    error: CompileError,
    /// What to do about it.
    help: String,
    /// The rule file.
    #[source_code]
    file: crate::source::Named,
    /// Where the move is written.
    #[label("this move")]
    span: SourceSpan,
}

/// A failure while playing: the engine gave up on a search.
#[derive(Clone, Debug, Error, Diagnostic)]
pub enum PlayError {
    /// The search hit a limit.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Engine(#[from] EngineError),
    /// A pool of threads could not be started.
    #[error("cannot start the threads: {0}")]
    #[diagnostic(code = "chessalg::game::threads", help("try fewer threads, or `--threads 1`"))]
    Threads(String),
    /// The memory for a perft table could not be had.
    #[error("cannot allocate a perft table of {0} MiB")]
    #[diagnostic(
        code = "chessalg::game::table",
        help("ask for a smaller table (`--hash 256`)")
    )]
    Table(usize),
    /// The caller asked the work to stop before it finished.
    #[error("stopped before it finished")]
    #[diagnostic(code = "chessalg::game::stopped")]
    Stopped,
}

/// A legal move: what it changes and the squares its piece of interest
/// left and reached, or a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    changes: SmallVec<[Change; 4]>,
    from: Option<Coord>,
    to: Option<Coord>,
    /// The squares the piece of interest moved to, in order (traced only
    /// where the notation writes them; a step or two kept inline).
    path: SmallVec<[Coord; 2]>,
    /// The piece the piece of interest became where it stood, when a
    /// replacement left another piece there (a promotion).
    became: Option<PieceId>,
    pass: bool,
}

impl Action {
    /// The move an engine found: its changes, its piece of interest going
    /// from `from` along `path` to `to`, and what that piece became.
    pub(crate) fn found(o: &Successor<'_>) -> Action {
        Action {
            changes: SmallVec::from_slice(o.changes),
            from: o.poi_from,
            to: o.poi_to,
            became: o.became,
            path: SmallVec::from_slice(o.path),
            pass: false,
        }
    }

    /// Passing: the turn goes on, nothing else changes (see [`TurnOrder`]).
    pub(crate) fn pass() -> Action {
        Action {
            changes: SmallVec::new(),
            from: None,
            to: None,
            path: SmallVec::new(),
            became: None,
            pass: true,
        }
    }

    /// The squares the moving piece moved to, one per step, in order: every
    /// landing square of a capture chain. Known only in games whose
    /// notation writes them (`notation numbered`); empty otherwise.
    pub fn path(&self) -> &[Coord] {
        &self.path
    }

    /// The squares that change, with what they hold afterwards.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Where the moving piece (the outermost piece of interest) started.
    pub fn from(&self) -> Option<Coord> {
        self.from
    }

    /// Where it ended.
    pub fn to(&self) -> Option<Coord> {
        self.to
    }

    /// The piece the moving piece became where it stood, when a replacement
    /// left another piece there (a promotion), even if the square was
    /// emptied later in the move.
    pub fn became(&self) -> Option<PieceId> {
        self.became
    }

    /// Whether this is a pass.
    pub fn is_pass(&self) -> bool {
        self.pass
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// This player won.
    Win(PlayerId),
    /// Nobody won.
    Draw,
}

/// How a game ended, as results show it: the ending, the rule that ended
/// it, the name the rule file gives that rule, and the count it was
/// decided by.
#[derive(Clone, Debug, PartialEq)]
pub struct Ended {
    /// Who won, if anyone.
    pub ending: Ending,
    /// The rule that ended it.
    pub reason: Reason,
    /// The outcome's name (`outcome no_moves checked = loss "checkmate"`).
    pub name: Option<std::sync::Arc<str>>,
    /// For an outcome decided by counting (`majority`, `points`), each
    /// player's count in turn order, joined by `-` (`33-31`).
    pub detail: Option<String>,
}

impl Ended {
    /// What the result is called: the outcome's name, else its rule.
    pub fn called(&self) -> String {
        match &self.name {
            Some(n) => n.to_string(),
            None => self.reason.to_string(),
        }
    }

    /// What the result is called with a count's detail after it
    /// (`checkmate`, `disc count 33-31`).
    pub fn described(&self) -> String {
        match &self.detail {
            Some(detail) => format!("{} {detail}", self.called()),
            None => self.called(),
        }
    }
}

/// Which of the rule file's `outcome` lines ended a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The player to move had no legal move (`checked`: and a royal piece was attacked).
    NoMoves {
        /// Whether a royal piece of the player to move was attacked.
        checked: bool,
    },
    /// The position occurred this many times.
    Repetition(u32),
    /// This many plies passed without a move that resets the quiet count.
    Quiet(u32),
    /// The material left matched a `material` outcome.
    Material,
    /// A player had no piece left of a kind an `extinct` outcome lists.
    Extinct,
    /// A player had nothing left but the kinds a `bare` outcome lists.
    Bare,
    /// This many moves in a row changed nothing (`passes N`).
    Passes(u32),
    /// A `when` pattern matched: the condition as the file writes it
    /// (`four(●)`; `facing for 2 positions`; empty if unknown).
    When(std::sync::Arc<str>),
    /// A player ran out of time on the clock (the match's, not the rules').
    Time,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoMoves { checked: true } => f.write_str("no legal move, with a royal piece attacked"),
            Reason::NoMoves { checked: false } => f.write_str("no legal move"),
            Reason::Repetition(n) => write!(f, "the same position {n} times"),
            Reason::Quiet(n) => write!(f, "{n} plies without a move that resets the quiet count"),
            Reason::Material => f.write_str("the material left"),
            Reason::Extinct => f.write_str("a player had no piece left of a kind an `extinct` outcome lists"),
            Reason::Bare => f.write_str("a player had nothing left but the pieces a `bare` outcome lists"),
            Reason::Passes(n) => write!(f, "{n} moves in a row that changed nothing"),
            Reason::When(written) if written.is_empty() => f.write_str("an outcome pattern matched"),
            Reason::When(written) => write!(f, "{written}"),
            Reason::Time => f.write_str("a player ran out of time"),
        }
    }
}

/// The game of a rule file of the repository (`rules/chess.alg`), for
/// unit tests.
#[cfg(test)]
pub(crate) fn test_game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("a rule file of the repository");
    let (spec, _) =
        crate::decl::Spec::load(&crate::source::Source::new(path, text)).expect("a valid rule file");
    Game::new(&spec).expect("a game")
}

/// A playable game built from a rule file.
pub struct Game {
    name: String,
    players: Vec<String>,
    pieces: PieceTable,
    /// Owner, FEN letter, value and royalty per piece.
    info: Vec<PieceInfo>,
    expiring: Marks,
    /// Every player's moves, prepared for the board (boxed: held inline,
    /// its size pushes the game's other fields apart, and checkers' perft
    /// ran 4% slower).
    engine: Box<Engine>,
    /// Which moves are legal.
    legality: Legality,
    /// How the turn passes.
    turn_order: TurnOrder,
    outcomes: Vec<CompiledOutcome>,
    /// The patterns of the `outcome when EXPR for N` lines, in the file's
    /// order (what [`State::runs`] counts).
    when_for_patterns: Vec<usize>,
    quiet_resets: QuietResets,
    /// The geometry names use: the initial board's bounding box.
    pub(crate) frame: BoardBox,
    spec: GameSpec,
    initial: State,
    /// Bounds on each search.
    limits: Limits,
    /// What each piece could still do, worked out when first asked for.
    prospects: OnceLock<Prospects>,
    /// The work on `prospects` a deadline stopped, to go on with.
    prospects_work: Mutex<Option<prospects::Progress>>,
    /// Where the moves can leave each piece (none: they change the
    /// board's shape), worked out when first asked for.
    arrivals: OnceLock<Option<plausible::Arrivals>>,
    /// Under `notation numbered`: square `n` is `numbers[n - 1]`.
    numbers: Vec<Coord>,
}

/// The bounding box of the initial board: squares are named from its corner.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoardBox {
    pub(crate) x0: i32,
    pub(crate) y0: i32,
    pub(crate) files: u32,
    pub(crate) ranks: u32,
}

impl BoardBox {
    /// The bounding box of some squares.
    fn around(squares: impl Iterator<Item = Coord> + Clone) -> BoardBox {
        let (x0, x1) = (
            squares.clone().map(|c| c.x).min(),
            squares.clone().map(|c| c.x).max(),
        );
        let (y0, y1) = (squares.clone().map(|c| c.y).min(), squares.map(|c| c.y).max());
        let (x0, x1, y0, y1) = (x0.unwrap_or(0), x1.unwrap_or(0), y0.unwrap_or(0), y1.unwrap_or(0));
        BoardBox {
            x0,
            y0,
            files: (x1 - x0 + 1) as u32,
            ranks: (y1 - y0 + 1) as u32,
        }
    }
}

/// An `outcome` line with its `when` move compiled.
struct CompiledOutcome {
    /// The condition; a `when` move is the index of its pattern in the engine.
    condition: Condition<usize>,
    verdict: Verdict,
    /// Whether perft stops there too.
    automatic: bool,
    /// The player who must be to move for it to apply.
    turn: Option<PlayerId>,
    /// A `when` condition as written, the reason a game ended by it.
    written: std::sync::Arc<str>,
    /// How results call it, if the file names it (`= loss "checkmate"`).
    name: Option<std::sync::Arc<str>>,
}

impl Game {
    /// Builds the game a rule file declares, on the fastest engines.
    pub fn new(rules: &Spec) -> Result<Game, GameError> {
        Game::with_engine(rules, EngineChoice::default())
    }

    /// Builds the game a rule file declares, on the engines `choice` allows.
    pub fn with_engine(rules: &Spec, choice: EngineChoice) -> Result<Game, GameError> {
        let spec = rules.game().clone();
        if !spec.is_game() {
            return Err(GameError::NoGame);
        }
        if spec.board.is_empty() {
            return Err(GameError::NoBoard);
        }
        let pieces = rules.pieces().clone();
        let compile = |mv: &Move, what: String, place: Place| {
            program::compile(mv, &pieces).map_err(|error| {
                GameError::Compile(Box::new(RefusedMove {
                    what,
                    help: Diagnostic::help(&error).map_or_else(
                        || "simplify the move, or split it into smaller ones".to_string(),
                        |h| h.to_string(),
                    ),
                    error,
                    file: rules.source_of(place).named(),
                    span: place.span.into(),
                }))
            })
        };
        let mut programs = Vec::new();
        for (i, mv) in spec.moves.iter().enumerate() {
            let what = format!("the moves of {}", spec.players[i]);
            programs.push(compile(mv, what, spec.move_places[i].unwrap_or_default())?);
        }
        let frame = BoardBox::around(spec.board.iter().map(|(at, _)| Coord::new(at.x, at.y)));
        // Under royal-safe legality, each player protects their royal pieces.
        let sides = programs
            .into_iter()
            .enumerate()
            .map(|(pl, moves)| engine::Side {
                moves,
                protected: pieces
                    .ids()
                    .filter(|p| {
                        let info = &spec.pieces[p.index()];
                        info.royal && info.owner == Some(PlayerId::new(pl))
                    })
                    .collect(),
                owned: pieces
                    .ids()
                    .filter(|p| spec.pieces[p.index()].owner == Some(PlayerId::new(pl)))
                    .collect(),
            })
            .collect();
        let legality = spec.legality.unwrap_or(if spec.pieces.iter().any(|p| p.royal) {
            Legality::RoyalSafe
        } else {
            Legality::Free
        });
        let turn_order = spec.turns;
        let mut outcomes = Vec::new();
        let mut patterns = Vec::new();
        for rule in &spec.outcomes {
            let c = rule.condition.try_map_when(|m| {
                patterns.push(compile(m, "an outcome's `when`".to_string(), rule.place)?);
                Ok::<_, GameError>(patterns.len() - 1)
            })?;
            outcomes.push(CompiledOutcome {
                condition: c,
                verdict: rule.verdict.clone(),
                automatic: rule.automatic,
                turn: rule.turn,
                written: rule.written.as_str().into(),
                name: rule.name.as_deref().map(Into::into),
            });
        }
        let engine = Box::new(engine::prepare(
            sides,
            patterns,
            frame.files,
            frame.ranks,
            &choice,
        ));
        let squares: Vec<(Coord, Content)> = spec
            .board
            .iter()
            .map(|(at, cell)| {
                let content = match *cell {
                    BoardCell::Empty => Content::Empty,
                    BoardCell::Piece(p, m) => Content::Piece(p, m),
                };
                (Coord::new(at.x, at.y), content)
            })
            .collect();
        let numbers = match spec.notation {
            Notation::Numbered => notation::numbered::numbering(squares.iter().map(|&(at, _)| at)),
            Notation::Coordinates | Notation::CoordinatesByPartner => Vec::new(),
        };
        let mut position = Position::from_squares(squares);
        for &(bx, p) in &spec.box_contents {
            let slot = pieces.slot(bx, p);
            position.set_tally(slot, position.tally(slot).saturating_add(1));
        }
        let first = spec.starting.unwrap_or(PlayerId::FIRST);
        let mut game = Game {
            name: spec.name.clone().unwrap_or_else(|| "game".to_string()),
            players: spec.players.clone(),
            info: spec.pieces.clone(),
            expiring: spec.expiring,
            quiet_resets: spec.quiet_resets.clone(),
            pieces,
            engine,
            legality,
            turn_order,
            when_for_patterns: outcomes
                .iter()
                .filter_map(|o| match o.condition {
                    Condition::WhenFor(pattern, _) => Some(pattern),
                    _ => None,
                })
                .collect(),
            outcomes,
            frame,
            spec,
            initial: State::new(position, first, 0, 1),
            limits: Limits::default(),
            prospects: OnceLock::new(),
            prospects_work: Mutex::new(None),
            arrivals: OnceLock::new(),
            numbers,
        };
        let mut first = game.initial.clone();
        game.begin(&mut first);
        game.initial = first;
        Ok(game)
    }

    /// Which engine runs each of the game's programs (moves, outcome patterns).
    pub fn engine_report(&self) -> engine::EngineReport {
        self.engine.report()
    }

    /// The game's name (`game` in the rule file).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The players' names, in turn order.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// A player's name.
    pub fn player_name(&self, player: PlayerId) -> &str {
        &self.players[player]
    }

    /// The name a player is shown by: the rule file's `player` line's, else
    /// the player's name in `players`.
    pub fn display_name(&self, player: PlayerId) -> &str {
        match self.spec.player_names.get(player.index()) {
            Some(Some(name)) => name,
            _ => &self.players[player],
        }
    }

    /// Every player's display name, in turn order (see [`Game::display_name`]).
    pub fn display_names(&self) -> Vec<String> {
        (0..self.players.len())
            .map(|i| self.display_name(PlayerId::new(i)).to_string())
            .collect()
    }

    /// A player's colour, if the rule file gives one (`player ... colour #c22`).
    pub fn player_colour(&self, player: PlayerId) -> Option<&str> {
        self.spec.player_colours.get(player.index())?.as_deref()
    }

    /// The pieces and marks.
    pub fn pieces(&self) -> &PieceTable {
        &self.pieces
    }

    /// What the rule file says of a piece: owner, FEN letter, value, royalty.
    pub fn piece_info(&self, piece: PieceId) -> &PieceInfo {
        &self.info[piece.index()]
    }

    /// The bounds on each question the game asks its engine (every engine
    /// stops at the same limit with the same error).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The same game with other bounds on each question to its engine.
    pub fn with_limits(mut self, limits: Limits) -> Game {
        self.limits = limits;
        self
    }

    /// The state the game starts in.
    pub fn initial(&self) -> State {
        self.initial.clone()
    }

    /// What each piece could still do from each square: worked out on the
    /// first call (a few thousand small searches, more on a large board),
    /// then kept. If a search fails (a rule that runs past the engine's
    /// limits on an empty board), nothing is known and every piece keeps
    /// its declared value.
    ///
    /// The searches stop at `cache`'s deadline ([`Cache::set_deadline`]):
    /// then this call knows nothing ([`Prospects::unknown`]), and the next
    /// goes on where it stopped. While one caller with a deadline works
    /// them out, another with a deadline knows nothing rather than wait; a
    /// caller without one waits, and finishes the work if need be.
    pub fn prospects(&self, cache: &mut Cache) -> &Prospects {
        if let Some(p) = self.prospects.get() {
            return p;
        }
        let mut work = match cache.deadline() {
            Some(_) => match self.prospects_work.try_lock() {
                Ok(work) => work,
                Err(TryLockError::WouldBlock) => return Prospects::none(),
                Err(TryLockError::Poisoned(e)) => e.into_inner(),
            },
            None => self.prospects_work.lock().unwrap_or_else(PoisonError::into_inner),
        };
        // Another caller may have finished the work meanwhile.
        if let Some(p) = self.prospects.get() {
            return p;
        }
        let one_target = self.initial.position().len() <= prospects::EXACT_SQUARES;
        let progress = work.get_or_insert_with(|| prospects::Progress::new(self, one_target));
        let p = match progress.resume(self, cache) {
            Ok(p) => p,
            Err(PlayError::Engine(EngineError::OutOfTime)) => return Prospects::none(),
            Err(_) => Prospects::unknown(),
        };
        *work = None;
        self.prospects.get_or_init(|| p)
    }

    /// The prospects if they are worked out (see [`Game::prospects`]), else
    /// ones that know nothing: what a search under a deadline uses at each
    /// position, never starting the work there.
    pub(crate) fn known_prospects(&self) -> &Prospects {
        self.prospects.get().unwrap_or(Prospects::none())
    }

    /// Where the moves can leave each piece (see [`plausible`]).
    fn arrivals(&self) -> Option<&plausible::Arrivals> {
        self.arrivals
            .get_or_init(|| plausible::Arrivals::of(self))
            .as_ref()
    }

    /// The declared game data (FEN rules, outcomes).
    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    /// The plain name of a move: from and to squares, and the FEN letter of
    /// a piece it turns into (`e2e4`, `e7e8q`); under `notation numbered`,
    /// `11-15` or, for a capture, every landing square (`15x24x31`).
    pub fn action_name(&self, state: &State, action: &Action) -> String {
        if self.is_numbered() {
            return notation::numbered::name(self, state, action);
        }
        notation::coordinate(self, state, action)
    }

    /// The file of the AI's default evaluation weights, if the rule file
    /// names one (`weights "FILE"`), resolved against the file's folder.
    pub fn weights_file(&self) -> Option<&str> {
        self.spec.weights.as_deref()
    }

    /// How boards draw the squares (`board uniform`; squares by default).
    pub fn board_drawing(&self) -> crate::syntax::ast::BoardDrawing {
        self.spec.board_drawing
    }

    /// The rectangles of the rule file's regions, as (file, rank) corners
    /// counted from the bottom-left square.
    pub fn region_rectangles(&self) -> &[crate::decl::Rectangle] {
        &self.spec.region_rectangles
    }

    /// Whether the rule file declares `notation numbered`.
    pub fn is_numbered(&self) -> bool {
        self.spec.notation == Notation::Numbered
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Win(p) => write!(f, "player {p} wins"),
            Ending::Draw => f.write_str("draw"),
        }
    }
}

impl Game {
    /// The number of files and ranks of the initial board's bounding box.
    pub fn dimensions(&self) -> (u32, u32) {
        (self.frame.files, self.frame.ranks)
    }

    /// The displacements (file, rank) from the first square a person
    /// clicks for a move to the second, as the compiled moves suggest them:
    /// where a piece of interest's `%p:` may leave it (under `notation
    /// numbered`, where every landing square is clicked: what one rewrite
    /// moves it by). Sorted, without repeats. Not a bound: moves the
    /// analysis cannot follow may go elsewhere (see [`Game::click_sequences`]
    /// for what is clicked).
    pub fn move_offsets(&self) -> Vec<(i32, i32)> {
        let (files, ranks) = self.dimensions();
        let mut all = Vec::new();
        for side in 0..self.engine.sides() {
            let found = engine::move_offsets(self.engine.program(side), files, ranks);
            all.extend(if self.numbers.is_empty() {
                found.ends
            } else {
                found.steps
            });
        }
        all.sort_unstable();
        all.dedup();
        all
    }

    /// For each player, what its moves put down (a piece with its marks),
    /// when every legal move of the game puts one piece on one empty
    /// square and changes nothing else (no pass, no piece moved: Connect
    /// Four, tic-tac-toe), as the compiled moves show; `None` otherwise, or
    /// where the analysis cannot tell.
    pub fn placed_pieces(&self) -> Option<Vec<Vec<Content>>> {
        if self.turn_order == TurnOrder::AlternatePassing {
            return None;
        }
        (0..self.engine.sides())
            .map(|side| {
                let codes = engine::placements(self.engine.program(side))?;
                Some(codes.into_iter().map(Content::from_code).collect())
            })
            .collect()
    }

    /// The coordinates of the square on `file` and `rank`, counted from 0 at the bottom left.
    pub fn square_at(&self, file: u32, rank: u32) -> Coord {
        Coord::new(self.frame.x0 + file as i32, self.frame.y0 + rank as i32)
    }

    /// Where a move puts a piece it took from a box (a drop: `N@f3`), and
    /// that piece.
    pub fn dropped_piece(&self, state: &State, action: &Action) -> Option<(PieceId, Coord)> {
        notation::dropped(self, state, action)
    }

    /// The one empty square a move puts a piece on, if it puts one on exactly
    /// one (a placement: `c4`).
    pub fn placed_square(&self, state: &State, action: &Action) -> Option<Coord> {
        notation::placed(state, action)
    }

    /// The name of a square: `e4`, or its number under `notation numbered`.
    pub fn square_label(&self, at: Coord) -> String {
        match self.square_number(at) {
            Some(n) => n.to_string(),
            None => notation::name(&self.frame, at),
        }
    }

    /// A square's number under `notation numbered` (1 is the top row's first square).
    pub fn square_number(&self, at: Coord) -> Option<usize> {
        self.numbers.iter().position(|&c| c == at).map(|i| i + 1)
    }

    /// The position as the seed draws it, with rank numbers and file letters
    /// (the rule file's `labels` where it gives them, one character each
    /// for files) and, under `notation numbered`, the squares' numbers
    /// beside it.
    pub fn board_text(&self, state: &State) -> String {
        let f = self.frame;
        let key = if self.is_numbered() {
            notation::numbered::key_rows(self)
        } else {
            Vec::new()
        };
        let mut out = String::new();
        for (row, rank) in (0..f.ranks).rev().enumerate() {
            match self.spec.rank_labels.get(rank as usize) {
                Some(label) => out.push_str(&format!("{label:>2} ")),
                None => out.push_str(&format!("{:>2} ", rank + 1)),
            }
            for file in 0..f.files {
                let at = Coord::new(f.x0 + file as i32, f.y0 + rank as i32);
                match state.position().get(at) {
                    Content::NoSquare | Content::Count(_) => out.push(' '),
                    Content::Empty => out.push('.'),
                    Content::Piece(p, _) => out.push(self.pieces.symbol(p)),
                }
            }
            if let Some(numbers) = key.get(row) {
                // The squares' numbers, laid out as the board is.
                out.push_str("    ");
                out.push_str(numbers);
            }
            out.push('\n');
        }
        out.push_str("   ");
        let labels = &self.spec.file_labels;
        if labels.len() == f.files as usize && labels.iter().all(|l| l.chars().count() == 1) {
            out.push_str(&labels.concat());
        } else {
            for file in 0..f.files {
                out.push(char::from_u32('a' as u32 + file).unwrap_or('?'));
            }
        }
        out.push('\n');
        out.push_str(&self.boxes_text(state));
        out
    }

    /// The order a box's contents are written in (by `show` and FEN): each
    /// player's pieces in turn order, the last declared first, then pieces
    /// no player owns.
    pub(crate) fn box_order(&self) -> Vec<PieceId> {
        let mut order: Vec<PieceId> = self.pieces.ids().rev().collect();
        order.sort_by_key(|p| self.info[p.index()].owner.map_or(usize::MAX, |o| o.index()));
        order
    }

    /// One line per box that holds something: its name and its pieces
    /// (`hand: ♕ ♞ ♞`).
    pub fn boxes_text(&self, state: &State) -> String {
        let mut out = String::new();
        for b in 0..self.pieces.box_count() {
            let bx = crate::core::BoxId(b as u16);
            let mut items: Vec<String> = Vec::new();
            for p in self.box_order() {
                let n = state.position().tally(self.pieces.slot(bx, p));
                items.extend((0..n).map(|_| self.pieces.symbol(p).to_string()));
            }
            if !items.is_empty() {
                out.push_str(&format!("{}: {}\n", self.pieces.box_name(bx), items.join(" ")));
            }
        }
        out
    }
}
