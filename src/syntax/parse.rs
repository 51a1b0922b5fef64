//! The pest parse tree turned into the AST. pest types never leave this file.

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use super::ast::{
    BoardDecl, ConditionKind, Declaration, Definition, Expr, ExprKind, FenRightsDecl, FenTargetDecl, File,
    GameDecl, Ident, ImportDecl, Item, MarkDecl, MarkedPiece, MovesDecl, Named, OutcomeDecl, PieceDecl,
    PlayersDecl, QuietDecl, RepeatSyntax,
};
use super::error::SyntaxError;
use crate::source::Span;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/chessalg.pest"]
struct Grammar;

/// The deepest bracket nesting the parser accepts.
pub const MAX_NESTING: usize = 64;

/// The largest repetition count (`M{n}`) the parser accepts.
pub const MAX_COUNT: u32 = 1000;

/// The largest power (`m^i`) in absolute value the parser accepts.
pub const MAX_EXPONENT: i64 = 1_000_000;

/// Parses a whole rule file, reporting every broken item.
pub fn parse_file(text: &str) -> Result<File, Vec<SyntaxError>> {
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
    let flat = blank_comments_and_newlines(text);
    check_brackets(&flat, 0).map_err(|e| vec![e])?;
    let mut pairs = Grammar::parse(Rule::expression, &flat).map_err(|e| vec![expected_error(e, &flat, 0)])?;
    let top = pairs.next().expect("the expression rule yields one pair");
    let b = Builder { offset: 0 };
    let expr = top.into_inner().next().expect("expression holds an expr");
    b.expr(expr).map_err(|e| vec![e])
}

/// Byte ranges of the items of a file: a new item starts on a line whose
/// first character is neither white space nor the start of a comment.
fn item_chunks(text: &str) -> Vec<(usize, usize)> {
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
fn is_blank(chunk: &str) -> bool {
    chunk.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with("//")
    })
}

fn parse_chunk(chunk: &str, offset: usize) -> Result<Item, SyntaxError> {
    check_brackets(chunk, offset)?;
    let mut pairs = Grammar::parse(Rule::item_input, chunk).map_err(|e| expected_error(e, chunk, offset))?;
    let top = pairs.next().expect("item_input yields one pair");
    let item = top.into_inner().next().expect("item_input holds an item");
    Builder { offset }.item(item)
}

/// Checks brackets before pest runs: each `(` and `{` closed by its partner,
/// and nesting no deeper than [`MAX_NESTING`] (so pest never recurses far).
fn check_brackets(text: &str, offset: usize) -> Result<(), SyntaxError> {
    let mut open: Vec<(u8, usize)> = Vec::new();
    let mut in_comment = false;
    let bytes = text.as_bytes();
    let at = |i: usize| Span::new(offset + i, offset + i + 1);
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => in_comment = false,
            _ if in_comment => {}
            b'/' if bytes.get(i + 1) == Some(&b'/') => in_comment = true,
            b'(' | b'{' => {
                open.push((b, i));
                if open.len() > MAX_NESTING {
                    return Err(SyntaxError::TooDeep {
                        span: at(i),
                        limit: MAX_NESTING,
                    });
                }
            }
            b')' | b'}' => {
                let partner = if b == b')' { b'(' } else { b'{' };
                match open.pop() {
                    Some((o, _)) if o == partner => {}
                    Some((o, j)) => {
                        return Err(SyntaxError::Mismatched {
                            span: at(i),
                            open: at(j),
                            expected: if o == b'(' { ')' } else { '}' },
                            found: b as char,
                        });
                    }
                    None => {
                        return Err(SyntaxError::Unopened {
                            span: at(i),
                            found: b as char,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    match open.pop() {
        Some((o, j)) => Err(SyntaxError::Unclosed {
            span: at(j),
            expected: if o == b'(' { ')' } else { '}' },
        }),
        None => Ok(()),
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
fn expected_error(e: pest::error::Error<Rule>, text: &str, offset: usize) -> SyntaxError {
    let pos = match e.location {
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
    if wanted.is_empty() {
        wanted.push("something else");
    }
    let rest = &text[pos..];
    let next = rest.chars().next();
    let found = match next {
        None => "the end of the text".to_string(),
        Some('\n' | '\r') => "the end of the line".to_string(),
        Some(_) if rest.starts_with("->") => "`->`".to_string(),
        Some(c) => format!("`{c}`"),
    };
    let end = pos
        + if rest.starts_with("->") {
            2
        } else {
            next.map_or(0, char::len_utf8)
        };
    let help = match next {
        None | Some('\n' | '\r') => {
            "something is unfinished here: a bracket not closed, or an operator without its right-hand side"
        }
        Some('=') => {
            "a definition starts at the beginning of a line; a line that starts with a space continues the one above"
        }
        Some(_) => {
            "check the operators around here; in a rule file each definition starts at the beginning of a line"
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
        | Rule::square
        | Rule::poi
        | Rule::off_board
        | Rule::word
        | Rule::piece => "an expression",
        Rule::poi_piece => "a piece after `%`",
        Rule::name => "a name",
        Rule::params => "a parameter list",
        Rule::definition => "a definition `name = ...`",
        Rule::piece_decl => "a declaration",
        Rule::symbol => "a piece symbol",
        Rule::string => "a quoted path",
        Rule::exponent => "an integer",
        Rule::bound => "a count",
        Rule::EOI => "the end of the item",
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

    fn item(&self, p: Pair<'_, Rule>) -> Result1<Item> {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::definition => {
                let text = p.as_str();
                let mut inner = p.into_inner();
                let name_pair = inner.next().expect("definition starts with a name");
                let name = self.ident(&name_pair);
                let mut params = Vec::new();
                let mut is_function = false;
                let mut body = None;
                for q in inner {
                    match q.as_rule() {
                        Rule::params => {
                            is_function = true;
                            params = q.into_inner().map(|n| self.ident(&n)).collect();
                        }
                        _ => body = Some(self.expr(q)?),
                    }
                }
                // `f() = ...` has no params pair; record that it was written as a function.
                if !is_function {
                    let after_name = &text[name_pair.as_str().len()..];
                    is_function = after_name.trim_start().starts_with('(');
                }
                Ok(Item::Definition(Definition {
                    name,
                    params,
                    is_function,
                    body: body.expect("definition has a body"),
                    span,
                }))
            }
            Rule::piece_decl => {
                let mut decl = PieceDecl {
                    symbols: Vec::new(),
                    fen: None,
                    value: None,
                    royal: false,
                    san_letter: true,
                    span,
                };
                for q in p.into_inner() {
                    match q.as_rule() {
                        Rule::symbol => decl.symbols.push((first_char(q.as_str()), self.span(&q))),
                        Rule::fen_letters => {
                            let s = self.span(&q);
                            decl.fen = Some((q.into_inner().map(|l| first_char(l.as_str())).collect(), s));
                        }
                        Rule::value => {
                            let text = q.into_inner().next().map_or("", |n| n.as_str());
                            decl.value = text.parse().ok();
                        }
                        Rule::royal => decl.royal = true,
                        Rule::san_none => decl.san_letter = false,
                        r => unreachable!("piece attribute {r:?}"),
                    }
                }
                Ok(Item::Declaration(Declaration::Piece(decl)))
            }
            Rule::import_decl => {
                let path = p.into_inner().next().expect("import has a path");
                let text = path.as_str();
                Ok(Item::Declaration(Declaration::Import(ImportDecl {
                    path: Named {
                        text: text[1..text.len() - 1].to_string(),
                        span: self.span(&path),
                    },
                })))
            }
            Rule::game_decl => {
                let name = p.into_inner().next().expect("game has a name");
                Ok(Item::Declaration(Declaration::Game(GameDecl {
                    name: Named {
                        text: name.as_str().trim().to_string(),
                        span: self.span(&name),
                    },
                })))
            }
            Rule::players_decl => Ok(Item::Declaration(Declaration::Players(PlayersDecl {
                players: p.into_inner().map(|q| self.ident(&q)).collect(),
                span,
            }))),
            Rule::mark_decl => {
                let text = p.as_str();
                let symbol = text["mark".len()..].trim_start().chars().next().expect("a mark");
                let expires = p.into_inner().any(|q| q.as_rule() == Rule::expires);
                Ok(Item::Declaration(Declaration::Mark(MarkDecl {
                    symbol,
                    expires,
                    span,
                })))
            }
            Rule::board_decl => {
                let rows = p
                    .into_inner()
                    .map(|q| (q.as_str().to_string(), self.span_raw(&q)))
                    .collect();
                Ok(Item::Declaration(Declaration::Board(self.board(rows, span))))
            }
            Rule::moves_decl => {
                let mut inner = p.into_inner();
                let _keyword = inner.next();
                let player = self.ident(&inner.next().expect("moves names a player"));
                let body = self.expr(inner.next().expect("moves has a body"))?;
                Ok(Item::Declaration(Declaration::Moves(MovesDecl {
                    player,
                    body,
                    span,
                })))
            }
            Rule::outcome_decl => {
                let mut inner = p.into_inner();
                let _keyword = inner.next();
                let cond = inner.next().expect("a condition");
                let verdict = inner.next().expect("a verdict");
                let condition = match cond.as_rule() {
                    Rule::no_moves => ConditionKind::NoMoves {
                        checked: cond.into_inner().next().is_some(),
                    },
                    Rule::repetition | Rule::quiet => {
                        let rule = cond.as_rule();
                        let span = self.span(&cond);
                        let n = cond.into_inner().next().map_or("", |c| c.as_str());
                        let n: u32 = n.parse().map_err(|_| SyntaxError::RepetitionBounds {
                            span,
                            reason: "the count is too large".into(),
                            max_count: u32::MAX,
                        })?;
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
                            } else {
                                items.push((
                                    first_char(q.as_str()),
                                    q.as_str().ends_with('*'),
                                    self.span(&q),
                                ));
                            }
                        }
                        ConditionKind::Material { items, same_colour }
                    }
                    Rule::when => {
                        let e = cond.into_inner().nth(1).expect("when has an expression");
                        ConditionKind::When(self.expr(e)?)
                    }
                    r => unreachable!("condition {r:?}"),
                };
                let mut v = verdict.into_inner();
                let kind = v.next().expect("a verdict kind").as_str().to_string();
                let player = v.next().map(|q| self.ident(&q));
                Ok(Item::Declaration(Declaration::Outcome(OutcomeDecl {
                    condition,
                    verdict: kind,
                    player,
                    span,
                })))
            }
            Rule::quiet_decl => Ok(Item::Declaration(Declaration::QuietResets(QuietDecl {
                items: p
                    .into_inner()
                    .map(|q| (q.as_str().to_string(), self.span(&q)))
                    .collect(),
            }))),
            Rule::fen_decl => {
                let q = p.into_inner().next().expect("fen has a kind");
                let rule = q.as_rule();
                let mut inner = q.into_inner();
                if rule == Rule::fen_rights {
                    let letter = first_char(inner.next().expect("a letter").as_str());
                    let mut squares = Vec::new();
                    while let (Some(piece), Some(square)) = (inner.next(), inner.next()) {
                        squares.push((self.marked_piece(&piece), self.ident(&square)));
                    }
                    Ok(Item::Declaration(Declaration::FenRights(FenRightsDecl {
                        letter,
                        squares,
                        span,
                    })))
                } else {
                    let piece = self.marked_piece(&inner.next().expect("a marked piece"));
                    let offset = self.ident(&inner.next().expect("a movement"));
                    Ok(Item::Declaration(Declaration::FenTarget(FenTargetDecl {
                        piece,
                        offset,
                        span,
                    })))
                }
            }
            r => unreachable!("item rule {r:?}"),
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
        BoardDecl { rows, span }
    }

    fn span_raw(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        Span::new(self.offset + s.start(), self.offset + s.end())
    }

    fn ident(&self, p: &Pair<'_, Rule>) -> Ident {
        Ident {
            text: p.as_str().to_string(),
            span: self.span(p),
        }
    }

    fn expr(&self, p: Pair<'_, Rule>) -> Result1<Expr> {
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
            Rule::square => ExprKind::Square,
            Rule::poi => ExprKind::Poi,
            Rule::off_board => ExprKind::OffBoard,
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
