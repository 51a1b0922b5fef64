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
            Item::Piece(p) => {
                let symbols: Vec<String> = p.symbols.iter().map(|(c, _)| c.to_string()).collect();
                let mut attrs = String::new();
                if let Some((letters, _)) = &p.fen {
                    attrs.push_str(&format!(" fen {}", letters.iter().collect::<String>()));
                }
                if let Some(v) = p.value {
                    attrs.push_str(&format!(" value {v}"));
                }
                if p.royal {
                    attrs.push_str(" royal");
                }
                if !p.san_letter {
                    attrs.push_str(" san -");
                }
                let (start, end) = (p.span.start, p.span.end);
                let _ = writeln!(out, "piece {}{attrs} @{start}..{end}", symbols.join(" "));
            }
            Item::Import(n) => {
                let _ = writeln!(out, "import {:?}", n.text);
            }
            Item::Game(n) => {
                let _ = writeln!(out, "game {:?}", n.text);
            }
            Item::Players(ps) => {
                let names: Vec<&str> = ps.iter().map(|p| p.text.as_str()).collect();
                let _ = writeln!(out, "players {}", names.join(" "));
            }
            Item::Mark(m) => {
                let _ = writeln!(
                    out,
                    "mark {}{}",
                    m.symbol,
                    if m.expires { " expires" } else { "" }
                );
            }
            Item::Board(b) => {
                let _ = writeln!(out, "board");
                for (row, _) in &b.rows {
                    let _ = writeln!(out, "  |{row}|");
                }
            }
            Item::Moves(m) => {
                let _ = writeln!(out, "moves {} @{}..{}", m.player.text, m.span.start, m.span.end);
                write_expr(&mut out, &m.body, 1);
            }
            Item::FenRights(f) => {
                let squares: Vec<String> = f
                    .squares
                    .iter()
                    .map(|(p, s)| format!("{}{} {}", p.piece, p.marks.iter().collect::<String>(), s.text))
                    .collect();
                let _ = writeln!(out, "fen rights {} {}", f.letter, squares.join(" "));
            }
            Item::Outcome(o) => {
                let player = o
                    .player
                    .as_ref()
                    .map_or(String::new(), |p| format!(" {}", p.text));
                let _ = writeln!(
                    out,
                    "outcome {:?} = {}{player}",
                    condition_label(&o.condition),
                    o.verdict
                );
                if let crate::syntax::ast::ConditionKind::When(e) = &o.condition {
                    write_expr(&mut out, e, 1);
                }
            }
            Item::QuietResets(items) => {
                let names: Vec<&str> = items.iter().map(|(n, _)| n.as_str()).collect();
                let _ = writeln!(out, "quiet resets {}", names.join(" "));
            }
            Item::FenTarget(f) => {
                let marks: String = f.piece.marks.iter().collect();
                let _ = writeln!(out, "fen target {}{marks} {}", f.piece.piece, f.offset.text);
            }
        }
    }
    out
}

fn condition_label(c: &crate::syntax::ast::ConditionKind) -> String {
    use crate::syntax::ast::ConditionKind as C;
    match c {
        C::NoMoves { checked } => format!("no_moves{}", if *checked { " checked" } else { "" }),
        C::Repetition(n) => format!("repetition {n}"),
        C::Quiet(n) => format!("quiet {n}"),
        C::Material { items, same_colour } => {
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
        C::When(_) => "when".to_string(),
    }
}

/// The tree of one expression.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e, 0);
    out
}

fn write_expr(out: &mut String, e: &Expr, depth: usize) {
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
        ExprKind::Square => ("square .".into(), vec![]),
        ExprKind::Poi => ("poi %".into(), vec![]),
        ExprKind::OffBoard => ("off-board #".into(), vec![]),
        ExprKind::Word(w) => (format!("word {w}"), vec![]),
        ExprKind::Piece(c) => (format!("piece {c}"), vec![]),
    };
    let _ = writeln!(out, "{indent}{label} @{}..{}", e.span.start, e.span.end);
    for c in children {
        write_expr(out, c, depth + 1);
    }
}
