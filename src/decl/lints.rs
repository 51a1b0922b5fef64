//! Warnings about what a file says that it most likely does not mean:
//! an ordered choice the legality filter can empty, and definitions the
//! game never uses. (Pieces that can never be on the board need the
//! compiled game: `game::lints`.)

use std::collections::{HashMap, HashSet};

use super::{Collect, Legality};
use crate::ir::{ExpandError, Move};
use crate::syntax::ast::{Declaration, Item};

/// Runs every lint of the declarations once the game is read.
pub(super) fn run(cx: &mut Collect<'_>) {
    filtered_choices(cx);
    unused_definitions(cx);
}

/// Whether the game filters moves for royal safety: as `legality` says,
/// else when a piece is royal.
fn royal_safe(cx: &Collect<'_>) -> bool {
    match cx.spec.legality {
        Some(l) => l == Legality::RoyalSafe,
        None => cx.spec.pieces.iter().any(|p| p.royal),
    }
}

/// Warns for each player whose moves choose between whole moves with `/`
/// in a royal-safe game: the filter runs on what the choice gave.
fn filtered_choices(cx: &mut Collect<'_>) {
    if !royal_safe(cx) {
        return;
    }
    for i in 0..cx.spec.moves.len() {
        let Some(place) = cx.spec.move_places[i] else {
            continue;
        };
        if unguarded_choice(&cx.spec.moves[i]) {
            cx.origin = place.origin;
            cx.error(ExpandError::FilteredChoice { span: place.span });
        }
    }
}

/// Whether `m` holds an ordered choice between moves of possibly different
/// pieces (outside every `%p:` and guard) whose earlier alternatives do
/// not test `attacked` themselves.
fn unguarded_choice(m: &Move) -> bool {
    match m {
        Move::Ordered(alts) => {
            let earlier = &alts[..alts.len().saturating_sub(1)];
            earlier.iter().any(|a| !tests_attacked(a)) || alts.iter().any(unguarded_choice)
        }
        Move::Union(ms) => ms.iter().any(unguarded_choice),
        // After a `%p:` the rest of a sequence continues one piece's move.
        Move::Seq(ms) => {
            for m in ms {
                if unguarded_choice(m) {
                    return true;
                }
                if matches!(m, Move::WithPoi { .. }) {
                    return false;
                }
            }
            false
        }
        Move::Repeat { body, .. } => unguarded_choice(body),
        _ => false,
    }
}

/// Whether `m` asks `attacked` anywhere.
fn tests_attacked(m: &Move) -> bool {
    match m {
        Move::Attacked => true,
        Move::WithPoi { body, .. }
        | Move::Repeat { body, .. }
        | Move::Guard { body, .. }
        | Move::AtOrigin(body) => tests_attacked(body),
        Move::Seq(ms) | Move::Union(ms) | Move::Ordered(ms) => ms.iter().any(tests_attacked),
        Move::Nil | Move::Rewrite(_) | Move::NoReply => false,
    }
}

/// Warns for each definition of the file itself (not of its imports) that
/// nothing the game uses refers to: not its moves, outcomes or `fen
/// target` lines, nor a definition they use. Files without a game are
/// libraries, whose definitions are there for others.
fn unused_definitions(cx: &mut Collect<'_>) {
    if !cx.spec.is_game() {
        return;
    }
    let rules = cx.rules;
    let mut refers: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut used: Vec<&str> = Vec::new();
    for (item, _) in rules.items() {
        match item {
            Item::Definition(d) => {
                let names = refers.entry(d.name.text.as_str()).or_default();
                names.extend(d.body.names().into_iter().map(|(n, _)| n));
            }
            Item::Declaration(Declaration::Moves(m)) => {
                used.extend(m.body.names().into_iter().map(|(n, _)| n))
            }
            Item::Declaration(Declaration::Outcome(o)) => {
                if let Some(e) = o.condition.when_expr() {
                    used.extend(e.names().into_iter().map(|(n, _)| n));
                }
            }
            Item::Declaration(Declaration::FenTarget(t)) => {
                used.extend(t.offsets.iter().map(|i| i.text.as_str()))
            }
            _ => {}
        }
    }
    let mut reached: HashSet<&str> = HashSet::new();
    while let Some(name) = used.pop() {
        if reached.insert(name)
            && let Some(names) = refers.get(name)
        {
            used.extend(names.iter().copied());
        }
    }
    let mut unused = Vec::new();
    for (item, origin) in rules.items() {
        if let Item::Definition(d) = item
            && origin == 0
            && !reached.contains(d.name.text.as_str())
        {
            unused.push((d.name.span, d.name.text.clone()));
        }
    }
    cx.origin = 0;
    for (span, name) in unused {
        cx.error(ExpandError::UnusedDefinition { span, name });
    }
}
