//! The canonical layout of a rule file (`chessalg fmt`).
//!
//! The layout changes only white space, never what a file means:
//!
//! - one space around the binary operators (`=`, `->`, `|`, `/`, `+`),
//!   after `,` and after a binding's `:`; none inside brackets, none between
//!   an operand and its postfix (`M+`, `m²`, `♔°`); juxtaposed operands keep
//!   one space where the file had any and none where it had none (`u.`,
//!   `ur ♙`);
//! - the file's line breaks are kept; a break at a binary operator goes
//!   before it, and a continuation line is indented so that its operand
//!   lines up with the first operand of the definition's body (after its
//!   outer `%p:`): `|` and `/` two columns before it, `->` three;
//! - declarations with single spaces between their words (two before each
//!   attribute of a `piece` line); board rows indented four spaces;
//! - comments are kept where they are: a comment line as it is; the
//!   comments after code on consecutive lines line up, two spaces after the
//!   longest of those lines;
//! - no white space at the ends of lines, `\n` line ends, one at the end.

use pest::Parser as _;
use pest::iterators::Pair;

use super::error::SyntaxError;
use super::parse::{Grammar, Rule, check_brackets, expected_error, is_blank, item_chunks};

/// The canonical layout of the rule file `text`, or why it does not parse.
pub fn format_file(text: &str) -> Result<String, Vec<SyntaxError>> {
    stacker::maybe_grow(2 << 20, 4 << 20, || format_items(text))
}

/// One line of output: its code (with its indentation) and the comment after it.
#[derive(Debug, Default)]
struct Line {
    code: String,
    comment: Option<String>,
}

fn format_items(text: &str) -> Result<String, Vec<SyntaxError>> {
    let text = text.replace("\r\n", "\n");
    let mut lines: Vec<Line> = Vec::new();
    let mut errors = Vec::new();
    for (start, end) in item_chunks(&text) {
        let chunk = &text[start..end];
        if is_blank(chunk) {
            for l in chunk.lines() {
                lines.push(Line {
                    code: l.trim_end().to_string(),
                    comment: None,
                });
            }
            continue;
        }
        match format_chunk(chunk, start) {
            Ok(mut item) => lines.append(&mut item),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Drop blank lines at the end of the file.
    while lines
        .last()
        .is_some_and(|l| l.code.trim().is_empty() && l.comment.is_none())
    {
        lines.pop();
    }
    Ok(render(&lines))
}

/// The lines with the comments after code lined up, run by run.
fn render(lines: &[Line]) -> String {
    let width = |s: &str| s.chars().count();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        // A run of consecutive lines with code and a comment after it.
        let mut j = i;
        while j < lines.len() && lines[j].comment.is_some() && !lines[j].code.trim().is_empty() {
            j += 1;
        }
        if j > i {
            let column = lines[i..j].iter().map(|l| width(&l.code)).max().unwrap_or(0) + 2;
            for l in &lines[i..j] {
                out.push_str(&l.code);
                out.push_str(&" ".repeat(column - width(&l.code)));
                out.push_str(l.comment.as_deref().unwrap_or_default());
                out.push('\n');
            }
            i = j;
            continue;
        }
        let l = &lines[i];
        match &l.comment {
            Some(c) => {
                out.push_str(&l.code);
                out.push_str(c);
            }
            None => out.push_str(&l.code),
        }
        out.push('\n');
        i += 1;
    }
    out
}

/// What separates an atom from the one before it on a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gap {
    /// Nothing.
    None,
    /// One space.
    Space,
}

/// A piece of an item's code as it is laid out: its text, where it was in
/// the chunk (for its line), what goes before it, and whether it is a
/// binary operator (a continuation line starting with it is indented less).
#[derive(Clone, Debug)]
struct Atom {
    text: String,
    at: usize,
    gap: Gap,
    operator: bool,
}

/// Lays out one item (a chunk that parses as one).
fn format_chunk(chunk: &str, offset: usize) -> Result<Vec<Line>, SyntaxError> {
    check_brackets(chunk, offset, true)?;
    let mut pairs = Grammar::parse(Rule::item_input, chunk).map_err(|e| expected_error(e, chunk, offset))?;
    let top = pairs.next().expect("item_input yields one pair");
    let item = top.into_inner().next().expect("item_input holds an item");
    let comments = Comments::of(chunk);
    if item.as_rule() == Rule::board_decl {
        let mut lines = board(item, &comments);
        // The chunk's last line end is followed by an empty row of nothing.
        if chunk.ends_with('\n') && lines.len() > 1 && lines.last().is_some_and(|l| l.code.is_empty()) {
            lines.pop();
        }
        return Ok(lines);
    }
    let mut atoms = Atoms {
        chunk,
        list: Vec::new(),
        body: None,
    };
    atoms.item(item);
    Ok(atoms.layout(&comments))
}

/// The comments of a chunk, line by line: the comment after code on each
/// line (from `//` on), and which lines hold a comment alone.
struct Comments {
    /// Per line: where it starts in the chunk.
    starts: Vec<usize>,
    /// Per line: its comment, if any.
    after: Vec<Option<String>>,
    /// Per line: the whole line, when it holds a comment alone (or nothing).
    alone: Vec<Option<String>>,
}

impl Comments {
    fn of(chunk: &str) -> Comments {
        let mut starts = Vec::new();
        let mut after = Vec::new();
        let mut alone = Vec::new();
        let mut at = 0;
        let body = chunk.strip_suffix('\n').unwrap_or(chunk);
        for line in body.split('\n') {
            starts.push(at);
            at += line.len() + 1;
            let cut = comment_start(line);
            let code = &line[..cut.unwrap_or(line.len())];
            let comment = cut.map(|c| line[c..].trim_end().to_string());
            if code.trim().is_empty() {
                alone.push(Some(line.trim_end().to_string()));
                after.push(None);
            } else {
                alone.push(None);
                after.push(comment);
            }
        }
        Comments { starts, after, alone }
    }

    /// The line of byte `at` of the chunk.
    fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }
}

/// Where the comment of a line starts (`//` outside a quoted string).
fn comment_start(line: &str) -> Option<usize> {
    let mut quoted = false;
    let bytes = line.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            b'/' if !quoted && bytes.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The board declaration: `board`, then each row indented four spaces.
fn board(item: Pair<'_, Rule>, comments: &Comments) -> Vec<Line> {
    let drawing = (item.clone().into_inner())
        .find(|p| p.as_rule() == Rule::board_drawing)
        .map_or(String::new(), |p| format!(" {}", p.as_str()));
    let mut lines = vec![Line {
        code: format!("board{drawing}"),
        comment: comments.after.first().cloned().flatten(),
    }];
    let rows: Vec<(String, Option<String>, String)> = item
        .into_inner()
        .filter(|p| p.as_rule() == Rule::board_row)
        .map(|p| {
            let raw = p.as_str();
            let cut = raw.find("//");
            let code = raw[..cut.unwrap_or(raw.len())].trim_end().to_string();
            (
                code,
                cut.map(|c| raw[c..].trim_end().to_string()),
                raw.trim_end().to_string(),
            )
        })
        .collect();
    let indent = rows
        .iter()
        .filter(|(code, _, _)| !code.trim().is_empty())
        .map(|(code, _, _)| code.len() - code.trim_start().len())
        .min()
        .unwrap_or(0);
    for (code, comment, raw) in rows {
        if code.trim().is_empty() {
            // A blank line, or a comment alone: kept as written.
            lines.push(Line {
                code: raw,
                comment: None,
            });
            continue;
        }
        let code = format!(
            "    {}",
            &code[indent.min(code.len() - code.trim_start().len())..]
        );
        lines.push(Line { code, comment });
    }
    lines
}

/// The atoms of an item, in order.
struct Atoms<'c> {
    chunk: &'c str,
    list: Vec<Atom>,
    /// The index of the atom the body's first operand starts with (after
    /// the outer bindings), which continuation lines line up with.
    body: Option<usize>,
}

impl<'c> Atoms<'c> {
    fn push(&mut self, text: impl Into<String>, at: usize, gap: Gap) {
        self.list.push(Atom {
            text: text.into(),
            at,
            gap,
            operator: false,
        });
    }

    /// A binary operator between two operands (one space on each side):
    /// where it is written, or, when the operand after it starts a later
    /// line, as the first atom of that line.
    fn operator(&mut self, text: &str, before: &Pair<'_, Rule>, after: &Pair<'_, Rule>) {
        let gap = &self.chunk[before.as_span().end()..after.as_span().start()];
        let found = find_outside_comments(gap, text).map(|i| before.as_span().end() + i);
        let at = found.unwrap_or(after.as_span().start());
        let line = |i: usize| self.chunk[..i].matches('\n').count();
        let at = if line(after.as_span().start()) > line(at) {
            after.as_span().start()
        } else {
            at
        };
        self.list.push(Atom {
            text: text.to_string(),
            at,
            gap: Gap::Space,
            operator: true,
        });
    }

    /// Marks the next atom as where the body starts, unless one is marked.
    fn mark_body(&mut self) {
        if self.body.is_none() {
            self.body = Some(self.list.len());
        }
    }

    fn item(&mut self, item: Pair<'c, Rule>) {
        let start = item.as_span().start();
        match item.as_rule() {
            Rule::definition => {
                let mut inner = item.into_inner().peekable();
                let name = inner.next().expect("a definition has a name");
                self.push(name.as_str(), name.as_span().start(), Gap::None);
                let mut last = name;
                if inner.peek().is_some_and(|p| p.as_rule() == Rule::params) {
                    let params = inner.next().expect("params");
                    self.params(&params);
                    last = params;
                }
                let body = inner.next().expect("a definition has a body");
                self.operator("=", &last, &body);
                self.expr(body, Gap::Space, true);
            }
            Rule::moves_decl => {
                let mut inner = item.into_inner();
                let kw = inner.next().expect("moves");
                let player = inner.next().expect("a player");
                let body = inner.next().expect("an expression");
                self.push("moves", kw.as_span().start(), Gap::None);
                self.push(player.as_str(), player.as_span().start(), Gap::Space);
                self.operator("=", &player, &body);
                self.expr(body, Gap::Space, true);
            }
            Rule::outcome_decl => {
                let mut last = None;
                for p in item.into_inner() {
                    match p.as_rule() {
                        Rule::outcome_kw => self.push("outcome", p.as_span().start(), Gap::None),
                        Rule::when => {
                            let mut inner = p.clone().into_inner();
                            let kw = inner.next().expect("when");
                            self.push("when", kw.as_span().start(), Gap::Space);
                            let e = inner.next().expect("an expression");
                            self.expr(e, Gap::Space, true);
                            if let Some(count) = inner.next() {
                                self.push(collapse(count.as_str()), count.as_span().start(), Gap::Space);
                            }
                        }
                        Rule::verdict => {
                            if let Some(before) = &last {
                                self.operator("=", before, &p);
                            }
                            self.push(collapse(p.as_str()), p.as_span().start(), Gap::Space);
                        }
                        _ => self.push(collapse(p.as_str()), p.as_span().start(), Gap::Space),
                    }
                    last = Some(p);
                }
            }
            Rule::game_decl => {
                let name = item.into_inner().next().expect("a name");
                self.push(format!("game {}", name.as_str().trim()), start, Gap::None);
            }
            Rule::piece_decl => {
                let mut text = "piece".to_string();
                for p in item.into_inner() {
                    if p.as_rule() != Rule::symbol {
                        text.push(' ');
                    }
                    text.push(' ');
                    text.push_str(&collapse(p.as_str()));
                }
                self.push(text, start, Gap::None);
            }
            Rule::import_decl | Rule::weights_decl => {
                let text = item.as_str();
                let word = text.split_whitespace().next().unwrap_or_default();
                let string = item.into_inner().next().expect("a string");
                self.push(format!("{word} {}", string.as_str()), start, Gap::None);
            }
            _ => self.push(collapse(item.as_str()), start, Gap::None),
        }
    }

    fn params(&mut self, params: &Pair<'_, Rule>) {
        let names: Vec<&str> = params.clone().into_inner().map(|p| p.as_str()).collect();
        self.push(
            format!("({})", names.join(", ")),
            params.as_span().start(),
            Gap::None,
        );
    }

    /// An expression; `gap` goes before its first atom; `top`: the body of
    /// a definition or declaration (its first operand after the outer
    /// bindings is where continuation lines line up).
    fn expr(&mut self, e: Pair<'c, Rule>, gap: Gap, top: bool) {
        match e.as_rule() {
            Rule::expr => {
                let inner = e.into_inner().next().expect("an expression holds one");
                self.expr(inner, gap, top);
            }
            Rule::poi_bind => {
                let mut inner = e.clone().into_inner();
                let piece = inner.next().expect("a bound piece");
                let body = inner.next().expect("a body");
                self.push("%", e.as_span().start(), gap);
                self.postfix(piece, Gap::None);
                self.push(":", body.as_span().start(), Gap::None);
                self.expr(body, Gap::Space, top);
            }
            Rule::ordered | Rule::arrow | Rule::union | Rule::sum => {
                let op = match e.as_rule() {
                    Rule::ordered => "/",
                    Rule::arrow => "->",
                    Rule::union => "|",
                    _ => "+",
                };
                let parts: Vec<Pair<'c, Rule>> = e.into_inner().collect();
                if top && parts.len() > 1 {
                    self.mark_body();
                }
                for (k, p) in parts.iter().enumerate() {
                    if k > 0 {
                        self.operator(op, &parts[k - 1], p);
                        self.expr(p.clone(), Gap::Space, false);
                    } else {
                        self.expr(p.clone(), gap, top && parts.len() == 1);
                    }
                }
            }
            Rule::seq => {
                let parts: Vec<Pair<'c, Rule>> = e.into_inner().collect();
                if top {
                    self.mark_body();
                }
                for (k, p) in parts.iter().enumerate() {
                    let g = if k == 0 {
                        gap
                    } else {
                        let between = &self.chunk[parts[k - 1].as_span().end()..p.as_span().start()];
                        if between.is_empty() { Gap::None } else { Gap::Space }
                    };
                    self.postfix(p.clone(), g);
                }
            }
            Rule::count_arg => self.push(e.as_str(), e.as_span().start(), gap),
            _ => self.postfix(e, gap),
        }
    }

    /// An operand and its marks and suffixes, written without spaces.
    fn postfix(&mut self, p: Pair<'c, Rule>, gap: Gap) {
        let mut first = true;
        for part in p.into_inner() {
            let g = if first { gap } else { Gap::None };
            first = false;
            let at = part.as_span().start();
            match part.as_rule() {
                Rule::group => {
                    self.push("(", at, g);
                    let e = part
                        .clone()
                        .into_inner()
                        .next()
                        .expect("a group holds an expression");
                    self.expr(e, Gap::None, false);
                    self.push(")", part.as_span().end() - 1, Gap::None);
                }
                Rule::guard => {
                    let mut inner = part.clone().into_inner();
                    let kind = inner.next().expect("? or !");
                    self.push(format!("{}{{", kind.as_str()), at, g);
                    let e = inner.next().expect("a guard holds an expression");
                    self.expr(e, Gap::None, false);
                    self.push("}", part.as_span().end() - 1, Gap::None);
                }
                Rule::call => {
                    let mut inner = part.clone().into_inner();
                    let name = inner.next().expect("a called name");
                    let args = inner.next().expect("arguments");
                    self.push(format!("{}(", name.as_str()), at, g);
                    let mut previous: Option<Pair<'c, Rule>> = None;
                    for a in args.clone().into_inner() {
                        match &previous {
                            Some(before) => {
                                let gap = &self.chunk[before.as_span().end()..a.as_span().start()];
                                let comma = find_outside_comments(gap, ",")
                                    .map_or(a.as_span().start(), |i| before.as_span().end() + i);
                                self.push(",", comma, Gap::None);
                                self.expr(a.clone(), Gap::Space, false);
                            }
                            None => self.expr(a.clone(), Gap::None, false),
                        }
                        previous = Some(a);
                    }
                    self.push(")", args.as_span().end() - 1, Gap::None);
                }
                Rule::rep_braces => {
                    let bounds: Vec<Pair<'_, Rule>> = part.clone().into_inner().collect();
                    let mut text = "{".to_string();
                    for b in &bounds {
                        match b.as_rule() {
                            Rule::comma => text.push_str(", "),
                            _ => text.push_str(b.as_str()),
                        }
                    }
                    // `{2,}`: the comma with nothing after it.
                    let text = text.trim_end().to_string() + "}";
                    self.push(text, at, g);
                }
                _ => self.push(part.as_str().split_whitespace().collect::<String>(), at, g),
            }
        }
    }

    /// The atoms laid out in lines, with the comments of the chunk.
    fn layout(self, comments: &Comments) -> Vec<Line> {
        let mut lines: Vec<Line> = Vec::new();
        let mut current = Line::default();
        let mut line = comments.line_of(self.list.first().map_or(0, |a| a.at));
        let mut body_column = None;
        let width = |s: &str| s.chars().count();
        for (k, atom) in self.list.iter().enumerate() {
            let here = comments.line_of(atom.at);
            if here > line && k > 0 {
                current.comment = comments.after[line].clone();
                lines.push(std::mem::take(&mut current));
                for l in line + 1..here {
                    lines.push(Line {
                        code: comments.alone[l].clone().unwrap_or_default(),
                        comment: None,
                    });
                }
                line = here;
                let column: usize = body_column.unwrap_or(4);
                let indent = if atom.operator {
                    column.saturating_sub(width(&atom.text) + 1).max(1)
                } else {
                    column.max(1)
                };
                current.code = " ".repeat(indent);
            } else if atom.gap == Gap::Space && !current.code.trim().is_empty() {
                current.code.push(' ');
            }
            if Some(k) == self.body && body_column.is_none() && line == comments.line_of(self.list[0].at) {
                body_column = Some(width(&current.code));
            }
            current.code.push_str(&atom.text);
        }
        current.comment = comments.after[line].clone();
        lines.push(current);
        // Comment lines after the item's code, before the next item.
        for l in line + 1..comments.alone.len() {
            if let Some(text) = &comments.alone[l] {
                lines.push(Line {
                    code: text.clone(),
                    comment: None,
                });
            }
        }
        lines
    }
}

/// `text` with every run of white space one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where `needle` first occurs in `text` outside `//` comments.
fn find_outside_comments(text: &str, needle: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let code = &line[..comment_start(line).unwrap_or(line.len())];
        if let Some(i) = code.find(needle) {
            return Some(at + i);
        }
        at += line.len();
    }
    None
}
