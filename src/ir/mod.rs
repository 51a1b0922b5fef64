//! The IR layer: the AST expanded to the core IR.
//!
//! [`Rules::load`] reads a rule file: its `piece` declarations (or, when it has
//! none, those of the prelude `rules/prelude.alg`) and its definitions, each
//! expanded once into a [`Value`] of the core IR ([`Move`], [`Pattern`]). [`Rules::expand`]
//! expands one more expression against them. [`mod@print`] writes the IR as
//! canonical text.

mod builtins;
mod error;
mod expander;
mod imports;
pub mod print;
mod tree;

use std::collections::HashMap;

use miette::Diagnostic;
use thiserror::Error;

pub use builtins::{BUILTINS, Builtin};
pub use error::ExpandError;
pub(crate) use expander::is_movement_word;
pub use expander::{MAX_DEPTH, MAX_SIZE, MAX_STEPS, movement_of_word};
pub use tree::{Cell, CellSet, Move, Overlap, Pattern, Rewrite, Term, UnboundPoi, Value};

use crate::core::{MAX_MARKS, PieceTable};
use crate::source::Source;
use crate::syntax::{self, SyntaxError, ast};
use expander::{Def, Expander, FUNCTIONS, Tagged};

/// The prelude: the twelve chess piece symbols and their colour pairs.
pub const PRELUDE: &str = include_str!("../../rules/prelude.alg");

/// One problem found in a source: a syntax or an expansion error, or a warning.
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum Problem {
    /// The text does not parse.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Syntax(#[from] SyntaxError),
    /// The text parses but means nothing.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Expand(#[from] ExpandError),
}

impl Problem {
    /// Whether this is only a warning.
    pub fn is_warning(&self) -> bool {
        matches!(self, Problem::Expand(e) if e.is_warning())
    }
}

/// Problems with the source each belongs to.
#[derive(Clone, Debug, Default)]
pub struct Problems {
    /// Each problem with the source it points into.
    pub list: Vec<(Source, Problem)>,
}

impl Problems {
    /// Whether any problem is an error (not only a warning).
    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|(_, p)| !p.is_warning())
    }

    /// Adds a problem found in `source`, unless the same one is there
    /// already (a definition used in several places is reported once).
    pub fn push(&mut self, source: &Source, p: impl Into<Problem>) {
        let p = p.into();
        if !self.list.iter().any(|(s, q)| s.name == source.name && *q == p) {
            self.list.push((source.clone(), p));
        }
    }

    /// Adds every problem of `other` (see [`Problems::push`]).
    pub fn append(&mut self, other: Problems) {
        for (source, p) in other.list {
            self.push(&source, p);
        }
    }

    /// How many of the problems are warnings.
    pub fn warnings(&self) -> usize {
        self.list
            .iter()
            .filter(|(_, p)| p.is_warning() && !matches!(p, Problem::Expand(e) if e.is_note()))
            .count()
    }
}

/// What a definition expanded to.
#[derive(Clone, Debug, PartialEq)]
pub enum Expanded {
    /// A plain definition and its value.
    Value(Value),
    /// A function: expanded where it is called, with its parameter names.
    Function(Vec<String>),
}

/// A loaded rule file: its pieces and its definitions, expanded.
#[derive(Clone, Debug)]
pub struct Rules {
    source: Source,
    /// The file with its imports merged in.
    file: ast::File,
    /// Per item of `file`, the source it comes from (an index into `sources`).
    origins: Vec<usize>,
    /// The file itself, then each imported file.
    sources: Vec<Source>,
    pieces: PieceTable,
    expanded: Vec<(String, Expanded)>,
}

/// The source id of the file being loaded; its imports get 1, 2, ...
const FILE: usize = 0;
/// The source id of an expression expanded against loaded rules.
const EXPRESSION: usize = usize::MAX;

/// How deeply imports may nest.
pub const MAX_IMPORT_DEPTH: usize = 16;

impl Rules {
    /// The rules of the prelude alone: the chess pieces, no definitions.
    pub fn prelude() -> Rules {
        let source = Source::new("rules/prelude.alg", PRELUDE);
        let (rules, _) = Rules::load(&source).expect("the embedded prelude is valid");
        rules
    }

    /// Reads a rule file. On success, returns the rules with any warnings; on
    /// failure, every error (and warning) of the file.
    pub fn load(source: &Source) -> Result<(Rules, Problems), Problems> {
        let (rules, problems) = Rules::load_all(source)?;
        if problems.has_errors() {
            return Err(problems);
        }
        Ok((rules, problems))
    }

    /// Reads a rule file as far as it can: the rules with every problem
    /// found (errors included), or every problem if it does not parse.
    pub fn load_all(source: &Source) -> Result<(Rules, Problems), Problems> {
        Rules::load_all_with(source, &crate::bundled::read)
    }

    /// [`Rules::load_all`] with imported files read by `read` (a path, as
    /// the import names it relative to the importing file, to its source):
    /// an editor's unsaved texts before the files on disk.
    pub fn load_all_with(
        source: &Source,
        read: &dyn Fn(&str) -> std::io::Result<Source>,
    ) -> Result<(Rules, Problems), Problems> {
        let mut problems = Problems::default();
        let main = match syntax::parse_file(&source.text) {
            Ok(f) => f,
            Err(errs) => {
                errs.into_iter().for_each(|e| problems.push(source, e));
                return Err(problems);
            }
        };
        let mut sources = vec![source.clone()];
        let mut trail = imports::Trail::starting_at(canonical(&source.name));
        let (items, origins) = imports::merge(main, FILE, read, &mut sources, &mut trail, &mut problems);
        if problems.has_errors() {
            return Err(problems);
        }
        let file = ast::File { items };
        let pieces = declare_pieces(&file, &origins, &mut problems, &sources);
        let defs = collect_definitions(&file, &origins, &pieces, &mut problems, &sources);
        let mut expanded = Vec::new();
        {
            let mut ex = Expander::new(&pieces, defs.clone());
            for item in &file.items {
                let ast::Item::Definition(d) = item else { continue };
                let name = d.name.text.as_str();
                if defs.get(name).is_none_or(|def| !std::ptr::eq(def.ast, d)) {
                    continue; // a duplicate, already reported
                }
                if d.is_function {
                    for e in ex.check_function_body(defs[name]) {
                        problems.push(&sources[defs[name].source], e);
                    }
                    let params = d.params.iter().map(|p| p.text.clone()).collect();
                    expanded.push((name.to_string(), Expanded::Function(params)));
                    continue;
                }
                match ex.definition(name) {
                    Ok(v) => expanded.push((name.to_string(), Expanded::Value(v))),
                    Err(tagged) => report(&mut problems, tagged, &sources, source),
                }
            }
            for (src, w) in ex.warnings.drain(..) {
                problems.push(sources.get(src).unwrap_or(source), w);
            }
        }
        let rules = Rules {
            source: source.clone(),
            file,
            origins,
            sources,
            pieces,
            expanded,
        };
        Ok((rules, problems))
    }

    /// Expands `expr`, an expression of the loaded file or of the import
    /// `origin` (see [`Rules::items`]), against the file's definitions; on
    /// failure its problems are added to `problems`.
    pub fn expand_in_file(&self, expr: &ast::Expr, origin: usize, problems: &mut Problems) -> Option<Value> {
        let mut ex = Expander::new(&self.pieces, self.definition_table());
        let value = match ex.expression(expr, origin) {
            Ok(v) => Some(v),
            Err(tagged) => {
                report(problems, tagged, &self.sources, &self.sources[origin]);
                None
            }
        };
        for (src, w) in ex.warnings.drain(..) {
            problems.push(self.sources.get(src).unwrap_or(&self.sources[origin]), w);
        }
        value
    }

    /// Expands `expr` (of source `origin`) with parameters bound to values,
    /// as inside a call of the function they belong to; `None` if it fails.
    pub fn expand_with(&self, expr: &ast::Expr, origin: usize, scope: &[(String, Value)]) -> Option<Value> {
        let mut ex = Expander::new(&self.pieces, self.definition_table());
        ex.expression_in(expr, scope, origin).ok()
    }

    /// The definition `name` in force (an importing file's replaces an
    /// imported one), with the id of its source.
    pub fn definition_ast(&self, name: &str) -> Option<(&ast::Definition, usize)> {
        let def = *self.definition_table().get(name)?;
        Some((def.ast, def.source))
    }

    /// The file's items with its imports merged in, each with the id of the
    /// source it comes from (0: the file itself).
    pub fn items(&self) -> impl Iterator<Item = (&ast::Item, usize)> {
        self.file.items.iter().zip(self.origins.iter().copied())
    }

    /// The source with id `origin` (see [`Rules::items`]).
    pub fn source_of(&self, origin: usize) -> &Source {
        &self.sources[origin]
    }

    /// Expands one expression (written in `expr`) against these rules.
    pub fn expand(&self, expr: &Source) -> Result<Value, Problems> {
        let mut problems = Problems::default();
        let ast = match syntax::parse_expression(&expr.text) {
            Ok(a) => a,
            Err(errs) => {
                errs.into_iter().for_each(|e| problems.push(expr, e));
                return Err(problems);
            }
        };
        let defs = self.definition_table();
        let mut ex = Expander::new(&self.pieces, defs);
        match ex.expression(&ast, EXPRESSION) {
            Ok(v) => Ok(v),
            Err(tagged) => {
                report(&mut problems, tagged, &self.sources, expr);
                Err(problems)
            }
        }
    }

    /// The declared pieces (the prelude's when the file declares none).
    pub fn pieces(&self) -> &PieceTable {
        &self.pieces
    }

    /// Every definition in file order with what it expanded to.
    pub fn definitions(&self) -> &[(String, Expanded)] {
        &self.expanded
    }

    /// The value of a plain definition.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.expanded.iter().find_map(|(n, e)| match e {
            Expanded::Value(v) if n == name => Some(v),
            _ => None,
        })
    }

    /// The file itself, then each file it imports (the ids of [`Rules::items`]).
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The source the rules were read from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The parsed file.
    pub fn ast(&self) -> &ast::File {
        &self.file
    }

    fn definition_table(&self) -> HashMap<&str, Def<'_>> {
        let mut defs = HashMap::new();
        for (item, &source) in self.file.items.iter().zip(&self.origins) {
            if let ast::Item::Definition(d) = item {
                defs.entry(d.name.text.as_str()).or_insert(Def { ast: d, source });
            }
        }
        defs
    }
}

fn report(problems: &mut Problems, tagged: Tagged, sources: &[Source], expr: &Source) {
    if let Some((src, e)) = tagged {
        problems.push(sources.get(src).unwrap_or(expr), e);
    }
}

/// A path as a key for finding import cycles.
fn canonical(name: &str) -> String {
    std::fs::canonicalize(name).map_or_else(|_| name.to_string(), |p| p.to_string_lossy().into_owned())
}

/// The file's own pieces, or the prelude's when it declares none.
fn declare_pieces(
    file: &ast::File,
    origins: &[usize],
    problems: &mut Problems,
    sources: &[Source],
) -> PieceTable {
    let decls: Vec<(&ast::PieceDecl, &Source)> = file
        .items
        .iter()
        .zip(origins)
        .filter_map(|(i, &o)| match i {
            ast::Item::Declaration(ast::Declaration::Piece(p)) => Some((p, &sources[o])),
            _ => None,
        })
        .collect();
    let mut table = if !decls.is_empty() || sources[FILE].text == PRELUDE {
        PieceTable::new()
    } else {
        Rules::prelude().pieces
    };
    let mut seen: Vec<char> = Vec::new();
    for (d, source) in decls {
        let mut ids = Vec::new();
        for &(c, span) in &d.symbols {
            let bad = |reason: String| ExpandError::BadPiece { span, reason };
            if "udlrR".contains(c) {
                problems.push(source, bad(format!("`{c}` is a movement")));
            } else if seen.contains(&c) {
                problems.push(source, bad(format!("`{c}` is declared twice")));
            } else {
                seen.push(c);
                ids.push(table.declare(c));
            }
        }
        if let [a, b] = ids[..] {
            if a == b {
                continue;
            }
            table.pair(a, b);
        }
    }
    for item in &file.items {
        match item {
            ast::Item::Declaration(ast::Declaration::Box(b)) => {
                table.declare_box(&b.name.text);
            }
            ast::Item::Declaration(ast::Declaration::Players(p)) => {
                table.declare_players(p.players.iter().map(|i| i.text.clone()).collect());
            }
            _ => {}
        }
    }
    for (item, &o) in file.items.iter().zip(origins) {
        let source = &sources[o];
        if let ast::Item::Declaration(ast::Declaration::Mark(m)) = item {
            let bad = |reason: String| ExpandError::BadPiece { span: m.span, reason };
            if table.mark(m.symbol).is_some() {
                problems.push(source, bad(format!("the mark `{}` is declared twice", m.symbol)));
            } else if table.declare_mark(m.symbol).is_none() {
                problems.push(source, bad(format!("at most {MAX_MARKS} marks may be declared")));
            }
        }
    }
    let board = file.items.iter().rev().find_map(|i| match i {
        ast::Item::Declaration(ast::Declaration::Board(b)) => Some(b),
        _ => None,
    });
    let (files, ranks) = match board {
        Some(b) => {
            let (files, ranks, holes) = board_shape(b, &table);
            table.declare_shape(files, ranks, holes);
            (files, ranks)
        }
        None => (0, 0),
    };
    for item in &file.items {
        if let ast::Item::Declaration(ast::Declaration::Region(r)) = item {
            table.declare_region(&r.name.text, r.squares(files, ranks));
        }
    }
    table
}

/// A board diagram's rectangle (files, ranks) and the places in it that are
/// no squares (a space, or a row shorter than the longest), as (file, rank)
/// from the bottom left.
fn board_shape(b: &ast::BoardDecl, table: &PieceTable) -> (u32, u32, Vec<(u32, u32)>) {
    let rows: Vec<Vec<bool>> = b
        .rows
        .iter()
        .map(|(text, _)| {
            text.chars()
                .filter(|&c| table.mark(c).is_none() && !matches!(c, '\u{FE0E}' | '\u{FE0F}'))
                .map(|c| c != ' ')
                .collect()
        })
        .collect();
    // The rectangle around the squares, as square names count from it.
    let squares: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .flat_map(|(i, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, s)| **s)
                .map(move |(x, _)| (x, i))
        })
        .collect();
    let (Some(x0), Some(x1), Some(i0), Some(i1)) = (
        squares.iter().map(|s| s.0).min(),
        squares.iter().map(|s| s.0).max(),
        squares.iter().map(|s| s.1).min(),
        squares.iter().map(|s| s.1).max(),
    ) else {
        return (0, 0, Vec::new());
    };
    let (files, ranks) = ((x1 - x0 + 1) as u32, (i1 - i0 + 1) as u32);
    let mut holes = Vec::new();
    for (i, row) in rows.iter().enumerate().take(i1 + 1).skip(i0) {
        for x in x0..=x1 {
            if !row.get(x).copied().unwrap_or(false) {
                holes.push(((x - x0) as u32, (i1 - i) as u32));
            }
        }
    }
    (files, ranks, holes)
}

/// Definitions by name, reporting duplicates, reserved names and clashes.
fn collect_definitions<'a>(
    file: &'a ast::File,
    origins: &[usize],
    pieces: &PieceTable,
    problems: &mut Problems,
    sources: &[Source],
) -> HashMap<&'a str, Def<'a>> {
    let mut defs: HashMap<&str, Def<'_>> = HashMap::new();
    for (item, &origin) in file.items.iter().zip(origins) {
        let source = &sources[origin];
        let ast::Item::Definition(d) = item else { continue };
        let name = d.name.text.as_str();
        let reserved = |why: &str| ExpandError::Reserved {
            span: d.name.span,
            name: name.to_string(),
            why: why.to_string(),
        };
        if name == "nil" {
            problems.push(source, reserved("`nil` is the move that does nothing"));
            continue;
        }
        if FUNCTIONS.contains(&name) {
            problems.push(source, reserved("it is a builtin function"));
            continue;
        }
        let mut cs = name.chars();
        if let (Some(c), None) = (cs.next(), cs.next())
            && pieces.lookup(c).is_some()
        {
            problems.push(source, reserved("it is a declared piece"));
            continue;
        }
        if let Some(first) = defs.get(name) {
            problems.push(
                source,
                ExpandError::Duplicate {
                    span: d.name.span,
                    first: first.ast.name.span,
                    name: name.to_string(),
                },
            );
            continue;
        }
        if expander::is_movement_word(name) {
            problems.push(
                source,
                ExpandError::NameIsMovement {
                    span: d.name.span,
                    name: name.to_string(),
                },
            );
        }
        let mut seen_params: Vec<&str> = Vec::new();
        for p in &d.params {
            if seen_params.contains(&p.text.as_str()) {
                problems.push(
                    source,
                    ExpandError::Duplicate {
                        span: p.span,
                        first: d
                            .params
                            .iter()
                            .find(|q| q.text == p.text)
                            .map_or(p.span, |q| q.span),
                        name: p.text.clone(),
                    },
                );
            }
            seen_params.push(&p.text);
        }
        defs.insert(
            name,
            Def {
                ast: d,
                source: origin,
            },
        );
    }
    defs
}
