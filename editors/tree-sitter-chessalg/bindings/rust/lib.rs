//! chessalg rule files (`.alg`) for tree-sitter: the language and its
//! highlighting query.

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_chessalg() -> *const ();
}

/// The language of chessalg rule files.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_chessalg) };

/// The highlighting query (`queries/highlights.scm`).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

#[cfg(test)]
mod tests {
    use tree_sitter::{Node, Parser, Query};

    /// The first node that is an error or was made up by the parser.
    fn first_error(node: Node) -> Option<Node> {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        node.children(&mut cursor).find_map(first_error)
    }

    fn parser() -> Parser {
        let mut parser = Parser::new();
        parser.set_language(&super::LANGUAGE.into()).unwrap();
        parser
    }

    #[test]
    fn every_rule_file_parses_without_an_error_node() {
        let mut parser = parser();
        let mut files: Vec<_> = std::fs::read_dir("../../rules")
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "alg"))
            .collect();
        files.sort();
        assert!(files.len() > 30, "{} files", files.len());
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let tree = parser.parse(&text, None).unwrap();
            if let Some(e) = first_error(tree.root_node()) {
                let at = e.start_position();
                let line = text.lines().nth(at.row).unwrap_or("");
                panic!(
                    "{}:{}:{}: {} in `{line}`",
                    path.display(),
                    at.row + 1,
                    at.column + 1,
                    e.kind()
                );
            }
        }
    }

    #[test]
    fn items_are_told_apart_by_the_layout() {
        let text = "// a library\nstep(m) = % + m. -> . + m%\n    | nil\n\n// kings\nking = %♔: step(u)\nboard\n    ♔..\n    . .\nmoves white = king{1, 2}\n";
        let tree = parser().parse(text, None).unwrap();
        let root = tree.root_node();
        assert!(first_error(root).is_none(), "{}", root.to_sexp());
        let mut cursor = root.walk();
        let kinds: Vec<&str> = (root.named_children(&mut cursor))
            .map(|n| n.kind())
            .filter(|k| *k != "comment")
            .collect();
        assert_eq!(
            kinds,
            [
                "definition",
                "definition",
                "board_declaration",
                "moves_declaration"
            ]
        );
    }

    #[test]
    fn a_broken_file_has_an_error_node() {
        let tree = parser()
            .parse("king = (%♔: step(u)\nmoves white = king\n", None)
            .unwrap();
        assert!(first_error(tree.root_node()).is_some());
    }

    #[test]
    fn the_highlighting_query_compiles() {
        Query::new(&super::LANGUAGE.into(), super::HIGHLIGHTS_QUERY).unwrap();
    }
}
