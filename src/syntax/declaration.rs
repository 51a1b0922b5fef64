//! The declarations of a rule file, one type each: what it holds, how it
//! prints in the parse tree, and what it replaces when an importing file
//! declares it again. [`declarations!`] lists them once; the parser, the
//! printer and the game description (`decl`) each expand that list, so a new
//! declaration is its grammar rule, its type here with its arm in the
//! parser, and one file in `decl/`.

use std::fmt::Write as _;

use super::ast::{Expr, Ident};
use crate::source::Span;

/// Calls macro `$m` with every declaration as `Variant(Type, pest_rule)`.
macro_rules! declarations {
    ($m:ident) => {
        $m! {
            Import(ImportDecl, import_decl),
            Piece(PieceDecl, piece_decl),
            Game(GameDecl, game_decl),
            Players(PlayersDecl, players_decl),
            Player(PlayerDecl, player_decl),
            Edge(EdgeDecl, edge_decl),
            Labels(LabelsDecl, labels_decl),
            Mark(MarkDecl, mark_decl),
            Box(BoxDecl, box_decl),
            Region(RegionDecl, region_decl),
            Board(BoardDecl, board_decl),
            Moves(MovesDecl, moves_decl),
            FenRights(FenRightsDecl, fen_rights),
            FenTarget(FenTargetDecl, fen_target),
            FenTurn(FenTurnDecl, fen_turn),
            FenBox(FenBoxDecl, fen_box),
            FenCounts(FenCountsDecl, fen_counts),
            FenLayout(FenLayoutDecl, fen_layout),
            Outcome(OutcomeDecl, outcome_decl),
            QuietResets(QuietDecl, quiet_decl),
            Legality(LegalityDecl, legality_decl),
            Search(SearchDecl, search_decl),
            Turns(TurnsDecl, turns_decl),
            Notation(NotationDecl, notation_decl),
            San(SanDecl, san_decl),
            Weights(WeightsDecl, weights_decl),
        }
    };
}
pub(crate) use declarations;

macro_rules! define_declaration {
    ($($variant:ident($ty:ident, $rule:ident),)*) => {
        /// A declaration: any item of a rule file other than a definition.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Declaration {
            $(
                #[doc = concat!("See [`", stringify!($ty), "`].")]
                $variant($ty),
            )*
        }

        impl Declaration {
            /// What every declaration's syntax provides.
            pub fn syntax(&self) -> &dyn DeclarationSyntax {
                match self {
                    $(Declaration::$variant(d) => d,)*
                }
            }
        }
    };
}
declarations!(define_declaration);

/// What an item replaces when a file that imports another declares it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replaces<'a> {
    /// The imported item with the same kind and name.
    Named(&'static str, &'a str),
    /// Every imported item of the kind.
    Kind(&'static str),
    /// The imported `piece` lines that declare any of these symbols.
    Symbols(&'a [(char, Span)]),
    /// The imported `mark` line of this symbol (so a file imported twice,
    /// through two others, declares its marks once).
    Mark(char),
    /// Nothing: such items add up.
    Nothing,
}

/// What every declaration's syntax provides.
pub trait DeclarationSyntax {
    /// What it replaces when an importing file declares it again.
    fn replaces(&self) -> Replaces<'_>;
    /// Writes it as a line (and its children) of the parse tree.
    fn print(&self, out: &mut String);
}

/// `import "FILE"`: the path as written, without quotes.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportDecl {
    /// The path.
    pub path: Named,
}

impl DeclarationSyntax for ImportDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Nothing
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "import {:?}", self.path.text);
    }
}

/// `weights "FILE"`: the path as written, without quotes.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightsDecl {
    /// The path.
    pub path: Named,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for WeightsDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("weights", "")
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "weights {:?}", self.path.text);
    }
}

/// `game NAME`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameDecl {
    /// The game's name.
    pub name: Named,
}

impl DeclarationSyntax for GameDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("game", "")
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "game {:?}", self.name.text);
    }
}

/// `players white black`: the players in turn order.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayersDecl {
    /// The players' names.
    pub players: Vec<Ident>,
    /// The declaration.
    pub span: Span,
}

/// `player white "Sente" colour #222`: a player's display name and colour.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerDecl {
    /// The player (one of `players`).
    pub player: Ident,
    /// The name pages, boards and PGN show, without quotes.
    pub name: Named,
    /// The colour (`#rgb` or `#rrggbb`), if given.
    pub colour: Option<Named>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for PlayerDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("player", &self.player.text)
    }
    fn print(&self, out: &mut String) {
        let colour = self
            .colour
            .as_ref()
            .map_or(String::new(), |c| format!(" colour {}", c.text));
        let _ = writeln!(out, "player {} {:?}{colour}", self.player.text, self.name.text);
    }
}

/// `edge red top bottom`: edges of the board drawn in a player's colour.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeDecl {
    /// The player.
    pub player: Ident,
    /// `top`, `bottom`, `left` or `right`, as written.
    pub sides: Vec<String>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for EdgeDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("edge", &self.player.text)
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "edge {} {}", self.player.text, self.sides.join(" "));
    }
}

/// `labels files 9 8 7 ...` or `labels ranks a b c ...`: what boards write
/// beside the files or ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelsDecl {
    /// Whether these are the ranks' labels (else the files').
    pub ranks: bool,
    /// The labels, files left to right or ranks bottom to top.
    pub labels: Vec<String>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for LabelsDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("labels", if self.ranks { "ranks" } else { "files" })
    }
    fn print(&self, out: &mut String) {
        let axis = if self.ranks { "ranks" } else { "files" };
        let _ = writeln!(out, "labels {axis} {}", self.labels.join(" "));
    }
}

impl DeclarationSyntax for PlayersDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("players", "")
    }
    fn print(&self, out: &mut String) {
        let names: Vec<&str> = self.players.iter().map(|p| p.text.as_str()).collect();
        let _ = writeln!(out, "players {}", names.join(" "));
    }
}

/// `quiet resets capture ♙ ♟`: what restarts the `quiet` count.
#[derive(Clone, Debug, PartialEq)]
pub struct QuietDecl {
    /// Each word (`capture` or a piece symbol) and where.
    pub items: Vec<(String, Span)>,
}

impl DeclarationSyntax for QuietDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Kind("quiet")
    }
    fn print(&self, out: &mut String) {
        let names: Vec<&str> = self.items.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(out, "quiet resets {}", names.join(" "));
    }
}

/// `legality royal_safe` or `legality free`.
#[derive(Clone, Debug, PartialEq)]
pub struct LegalityDecl {
    /// Whether it says `royal_safe` (else `free`).
    pub royal_safe: bool,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for LegalityDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("legality", "")
    }
    fn print(&self, out: &mut String) {
        let kind = if self.royal_safe { "royal_safe" } else { "free" };
        let _ = writeln!(out, "legality {kind}");
    }
}

/// `search null_move off` (or `on`), `search reductions off`: a switch of the AI's search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchDecl {
    /// Which switch (`null_move`, `reductions`).
    pub switch: String,
    /// Whether it says `on`.
    pub on: bool,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for SearchDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("search", &self.switch)
    }
    fn print(&self, out: &mut String) {
        let state = if self.on { "on" } else { "off" };
        let _ = writeln!(out, "search {} {state}", self.switch);
    }
}

/// `turns alternate [passing] [starting PLAYER]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnsDecl {
    /// Whether a player without a move passes (`passing`).
    pub passing: bool,
    /// The player who moves first from the board (`starting PLAYER`).
    pub starting: Option<Ident>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for TurnsDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("turns", "")
    }
    fn print(&self, out: &mut String) {
        let passing = if self.passing { " passing" } else { "" };
        let starting = self
            .starting
            .as_ref()
            .map_or(String::new(), |p| format!(" starting {}", p.text));
        let _ = writeln!(out, "turns alternate{passing}{starting}");
    }
}

/// `notation numbered` or `notation coordinates [partner] [walls]`: how squares,
/// moves and positions are written.
#[derive(Clone, Debug, PartialEq)]
pub struct NotationDecl {
    /// Whether it says `numbered` (else `coordinates`).
    pub numbered: bool,
    /// Whether it says `coordinates partner`: a royal piece's move with a
    /// partner is named by the partner's square.
    pub partner: bool,
    /// Whether it says `walls` (after `coordinates`): a move that also
    /// puts a piece on another square is named `a2a3,a3d5`.
    pub walls: bool,
    /// The declaration.
    pub span: Span,
}

/// `san promotion "+" declined "=" drop "*" step "-" check ""`: the words
/// SAN writes for a promotion, a promotion declined, a drop, a move that
/// takes nothing and a check.
#[derive(Clone, Debug, PartialEq)]
pub struct SanDecl {
    /// Each part: its word (`promotion`, `declined`, `drop`, `step`,
    /// `check`) and its text.
    pub parts: Vec<(String, String)>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for SanDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("san", "")
    }
    fn print(&self, out: &mut String) {
        let parts: Vec<String> = self.parts.iter().map(|(w, t)| format!("{w} \"{t}\"")).collect();
        let _ = writeln!(out, "san {}", parts.join(" "));
    }
}

impl DeclarationSyntax for NotationDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("notation", "")
    }
    fn print(&self, out: &mut String) {
        let kind = match (self.numbered, self.partner) {
            (true, _) => "numbered",
            (false, false) => "coordinates",
            (false, true) => "coordinates partner",
        };
        let walls = if self.walls { " walls" } else { "" };
        let _ = writeln!(out, "notation {kind}{walls}");
    }
}

impl DeclarationSyntax for PieceDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Symbols(&self.symbols)
    }
    fn print(&self, out: &mut String) {
        let symbols: Vec<String> = self.symbols.iter().map(|(c, _)| c.to_string()).collect();
        let mut attrs = String::new();
        if let Some((letters, _)) = &self.fen {
            attrs.push_str(&format!(" fen {}", letters.join(" ")));
        }
        if let Some(v) = self.value {
            attrs.push_str(&format!(" value {v}"));
        }
        if self.royal {
            attrs.push_str(" royal");
        }
        if !self.san_letter {
            attrs.push_str(" san -");
        }
        if let Some(d) = self.drawing {
            attrs.push_str(&format!(" draw {}", d.name()));
        }
        for (text, _) in &self.characters {
            attrs.push_str(&format!(" \"{text}\""));
        }
        let (start, end) = (self.span.start, self.span.end);
        let _ = writeln!(out, "piece {}{attrs} @{start}..{end}", symbols.join(" "));
    }
}

impl DeclarationSyntax for MarkDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Mark(self.symbol)
    }
    fn print(&self, out: &mut String) {
        let expires = if self.expires { " expires" } else { "" };
        let fen = self.fen.map(|c| format!(" fen {c}")).unwrap_or_default();
        let shown = if self.shown { " shown" } else { "" };
        let _ = writeln!(out, "mark {}{expires}{fen}{shown}", self.symbol);
    }
}

impl DeclarationSyntax for BoardDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("board", "")
    }
    fn print(&self, out: &mut String) {
        match self.drawing {
            Some(d) => {
                let _ = writeln!(out, "board {}", d.name());
            }
            None => {
                let _ = writeln!(out, "board");
            }
        }
        for (row, _) in &self.rows {
            let _ = writeln!(out, "  |{row}|");
        }
    }
}

impl DeclarationSyntax for MovesDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("moves", &self.player.text)
    }
    fn print(&self, out: &mut String) {
        let (start, end) = (self.span.start, self.span.end);
        let _ = writeln!(out, "moves {} @{start}..{end}", self.player.text);
        super::print::write_expr(out, &self.body, 1);
    }
}

impl DeclarationSyntax for FenRightsDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Kind("fen rights")
    }
    fn print(&self, out: &mut String) {
        let squares: Vec<String> = self
            .squares
            .iter()
            .map(|(p, s)| format!("{}{} {}", p.piece, p.marks.iter().collect::<String>(), s.text))
            .collect();
        let _ = writeln!(out, "fen rights {} {}", self.letter, squares.join(" "));
    }
}

impl DeclarationSyntax for FenTargetDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Kind("fen target")
    }
    fn print(&self, out: &mut String) {
        let marks: String = self.piece.marks.iter().collect();
        let offsets: Vec<&str> = self.offsets.iter().map(|o| o.text.as_str()).collect();
        let _ = writeln!(
            out,
            "fen target {}{marks} {}",
            self.piece.piece,
            offsets.join(" ")
        );
    }
}

impl DeclarationSyntax for OutcomeDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Kind("outcome")
    }
    fn print(&self, out: &mut String) {
        let player = self
            .player
            .as_ref()
            .map_or(String::new(), |p| format!(" {}", p.text));
        let bonus = self.bonus.map_or(String::new(), |n| format!(" {n}"));
        let automatic = if self.automatic { " automatic" } else { "" };
        let turn = self
            .turn
            .as_ref()
            .map_or(String::new(), |p| format!("turn {} ", p.text));
        let name = self
            .name
            .as_ref()
            .map_or(String::new(), |n| format!(" {:?}", n.text));
        let _ = writeln!(
            out,
            "outcome {turn}{:?}{automatic} = {}{player}{bonus}{name}",
            self.condition.label(),
            self.verdict
        );
        if let Some(e) = self.condition.when_expr() {
            super::print::write_expr(out, e, 1);
        }
    }
}

impl ConditionKind {
    /// The condition as written, without a `when`'s expression.
    pub fn label(&self) -> String {
        match self {
            ConditionKind::NoMoves { checked } => {
                format!("no_moves{}", if *checked { " checked" } else { "" })
            }
            ConditionKind::Repetition(n) => format!("repetition {n}"),
            ConditionKind::Quiet(n) => format!("quiet {n}"),
            ConditionKind::Material { items, same_colour } => {
                let names: Vec<String> = items
                    .iter()
                    .map(|(c, many, _)| format!("{c}{}", if *many { "*" } else { "" }))
                    .collect();
                format!(
                    "material {}{}",
                    names.join(" "),
                    if *same_colour { " same_colour" } else { "" }
                )
            }
            ConditionKind::Extinct(items) | ConditionKind::Bare(items) => {
                let word = if matches!(self, ConditionKind::Extinct(_)) {
                    "extinct"
                } else {
                    "bare"
                };
                let names: Vec<String> = items.iter().map(|(c, _)| c.to_string()).collect();
                format!("{word} {}", names.join(" "))
            }
            ConditionKind::Passes(n) => format!("passes {n}"),
            ConditionKind::When(_) => "when".to_string(),
            ConditionKind::WhenFor(_, n) => format!("when for {n}"),
        }
    }

    /// The move of a `when` (with or without `for N`).
    pub fn when_expr(&self) -> Option<&Expr> {
        match self {
            ConditionKind::When(e) | ConditionKind::WhenFor(e, _) => Some(e),
            _ => None,
        }
    }
}

/// `piece A` or `piece A B` (A and B colour partners), with attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct PieceDecl {
    /// The declared symbols with their spans.
    pub symbols: Vec<(char, Span)>,
    /// FEN letters, one per symbol (`fen P p`; `+P` for a promoted piece),
    /// with the attribute's span.
    pub fen: Option<(Vec<String>, Span)>,
    /// The value for the AI (`value 3`).
    pub value: Option<f64>,
    /// Whether the pieces are royal.
    pub royal: bool,
    /// Whether SAN names the pieces by letter (`san -` says no).
    pub san_letter: bool,
    /// How boards draw the pieces (`draw pentagon`).
    pub drawing: Option<PieceDrawing>,
    /// The characters the traditional set writes on the pieces
    /// (`draw pentagon "玉" "王"`: one for every symbol or one per symbol),
    /// with the span of each.
    pub characters: Vec<(String, Span)>,
    /// The whole declaration.
    pub span: Span,
}

/// How a board draws its squares (`board uniform`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoardDrawing {
    /// Light and dark squares.
    #[default]
    Squares,
    /// Squares of one colour (shogi).
    Uniform,
    /// Pieces on the intersections of lines (xiangqi).
    Lines,
    /// Hexagons, each row half a cell left of the row below (Hex).
    Hexagons,
}

impl BoardDrawing {
    /// The drawing a word after `board` names.
    pub fn named(word: &str) -> Option<BoardDrawing> {
        match word {
            "squares" => Some(BoardDrawing::Squares),
            "uniform" => Some(BoardDrawing::Uniform),
            "lines" => Some(BoardDrawing::Lines),
            "hexagons" => Some(BoardDrawing::Hexagons),
            _ => None,
        }
    }

    /// The word that names it.
    pub fn name(self) -> &'static str {
        match self {
            BoardDrawing::Squares => "squares",
            BoardDrawing::Uniform => "uniform",
            BoardDrawing::Lines => "lines",
            BoardDrawing::Hexagons => "hexagons",
        }
    }
}

/// How a board draws a piece (`draw` in a `piece` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceDrawing {
    /// Its symbol, in the viewer's fonts.
    Glyph,
    /// A shogi piece: a pentagon pointing at the opponent, its FEN letter
    /// on it (red for a promoted piece).
    Pentagon,
    /// A xiangqi piece: a disc, its FEN letter and ring in its owner's colour.
    Disc,
    /// A stone of its owner's colour (`player ... colour`), with no letter:
    /// Hex's, Othello's.
    Stone,
}

impl PieceDrawing {
    /// The drawing a word of `draw` names.
    pub fn named(word: &str) -> Option<PieceDrawing> {
        match word {
            "glyph" => Some(PieceDrawing::Glyph),
            "pentagon" => Some(PieceDrawing::Pentagon),
            "disc" => Some(PieceDrawing::Disc),
            "stone" => Some(PieceDrawing::Stone),
            _ => None,
        }
    }

    /// The word of `draw` that names it.
    pub fn name(self) -> &'static str {
        match self {
            PieceDrawing::Glyph => "glyph",
            PieceDrawing::Pentagon => "pentagon",
            PieceDrawing::Disc => "disc",
            PieceDrawing::Stone => "stone",
        }
    }
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
    /// `extinct ♙ ♘ ...`: a player has no piece left of one of these kinds.
    Extinct(Vec<(char, Span)>),
    /// `bare ♔`: a player has nothing left but these kinds.
    Bare(Vec<(char, Span)>),
    /// `passes N`: the last N moves each changed nothing.
    Passes(u32),
    /// `when EXPR`.
    When(Expr),
    /// `when EXPR for N`: the move has a result in this position and the
    /// N-1 positions before it.
    WhenFor(Expr, u32),
}

/// `outcome CONDITION = RESULT`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeDecl {
    /// The player who must be to move for the line to apply (`turn PLAYER`).
    pub turn: Option<Ident>,
    /// The condition.
    pub condition: ConditionKind,
    /// `win`, `loss`, `draw`, `majority` or `points`.
    pub verdict: String,
    /// The player named after `win`, if any.
    pub player: Option<Ident>,
    /// The pieces counted after `majority`, with where each is written.
    pub counted: Vec<(char, Span)>,
    /// What `points PLAYER N` gives PLAYER (named in `player`).
    pub bonus: Option<f64>,
    /// Whether a `repetition`, `quiet` or `material` condition says
    /// `automatic`: it ends the game in perft too.
    pub automatic: bool,
    /// How results call it (`= loss "checkmate"`), without quotes.
    pub name: Option<Named>,
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
    /// Whether boards draw it (`shown`).
    pub shown: bool,
    /// The character FEN writes after the letter of a piece carrying it.
    pub fen: Option<char>,
    /// The declaration.
    pub span: Span,
}

/// `board` and its diagram: rows top to bottom, indentation removed.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardDecl {
    /// Each row's text (comments removed) and the span of the row.
    pub rows: Vec<(String, Span)>,
    /// How boards draw the squares (`board uniform`).
    pub drawing: Option<BoardDrawing>,
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

/// `fen rights K ♔° e1 ♖° h1`: a FEN castling letter and the marked pieces
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

/// `box hand` (and what it holds at the start): a place off the board for pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxDecl {
    /// The box's name.
    pub name: Ident,
    /// The pieces it holds at the start.
    pub contents: Vec<(char, Span)>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for BoxDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("box", &self.name.text)
    }
    fn print(&self, out: &mut String) {
        let contents: String = self.contents.iter().map(|(c, _)| format!(" {c}")).collect();
        let _ = writeln!(out, "box {}{contents}", self.name.text);
    }
}

/// One rectangle of a region: its two corners as (file, rank) from 0, and its span.
pub type RegionPart = ((u32, u32), (u32, u32), Span);

/// `region palace d1-f3 d8-f10`: a named set of squares, used as `@palace`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionDecl {
    /// The region's name.
    pub name: Ident,
    /// Its rectangles as written (`d1-f3`, or one square `e4`), each as the
    /// (file, rank) of two corners counted from 0, and its span.
    pub parts: Vec<RegionPart>,
    /// Its `colour a1` parts: of its squares (of the whole board if it has
    /// no others) those coloured as that square (file plus rank even or odd
    /// as its), as (file, rank) from 0, and the span.
    pub colours: Vec<((u32, u32), Span)>,
    /// The declaration.
    pub span: Span,
}

impl RegionDecl {
    /// Every square of the region as (file, rank), counted from 0, in
    /// order, on a board of `files` x `ranks`.
    pub fn squares(&self, files: u32, ranks: u32) -> Vec<(u32, u32)> {
        let mut out = self.rectangles();
        if self.colours.is_empty() {
            return out;
        }
        if self.parts.is_empty() {
            out = (0..ranks).flat_map(|r| (0..files).map(move |f| (f, r))).collect();
        }
        out.retain(|&(f, r)| (self.colours.iter()).any(|&((f0, r0), _)| (f + r) % 2 == (f0 + r0) % 2));
        out
    }

    /// The squares of its rectangles, in order.
    fn rectangles(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for &((f0, r0), (f1, r1), _) in &self.parts {
            for r in r0.min(r1)..=r0.max(r1) {
                for f in f0.min(f1)..=f0.max(f1) {
                    if !out.contains(&(f, r)) {
                        out.push((f, r));
                    }
                }
            }
        }
        out
    }
}

impl DeclarationSyntax for RegionDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("region", &self.name.text)
    }
    fn print(&self, out: &mut String) {
        let name = |(f, r): (u32, u32)| format!("{}{}", char::from(b'a' + f as u8), r + 1);
        let parts: String = self
            .parts
            .iter()
            .map(|&(a, b, _)| {
                if a == b {
                    format!(" {}", name(a))
                } else {
                    format!(" {}-{}", name(a), name(b))
                }
            })
            .collect();
        let colours: String = (self.colours.iter())
            .map(|&(a, _)| format!(" colour {}", name(a)))
            .collect();
        let _ = writeln!(out, "region {}{parts}{colours}", self.name.text);
    }
}

/// `fen box hand`: FEN writes the box in brackets after the board.
#[derive(Clone, Debug, PartialEq)]
pub struct FenBoxDecl {
    /// The box.
    pub name: Ident,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for FenBoxDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("fen box", "")
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "fen box {}", self.name.text);
    }
}

/// `fen layout full` or `fen layout short`: whether FEN writes empty rights
/// and target fields.
#[derive(Clone, Debug, PartialEq)]
pub struct FenLayoutDecl {
    /// `full`: write them (`w - - 0 1`); `short`: leave them out (`w 0 1`).
    pub full: bool,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for FenLayoutDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("fen layout", "")
    }
    fn print(&self, out: &mut String) {
        let _ = writeln!(out, "fen layout {}", if self.full { "full" } else { "short" });
    }
}

/// `fen counts checks ⊕ ⊖`: a FEN field `a+b` counting these pieces in a box.
#[derive(Clone, Debug, PartialEq)]
pub struct FenCountsDecl {
    /// The box.
    pub name: Ident,
    /// The pieces counted, in the field's order.
    pub pieces: Vec<(char, Span)>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for FenCountsDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("fen counts", "")
    }
    fn print(&self, out: &mut String) {
        let pieces: String = self.pieces.iter().map(|(c, _)| format!(" {c}")).collect();
        let _ = writeln!(out, "fen counts {}{pieces}", self.name.text);
    }
}

/// `fen turn w b`: the letter of FEN's turn field for each player.
#[derive(Clone, Debug, PartialEq)]
pub struct FenTurnDecl {
    /// One letter per player, in turn order.
    pub letters: Vec<char>,
    /// The declaration.
    pub span: Span,
}

impl DeclarationSyntax for FenTurnDecl {
    fn replaces(&self) -> Replaces<'_> {
        Replaces::Named("fen turn", "")
    }
    fn print(&self, out: &mut String) {
        let letters: Vec<String> = self.letters.iter().map(char::to_string).collect();
        let _ = writeln!(out, "fen turn {}", letters.join(" "));
    }
}

/// `fen target ♙ᵉ d`: the FEN en passant square lies at this movement from
/// the marked piece.
#[derive(Clone, Debug, PartialEq)]
pub struct FenTargetDecl {
    /// The marked piece.
    pub piece: MarkedPiece,
    /// The movement words from the piece to the en passant squares (`1`: its own).
    pub offsets: Vec<Ident>,
    /// The declaration.
    pub span: Span,
}
