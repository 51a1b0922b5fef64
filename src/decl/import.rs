//! `import "FILE"`: read when the file is loaded (the IR layer merges the
//! imported items); it adds nothing to the game description itself.

use super::{Collect, Declare};
use crate::syntax::ast::ImportDecl;

impl Declare for ImportDecl {
    fn declare(&self, _: &mut Collect<'_>) {}
}
