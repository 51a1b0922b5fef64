//! The AST shown as an indented tree, one node per line with its span.

use std::fmt::Write as _;

use super::ast::{Expr, ExprKind, File, Item, RepeatSyntax};

/// The tree of a whole file.
pub fn file(f: &File) -> String {
    let mut out = String::new();
    for item in &f.items {
        match item {
            Item::Definition(d) => {
                let params = if d.is_function {
                    let names: Vec<&str> = d.params.iter().map(|p| p.text.as_str()).collect();
                    format!("({})", names.join(", "))
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "definition {}{} @{}..{}",
                    d.name.text, params, d.span.start, d.span.end
                );
                write_expr(&mut out, &d.body, 1);
            }
            Item::Declaration(d) => d.syntax().print(&mut out),
        }
    }
    out
}

/// The tree of one expression.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, 0);
    out
}

pub(super) fn write_expr(out: &mut String, e: &Expr, depth: usize) {
    let indent = "  ".repeat(depth);
    let (label, children): (String, Vec<&Expr>) = match &e.kind {
        ExprKind::PoiBind { piece, body } => ("poi-bind".into(), vec![piece, body]),
        ExprKind::Ordered(xs) => ("ordered".into(), xs.iter().collect()),
        ExprKind::Arrow { lhs, rhs } => ("arrow".into(), vec![lhs, rhs]),
        ExprKind::Union(xs) => ("union".into(), xs.iter().collect()),
        ExprKind::Glue(xs) => ("glue".into(), xs.iter().collect()),
        ExprKind::Juxtapose(xs) => ("juxtapose".into(), xs.iter().collect()),
        ExprKind::Group(x) => ("group".into(), vec![x]),
        ExprKind::Guard { holds, body } => (format!("guard {}", if *holds { "?" } else { "!" }), vec![body]),
        ExprKind::Call { name, args } => (format!("call {}", name.text), args.iter().collect()),
        ExprKind::Repeat {
            body,
            min,
            max,
            syntax,
        } => {
            let spelled = match syntax {
                RepeatSyntax::Star => "*",
                RepeatSyntax::Plus => "+",
                RepeatSyntax::Optional => "?",
                RepeatSyntax::Braces => "{}",
                RepeatSyntax::Angle => "<>",
            };
            let max = max.map_or(String::new(), |m| m.to_string());
            (format!("repeat {min}..{max} {spelled}"), vec![body])
        }
        ExprKind::Power { base, exponent } => (format!("power {exponent}"), vec![base]),
        ExprKind::Marked { body, marks } => {
            (format!("marked {}", marks.iter().collect::<String>()), vec![body])
        }
        ExprKind::Nil => ("nil".into(), vec![]),
        ExprKind::Empty => ("empty 0".into(), vec![]),
        ExprKind::Identity => ("identity 1".into(), vec![]),
        ExprKind::Count(n) => (format!("count {n}"), vec![]),
        ExprKind::Square => ("square .".into(), vec![]),
        ExprKind::Poi => ("poi %".into(), vec![]),
        ExprKind::OffBoard => ("off-board #".into(), vec![]),
        ExprKind::AnySquare => ("any square _".into(), vec![]),
        ExprKind::Place { file, rank } => (format!("place file {file:?} rank {rank:?}"), vec![]),
        ExprKind::Region(name) => (format!("region {name}"), vec![]),
        ExprKind::Word(w) => (format!("word {w}"), vec![]),
        ExprKind::Piece(c) => (format!("piece {c}"), vec![]),
    };
    let _ = writeln!(out, "{indent}{label} @{}..{}", e.span.start, e.span.end);
    for c in children {
        write_expr(out, c, depth + 1);
    }
}
