//! `import "FILE"`: rule files built on others. The imported file's items
//! come first; the importing file's definitions, `game`, `players`, `board`
//! and `moves PLAYER` replace imported items of the same name, its `piece`
//! lines the imported ones that declare one of their symbols, and its
//! `outcome`, `quiet`, `fen rights` and `fen target` lines, if it has any of
//! a kind, replace every imported line of that kind. A file reached twice
//! (two imports that both import chess.alg) counts once, where it was first
//! reached: what stood over it since stays.

use std::collections::HashSet;
use std::path::Path;

use super::error::ExpandError;
use super::{MAX_IMPORT_DEPTH, Problems, canonical};
use crate::source::Source;
use crate::syntax::{self, ast};
use ast::Replaces;

/// What an item replaces when a later file declares it again.
fn key(item: &ast::Item) -> Replaces<'_> {
    match item {
        ast::Item::Definition(d) => Replaces::Named("definition", &d.name.text),
        ast::Item::Declaration(d) => d.syntax().replaces(),
    }
}

/// The files an import merge is inside of and the files it has reached.
#[derive(Debug, Default)]
pub(super) struct Trail {
    /// The canonical names of the files being merged, outermost first (an
    /// import of one of them is a circle).
    pub(super) stack: Vec<String>,
    /// The canonical names of every file merged so far (an import of one of
    /// them adds nothing: its items are in already).
    pub(super) reached: HashSet<String>,
}

impl Trail {
    /// The trail of a merge that starts at the file named `key`.
    pub(super) fn starting_at(key: String) -> Trail {
        Trail {
            stack: vec![key.clone()],
            reached: HashSet::from([key]),
        }
    }
}

/// The items of `file` (source `id`) with its imports merged in, and the
/// source of each. Imported files are read relative to the importing one and
/// appended to `sources`; their problems go to `problems`.
pub(super) fn merge(
    file: ast::File,
    id: usize,
    read: &dyn Fn(&str) -> std::io::Result<Source>,
    sources: &mut Vec<Source>,
    trail: &mut Trail,
    problems: &mut Problems,
) -> (Vec<ast::Item>, Vec<usize>) {
    let mut items: Vec<ast::Item> = Vec::new();
    let mut origins: Vec<usize> = Vec::new();
    for item in &file.items {
        let ast::Item::Declaration(ast::Declaration::Import(ast::ImportDecl { path })) = item else {
            continue;
        };
        let here = sources[id].clone();
        let fail = |problems: &mut Problems, reason: String| {
            problems.list.push((
                here.clone(),
                ExpandError::Import {
                    span: path.span,
                    path: path.text.clone(),
                    reason,
                }
                .into(),
            ));
        };
        if trail.stack.len() > MAX_IMPORT_DEPTH {
            fail(
                problems,
                format!("imports nest more than {MAX_IMPORT_DEPTH} deep"),
            );
            continue;
        }
        let full = Path::new(&here.name)
            .parent()
            .unwrap_or(Path::new(""))
            .join(&path.text);
        let name = full.to_string_lossy().into_owned();
        // (A bundled file's imports are bundled too.)
        // A bare name (`import "chess.alg"`) with no such file beside the
        // importing one is the bundled file of that name.
        let bundled = || {
            let bare = !path.text.contains(['/', '\\']);
            bare.then(|| crate::bundled::lookup(&format!("{}/{}", crate::bundled::DIR, path.text)))
                .flatten()
        };
        let source = match read(&name) {
            Ok(source) => source,
            Err(_) if let Some(source) = bundled() => source,
            Err(e) => {
                fail(problems, format!("cannot read {name}: {e}"));
                continue;
            }
        };
        // The file is known by where it was read from (a bundled file by its
        // bundled name, whichever folder imports it).
        let key = canonical(&source.name);
        if trail.stack.contains(&key) {
            fail(
                problems,
                "the file imports itself (through this import)".to_string(),
            );
            continue;
        }
        if trail.reached.contains(&key) {
            continue;
        }
        let parsed = match syntax::parse_file(&source.text) {
            Ok(f) => f,
            Err(errs) => {
                errs.into_iter()
                    .for_each(|e| problems.list.push((source.clone(), e.into())));
                continue;
            }
        };
        sources.push(source);
        let child = sources.len() - 1;
        trail.reached.insert(key.clone());
        trail.stack.push(key);
        let (child_items, child_origins) = merge(parsed, child, read, sources, trail, problems);
        trail.stack.pop();
        override_with(&mut items, &mut origins, child_items, child_origins);
    }
    let own: Vec<ast::Item> = file.items;
    let own_origins = vec![id; own.len()];
    override_with(&mut items, &mut origins, own, own_origins);
    (items, origins)
}

/// Appends `later` to `items`, dropping the earlier items it replaces.
fn override_with(
    items: &mut Vec<ast::Item>,
    origins: &mut Vec<usize>,
    later: Vec<ast::Item>,
    later_origins: Vec<usize>,
) {
    let mut keep = vec![true; items.len()];
    for (i, old) in items.iter().enumerate() {
        let replaced = match key(old) {
            k @ (Replaces::Named(..) | Replaces::Kind(_) | Replaces::Mark(_)) => {
                later.iter().any(|n| key(n) == k)
            }
            Replaces::Symbols(old) => later.iter().any(|n| match key(n) {
                Replaces::Symbols(new) => new.iter().any(|(c, _)| old.iter().any(|(o, _)| o == c)),
                _ => false,
            }),
            Replaces::Nothing => false,
        };
        keep[i] = !replaced;
    }
    let mut i = 0;
    items.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    let mut j = 0;
    origins.retain(|_| {
        j += 1;
        keep[j - 1]
    });
    items.extend(later);
    origins.extend(later_origins);
}
