//! The core IR printed as canonical text in the algebra's own notation.
//!
//! The text parses back to the same IR: squares are written bottom row
//! first, left to right, each as a movement from the centre and its contents
//! (`dd# + % + u. + uu.`); repetitions use the shortest spelling (`*`, `+`,
//! `?`, `{n}`, `{i, j}`, `{i,}`).

use std::fmt::Write as _;

use super::tree::{Cell, CellSet, Move, Pattern, Term, Value};
use crate::core::PieceTable;
use crate::core::{Movement, Offset, write_steps};

/// Binding strength of the context an expression is printed in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Anything: the right of `%p:`, inside brackets.
    Top,
    /// An operand of `/`.
    Ordered,
    /// A side of `->`.
    Arrow,
    /// An operand of `|`.
    Union,
    /// An operand of `+`.
    Glue,
    /// An operand of juxtaposition.
    Seq,
    /// What a suffix or a movement applies to.
    Atom,
}

/// The canonical text of a value.
pub fn value(v: &Value, pieces: &PieceTable) -> String {
    match v {
        Value::Movement(m) => m.to_string(),
        Value::Pattern(p) => pattern(p, pieces),
        Value::Move(m) => move_text(m, pieces),
        Value::Box(b) => pieces.box_name(*b).to_string(),
    }
}

/// The canonical text of a move.
pub fn move_text(m: &Move, pieces: &PieceTable) -> String {
    let mut out = String::new();
    Printer { pieces }.mv(&mut out, m, Level::Top);
    out
}

/// The canonical text of a pattern.
pub fn pattern(p: &Pattern, pieces: &PieceTable) -> String {
    let mut out = String::new();
    Printer { pieces }.pattern(&mut out, p, Level::Top);
    out
}

struct Printer<'a> {
    pieces: &'a PieceTable,
}

fn bracket(out: &mut String, needed: bool, body: impl FnOnce(&mut String)) {
    if needed {
        out.push('(');
    }
    body(out);
    if needed {
        out.push(')');
    }
}

impl Printer<'_> {
    fn cell(&self, out: &mut String, c: Cell) {
        match c {
            Cell::Empty => out.push('.'),
            Cell::Piece(p, m) => {
                out.push(self.pieces.symbol(p));
                out.push_str(&self.pieces.mark_symbols(m));
            }
            Cell::Poi(m) => {
                out.push('%');
                out.push_str(&self.pieces.mark_symbols(m));
            }
            Cell::OffBoard => out.push('#'),
            Cell::Any => out.push('_'),
        }
    }

    fn is_letter(&self, c: Cell) -> bool {
        matches!(c, Cell::Piece(p, _) if self.pieces.symbol(p).is_ascii_alphanumeric())
    }

    fn cells(&self, out: &mut String, set: &CellSet, level: Level) {
        let cells = set.cells();
        bracket(out, cells.len() > 1 && level > Level::Union, |out| {
            for (i, c) in cells.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                self.cell(out, *c);
            }
        });
    }

    fn square(&self, out: &mut String, at: Offset, contents: &CellSet, level: Level) {
        if at == Offset::new(0, 0) {
            self.cells(out, contents, level);
            return;
        }
        write_steps(out, at.y, 'u', 'd').expect("writing to a string");
        write_steps(out, at.x, 'r', 'l').expect("writing to a string");
        // A letter piece right after movement letters would read as one word.
        if contents.single().is_some_and(|c| self.is_letter(c)) {
            out.push(' ');
        }
        self.cells(out, contents, Level::Atom);
    }

    fn pattern(&self, out: &mut String, p: &Pattern, level: Level) {
        let terms = p.terms();
        if terms.is_empty() {
            out.push('0');
            return;
        }
        let glued = terms.len() > 1
            || terms
                .iter()
                .any(|t| matches!(t, Term::Boxed { count, .. } if *count > 1));
        bracket(out, glued && level > Level::Glue, |out| {
            let inner = if glued { Level::Glue } else { level };
            for (i, t) in terms.iter().enumerate() {
                if i > 0 {
                    out.push_str(" + ");
                }
                match t {
                    Term::Square { at, contents } => self.square(out, *at, contents, inner),
                    Term::Either(alts) => bracket(out, inner > Level::Union, |out| {
                        for (j, a) in alts.iter().enumerate() {
                            if j > 0 {
                                out.push_str(" | ");
                            }
                            self.pattern(out, a, Level::Glue);
                        }
                    }),
                    Term::Boxed { bx, piece, count } => {
                        for k in 0..*count {
                            if k > 0 {
                                out.push_str(" + ");
                            }
                            out.push_str(self.pieces.box_name(*bx));
                            out.push(' ');
                            out.push(self.pieces.symbol(*piece));
                        }
                    }
                }
            }
        });
    }

    fn list(&self, out: &mut String, ms: &[Move], sep: &str, item_level: Level) {
        for (i, m) in ms.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            self.mv(out, m, item_level);
        }
    }

    fn mv(&self, out: &mut String, m: &Move, level: Level) {
        match m {
            Move::Nil => out.push_str("nil"),
            Move::Rewrite(r) => bracket(out, level > Level::Arrow, |out| {
                self.pattern(out, &r.lhs, Level::Union);
                out.push_str(" -> ");
                self.pattern(out, &r.rhs, Level::Union);
            }),
            Move::AtOrigin(body) => bracket(out, level > Level::Top, |out| {
                out.push_str("%from: ");
                self.mv(out, body, Level::Top);
            }),
            Move::WithPoi { pieces, body } => bracket(out, level > Level::Top, |out| {
                out.push('%');
                self.cells(out, pieces, Level::Atom);
                out.push_str(": ");
                self.mv(out, body, Level::Top);
            }),
            Move::Ordered(ms) => bracket(out, level > Level::Ordered, |out| {
                self.list(out, ms, " / ", Level::Arrow);
            }),
            Move::Union(ms) => bracket(out, level > Level::Union, |out| {
                self.list(out, ms, " | ", Level::Glue);
            }),
            Move::Seq(ms) => bracket(out, level > Level::Seq, |out| {
                self.list(out, ms, " ", Level::Atom);
            }),
            Move::Repeat { body, min, max } => {
                self.mv(out, body, Level::Atom);
                let suffix = match (min, max) {
                    (0, None) => "*".to_string(),
                    (1, None) => "+".to_string(),
                    (0, Some(1)) => "?".to_string(),
                    (i, None) => format!("{{{i},}}"),
                    (i, Some(j)) if i == j => format!("{{{i}}}"),
                    (i, Some(j)) => format!("{{{i}, {j}}}"),
                };
                out.push_str(&suffix);
            }
            Move::Attacked => out.push_str("attacked"),
            Move::NoReply => out.push_str("no_reply"),
            Move::Guard { holds, body } => {
                out.push(if *holds { '?' } else { '!' });
                out.push('{');
                self.mv(out, body, Level::Top);
                out.push('}');
            }
        }
    }
}

/// The canonical text of a movement given as a value (`ur`, `R²`, `1`).
pub fn movement(m: Movement) -> String {
    let mut s = String::new();
    let _ = write!(s, "{m}");
    s
}
