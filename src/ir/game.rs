//! The game declarations of a rule file (`game`, `players`, piece
//! attributes, `mark`, `board`, `moves`, `fen`), checked and resolved into a
//! [`GameSpec`] that the game layer turns into a playable game.

use super::error::ExpandError;
use super::tree::Move;
use crate::core::Offset;
use crate::core::{Marks, PieceId, PieceTable};
use crate::source::Span;
use crate::syntax::ast;

/// What a rule file says about one piece beyond its symbol.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieceInfo {
    /// The player who owns it (index into [`GameSpec::players`]).
    pub owner: Option<usize>,
    /// Its FEN letter.
    pub fen: Option<char>,
    /// Its value for the AI.
    pub value: Option<f64>,
    /// Whether no move may leave it where an opponent could take it.
    pub royal: bool,
    /// Whether SAN writes its moves without a letter (`san -`; captures are
    /// then named by the file the piece left).
    pub san_unlettered: bool,
}

/// One square of the initial position: empty, or a piece with marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardCell {
    /// An empty square.
    Empty,
    /// A piece with its marks.
    Piece(PieceId, Marks),
}

/// A square named the FEN way: file letter and rank number (`e1`), 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    /// Column from the left, `a` = 0.
    pub file: u32,
    /// Row from the bottom, `1` = 0.
    pub rank: u32,
}

/// `fen castling K ♔° e1 ♖° h1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RightsLetter {
    /// The FEN letter.
    pub letter: char,
    /// The marked pieces it stands for and their squares.
    pub squares: Vec<(PieceId, Marks, SquareName)>,
}

/// `fen passant ♙ᵉ d`: the en passant square is at `offset` from the marked piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetRule {
    /// The piece.
    pub piece: PieceId,
    /// The marks it carries.
    pub marks: Marks,
    /// From the piece to the en passant square.
    pub offset: Offset,
}

/// When an outcome applies (see the grammar's `outcome` for each); `W` is
/// what a `when` holds: the move here, a compiled program in the game layer.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition<W = Move> {
    /// The player to move has no legal move (and, if `checked`, a royal piece
    /// of theirs is attacked).
    NoMoves {
        /// Whether a royal piece must be attacked.
        checked: bool,
    },
    /// The position has occurred this many times.
    Repetition(u32),
    /// This many plies without a move that resets the quiet count.
    Quiet(u32),
    /// Exactly these pieces are left.
    Material {
        /// Pieces that must be there, once per listing.
        exact: Vec<PieceId>,
        /// Pieces that may be there any number of times.
        any: Vec<PieceId>,
        /// Whether the `any` pieces must all stand on squares of one colour.
        same_colour: bool,
    },
    /// This move has a result.
    When(W),
}

impl<W> Condition<W> {
    /// The same condition with its `when` move turned into something else.
    pub fn try_map_when<V, E>(&self, f: impl FnOnce(&W) -> Result<V, E>) -> Result<Condition<V>, E> {
        Ok(match self {
            Condition::NoMoves { checked } => Condition::NoMoves { checked: *checked },
            Condition::Repetition(n) => Condition::Repetition(*n),
            Condition::Quiet(n) => Condition::Quiet(*n),
            Condition::Material {
                exact,
                any,
                same_colour,
            } => Condition::Material {
                exact: exact.clone(),
                any: any.clone(),
                same_colour: *same_colour,
            },
            Condition::When(w) => Condition::When(f(w)?),
        })
    }
}

/// Who an outcome favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A win: for the named player, or (`None`) the player to move.
    Win(Option<usize>),
    /// A loss for the player to move.
    Loss,
    /// A draw.
    Draw,
}

/// `outcome CONDITION = RESULT`.
#[derive(Clone, Debug, PartialEq)]
pub struct OutcomeRule {
    /// When it applies.
    pub condition: Condition,
    /// What it means.
    pub verdict: Verdict,
}

/// What restarts the `quiet` count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuietResets {
    /// A move that leaves an opponent fewer pieces.
    pub capture: bool,
    /// A move of one of these pieces (its piece of interest).
    pub pieces: Vec<PieceId>,
}

/// Everything a rule file declares about its game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameSpec {
    /// The game's name.
    pub name: Option<String>,
    /// The players in turn order.
    pub players: Vec<String>,
    /// Per piece (indexed by [`PieceId`]): owner, FEN letter, value, royalty.
    pub pieces: Vec<PieceInfo>,
    /// Marks cleared when their piece's owner begins a turn.
    pub expiring: Marks,
    /// The initial position: squares (bottom row y = 0) and what they hold.
    pub board: Vec<(Offset, BoardCell)>,
    /// Each player's moves, in player order.
    pub moves: Vec<Move>,
    /// FEN castling letters.
    pub rights: Vec<RightsLetter>,
    /// FEN en passant rules.
    pub targets: Vec<TargetRule>,
    /// Outcomes, in file order.
    pub outcomes: Vec<OutcomeRule>,
    /// What restarts the `quiet` count.
    pub quiet_resets: QuietResets,
}

impl GameSpec {
    /// Whether the file declares a game at all (players and moves).
    pub fn is_game(&self) -> bool {
        !self.players.is_empty()
    }
}

/// Reads `e1` as file 4, rank 0.
pub fn square_name(text: &str) -> Option<SquareName> {
    let mut chars = text.chars();
    let file = chars.next().filter(char::is_ascii_lowercase)? as u32 - 'a' as u32;
    let rank: u32 = chars.as_str().parse().ok()?;
    (rank >= 1).then_some(SquareName { file, rank: rank - 1 })
}

/// Collects the declarations other than pieces and definitions; `expand`
/// expands a `moves` body with the file's definitions.
pub fn collect<'f>(
    file: &'f ast::File,
    pieces: &PieceTable,
    mut expand: impl FnMut(&'f ast::Expr) -> Option<Move>,
    errors: &mut Vec<ExpandError>,
) -> GameSpec {
    let mut spec = GameSpec {
        pieces: vec![PieceInfo::default(); pieces.len()],
        ..GameSpec::default()
    };
    let once = |seen: &mut Option<Span>, span: Span, what: &str, errors: &mut Vec<ExpandError>| {
        if let Some(first) = *seen {
            errors.push(ExpandError::Duplicate {
                span,
                first,
                name: what.to_string(),
            });
            false
        } else {
            *seen = Some(span);
            true
        }
    };
    let (mut seen_game, mut seen_players, mut seen_board) = (None, None, None);
    for item in &file.items {
        match item {
            ast::Item::Game(n) if once(&mut seen_game, n.span, "game", errors) => {
                spec.name = Some(n.text.clone());
            }
            ast::Item::Players(ps) => {
                let span = ps.first().map_or(Span::default(), |p| p.span);
                if once(&mut seen_players, span, "players", errors) {
                    spec.players = ps.iter().map(|p| p.text.clone()).collect();
                }
            }
            ast::Item::Board(b) if once(&mut seen_board, b.span, "board", errors) => {
                spec.board = board(b, pieces, errors);
            }
            _ => {}
        }
    }
    spec.moves = vec![Move::Nil; spec.players.len()];
    let mut seen_moves: Vec<Option<Span>> = vec![None; spec.players.len()];
    for item in &file.items {
        match item {
            ast::Item::Piece(d) => piece_info(d, pieces, &mut spec, errors),
            ast::Item::Mark(m) => {
                if m.expires
                    && let Some(set) = pieces.mark(m.symbol)
                {
                    spec.expiring = spec.expiring.union(set);
                }
            }
            ast::Item::Moves(m) => {
                let Some(i) = spec.players.iter().position(|p| *p == m.player.text) else {
                    errors.push(ExpandError::UnknownPlayer {
                        span: m.player.span,
                        name: m.player.text.clone(),
                        players: spec.players.join(" "),
                    });
                    continue;
                };
                if once(
                    &mut seen_moves[i],
                    m.player.span,
                    &format!("moves {}", m.player.text),
                    errors,
                ) && let Some(mv) = expand(&m.body)
                {
                    spec.moves[i] = mv;
                }
            }
            ast::Item::FenRights(c) => {
                let mut squares = Vec::new();
                for (p, sq) in &c.squares {
                    let Some((piece, marks)) = marked_piece(p, pieces, errors) else {
                        continue;
                    };
                    match square_name(&sq.text) {
                        Some(name) => squares.push((piece, marks, name)),
                        None => errors.push(ExpandError::BadSquareName {
                            span: sq.span,
                            name: sq.text.clone(),
                        }),
                    }
                }
                spec.rights.push(RightsLetter {
                    letter: c.letter,
                    squares,
                });
            }
            ast::Item::Outcome(o) => {
                let verdict = match (o.verdict.as_str(), &o.player) {
                    ("win", None) => Verdict::Win(None),
                    ("win", Some(p)) => match spec.players.iter().position(|q| *q == p.text) {
                        Some(i) => Verdict::Win(Some(i)),
                        None => {
                            errors.push(ExpandError::UnknownPlayer {
                                span: p.span,
                                name: p.text.clone(),
                                players: spec.players.join(" "),
                            });
                            continue;
                        }
                    },
                    ("loss", _) => Verdict::Loss,
                    _ => Verdict::Draw,
                };
                let condition = match &o.condition {
                    ast::ConditionKind::NoMoves { checked } => Condition::NoMoves { checked: *checked },
                    ast::ConditionKind::Repetition(n) => Condition::Repetition(*n),
                    ast::ConditionKind::Quiet(n) => Condition::Quiet(*n),
                    ast::ConditionKind::Material { items, same_colour } => {
                        let (mut exact, mut any) = (Vec::new(), Vec::new());
                        for &(c, many, span) in items {
                            match pieces.lookup(c) {
                                Some(p) if many => any.push(p),
                                Some(p) => exact.push(p),
                                None => errors.push(undeclared(c, span)),
                            }
                        }
                        Condition::Material {
                            exact,
                            any,
                            same_colour: *same_colour,
                        }
                    }
                    ast::ConditionKind::When(e) => match expand(e) {
                        Some(m) => Condition::When(m),
                        None => continue,
                    },
                };
                spec.outcomes.push(OutcomeRule { condition, verdict });
            }
            ast::Item::QuietResets(items) => {
                for (name, span) in items {
                    if name == "capture" {
                        spec.quiet_resets.capture = true;
                        continue;
                    }
                    let c = name.chars().next().unwrap_or(' ');
                    match pieces.lookup(c) {
                        Some(p) => spec.quiet_resets.pieces.push(p),
                        None => errors.push(undeclared(c, *span)),
                    }
                }
            }
            ast::Item::FenTarget(p) => {
                if let Some((piece, marks)) = marked_piece(&p.piece, pieces, errors) {
                    let m = super::expander::movement_of_word(&p.offset.text);
                    spec.targets.push(TargetRule {
                        piece,
                        marks,
                        offset: Offset::new(m.dx, m.dy),
                    });
                }
            }
            _ => {}
        }
    }
    if let Some(span) = seen_players {
        for (i, seen) in seen_moves.iter().enumerate() {
            if seen.is_none() {
                errors.push(ExpandError::MissingMoves {
                    span,
                    player: spec.players[i].clone(),
                });
            }
        }
    }
    spec
}

fn piece_info(d: &ast::PieceDecl, pieces: &PieceTable, spec: &mut GameSpec, errors: &mut Vec<ExpandError>) {
    let ids: Vec<PieceId> = d.symbols.iter().filter_map(|(c, _)| pieces.lookup(*c)).collect();
    if let Some((letters, span)) = &d.fen
        && letters.len() != d.symbols.len()
    {
        errors.push(ExpandError::FenLetters {
            span: *span,
            symbols: d.symbols.len(),
            letters: letters.len(),
        });
    }
    for (i, id) in ids.iter().enumerate() {
        let info = &mut spec.pieces[id.index()];
        info.royal = d.royal;
        info.san_unlettered = !d.san_letter;
        info.value = d.value;
        info.fen = d.fen.as_ref().and_then(|(letters, _)| letters.get(i).copied());
        if d.symbols.len() == 2 && spec.players.len() >= 2 {
            info.owner = Some(i);
        }
    }
}

fn undeclared(symbol: char, span: Span) -> ExpandError {
    ExpandError::UndeclaredPiece {
        span,
        symbol,
        help: format!("declare it with `piece {symbol}`"),
    }
}

fn marked_piece(
    p: &ast::MarkedPiece,
    pieces: &PieceTable,
    errors: &mut Vec<ExpandError>,
) -> Option<(PieceId, Marks)> {
    let Some(piece) = pieces.lookup(p.piece) else {
        errors.push(undeclared(p.piece, p.span));
        return None;
    };
    let mut marks = Marks::NONE;
    for &c in &p.marks {
        match pieces.mark(c) {
            Some(m) => marks = marks.union(m),
            None => {
                errors.push(ExpandError::UndeclaredMark {
                    span: p.span,
                    symbol: c,
                });
                return None;
            }
        }
    }
    Some((piece, marks))
}

/// The diagram's squares: rows top to bottom, a piece then its marks, `.`
/// empty, a space no square.
fn board(b: &ast::BoardDecl, pieces: &PieceTable, errors: &mut Vec<ExpandError>) -> Vec<(Offset, BoardCell)> {
    let height = b.rows.len() as i32;
    let mut squares = Vec::new();
    for (row, (text, span)) in b.rows.iter().enumerate() {
        let y = height - 1 - row as i32;
        let mut x = -1;
        for (i, c) in text.char_indices() {
            let at = Span::new(span.start + i, span.start + i + c.len_utf8());
            if let Some(m) = pieces.mark(c) {
                match squares.last_mut() {
                    Some((o, BoardCell::Piece(_, marks))) if *o == Offset::new(x, y) => {
                        *marks = marks.union(m)
                    }
                    _ => errors.push(ExpandError::BadMarks { span: at }),
                }
                continue;
            }
            if matches!(c, '\u{FE0E}' | '\u{FE0F}') {
                continue;
            }
            x += 1;
            match c {
                ' ' => {}
                '.' => squares.push((Offset::new(x, y), BoardCell::Empty)),
                _ => match pieces.lookup(c) {
                    Some(p) => squares.push((Offset::new(x, y), BoardCell::Piece(p, Marks::NONE))),
                    None => errors.push(ExpandError::BadBoardSymbol { span: at, symbol: c }),
                },
            }
        }
    }
    if squares.is_empty() {
        errors.push(ExpandError::EmptyBoard { span: b.span });
    }
    squares
}
