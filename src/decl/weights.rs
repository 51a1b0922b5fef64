//! `weights "FILE"`: the evaluation weights the AI plays this game with by
//! default, a path relative to the declaring file's folder, read as imports
//! are read (a text from a browser reads only the bundled files). Only the
//! file itself names them: a file that imports it declares another game.

use std::path::Path;

use super::{Collect, Declare};
use crate::ir::ExpandError;
use crate::syntax::ast::WeightsDecl;

impl Declare for WeightsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        // An imported file's weights were learned for its own game.
        if cx.origin != 0 || !cx.once("weights", self.span) {
            return;
        }
        let here = &cx.rules.source_of(cx.origin).name;
        let full = Path::new(here)
            .parent()
            .unwrap_or(Path::new(""))
            .join(&self.path.text)
            .to_string_lossy()
            .into_owned();
        match (cx.read)(&full) {
            Ok(_) => cx.spec.weights = Some(full),
            Err(e) => cx.error(ExpandError::WeightsFile {
                span: self.path.span,
                path: self.path.text.clone(),
                reason: format!("cannot read {full}: {e}"),
            }),
        }
    }
}
