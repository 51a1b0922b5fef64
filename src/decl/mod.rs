//! The game a rule file declares, as written: players, pieces' roles,
//! board, moves, outcomes and notation, checked against the file (names,
//! pieces, squares, with located errors) but not yet built into a game.
//! Like shakmaty's `Setup`, a [`GameSpec`] is the unchecked description the
//! game layer turns into a playable `Game`.
//!
//! Each declaration kind is one file here: its part of the description and
//! how its lines add to it (the `Declare` trait). The list of declarations
//! lives with their syntax (`syntax::declarations!`), so adding one is its
//! grammar rule, its AST type, and one file in this folder.

mod board;
mod boxes;
mod fen_rights;
mod fen_target;
mod fen_turn;
mod game;
mod import;
mod legality;
mod lints;
mod mark;
mod moves;
mod notation;
mod outcome;
mod piece;
mod players;
mod quiet;
mod search;
mod turns;
mod weights;

use std::collections::HashMap;

pub use board::BoardCell;
pub use fen_rights::{Files, RightsLetter, SquareName, square_name};
pub use fen_target::TargetRule;
pub use legality::Legality;
pub use notation::{Notation, SanWords};
pub use outcome::{Condition, OutcomeRule, Verdict};
pub use piece::PieceInfo;
pub use quiet::QuietResets;
pub use search::SearchSwitches;
pub use turns::TurnOrder;

use crate::core::{BoxId, Marks, Offset, PieceId, PieceTable, PlayerId};
use crate::ir::{ExpandError, Move, Problems, Rules, UnboundPoi, Value};
use crate::source::{Source, Span};
use crate::syntax::ast::{self, Declaration};

/// A rectangle of squares: the (file, rank) of two opposite corners,
/// counted from the bottom-left square.
pub type Rectangle = ((u32, u32), (u32, u32));

/// Everything a rule file declares about its game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameSpec {
    /// The game's name.
    pub name: Option<String>,
    /// The players in turn order.
    pub players: Vec<String>,
    /// Per player (in turn order), the display name `player` gives, if any.
    pub player_names: Vec<Option<String>>,
    /// Per player, the colour `player ... colour #rrggbb` gives, if any.
    pub player_colours: Vec<Option<String>>,
    /// The board's edges drawn in a player's colour (`edge`): the player and
    /// `top`, `bottom`, `left` or `right`.
    pub edges: Vec<(PlayerId, String)>,
    /// The marks boards draw (`mark ... shown`).
    pub shown_marks: Marks,
    /// What boards write beside the files, left to right (`labels files`;
    /// empty: each square's name).
    pub file_labels: Vec<String>,
    /// What boards write beside the ranks, bottom to top (`labels ranks`).
    pub rank_labels: Vec<String>,
    /// Per piece (indexed by [`PieceId`]): owner, FEN letter, value, royalty.
    pub pieces: Vec<PieceInfo>,
    /// Marks cleared when their piece's owner begins a turn.
    pub expiring: Marks,
    /// The initial position: squares (bottom row y = 0) and what they hold.
    pub board: Vec<(Offset, BoardCell)>,
    /// Each player's moves, in player order.
    pub moves: Vec<Move>,
    /// Where each player's moves are written (none for a player without them).
    pub move_places: Vec<Option<Place>>,
    /// FEN castling letters.
    pub rights: Vec<RightsLetter>,
    /// FEN en passant rules.
    pub targets: Vec<TargetRule>,
    /// FEN's turn letter per player (`fen turn`; empty: `w` and `b`).
    pub turn_letters: Vec<char>,
    /// Outcomes, in file order.
    pub outcomes: Vec<OutcomeRule>,
    /// What restarts the `quiet` count.
    pub quiet_resets: QuietResets,
    /// Which moves are legal, if the file says (`legality`).
    pub legality: Option<Legality>,
    /// How the turn passes (`turns`).
    pub turns: TurnOrder,
    /// The AI's search shortcuts the file switches (`search`).
    pub search: SearchSwitches,
    /// Who moves first from the board (`turns ... starting PLAYER`; else the first player).
    pub starting: Option<PlayerId>,
    /// How squares, moves and positions are written (`notation`).
    pub notation: Notation,
    /// The words SAN writes where games differ (`san`).
    pub san: SanWords,
    /// `notation coordinates walls`: a move that also puts a piece on
    /// another square is named as Fairy-Stockfish names its walls, by the
    /// move, a comma, its landing square and that square (`a2a3,a3d5`).
    pub wall_names: bool,
    /// How boards draw the squares (`board uniform`).
    pub board_drawing: crate::syntax::ast::BoardDrawing,
    /// The rectangles of the declared regions, as (file, rank) corners
    /// counted from 0 (boards drawn as lines mark them).
    pub region_rectangles: Vec<Rectangle>,
    /// What the boxes hold at the start: one entry per piece (`box`).
    pub box_contents: Vec<(BoxId, PieceId)>,
    /// The box FEN writes in brackets after the board (`fen box`).
    pub fen_box: Option<BoxId>,
    /// `fen layout`: whether FEN writes empty rights and target fields
    /// (`None`: where the game has rights, a target or a box).
    pub fen_full: Option<bool>,
    /// The box and pieces of FEN's counts field (`fen counts`).
    pub fen_counts: Option<(BoxId, Vec<PieceId>)>,
    /// Per mark: the character FEN writes after a piece carrying it (`mark ... fen ~`).
    pub mark_fen: Vec<(Marks, char)>,
    /// The AI's default evaluation weights (`weights`): the file's path,
    /// resolved against the rule file's folder.
    pub weights: Option<String>,
}

impl GameSpec {
    /// Whether the file declares a game at all (players and moves).
    pub fn is_game(&self) -> bool {
        !self.players.is_empty()
    }
}

/// Where a declaration's expression is written: its source (0 for the file
/// itself, see `Rules::items`) and span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The source id.
    pub origin: usize,
    /// The span in that source.
    pub span: Span,
}

/// A rule file as loaded: its pieces and definitions, and the game it declares.
#[derive(Clone, Debug)]
pub struct Spec {
    rules: Rules,
    game: GameSpec,
}

impl Spec {
    /// Reads a rule file: on success the spec with any warnings, on failure
    /// every error of the file (definitions and declarations alike).
    pub fn load(source: &Source) -> Result<(Spec, Problems), Problems> {
        Spec::load_with(source, &crate::bundled::read)
    }

    /// [`Spec::load`] with imported files read by `read` (see
    /// [`Rules::load_all_with`]).
    pub fn load_with(
        source: &Source,
        read: &dyn Fn(&str) -> std::io::Result<Source>,
    ) -> Result<(Spec, Problems), Problems> {
        let (rules, mut problems) = Rules::load_all_with(source, read)?;
        let game = collect(&rules, &mut problems, read);
        if problems.has_errors() {
            return Err(problems);
        }
        Ok((Spec { rules, game }, problems))
    }

    /// The pieces and definitions.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The source text a place points into.
    pub fn source_of(&self, place: Place) -> &Source {
        self.rules.source_of(place.origin)
    }

    /// The pieces and definitions, without the game.
    pub fn into_rules(self) -> Rules {
        self.rules
    }

    /// The game the file declares (empty when it declares none).
    pub fn game(&self) -> &GameSpec {
        &self.game
    }

    /// The declared pieces (the prelude's when the file declares none).
    pub fn pieces(&self) -> &PieceTable {
        self.rules.pieces()
    }
}

/// When a declaration is read: `game`, `players` and `board` first, since the
/// others refer to the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Names the rest refers to.
    Names,
    /// Everything else.
    Rules,
}

/// How one kind of declaration adds to the game description.
pub(crate) trait Declare {
    /// When it is read.
    fn pass(&self) -> Pass {
        Pass::Rules
    }
    /// Adds it to the description, reporting what is wrong with it.
    fn declare(&self, cx: &mut Collect<'_>);
}

macro_rules! dispatch {
    ($($variant:ident($ty:ident, $rule:ident),)*) => {
        /// The game-description side of a declaration.
        fn declare_of(d: &Declaration) -> &dyn Declare {
            match d {
                $(Declaration::$variant(x) => x,)*
            }
        }
    };
}
crate::syntax::declarations!(dispatch);

/// What a declaration sees while it is read: the description so far, the
/// file's rules, and where to report problems.
pub(crate) struct Collect<'a> {
    spec: &'a mut GameSpec,
    rules: &'a Rules,
    /// Reads the files declarations name (`weights`), as imports are read.
    read: &'a dyn Fn(&str) -> std::io::Result<Source>,
    origin: usize,
    problems: &'a mut Problems,
    /// Declarations that may appear once, by key, with their first span.
    seen: HashMap<String, (Span, usize)>,
}

impl Collect<'_> {
    /// The declared pieces.
    fn pieces(&self) -> &PieceTable {
        self.rules.pieces()
    }

    /// Whether a display name can be shown; reports it if not.
    fn display_name(&mut self, name: &ast::Named, what: &str) -> bool {
        let why = if name.text.trim().is_empty() {
            "is empty"
        } else if name.text.chars().count() > 40 {
            "is longer than 40 characters"
        } else if name.text.chars().any(char::is_control) {
            "holds a control character"
        } else if name.text != name.text.trim() {
            "begins or ends with a space"
        } else {
            return true;
        };
        self.error(ExpandError::BadName {
            span: name.span,
            what: what.to_string(),
            why: why.to_string(),
        });
        false
    }

    /// Reports an error in the declaration being read.
    fn error(&mut self, e: ExpandError) {
        let source = self.rules.source_of(self.origin).clone();
        self.problems.push(&source, e);
    }

    /// Whether this is the first declaration with `key`; reports a duplicate otherwise.
    fn once(&mut self, key: &str, span: Span) -> bool {
        if let Some(&(first, _)) = self.seen.get(key) {
            self.error(ExpandError::Duplicate {
                span,
                first,
                name: key.to_string(),
            });
            false
        } else {
            self.seen.insert(key.to_string(), (span, self.origin));
            true
        }
    }

    /// The index of a declared player; reports an unknown name.
    fn player(&mut self, name: &ast::Ident) -> Option<PlayerId> {
        let found = self
            .spec
            .players
            .iter()
            .position(|p| *p == name.text)
            .map(PlayerId::new);
        if found.is_none() {
            let players = self.spec.players.join(" ");
            self.error(ExpandError::UnknownPlayer {
                span: name.span,
                name: name.text.clone(),
                players,
            });
        }
        found
    }

    /// `expr` expanded to a move in which every `%` is bound; `what` names it
    /// in errors (`the moves of white`).
    fn expand_move(&mut self, expr: &ast::Expr, what: &str) -> Option<Move> {
        let value = self.rules.expand_in_file(expr, self.origin, self.problems)?;
        let mv = match value {
            Value::Move(m) => m,
            other => {
                self.error(ExpandError::Kind {
                    span: expr.span,
                    operator: format!("`{what}`"),
                    expects: "needs a move".into(),
                    found: other.kind(),
                    help: "a fragment becomes a move with `->`".into(),
                });
                return None;
            }
        };
        if let Some(u) = mv.unbound_poi() {
            let place = match u {
                UnboundPoi::Left => "on the left of a rewrite",
                UnboundPoi::Right => "on the right of a rewrite",
                UnboundPoi::Attacked => "through `attacked`",
                UnboundPoi::Origin => "through `%from:`",
            };
            self.error(ExpandError::UnboundPoi {
                span: expr.span,
                what: what.to_string(),
                place: place.to_string(),
            });
            return None;
        }
        Some(mv)
    }

    /// Where `span` is, in the declaration being read.
    fn place(&self, span: Span) -> Place {
        Place {
            origin: self.origin,
            span,
        }
    }

    /// A declared piece; reports an undeclared symbol.
    fn piece(&mut self, symbol: char, span: Span) -> Option<PieceId> {
        let found = self.pieces().lookup(symbol);
        if found.is_none() {
            self.error(ExpandError::UndeclaredPiece {
                span,
                symbol,
                help: format!("declare it with `piece {symbol}`"),
            });
        }
        found
    }

    /// A declared piece with declared marks (`♔°`).
    fn marked_piece(&mut self, p: &ast::MarkedPiece) -> Option<(PieceId, Marks)> {
        let piece = self.piece(p.piece, p.span)?;
        Some((piece, self.marks_of(p)?))
    }

    /// The marks of a marked piece; reports an undeclared one.
    fn marks_of(&mut self, p: &ast::MarkedPiece) -> Option<Marks> {
        let mut marks = Marks::NONE;
        for &c in &p.marks {
            match self.pieces().mark(c) {
                Some(m) => marks = marks.union(m),
                None => {
                    self.error(ExpandError::UndeclaredMark {
                        span: p.span,
                        symbol: c,
                    });
                    return None;
                }
            }
        }
        Some(marks)
    }
}

/// Reads every declaration of `rules`' file into a game description.
fn collect(
    rules: &Rules,
    problems: &mut Problems,
    read: &dyn Fn(&str) -> std::io::Result<Source>,
) -> GameSpec {
    let mut spec = GameSpec {
        pieces: vec![PieceInfo::default(); rules.pieces().len()],
        ..GameSpec::default()
    };
    let mut cx = Collect {
        spec: &mut spec,
        rules,
        read,
        origin: 0,
        problems,
        seen: HashMap::new(),
    };
    for pass in [Pass::Names, Pass::Rules] {
        if pass == Pass::Rules {
            moves::prepare(&mut cx);
        }
        for (item, origin) in rules.items() {
            let ast::Item::Declaration(d) = item else { continue };
            let d = declare_of(d);
            if d.pass() == pass {
                cx.origin = origin;
                d.declare(&mut cx);
            }
        }
    }
    moves::finish(&mut cx);
    lints::run(&mut cx);
    spec
}
