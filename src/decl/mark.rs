//! `mark °` and `mark ᵉ expires`: the marks themselves are declared with the
//! pieces (IR layer); here an expiring mark joins the marks cleared when
//! their piece's owner begins a turn.

use super::{Collect, Declare};
use crate::syntax::ast::MarkDecl;

impl Declare for MarkDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        if self.expires
            && let Some(set) = cx.pieces().mark(self.symbol)
        {
            cx.spec.expiring = cx.spec.expiring.union(set);
        }
        if self.shown
            && let Some(set) = cx.pieces().mark(self.symbol)
        {
            cx.spec.shown_marks = cx.spec.shown_marks.union(set);
        }
        if let (Some(c), Some(set)) = (self.fen, cx.pieces().mark(self.symbol)) {
            cx.spec.mark_fen.push((set, c));
        }
    }
}
