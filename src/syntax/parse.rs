//! The pest parse tree turned into the AST. pest types never leave this file.

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use super::ast::{
    BoardDecl, BoardDrawing, BoxDecl, ConditionKind, Declaration, Definition, EdgeDecl, Expr, ExprKind,
    FenBoxDecl, FenCountsDecl, FenLayoutDecl, FenRightsDecl, FenTargetDecl, FenTurnDecl, File, GameDecl,
    Ident, ImportDecl, Item, LabelsDecl, LegalityDecl, MarkDecl, MarkedPiece, MovesDecl, Named, NotationDecl,
    OutcomeDecl, PieceDecl, PieceDrawing, PlayerDecl, PlayersDecl, QuietDecl, RegionDecl, RepeatSyntax,
    SanDecl, SearchDecl, TurnsDecl, WeightsDecl,
};
use super::error::SyntaxError;
use crate::source::Span;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/chessalg.pest"]
pub(super) struct Grammar;

/// The deepest bracket nesting the parser accepts.
pub const MAX_NESTING: usize = 64;

/// The largest repetition count (`M{n}`) the parser accepts.
pub const MAX_COUNT: u32 = 1000;

/// The largest power (`m^i`) in absolute value the parser accepts.
pub const MAX_EXPONENT: i64 = 1_000_000;

/// The stack that parsing at the nesting limit needs, with room to spare
/// (pest takes about 1 MiB in an unoptimised build): parsing runs on a new
/// stack of twice this when less is left, so it works on small threads too.
const PARSE_STACK: usize = 2 << 20;

/// Parses a whole rule file, reporting every broken item.
pub fn parse_file(text: &str) -> Result<File, Vec<SyntaxError>> {
    stacker::maybe_grow(PARSE_STACK, 2 * PARSE_STACK, || parse_items(text))
}

fn parse_items(text: &str) -> Result<File, Vec<SyntaxError>> {
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for (start, end) in item_chunks(text) {
        let chunk = &text[start..end];
        if is_blank(chunk) {
            continue;
        }
        match parse_chunk(chunk, start) {
            Ok(item) => items.push(item),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(File { items })
    } else {
        Err(errors)
    }
}

/// Parses one expression (as given to `--expr`), which may wrap freely.
pub fn parse_expression(text: &str) -> Result<Expr, Vec<SyntaxError>> {
    stacker::maybe_grow(PARSE_STACK, 2 * PARSE_STACK, || parse_one_expression(text))
}

fn parse_one_expression(text: &str) -> Result<Expr, Vec<SyntaxError>> {
    let flat = blank_comments_and_newlines(text);
    check_brackets(&flat, 0, false).map_err(|e| vec![e])?;
    let mut pairs = Grammar::parse(Rule::expression, &flat).map_err(|e| vec![expected_error(e, &flat, 0)])?;
    let top = pairs.next().expect("the expression rule yields one pair");
    let b = Builder { offset: 0 };
    let expr = top.into_inner().next().expect("expression holds an expr");
    b.expr(expr).map_err(|e| vec![e])
}

/// Byte ranges of the items of a file: a new item starts on a line whose
/// first character is neither white space nor the start of a comment.
pub(super) fn item_chunks(text: &str) -> Vec<(usize, usize)> {
    let mut starts = vec![0];
    for (i, c) in text.char_indices() {
        if c == '\n' {
            let line_start = i + 1;
            let rest = &text[line_start..];
            let first = rest.chars().next();
            let begins_item = match first {
                None | Some(' ' | '\t' | '\r' | '\n') => false,
                Some(_) => !rest.starts_with("//"),
            };
            if begins_item {
                starts.push(line_start);
            }
        }
    }
    let mut chunks = Vec::with_capacity(starts.len());
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(text.len());
        chunks.push((s, e));
    }
    chunks
}

/// Whether a chunk holds nothing but white space and comments.
pub(super) fn is_blank(chunk: &str) -> bool {
    chunk.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with("//")
    })
}

fn parse_chunk(chunk: &str, offset: usize) -> Result<Item, SyntaxError> {
    check_brackets(chunk, offset, true)?;
    let mut pairs = Grammar::parse(Rule::item_input, chunk).map_err(|e| expected_error(e, chunk, offset))?;
    let top = pairs.next().expect("item_input yields one pair");
    let item = top.into_inner().next().expect("item_input holds an item");
    Builder { offset }.item(item)
}

/// What the nesting pre-check has open.
enum Open {
    /// `(` or `{`, at this byte.
    Bracket(u8, usize),
    /// A `%p:` binding, which takes everything to its right up to the
    /// bracket (or the `,`) that ends the expression it starts.
    Bind,
}

/// Checks brackets before pest runs: each `(` and `{` closed by its partner,
/// and brackets and `%p:` bindings nested no deeper than [`MAX_NESTING`]
/// together (so pest never recurses far). Comments, quoted strings and the
/// free text of `game NAME` and `board` (in an item, `is_item`) are not
/// expressions and are skipped.
pub(super) fn check_brackets(text: &str, offset: usize, is_item: bool) -> Result<(), SyntaxError> {
    let bytes = text.as_bytes();
    let skip = if is_item { free_text(text) } else { None };
    let mut open: Vec<Open> = Vec::new();
    // The last `%` seen at each level (`pending[k]` belongs to the level
    // inside `open[..k]`): the start of a binding if a `:` follows.
    let mut pending: Vec<Option<usize>> = vec![None];
    let at = |i: usize| Span::new(offset + i, offset + i + 1);
    // Ends the bindings that `)`, `}` and `,` close.
    let end_binds = |open: &mut Vec<Open>, pending: &mut Vec<Option<usize>>| {
        while matches!(open.last(), Some(Open::Bind)) {
            open.pop();
            pending.pop();
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(r) = &skip
            && r.contains(&i)
        {
            i = r.end;
            continue;
        }
        match b {
            // A comment runs to the end of its line, a quoted string to its
            // closing quote or the end of its line.
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .unwrap_or(bytes.len() - i);
                continue;
            }
            b'"' => {
                let rest = &bytes[i + 1..];
                let close = rest.iter().position(|&c| c == b'"' || c == b'\n');
                i += 1 + close.map_or(rest.len(), |k| if rest[k] == b'"' { k + 1 } else { k });
                continue;
            }
            b'%' => *pending.last_mut().expect("a level") = Some(i),
            b':' => {
                // Only a `:` after a `%` at the same level binds; any other
                // is a syntax error that pest reports.
                if let Some(start) = pending.last_mut().expect("a level").take() {
                    open.push(Open::Bind);
                    pending.push(None);
                    if open.len() > MAX_NESTING {
                        return Err(SyntaxError::TooDeepBinding {
                            span: Span::new(offset + start, offset + i + 1),
                            limit: MAX_NESTING,
                        });
                    }
                }
            }
            b',' => {
                end_binds(&mut open, &mut pending);
                *pending.last_mut().expect("a level") = None;
            }
            b'(' | b'{' => {
                open.push(Open::Bracket(b, i));
                pending.push(None);
                if open.len() > MAX_NESTING {
                    let span = at(i);
                    let limit = MAX_NESTING;
                    return Err(if open.iter().any(|o| matches!(o, Open::Bind)) {
                        SyntaxError::TooDeepBinding { span, limit }
                    } else {
                        SyntaxError::TooDeep { span, limit }
                    });
                }
            }
            b')' | b'}' => {
                end_binds(&mut open, &mut pending);
                let partner = if b == b')' { b'(' } else { b'{' };
                match open.pop() {
                    Some(Open::Bracket(o, _)) if o == partner => {
                        pending.pop();
                    }
                    Some(Open::Bracket(o, j)) => {
                        return Err(SyntaxError::Mismatched {
                            span: at(i),
                            open: at(j),
                            expected: if o == b'(' { ')' } else { '}' },
                            found: b as char,
                        });
                    }
                    Some(Open::Bind) | None => {
                        return Err(SyntaxError::Unopened {
                            span: at(i),
                            found: b as char,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    end_binds(&mut open, &mut pending);
    match open.pop() {
        Some(Open::Bracket(o, j)) => Err(SyntaxError::Unclosed {
            span: at(j),
            expected: if o == b'(' { ')' } else { '}' },
        }),
        Some(Open::Bind) | None => Ok(()),
    }
}

/// The byte range of an item's text that is not an expression and may hold
/// any character: the name of a `game` (to the end of its line) or the rows
/// of a `board`. `None` for other items, and for `game = ...`, `board(x) =
/// ...` (definitions, which pest tries first).
fn free_text(item: &str) -> Option<std::ops::Range<usize>> {
    let (keyword, rest) = if let Some(rest) = item.strip_prefix("game") {
        ("game", rest)
    } else {
        ("board", item.strip_prefix("board")?)
    };
    let next = after_trivia(rest);
    if next.starts_with(['=', '(']) {
        return None;
    }
    let line_end = item.find('\n').unwrap_or(item.len());
    if keyword == "game" {
        // `game` and at least one space, then the name.
        let name = rest.trim_start_matches([' ', '\t']);
        let start = item.len() - name.len();
        (name.len() < rest.len()).then_some(start..line_end)
    } else {
        let first_line = item[..line_end].trim_end_matches('\r');
        first_line[keyword.len()..]
            .trim_matches([' ', '\t'])
            .is_empty()
            .then_some(keyword.len()..item.len())
    }
}

/// `text` without the white space, line breaks and `//` comments at its start.
fn after_trivia(mut text: &str) -> &str {
    loop {
        text = text.trim_start_matches([' ', '\t', '\n', '\r']);
        match text.strip_prefix("//") {
            Some(comment) => text = comment.find('\n').map_or("", |k| &comment[k..]),
            None => return text,
        }
    }
}

/// The text with comments and line breaks replaced by spaces, byte for byte,
/// so spans still point into the original.
fn blank_comments_and_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' || c == '\r' {
            in_comment = c != '\n' && in_comment;
            out.push(' ');
            continue;
        }
        if !in_comment && c == '/' && chars.peek() == Some(&'/') {
            in_comment = true;
        }
        if in_comment {
            (0..c.len_utf8()).for_each(|_| out.push(' '));
        } else {
            out.push(c);
        }
    }
    out
}

/// A pest failure as a diagnostic that says, in words, what would have fit.
pub(super) fn expected_error(e: pest::error::Error<Rule>, text: &str, offset: usize) -> SyntaxError {
    let mut pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let mut wanted: Vec<&'static str> = Vec::new();
    if let ErrorVariant::ParsingError { positives, .. } = &e.variant {
        for r in positives {
            if let Some(name) = describe(*r)
                && !wanted.contains(&name)
            {
                wanted.push(name);
            }
        }
    }
    // Words a declaration expects say more than what a definition of the
    // same name would (`legality maybe` could also start `legality(x) = ...`).
    if wanted.iter().any(|w| w.starts_with('`')) {
        wanted.retain(|w| w.starts_with('`'));
    }
    if wanted.is_empty() {
        wanted.push("something else");
    }
    // Only white space and comments follow: the item ended too soon. Point
    // right after its last token (an operator without its right-hand side,
    // say), not where pest stopped, on the line of the next item.
    let at_end = after_trivia(&text[pos..]).is_empty();
    if at_end {
        pos = without_trailing_trivia(&text[..pos]).len();
    }
    const UNFINISHED: &str =
        "something is unfinished here: a bracket not closed, or an operator without its right-hand side";
    let rest = &text[pos..];
    let next = rest.chars().next();
    let (found, end, help) = if at_end {
        // A mark as wide as the space or line break after the last token.
        let end = pos + next.filter(|c| c.is_whitespace()).map_or(0, char::len_utf8);
        let line = rest.trim_start_matches([' ', '\t']);
        if line.starts_with(['\n', '\r']) || line.starts_with("//") {
            let help = "something is unfinished here, such as an operator without its right-hand side; an item goes on to the next line only if that line starts with a space";
            ("the end of the line".to_string(), end, help)
        } else {
            ("the end of the text".to_string(), end, UNFINISHED)
        }
    } else {
        match next {
            Some('\n' | '\r') => ("the end of the line".to_string(), pos + 1, UNFINISHED),
            Some(_) if rest.starts_with("->") => (
                "`->`".to_string(),
                pos + 2,
                "check the operators around here; in a rule file each definition starts at the beginning of a line",
            ),
            Some('=') => (
                "`=`".to_string(),
                pos + 1,
                "a definition starts at the beginning of a line; a line that starts with a space continues the one above",
            ),
            // `A %P: B`: a binding after another part of a move.
            Some(':')
                if text[..pos]
                    .trim_end()
                    .rsplit(char::is_whitespace)
                    .next()
                    .is_some_and(|w| w.starts_with('%')) =>
            {
                (
                    "`:`".to_string(),
                    pos + 1,
                    "a `%P:` that follows another part of a move needs brackets around it and what it binds: `(. -> P) (%P: ...)`",
                )
            }
            Some(c) => (
                format!("`{c}`"),
                pos + c.len_utf8(),
                "check the operators around here; in a rule file each definition starts at the beginning of a line",
            ),
            None => ("the end of the text".to_string(), pos, UNFINISHED),
        }
    };
    SyntaxError::Expected {
        span: Span::new(offset + pos, offset + end),
        expected: join_alternatives(&wanted),
        found,
        help: help.to_string(),
    }
}

fn join_alternatives(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// A readable name for a grammar rule, or `None` for rules that only add noise.
fn describe(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::expr
        | Rule::poi_bind
        | Rule::ordered
        | Rule::arrow
        | Rule::union
        | Rule::sum
        | Rule::seq
        | Rule::postfix
        | Rule::group
        | Rule::guard
        | Rule::guard_kind
        | Rule::call
        | Rule::nil
        | Rule::empty
        | Rule::identity
        | Rule::count_arg
        | Rule::square
        | Rule::poi
        | Rule::off_board
        | Rule::any_square
        | Rule::place
        | Rule::word
        | Rule::piece => "an expression",
        Rule::poi_piece => "a piece after `%`",
        Rule::name => "a name",
        Rule::params => "a parameter list",
        Rule::definition => "a definition `name = ...`",
        Rule::piece_decl => "a declaration",
        Rule::symbol => "a piece symbol",
        Rule::string => "a quoted path",
        Rule::label => "a quoted name",
        Rule::player_colour | Rule::colour_value => "`colour #rrggbb`",
        Rule::edge_side => "`top`, `bottom`, `left` or `right`",
        Rule::shown => "`shown`",
        Rule::labels_axis => "`files` or `ranks`",
        Rule::label_word => "a label",
        Rule::exponent => "an integer",
        Rule::bound => "a count",
        Rule::EOI => "the end of the item",
        Rule::verdict | Rule::verdict_kind | Rule::majority => "`win`, `loss`, `draw` or `majority ...`",
        Rule::no_moves
        | Rule::repetition
        | Rule::quiet
        | Rule::material
        | Rule::extinct
        | Rule::bare
        | Rule::when => {
            "`no_moves`, `repetition N`, `quiet N`, `material ...`, `extinct ...`, `bare ...` or `when ...`"
        }
        Rule::legality_kind => "`royal_safe` or `free`",
        Rule::turn_order => "`alternate`",
        Rule::passing => "`passing`",
        Rule::notation_kind => "`numbered` or `coordinates`",
        Rule::fen_rights
        | Rule::fen_target
        | Rule::fen_turn
        | Rule::fen_box
        | Rule::fen_counts
        | Rule::fen_layout => "`rights`, `target`, `turn`, `box`, `counts` or `layout`",
        Rule::box_decl => "a declaration",
        Rule::box_name => "a box name",
        Rule::mark_fen | Rule::mark_fen_char => "`fen` and a punctuation character",
        Rule::expires => "`expires`",
        Rule::player => "a player",
        _ => return None,
    })
}

/// Builds AST nodes from pest pairs, shifting spans by the chunk's offset.
struct Builder {
    offset: usize,
}

type Result1<T> = Result<T, SyntaxError>;

impl Builder {
    /// The pair's span without the white space and comments pest skipped at its end.
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        let len = without_trailing_trivia(p.as_str()).len();
        Span::new(self.offset + s.start(), self.offset + s.start() + len)
    }

    /// One item of a rule file: a definition or a declaration.
    fn item(&self, p: Pair<'_, Rule>) -> Result1<Item> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::definition => Ok(Item::Definition(self.definition(p, span)?)),
            _ => Ok(Item::Declaration(self.declaration(p, span)?)),
        }
    }

    /// `name = body` or `name(params) = body`.
    fn definition(&self, p: Pair<'_, Rule>, span: Span) -> Result1<Definition> {
        let mut inner = p.into_inner();
        let name_pair = inner.next().expect("definition starts with a name");
        let name = self.ident(&name_pair);
        let mut params = Vec::new();
        let mut is_function = false;
        let mut body = None;
        for q in inner {
            match q.as_rule() {
                // `f() = ...` too: a params pair without names.
                Rule::params => {
                    is_function = true;
                    params = q.into_inner().map(|n| self.ident(&n)).collect();
                }
                _ => body = Some(self.expr(q)?),
            }
        }
        Ok(Definition {
            name,
            params,
            is_function,
            body: body.expect("definition has a body"),
            span,
        })
    }

    /// A declaration (`piece`, `board`, `outcome`, ...): the short ones
    /// built here, each longer one by a method of its own.
    fn declaration(&self, p: Pair<'_, Rule>, span: Span) -> Result1<Declaration> {
        Ok(match p.as_rule() {
            Rule::piece_decl => Declaration::Piece(self.piece_decl(p, span)),
            Rule::weights_decl => Declaration::Weights(WeightsDecl {
                path: self.quoted(&p.into_inner().next().expect("weights has a path")),
                span,
            }),
            Rule::import_decl => Declaration::Import(ImportDecl {
                path: self.quoted(&p.into_inner().next().expect("import has a path")),
            }),
            Rule::game_decl => {
                let name = p.into_inner().next().expect("game has a name");
                Declaration::Game(GameDecl {
                    name: Named {
                        text: name.as_str().trim().to_string(),
                        span: self.span(&name),
                    },
                })
            }
            Rule::players_decl => Declaration::Players(PlayersDecl {
                players: p.into_inner().map(|q| self.ident(&q)).collect(),
                span,
            }),
            Rule::player_decl => Declaration::Player(self.player_decl(p, span)),
            Rule::edge_decl => {
                let mut inner = p.into_inner();
                let player = self.ident(&inner.next().expect("a player"));
                let sides = inner.map(|q| q.as_str().to_string()).collect();
                Declaration::Edge(EdgeDecl { player, sides, span })
            }
            Rule::labels_decl => {
                let mut inner = p.into_inner();
                let ranks = inner.next().expect("an axis").as_str() == "ranks";
                let labels = inner.map(|q| q.as_str().to_string()).collect();
                Declaration::Labels(LabelsDecl { ranks, labels, span })
            }
            Rule::mark_decl => Declaration::Mark(mark_decl(p, span)),
            Rule::box_decl => {
                let mut inner = p.into_inner();
                let name = self.ident(&inner.next().expect("a box has a name"));
                let contents = inner.map(|q| (first_char(q.as_str()), self.span(&q))).collect();
                Declaration::Box(BoxDecl { name, contents, span })
            }
            Rule::region_decl => Declaration::Region(self.region_decl(p, span)?),
            Rule::board_decl => Declaration::Board(self.board_decl(p, span)),
            Rule::moves_decl => {
                let mut inner = p.into_inner();
                let _keyword = inner.next();
                let player = self.ident(&inner.next().expect("moves names a player"));
                let body = self.expr(inner.next().expect("moves has a body"))?;
                Declaration::Moves(MovesDecl { player, body, span })
            }
            Rule::outcome_decl => Declaration::Outcome(self.outcome_decl(p, span)?),
            Rule::quiet_decl => Declaration::QuietResets(QuietDecl {
                items: p
                    .into_inner()
                    .map(|q| (q.as_str().to_string(), self.span(&q)))
                    .collect(),
            }),
            Rule::legality_decl => Declaration::Legality(LegalityDecl {
                royal_safe: p.into_inner().any(|q| q.as_str() == "royal_safe"),
                span,
            }),
            Rule::search_decl => Declaration::Search(search_decl(p, span)),
            Rule::turns_decl => Declaration::Turns(self.turns_decl(p, span)),
            Rule::notation_decl => Declaration::Notation(notation_decl(p, span)),
            Rule::san_decl => Declaration::San(san_decl(p, span)),
            Rule::fen_decl => self.fen_decl(p, span),
            r => unreachable!("item rule {r:?}"),
        })
    }

    /// A quoted path or name (`"x.weights"`): its text without the quotes,
    /// and its span.
    fn quoted(&self, q: &Pair<'_, Rule>) -> Named {
        let text = q.as_str();
        Named {
            text: text[1..text.len() - 1].to_string(),
            span: self.span(q),
        }
    }

    /// `piece ♔ ♚ fen K k value 100 royal draw ...`: the symbols and their
    /// attributes.
    fn piece_decl(&self, p: Pair<'_, Rule>, span: Span) -> PieceDecl {
        let mut decl = PieceDecl {
            symbols: Vec::new(),
            fen: None,
            value: None,
            royal: false,
            san_letter: true,
            drawing: None,
            characters: Vec::new(),
            span,
        };
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::symbol => decl.symbols.push((first_char(q.as_str()), self.span(&q))),
                Rule::fen_letters => {
                    let s = self.span(&q);
                    decl.fen = Some((q.into_inner().map(|l| l.as_str().to_string()).collect(), s));
                }
                Rule::value => {
                    let text = q.into_inner().next().map_or("", |n| n.as_str());
                    decl.value = text.parse().ok();
                }
                Rule::royal => decl.royal = true,
                Rule::san_none => decl.san_letter = false,
                Rule::draw => {
                    for part in q.into_inner() {
                        match part.as_rule() {
                            Rule::drawing => decl.drawing = PieceDrawing::named(part.as_str()),
                            _ => {
                                let text = part.as_str();
                                decl.characters
                                    .push((text[1..text.len() - 1].to_string(), self.span(&part)));
                            }
                        }
                    }
                }
                r => unreachable!("piece attribute {r:?}"),
            }
        }
        decl
    }

    /// `player black "Gote" colour #222`: a player's name, and colour if given.
    fn player_decl(&self, p: Pair<'_, Rule>, span: Span) -> PlayerDecl {
        let mut inner = p.into_inner();
        let player = self.ident(&inner.next().expect("a player"));
        let name = self.label(&inner.next().expect("a name"));
        let colour = inner.next().map(|q| {
            let v = q.into_inner().next().expect("a colour");
            Named {
                text: v.as_str().to_string(),
                span: self.span(&v),
            }
        });
        PlayerDecl {
            player,
            name,
            colour,
            span,
        }
    }

    /// `region palace d1-f3 d8-f10 colour a1`: its rectangles and colours,
    /// each square's name checked.
    fn region_decl(&self, p: Pair<'_, Rule>, span: Span) -> Result1<RegionDecl> {
        let mut inner = p.into_inner();
        let name = self.ident(&inner.next().expect("a region has a name"));
        let mut parts = Vec::new();
        let mut colours = Vec::new();
        for q in inner {
            let s = self.span(&q);
            if q.as_rule() == Rule::region_colour {
                let square = q.into_inner().next().expect("a square");
                match region_corner(square.as_str()).filter(|_| !square.as_str().contains('-')) {
                    Some(at) => colours.push((at, s)),
                    None => {
                        return Err(SyntaxError::BadPlace {
                            span: self.span(&square),
                            text: square.as_str().to_string(),
                        });
                    }
                }
                continue;
            }
            let text = q.as_str();
            let (a, b) = text.split_once('-').unwrap_or((text, text));
            match (region_corner(a), region_corner(b)) {
                (Some(a), Some(b)) => parts.push((a, b, s)),
                _ => {
                    return Err(SyntaxError::BadPlace {
                        span: s,
                        text: text.to_string(),
                    });
                }
            }
        }
        Ok(RegionDecl {
            name,
            parts,
            colours,
            span,
        })
    }

    /// `board` with its drawing and its diagram's rows.
    fn board_decl(&self, p: Pair<'_, Rule>, span: Span) -> BoardDecl {
        let mut drawing = None;
        let mut rows = Vec::new();
        for q in p.into_inner() {
            match q.as_rule() {
                Rule::board_drawing => drawing = BoardDrawing::named(q.as_str()),
                _ => rows.push((q.as_str().to_string(), self.span_raw(&q))),
            }
        }
        let mut board = self.board(rows, span);
        board.drawing = drawing;
        board
    }

    /// `outcome [turn P] CONDITION = VERDICT ["name"]`.
    fn outcome_decl(&self, p: Pair<'_, Rule>, span: Span) -> Result1<OutcomeDecl> {
        let mut inner = p.into_inner().peekable();
        let _keyword = inner.next();
        let turn = match inner.peek() {
            Some(q) if q.as_rule() == Rule::outcome_turn => {
                let q = inner.next().expect("peeked");
                Some(self.ident(&q.into_inner().next().expect("a player")))
            }
            _ => None,
        };
        let cond = inner.next().expect("a condition");
        let verdict = inner.next().expect("a verdict");
        let name = inner.next().map(|q| self.label(&q));
        let automatic = matches!(cond.as_rule(), Rule::repetition | Rule::quiet | Rule::material)
            && cond.clone().into_inner().any(|q| q.as_rule() == Rule::automatic);
        let condition = self.condition(cond)?;
        let Verdict {
            kind,
            player,
            counted,
            bonus,
        } = self.verdict(verdict);
        Ok(OutcomeDecl {
            turn,
            condition,
            verdict: kind,
            player,
            counted,
            bonus,
            automatic,
            name,
            span,
        })
    }

    /// An outcome's condition (`no_moves`, `repetition 3`, `material ♔ ♚`,
    /// `when EXPR for N`, ...).
    fn condition(&self, cond: Pair<'_, Rule>) -> Result1<ConditionKind> {
        Ok(match cond.as_rule() {
            Rule::no_moves => ConditionKind::NoMoves {
                checked: cond.into_inner().next().is_some(),
            },
            Rule::repetition | Rule::quiet => {
                let rule = cond.as_rule();
                let span = self.span(&cond);
                let n = count_in(cond, span)?;
                if rule == Rule::repetition {
                    ConditionKind::Repetition(n)
                } else {
                    ConditionKind::Quiet(n)
                }
            }
            Rule::material => {
                let mut items = Vec::new();
                let mut same_colour = false;
                for q in cond.into_inner() {
                    if q.as_rule() == Rule::same_colour {
                        same_colour = true;
                    } else if q.as_rule() != Rule::automatic {
                        items.push((first_char(q.as_str()), q.as_str().ends_with('*'), self.span(&q)));
                    }
                }
                ConditionKind::Material { items, same_colour }
            }
            Rule::extinct | Rule::bare => {
                let extinct = cond.as_rule() == Rule::extinct;
                let items = cond
                    .into_inner()
                    .map(|q| (first_char(q.as_str()), self.span(&q)))
                    .collect();
                if extinct {
                    ConditionKind::Extinct(items)
                } else {
                    ConditionKind::Bare(items)
                }
            }
            Rule::passes => {
                let span = self.span(&cond);
                ConditionKind::Passes(count_in(cond, span)?)
            }
            Rule::when => {
                let span = self.span(&cond);
                let mut parts = cond.into_inner().skip(1);
                let e = parts.next().expect("when has an expression");
                let expr = self.expr(e)?;
                match parts.next() {
                    Some(count) => ConditionKind::WhenFor(expr, count_in(count, span)?),
                    None => ConditionKind::When(expr),
                }
            }
            r => unreachable!("condition {r:?}"),
        })
    }

    /// An outcome's verdict (`win white`, `draw`, `majority ● ○`,
    /// `points black 6.5`).
    fn verdict(&self, verdict: Pair<'_, Rule>) -> Verdict {
        let mut v = verdict.into_inner();
        let first = v.next().expect("a verdict kind");
        let mut bonus = None;
        let mut player = None;
        let (kind, counted) = if first.as_rule() == Rule::majority {
            let counted = first
                .into_inner()
                .map(|q| (first_char(q.as_str()), self.span(&q)))
                .collect();
            ("majority".to_string(), counted)
        } else if first.as_rule() == Rule::points {
            let mut given = first.into_inner();
            player = given.next().map(|q| self.ident(&q));
            bonus = match given.next() {
                Some(n) => n.as_str().parse::<f64>().ok(),
                None => None,
            };
            ("points".to_string(), Vec::new())
        } else {
            (first.as_str().to_string(), Vec::new())
        };
        if let Some(q) = v.next() {
            player = Some(self.ident(&q));
        }
        Verdict {
            kind,
            player,
            counted,
            bonus,
        }
    }

    /// `turns alternate passing starting black`.
    fn turns_decl(&self, p: Pair<'_, Rule>, span: Span) -> TurnsDecl {
        let parts: Vec<Pair<'_, Rule>> = p.into_inner().collect();
        TurnsDecl {
            passing: parts.iter().any(|q| q.as_rule() == Rule::passing),
            starting: parts
                .iter()
                .find(|q| q.as_rule() == Rule::player)
                .map(|q| self.ident(q)),
            span,
        }
    }

    /// `fen rights|target|turn|box|counts|layout ...`: how FEN writes what
    /// the board alone does not say.
    fn fen_decl(&self, p: Pair<'_, Rule>, span: Span) -> Declaration {
        let q = p.into_inner().next().expect("fen has a kind");
        let rule = q.as_rule();
        let mut inner = q.into_inner();
        match rule {
            Rule::fen_box => {
                let name = self.ident(&inner.next().expect("a box name"));
                Declaration::FenBox(FenBoxDecl { name, span })
            }
            Rule::fen_counts => {
                let name = self.ident(&inner.next().expect("a box name"));
                let pieces = inner.map(|q| (first_char(q.as_str()), self.span(&q))).collect();
                Declaration::FenCounts(FenCountsDecl { name, pieces, span })
            }
            Rule::fen_layout => {
                let full = inner.next().is_some_and(|k| k.as_str() == "full");
                Declaration::FenLayout(FenLayoutDecl { full, span })
            }
            Rule::fen_turn => Declaration::FenTurn(FenTurnDecl {
                letters: inner.map(|l| first_char(l.as_str())).collect(),
                span,
            }),
            Rule::fen_rights => {
                let letter = first_char(inner.next().expect("a letter").as_str());
                let mut squares = Vec::new();
                while let (Some(piece), Some(square)) = (inner.next(), inner.next()) {
                    squares.push((self.marked_piece(&piece), self.ident(&square)));
                }
                Declaration::FenRights(FenRightsDecl {
                    letter,
                    squares,
                    span,
                })
            }
            _ => {
                let piece = self.marked_piece(&inner.next().expect("a marked piece"));
                let offsets = inner.map(|q| self.ident(&q)).collect();
                Declaration::FenTarget(FenTargetDecl { piece, offsets, span })
            }
        }
    }

    fn marked_piece(&self, p: &Pair<'_, Rule>) -> MarkedPiece {
        let mut chars = p.as_str().chars();
        MarkedPiece {
            piece: chars.next().expect("a piece"),
            marks: chars.collect(),
            span: self.span(p),
        }
    }

    /// Diagram rows without comments, their common indentation removed.
    fn board(&self, raw: Vec<(String, Span)>, span: Span) -> BoardDecl {
        let mut rows: Vec<(String, Span)> = raw
            .into_iter()
            .map(|(text, s)| {
                let code = text.split("//").next().unwrap_or("").trim_end().to_string();
                (code, s)
            })
            .collect();
        while rows.last().is_some_and(|(t, _)| t.trim().is_empty()) {
            rows.pop();
        }
        while rows.first().is_some_and(|(t, _)| t.trim().is_empty()) {
            rows.remove(0);
        }
        let indent = rows
            .iter()
            .filter(|(t, _)| !t.trim().is_empty())
            .map(|(t, _)| t.len() - t.trim_start().len())
            .min()
            .unwrap_or(0);
        let rows = rows
            .into_iter()
            .map(|(t, s)| {
                let cut = indent.min(t.len() - t.trim_start().len());
                (t[cut..].to_string(), Span::new(s.start + cut, s.start + t.len()))
            })
            .collect();
        BoardDecl {
            rows,
            drawing: None,
            span,
        }
    }

    fn span_raw(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.offset + s.start(), self.offset + s.end())
    }

    /// A quoted name (`"Sente"`), without its quotes.
    fn label(&self, p: &Pair<'_, Rule>) -> Named {
        let text = p.as_str();
        Named {
            text: text[1..text.len() - 1].to_string(),
            span: self.span(p),
        }
    }

    fn ident(&self, p: &Pair<'_, Rule>) -> Ident {
        Ident {
            text: p.as_str().to_string(),
            span: self.span(p),
        }
    }

    /// An expression. The builder recurses once for each bracket and
    /// binding (up to [`MAX_NESTING`]), and an unoptimised build's frames are
    /// large, so the stack grows here when it runs low.
    fn expr(&self, mut p: Pair<'_, Rule>) -> Result1<Expr> {
        // A layer of precedence with one operand is that operand: descend to
        // it without recursing.
        while matches!(
            p.as_rule(),
            Rule::expr | Rule::ordered | Rule::arrow | Rule::union | Rule::sum | Rule::seq
        ) {
            let mut inner = p.clone().into_inner();
            match (inner.next(), inner.next()) {
                (Some(only), None) => p = only,
                _ => break,
            }
        }
        stacker::maybe_grow(128 * 1024, 2 << 20, || self.expr_inner(p))
    }

    fn expr_inner(&self, p: Pair<'_, Rule>) -> Result1<Expr> {
        let span = self.span(&p);
        let rule = p.as_rule();
        let text = p.as_str();
        let mut inner: Vec<Pair<'_, Rule>> = p.into_inner().collect();
        let kind = match rule {
            Rule::expr => return self.expr(inner.remove(0)),
            Rule::poi_piece => return self.postfix(inner),
            Rule::poi_bind => {
                let body = inner.pop().expect("poi_bind has a body");
                let piece = inner.pop().expect("poi_bind has a piece");
                ExprKind::PoiBind {
                    piece: Box::new(self.expr(piece)?),
                    body: Box::new(self.expr(body)?),
                }
            }
            Rule::ordered | Rule::union | Rule::sum | Rule::seq if inner.len() == 1 => {
                return self.expr(inner.remove(0));
            }
            Rule::ordered => ExprKind::Ordered(self.exprs(inner)?),
            Rule::union => ExprKind::Union(self.exprs(inner)?),
            Rule::sum => ExprKind::Glue(self.exprs(inner)?),
            Rule::seq => ExprKind::Juxtapose(self.exprs(inner)?),
            Rule::arrow => {
                if inner.len() == 1 {
                    return self.expr(inner.remove(0));
                }
                let rhs = inner.pop().expect("arrow has a right side");
                let lhs = inner.pop().expect("arrow has a left side");
                ExprKind::Arrow {
                    lhs: Box::new(self.expr(lhs)?),
                    rhs: Box::new(self.expr(rhs)?),
                }
            }
            Rule::postfix => return self.postfix(inner),
            Rule::group => ExprKind::Group(Box::new(self.expr(inner.remove(0))?)),
            Rule::guard => {
                let body = inner.pop().expect("guard has a body");
                let kind = inner.pop().expect("guard has a kind");
                ExprKind::Guard {
                    holds: kind.as_str() == "?",
                    body: Box::new(self.expr(body)?),
                }
            }
            Rule::call => {
                let args = inner.pop().expect("call has arguments");
                let name = self.ident(&inner[0]);
                ExprKind::Call {
                    name,
                    args: self.exprs(args.into_inner().collect())?,
                }
            }
            Rule::nil => ExprKind::Nil,
            Rule::empty => ExprKind::Empty,
            Rule::identity => ExprKind::Identity,
            // A count too large for `u32` is refused where it is used.
            Rule::count_arg => ExprKind::Count(text.parse().unwrap_or(u32::MAX)),
            Rule::square => ExprKind::Square,
            Rule::poi => ExprKind::Poi,
            Rule::off_board => ExprKind::OffBoard,
            Rule::any_square => ExprKind::AnySquare,
            Rule::place if !is_place(&text[1..]) => ExprKind::Region(text[1..].to_string()),
            Rule::place => {
                let place = &text[1..];
                let file = place
                    .chars()
                    .next()
                    .filter(char::is_ascii_lowercase)
                    .map(|c| c as u32 - 'a' as u32);
                let digits = place.trim_start_matches(|c: char| c.is_ascii_lowercase());
                let rank = match digits {
                    "" => None,
                    d => match d.parse::<u32>() {
                        Ok(r) if (1..=256).contains(&r) => Some(r - 1),
                        _ => {
                            return Err(SyntaxError::BadPlace {
                                span,
                                text: text.to_string(),
                            });
                        }
                    },
                };
                ExprKind::Place { file, rank }
            }
            Rule::word => ExprKind::Word(text.to_string()),
            Rule::piece => ExprKind::Piece(text.chars().next().expect("a piece is one character")),
            r => unreachable!("expression rule {r:?}"),
        };
        Ok(Expr { kind, span })
    }

    fn exprs(&self, pairs: Vec<Pair<'_, Rule>>) -> Result1<Vec<Expr>> {
        pairs.into_iter().map(|p| self.expr(p)).collect()
    }

    fn postfix(&self, mut inner: Vec<Pair<'_, Rule>>) -> Result1<Expr> {
        let suffixes = inner.split_off(1);
        // Each suffix nests the operand one level deeper in the AST; cap them
        // so that no walk of the tree (or its drop) recurses too far.
        if let Some(extra) = suffixes
            .iter()
            .filter(|s| s.as_rule() != Rule::marks)
            .nth(MAX_NESTING)
        {
            return Err(SyntaxError::TooManySuffixes {
                span: self.span(extra),
                limit: MAX_NESTING,
            });
        }
        let mut expr = self.expr(inner.remove(0))?;
        for s in suffixes {
            if s.as_rule() == Rule::marks {
                let span = expr.span.join(self.span(&s));
                expr = Expr {
                    kind: ExprKind::Marked {
                        body: Box::new(expr),
                        marks: s.as_str().chars().collect(),
                    },
                    span,
                };
                continue;
            }
            let span = self.span(&s);
            let whole = expr.span.join(span);
            let kind = match s.as_rule() {
                Rule::rep_star => repeat(expr, 0, None, RepeatSyntax::Star),
                Rule::rep_plus => repeat(expr, 1, None, RepeatSyntax::Plus),
                Rule::rep_opt => repeat(expr, 0, Some(1), RepeatSyntax::Optional),
                Rule::rep_braces | Rule::rep_angle => {
                    let syntax = if s.as_rule() == Rule::rep_angle {
                        RepeatSyntax::Angle
                    } else {
                        RepeatSyntax::Braces
                    };
                    let (min, max) = repetition_bounds(s, span)?;
                    repeat(expr, min, max, syntax)
                }
                Rule::power => {
                    let exponent = s
                        .into_inner()
                        .next()
                        .ok_or(SyntaxError::MalformedPower { span })?;
                    let exponent =
                        parse_exponent(exponent.as_str()).ok_or(SyntaxError::MalformedPower { span })?;
                    power(expr, exponent)
                }
                Rule::sup_power => {
                    let exponent =
                        parse_superscript(s.as_str()).ok_or(SyntaxError::MalformedPower { span })?;
                    power(expr, exponent)
                }
                r => unreachable!("suffix rule {r:?}"),
            };
            expr = Expr { kind, span: whole };
        }
        Ok(expr)
    }
}

/// What an outcome's verdict says, before it is put into its
/// [`OutcomeDecl`].
struct Verdict {
    /// `win`, `loss`, `draw`, `majority` or `points`.
    kind: String,
    /// The player named after the kind (`win white`, `points black 6`).
    player: Option<Ident>,
    /// The pieces `majority` counts, with their spans.
    counted: Vec<(char, Span)>,
    /// What `points PLAYER N` gives.
    bonus: Option<f64>,
}

/// `mark ° expires shown fen '`: the mark's symbol and its attributes.
fn mark_decl(p: Pair<'_, Rule>, span: Span) -> MarkDecl {
    let text = p.as_str();
    let symbol = text["mark".len()..].trim_start().chars().next().expect("a mark");
    let mut expires = false;
    let mut shown = false;
    let mut fen = None;
    for q in p.into_inner() {
        match q.as_rule() {
            Rule::expires => expires = true,
            Rule::shown => shown = true,
            Rule::mark_fen => fen = q.into_inner().next().map(|c| first_char(c.as_str())),
            _ => {}
        }
    }
    MarkDecl {
        symbol,
        expires,
        shown,
        fen,
        span,
    }
}

/// A square's name in a region (`d1`) as (file, rank) counted from 0; none
/// if it names no square (a rank outside 1 to 256).
fn region_corner(s: &str) -> Option<(u32, u32)> {
    let file = s.chars().next()? as u32 - 'a' as u32;
    let rank: u32 = s[1..].parse().ok()?;
    (1..=256).contains(&rank).then_some((file, rank - 1))
}

/// `search null_move off`: which search switch, and whether on.
fn search_decl(p: Pair<'_, Rule>, span: Span) -> SearchDecl {
    let parts: Vec<Pair<'_, Rule>> = p.into_inner().collect();
    let text = |rule| {
        parts
            .iter()
            .find(|q| q.as_rule() == rule)
            .map_or("", |q| q.as_str())
    };
    SearchDecl {
        switch: text(Rule::search_switch).to_string(),
        on: text(Rule::on_off) == "on",
        span,
    }
}

/// `notation numbered`, or `notation coordinates` with `partner` and `walls`.
fn notation_decl(p: Pair<'_, Rule>, span: Span) -> NotationDecl {
    let kind = p.into_inner().next().map_or("", |q| q.as_str());
    NotationDecl {
        numbered: kind == "numbered",
        partner: kind.split_whitespace().any(|w| w == "partner"),
        walls: kind.split_whitespace().any(|w| w == "walls"),
        span,
    }
}

/// `san promotion "+" drop "*"`: what SAN writes for each word, without
/// the quotes.
fn san_decl(p: Pair<'_, Rule>, span: Span) -> SanDecl {
    let parts = p
        .into_inner()
        .map(|part| {
            let mut inner = part.into_inner();
            let word = inner.next().expect("a word").as_str().to_string();
            let text = inner.next().expect("a text").as_str();
            (word, text[1..text.len() - 1].to_string())
        })
        .collect();
    SanDecl { parts, span }
}

/// `text` without the white space and `//` comments at its end (`//` occurs
/// nowhere else in the notation).
fn without_trailing_trivia(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_end();
        let line_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
        match trimmed[line_start..].find("//") {
            Some(c) => text = &trimmed[..line_start + c],
            None => return trimmed,
        }
    }
}

fn first_char(s: &str) -> char {
    s.chars().next().expect("a non-empty token")
}

fn repeat(body: Expr, min: u32, max: Option<u32>, syntax: RepeatSyntax) -> ExprKind {
    ExprKind::Repeat {
        body: Box::new(body),
        min,
        max,
        syntax,
    }
}

fn power(base: Expr, exponent: i64) -> ExprKind {
    ExprKind::Power {
        base: Box::new(base),
        exponent,
    }
}

fn parse_exponent(s: &str) -> Option<i64> {
    let v: i64 = s.parse().ok()?;
    (v.abs() <= MAX_EXPONENT).then_some(v)
}

fn parse_superscript(s: &str) -> Option<i64> {
    let mut digits = String::new();
    let mut negative = false;
    for c in s.chars() {
        match c {
            '⁻' => negative = true,
            '⁰' => digits.push('0'),
            '¹' => digits.push('1'),
            '²' => digits.push('2'),
            '³' => digits.push('3'),
            '⁴' => digits.push('4'),
            '⁵' => digits.push('5'),
            '⁶' => digits.push('6'),
            '⁷' => digits.push('7'),
            '⁸' => digits.push('8'),
            '⁹' => digits.push('9'),
            _ => return None,
        }
    }
    let v = parse_exponent(&digits)?;
    Some(if negative { -v } else { v })
}

/// Reads `{n}`, `{i, j}`, `{i,}`, `{,j}` and `<n>`, checking each count.
fn repetition_bounds(p: Pair<'_, Rule>, span: Span) -> Result1<(u32, Option<u32>)> {
    let bad = |reason: &str| SyntaxError::RepetitionBounds {
        span,
        reason: reason.to_string(),
        max_count: MAX_COUNT,
    };
    let mut before: Option<&str> = None;
    let mut after: Option<&str> = None;
    let mut comma = false;
    for q in p.into_inner() {
        match q.as_rule() {
            Rule::comma => comma = true,
            Rule::bound if comma => after = Some(q.as_str()),
            Rule::bound => before = Some(q.as_str()),
            _ => {}
        }
    }
    let count = |s: &str| -> Result1<u32> {
        if s.starts_with('-') {
            return Err(bad("a count cannot be negative"));
        }
        match s.parse::<u32>() {
            Ok(n) if n <= MAX_COUNT => Ok(n),
            _ => Err(bad(&format!("a count is at most {MAX_COUNT}"))),
        }
    };
    match (before, comma, after) {
        (None, _, None) | (None, false, Some(_)) => Err(bad("no count given")),
        (Some(n), false, _) => {
            let n = count(n)?;
            Ok((n, Some(n)))
        }
        (Some(i), true, None) => Ok((count(i)?, None)),
        (i, true, Some(j)) => {
            let i = i.map(count).transpose()?.unwrap_or(0);
            let j = count(j)?;
            if i > j {
                return Err(bad(&format!("the lower bound {i} is above the upper bound {j}")));
            }
            Ok((i, Some(j)))
        }
    }
}

/// Whether the text after `@` is a file and rank (`d4`, `d`, `4`), not a region's name.
fn is_place(s: &str) -> bool {
    let digits = s.strip_prefix(|c: char| c.is_ascii_lowercase()).unwrap_or(s);
    digits.chars().all(|c| c.is_ascii_digit()) && (digits.len() < s.len() || !digits.is_empty())
}

/// The count (`Rule::count`) inside `pair` (`repetition 3`, `passes 2`,
/// `for 2`); a count too large for a `u32` is an error at `span`.
fn count_in(pair: Pair<'_, Rule>, span: Span) -> Result<u32, SyntaxError> {
    let n = pair
        .into_inner()
        .find(|c| c.as_rule() == Rule::count)
        .map_or("", |c| c.as_str());
    n.parse().map_err(|_| SyntaxError::RepetitionBounds {
        span,
        reason: "the count is too large".into(),
        max_count: u32::MAX,
    })
}
