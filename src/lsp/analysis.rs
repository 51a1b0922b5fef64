//! One rule file as the language server sees it: the diagnostics `check`
//! gives, and what each name, piece and movement in it means (hover, go to
//! definition, references, completion, symbols).

use std::collections::BTreeSet;

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticSeverity, DocumentSymbol, NumberOrString,
    SymbolKind,
};
use miette::Severity;

use super::text::LineIndex;
use crate::core::PieceId;
use crate::decl::Spec;
use crate::game::Game;
use crate::ir::BUILTINS;
use crate::ir::{Expanded, Problems, Rules, movement_of_word, print};
use crate::source::{Source, Span};
use crate::syntax::ast::{Declaration, Item};
use crate::syntax::{self, DECLARATION_KEYWORDS};

/// How long a definition's expanded form may be in a hover before it is cut.
const HOVER_EXPANSION: usize = 600;

/// A rule file, checked, with its names resolved.
#[derive(Debug)]
pub struct Analysis {
    /// The file as checked (its path as its name).
    pub source: Source,
    /// When the file is not valid: its rules with its imports, as far as
    /// they load (none when it does not parse); see [`Analysis::rules`].
    partial: Option<Rules>,
    /// The game it declares, when the file is valid.
    pub spec: Option<Spec>,
    /// What `check` says about it, in this file's positions.
    pub diagnostics: Vec<Diagnostic>,
}

/// A word, piece or place in the text, with its span.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// A name: a definition, parameter, movement, box, player or keyword.
    Word(String),
    /// A piece symbol.
    Piece(char),
    /// `@name`: a region.
    Region(String),
}

impl Analysis {
    /// Checks `source`, reading its imports with `read` (see
    /// [`Rules::load_all_with`]).
    pub fn new(source: Source, read: &dyn Fn(&str) -> std::io::Result<Source>) -> Analysis {
        Analysis::built_with(source, read, Game::new).0
    }

    /// [`Analysis::new`], the game (if the file declares one) built with
    /// `build`, and kept: the game, when it has no error.
    pub fn built_with(
        source: Source,
        read: &dyn Fn(&str) -> std::io::Result<Source>,
        build: impl FnOnce(&Spec) -> Result<Game, crate::game::GameError>,
    ) -> (Analysis, Option<Game>) {
        let limit = crate::file::MAX_RULES_BYTES;
        if source.text.len() as u64 > limit {
            let why =
                format!("the text is larger than {limit} bytes, the most a rule file may be: not checked");
            return (Analysis::unchecked(source, why), None);
        }
        let mut problems = Problems::default();
        let mut game_error = None;
        let mut built = None;
        let spec = match Spec::load_with(&source, read) {
            Ok((spec, warnings)) => {
                let (warnings, game) = Game::checked(&spec, warnings, build);
                problems.append(warnings);
                match game {
                    Some(Ok(game)) => built = Some(game),
                    Some(Err(e)) => game_error = Some(e),
                    None => {}
                }
                Some(spec)
            }
            Err(p) => {
                problems.append(p);
                None
            }
        };
        let partial = match &spec {
            Some(_) => None,
            None => Rules::load_all_with(&source, read).ok().map(|(rules, _)| rules),
        };
        let mut analysis = Analysis {
            source,
            partial,
            spec,
            diagnostics: Vec::new(),
        };
        let index = LineIndex::new(&analysis.source.text);
        let elsewhere = analysis.first_import().unwrap_or_default();
        for (source, problem) in &problems.list {
            let d = if source.name == analysis.source.name {
                diagnostic(problem, &index, None)
            } else {
                let at = label(problem).map(|s| {
                    let i = LineIndex::new(&source.text).position(s.start);
                    format!("{}:{}:{}: ", source.name, i.line + 1, i.character + 1)
                });
                let mut d = diagnostic(problem, &index, Some(elsewhere));
                d.message = format!(
                    "{}{}",
                    at.unwrap_or_else(|| format!("{}: ", source.name)),
                    d.message
                );
                d
            };
            analysis.diagnostics.push(d);
        }
        if let Some(e) = game_error {
            let fits = label(&e).is_some_and(|s| s.end <= analysis.source.text.len());
            let d = diagnostic(&e, &index, (!fits).then_some(Span::default()));
            analysis.diagnostics.push(d);
        }
        let clean = !(analysis.diagnostics.iter()).any(|d| d.severity == Some(DiagnosticSeverity::ERROR));
        (analysis, built.filter(|_| clean))
    }

    /// A text that could not be checked, with one error saying why.
    pub fn unchecked(source: Source, why: String) -> Analysis {
        Analysis {
            source,
            partial: None,
            spec: None,
            diagnostics: vec![Diagnostic {
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some("chessalg".into()),
                message: why,
                ..Diagnostic::default()
            }],
        }
    }

    /// The file's rules with its imports: the valid file's, else as far as
    /// they load (none when it does not parse).
    pub fn rules(&self) -> Option<&Rules> {
        self.spec.as_ref().map(Spec::rules).or(self.partial.as_ref())
    }

    /// The names of the files this one imports (directly or not).
    pub fn imports(&self) -> Vec<String> {
        self.rules()
            .map(|r| r.sources().iter().skip(1).map(|s| s.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The span of the file's first `import`, where problems in imported
    /// files are shown.
    fn first_import(&self) -> Option<Span> {
        let file = syntax::parse_file(&self.source.text).ok()?;
        file.items.iter().find_map(|item| match item {
            Item::Declaration(Declaration::Import(i)) => Some(i.path.span),
            _ => None,
        })
    }

    /// The token at byte `offset` of the file, with its span.
    fn token_at(&self, offset: usize) -> Option<(Token, Span)> {
        let text = &self.source.text;
        let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let offset = offset.min(text.len());
        let mut start = offset;
        while let Some(c) = text[..start].chars().next_back().filter(|&c| word_char(c)) {
            start -= c.len_utf8();
        }
        let mut end = offset;
        while let Some(c) = text[end..].chars().next().filter(|&c| word_char(c)) {
            end += c.len_utf8();
        }
        if start < end {
            let word = text[start..end].to_string();
            if text[..start].ends_with('@') {
                return Some((Token::Region(word), Span::new(start - 1, end)));
            }
            return Some((Token::Word(word), Span::new(start, end)));
        }
        let c = text[offset..].chars().next()?;
        let pieces = self.rules()?.pieces();
        pieces
            .lookup(c)
            .map(|_| (Token::Piece(c), Span::new(offset, offset + c.len_utf8())))
    }

    /// Markdown describing what is at byte `offset`, with the span it
    /// describes.
    pub fn hover(&self, offset: usize) -> Option<(String, Span)> {
        let (token, span) = self.token_at(offset)?;
        let rules = self.rules();
        let text = match &token {
            Token::Word(w) => {
                if let Some((def, source)) = rules.and_then(|r| definition_of(r, w)) {
                    let written = &source.text[def.span.start..def.span.end];
                    let mut out = format!("```\n{written}\n```\n");
                    if source.name != self.source.name {
                        out.push_str(&format!("\nfrom `{}`\n", source.name));
                    }
                    match rules.and_then(|r| r.definitions().iter().find(|(n, _)| n == w)) {
                        Some((_, Expanded::Value(v))) => {
                            let core = print::value(v, rules.expect("found in them").pieces());
                            out.push_str(&format!("\nexpands to:\n```\n{}\n```", shorten(&core)));
                        }
                        Some((_, Expanded::Function(params))) => {
                            out.push_str(&format!(
                                "\na function of {}: expanded where it is called",
                                params.join(", ")
                            ));
                        }
                        None => {}
                    }
                    out
                } else if let Some(builtin) = BUILTINS.iter().find(|b| b.name == w) {
                    builtin.about.to_string()
                } else if w.chars().all(|c| "udlrR1".contains(c)) {
                    let m = movement_of_word(w);
                    let mut out = format!("movement `{w}`: {:+} across, {:+} up", m.dx, m.dy);
                    if m.quarter_turns > 0 {
                        out.push_str(&format!(
                            ", after {} quarter turn(s) anticlockwise",
                            m.quarter_turns
                        ));
                    }
                    out
                } else if let Some(line) = self.declaration_naming(w) {
                    format!("```\n{line}\n```")
                } else {
                    return None;
                }
            }
            Token::Piece(c) => self.piece_hover(*c)?,
            Token::Region(name) => {
                let squares = rules?.pieces().region(name)?;
                format!("region `{name}`: {} squares", squares.len())
            }
        };
        Some((text, span))
    }

    /// A piece's declaration and what the game says about it.
    fn piece_hover(&self, symbol: char) -> Option<String> {
        let rules = self.rules()?;
        let pieces = rules.pieces();
        let id = pieces.lookup(symbol)?;
        let mut out = String::new();
        for (item, origin) in rules.items() {
            if let Item::Declaration(Declaration::Piece(d)) = item
                && d.symbols.iter().any(|(c, _)| *c == symbol)
            {
                let source = rules.source_of(origin);
                out.push_str(&format!("```\n{}\n```\n", &source.text[d.span.start..d.span.end]));
            }
        }
        if let Some(partner) = pieces.partner(id) {
            out.push_str(&format!("\npartner {}", pieces.symbol(partner)));
        }
        if let Some(info) = self.spec.as_ref().and_then(|s| s.game().pieces.get(id.index())) {
            describe_piece(&mut out, self.spec.as_ref().expect("has the info"), info);
        }
        Some(out)
    }

    /// The text of the declaration that names `w` (a box, region, player).
    fn declaration_naming(&self, w: &str) -> Option<String> {
        let rules = self.rules()?;
        rules.items().find_map(|(item, origin)| {
            let span = match item {
                Item::Declaration(Declaration::Box(b)) if b.name.text == w => b.span,
                Item::Declaration(Declaration::Region(r)) if r.name.text == w => r.span,
                Item::Declaration(Declaration::Players(p)) if p.players.iter().any(|i| i.text == w) => p.span,
                _ => return None,
            };
            Some(rules.source_of(origin).text[span.start..span.end].to_string())
        })
    }

    /// Where the name at byte `offset` is defined: the source's name and
    /// the span of the name in its definition.
    pub fn definition(&self, offset: usize) -> Option<(String, Span)> {
        let (token, _) = self.token_at(offset)?;
        let rules = self.rules()?;
        match token {
            Token::Word(w) => {
                if let Some((def, source)) = definition_of(rules, &w) {
                    return Some((source.name.clone(), def.name.span));
                }
                rules.items().find_map(|(item, origin)| {
                    let span = match item {
                        Item::Declaration(Declaration::Box(b)) if b.name.text == w => b.name.span,
                        Item::Declaration(Declaration::Players(p)) => {
                            p.players.iter().find(|i| i.text == w)?.span
                        }
                        _ => return None,
                    };
                    Some((rules.source_of(origin).name.clone(), span))
                })
            }
            Token::Region(name) => rules.items().find_map(|(item, origin)| match item {
                Item::Declaration(Declaration::Region(r)) if r.name.text == name => {
                    Some((rules.source_of(origin).name.clone(), r.name.span))
                }
                _ => None,
            }),
            Token::Piece(c) => rules.items().find_map(|(item, origin)| match item {
                Item::Declaration(Declaration::Piece(d)) => {
                    let &(_, span) = d.symbols.iter().find(|(s, _)| *s == c)?;
                    Some((rules.source_of(origin).name.clone(), span))
                }
                _ => None,
            }),
        }
    }

    /// Every use of the name at byte `offset` in this file and the files it
    /// imports (and its definition, with `declaration`).
    pub fn references(&self, offset: usize, declaration: bool) -> Vec<(String, Span)> {
        let Some((Token::Word(w), _)) = self.token_at(offset) else {
            return Vec::new();
        };
        let Some(rules) = self.rules() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (item, origin) in rules.items() {
            let name = &rules.source_of(origin).name;
            let exprs = match item {
                Item::Definition(d) => {
                    if declaration && d.name.text == w {
                        out.push((name.clone(), d.name.span));
                    }
                    // A parameter of the same name hides the definition.
                    if d.params.iter().any(|p| p.text == w) {
                        continue;
                    }
                    vec![&d.body]
                }
                Item::Declaration(Declaration::Moves(m)) => vec![&m.body],
                Item::Declaration(Declaration::Outcome(o)) => o.condition.when_expr().into_iter().collect(),
                _ => vec![],
            };
            for e in exprs {
                out.extend(
                    e.names()
                        .into_iter()
                        .filter(|(n, _)| *n == w)
                        .map(|(_, span)| (name.clone(), span)),
                );
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// What may be written here: definitions, pieces, regions, boxes,
    /// marks, players, declaration keywords and built-ins.
    pub fn completions(&self) -> Vec<CompletionItem> {
        let mut out = Vec::new();
        let mut seen = BTreeSet::new();
        let mut add = |label: String, kind: CompletionItemKind, detail: String| {
            if seen.insert(label.clone()) {
                out.push(CompletionItem {
                    label,
                    kind: Some(kind),
                    detail: Some(detail),
                    ..CompletionItem::default()
                });
            }
        };
        if let Some(rules) = self.rules() {
            for (item, origin) in rules.items() {
                let source = rules.source_of(origin);
                match item {
                    Item::Definition(d) => {
                        let first = source.text[d.span.start..d.span.end].lines().next().unwrap_or("");
                        let kind = if d.is_function {
                            CompletionItemKind::FUNCTION
                        } else {
                            CompletionItemKind::VARIABLE
                        };
                        add(d.name.text.clone(), kind, first.to_string());
                    }
                    Item::Declaration(Declaration::Piece(p)) => {
                        for (c, _) in &p.symbols {
                            add(c.to_string(), CompletionItemKind::CONSTANT, "piece".into());
                        }
                    }
                    Item::Declaration(Declaration::Region(r)) => {
                        add(
                            format!("@{}", r.name.text),
                            CompletionItemKind::ENUM_MEMBER,
                            "region".into(),
                        );
                    }
                    Item::Declaration(Declaration::Box(b)) => {
                        add(b.name.text.clone(), CompletionItemKind::STRUCT, "box".into());
                    }
                    Item::Declaration(Declaration::Mark(m)) => {
                        add(m.symbol.to_string(), CompletionItemKind::CONSTANT, "mark".into());
                    }
                    Item::Declaration(Declaration::Players(p)) => {
                        for i in &p.players {
                            add(i.text.clone(), CompletionItemKind::ENUM_MEMBER, "player".into());
                        }
                    }
                    _ => {}
                }
            }
            if !rules
                .items()
                .any(|(i, _)| matches!(i, Item::Declaration(Declaration::Piece(_))))
            {
                for i in 0..rules.pieces().len() {
                    let c = rules.pieces().symbol(PieceId(i as u16));
                    add(
                        c.to_string(),
                        CompletionItemKind::CONSTANT,
                        "piece (prelude)".into(),
                    );
                }
            }
        }
        for builtin in BUILTINS.iter() {
            add(
                builtin.name.to_string(),
                CompletionItemKind::FUNCTION,
                builtin.about.to_string(),
            );
        }
        for kw in DECLARATION_KEYWORDS {
            add(kw.to_string(), CompletionItemKind::KEYWORD, "declaration".into());
        }
        out
    }

    /// The file's own definitions and declarations, as an outline.
    #[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
    pub fn symbols(&self) -> Vec<DocumentSymbol> {
        let Ok(file) = syntax::parse_file(&self.source.text) else {
            return Vec::new();
        };
        let index = LineIndex::new(&self.source.text);
        let symbol = |name: String, kind: SymbolKind, span: Span, name_span: Span| DocumentSymbol {
            name,
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range: index.range(span),
            selection_range: index.range(name_span),
            children: None,
        };
        let mut out = Vec::new();
        for item in &file.items {
            let s = match item {
                Item::Definition(d) => {
                    let kind = if d.is_function {
                        SymbolKind::FUNCTION
                    } else {
                        SymbolKind::VARIABLE
                    };
                    symbol(d.name.text.clone(), kind, d.span, d.name.span)
                }
                Item::Declaration(Declaration::Moves(m)) => symbol(
                    format!("moves {}", m.player.text),
                    SymbolKind::METHOD,
                    m.span,
                    m.player.span,
                ),
                Item::Declaration(Declaration::Piece(p)) => {
                    let symbols: Vec<String> = p.symbols.iter().map(|(c, _)| c.to_string()).collect();
                    symbol(
                        format!("piece {}", symbols.join(" ")),
                        SymbolKind::CLASS,
                        p.span,
                        p.span,
                    )
                }
                Item::Declaration(Declaration::Board(b)) => {
                    symbol("board".into(), SymbolKind::ARRAY, b.span, b.span)
                }
                Item::Declaration(Declaration::Region(r)) => symbol(
                    format!("region {}", r.name.text),
                    SymbolKind::ENUM,
                    r.span,
                    r.name.span,
                ),
                Item::Declaration(Declaration::Box(b)) => symbol(
                    format!("box {}", b.name.text),
                    SymbolKind::STRUCT,
                    b.span,
                    b.name.span,
                ),
                Item::Declaration(Declaration::Outcome(o)) => symbol(
                    format!("outcome {}", o.verdict),
                    SymbolKind::EVENT,
                    o.span,
                    o.span,
                ),
                _ => continue,
            };
            out.push(s);
        }
        out
    }
}

/// The definition in force for `name` (the importing file's replaces an
/// imported one), with its source.
fn definition_of<'r>(
    rules: &'r Rules,
    name: &str,
) -> Option<(&'r crate::syntax::ast::Definition, &'r Source)> {
    rules.items().find_map(|(item, origin)| match item {
        Item::Definition(d) if d.name.text == name => Some((d, rules.source_of(origin))),
        _ => None,
    })
}

/// Adds what the game says about a piece to a hover.
fn describe_piece(out: &mut String, spec: &Spec, info: &crate::decl::PieceInfo) {
    if let Some(owner) = info.owner.and_then(|o| spec.game().players.get(o.index())) {
        out.push_str(&format!("\nowner {owner}"));
    }
    if let Some(letter) = info.fen {
        let plus = if info.fen_promoted { "+" } else { "" };
        out.push_str(&format!("\nFEN letter {plus}{letter}"));
    }
    if let Some(v) = info.value {
        out.push_str(&format!("\nvalue {v}"));
    }
    if info.royal {
        out.push_str("\nroyal: no move may leave it attacked");
    }
}

/// `text` cut to [`HOVER_EXPANSION`] characters, saying so.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(HOVER_EXPANSION) {
        Some((i, _)) => format!("{} … ({} characters in all)", &text[..i], text.chars().count()),
        None => text.to_string(),
    }
}

/// A diagnostic's first label.
fn label(d: &dyn miette::Diagnostic) -> Option<Span> {
    let l = d.labels()?.next()?;
    Some(Span::new(l.offset(), l.offset() + l.len()))
}

/// A diagnostic for the protocol: its first label's range (or `at`, when
/// given), severity, code, and the message with its help line.
fn diagnostic(d: &dyn miette::Diagnostic, index: &LineIndex, at: Option<Span>) -> Diagnostic {
    let span = at.or_else(|| label(d)).unwrap_or_default();
    let severity = match d.severity() {
        Some(Severity::Warning) => DiagnosticSeverity::WARNING,
        Some(Severity::Advice) => DiagnosticSeverity::INFORMATION,
        _ => DiagnosticSeverity::ERROR,
    };
    let mut message = d.to_string();
    if let Some(help) = d.help() {
        message.push_str(&format!("\nhelp: {help}"));
    }
    Diagnostic {
        range: index.range(span),
        severity: Some(severity),
        code: d.code().map(|c| NumberOrString::String(c.to_string())),
        source: Some("chessalg".into()),
        message,
        ..Diagnostic::default()
    }
}
