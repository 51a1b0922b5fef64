//! `box hand` and `box checks ⊕ ⊕ ⊕ ⊖ ⊖ ⊖`: places off the board holding
//! pieces (the names themselves are declared in the IR layer); here what
//! each holds at the start, and how FEN writes boxes (`fen box`, `fen counts`).

use super::{Collect, Declare};
use crate::core::{BoxId, PieceId};
use crate::ir::ExpandError;
use crate::syntax::ast::{BoxDecl, FenBoxDecl, FenCountsDecl, Ident, RegionDecl};

impl Collect<'_> {
    /// A declared box; reports an unknown name.
    fn box_named(&mut self, name: &Ident) -> Option<BoxId> {
        let found = self.pieces().box_named(&name.text);
        if found.is_none() {
            self.error(ExpandError::UndefinedName {
                span: name.span,
                name: name.text.clone(),
                help: format!("declare the box with `box {}`", name.text),
            });
        }
        found
    }
}

impl Declare for BoxDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if !cx.once(&format!("box {}", self.name.text), self.span) {
            return;
        }
        let Some(bx) = cx.box_named(&self.name) else {
            return;
        };
        for &(c, span) in &self.contents {
            if let Some(p) = cx.piece(c, span) {
                cx.spec.box_contents.push((bx, p));
            }
        }
    }
}

impl Declare for FenBoxDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if !cx.once("fen box", self.span) {
            return;
        }
        cx.spec.fen_box = cx.box_named(&self.name);
    }
}

impl Declare for FenCountsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if !cx.once("fen counts", self.span) {
            return;
        }
        let Some(bx) = cx.box_named(&self.name) else {
            return;
        };
        let pieces: Option<Vec<PieceId>> = self.pieces.iter().map(|&(c, span)| cx.piece(c, span)).collect();
        if let Some(pieces) = pieces {
            cx.spec.fen_counts = Some((bx, pieces));
        }
    }
}

impl Declare for RegionDecl {
    /// A region is only a name for expressions (`@palace`, resolved in the
    /// IR layer); the game notes only that it is declared once.
    fn declare(&self, cx: &mut Collect<'_>) {
        if cx.once(&format!("region {}", self.name.text), self.span) {
            let rectangles = self.parts.iter().map(|&(a, b, _)| (a, b));
            cx.spec.region_rectangles.extend(rectangles);
        }
    }
}
