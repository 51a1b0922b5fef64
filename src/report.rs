//! Problems rendered as miette diagnostics into text (the front ends print it).

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, Report};

use crate::ir::Problems;

/// How diagnostics are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Whether to use colour.
    pub colour: bool,
    /// The width to wrap at.
    pub width: usize,
}

impl Style {
    /// No colour, 100 columns: what tests and pipes get.
    pub const PLAIN: Style = Style {
        colour: false,
        width: 100,
    };
}

fn handler(style: Style) -> GraphicalReportHandler {
    let theme = if style.colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme).with_width(style.width)
}

/// One diagnostic without source lines (its code, message and help).
pub fn render_one(diagnostic: &dyn Diagnostic, style: Style) -> String {
    let mut out = String::new();
    if handler(style).render_report(&mut out, diagnostic).is_err() {
        out = format!("{diagnostic}\n");
    }
    out.push('\n');
    out
}

/// Every problem as a diagnostic with its source lines, one after another.
pub fn render(problems: &Problems, style: Style) -> String {
    let handler = handler(style);
    let mut out = String::new();
    for (source, problem) in &problems.list {
        let report = Report::new(problem.clone()).with_source_code(source.named());
        if handler.render_report(&mut out, report.as_ref()).is_err() {
            out.push_str(&format!("{problem}\n"));
        }
        out.push('\n');
    }
    out
}
