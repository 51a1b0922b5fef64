//! (Test code only: declared `#[cfg(test)] mod tests;` in `mod.rs`.)
//!
//! Unit tests of the parser: precedence, suffixes, layout, spans and errors.

use super::ast::{Declaration, Expr, ExprKind, File, Item, RegionDecl, RepeatSyntax};
use super::declaration::DeclarationSyntax;
use super::{MAX_NESTING, SyntaxError, parse_expression, parse_file};
use crate::source::Span;

// ---- helpers ---------------------------------------------------------------

/// An expression as a compact S-expression, without spans.
fn sx(e: &Expr) -> String {
    let list = |head: &str, xs: &[&Expr]| {
        let mut s = format!("({head}");
        for x in xs {
            s.push(' ');
            s.push_str(&sx(x));
        }
        s.push(')');
        s
    };
    fn all(xs: &[Expr]) -> Vec<&Expr> {
        xs.iter().collect()
    }
    match &e.kind {
        ExprKind::PoiBind { piece, body } => list("bind", &[piece, body]),
        ExprKind::Ordered(xs) => list("/", &all(xs)),
        ExprKind::Arrow { lhs, rhs } => list("->", &[lhs, rhs]),
        ExprKind::Union(xs) => list("|", &all(xs)),
        ExprKind::Glue(xs) => list("+", &all(xs)),
        ExprKind::Juxtapose(xs) => list("seq", &all(xs)),
        ExprKind::Group(x) => list("group", &[x]),
        ExprKind::Guard { holds, body } => list(if *holds { "?{}" } else { "!{}" }, &[body]),
        ExprKind::Call { name, args } => list(&format!("call {}", name.text), &all(args)),
        ExprKind::Repeat {
            body,
            min,
            max,
            syntax,
        } => {
            let max = max.map_or(String::new(), |m| m.to_string());
            list(&format!("rep {min}..{max} {syntax:?}"), &[body])
        }
        ExprKind::Marked { body, marks } => {
            list(&format!("mark {}", marks.iter().collect::<String>()), &[body])
        }
        ExprKind::Power { base, exponent } => list(&format!("pow {exponent}"), &[base]),
        ExprKind::Nil => "nil".into(),
        ExprKind::Empty => "0".into(),
        ExprKind::Identity => "1".into(),
        ExprKind::Count(n) => format!("count {n}"),
        ExprKind::Square => ".".into(),
        ExprKind::Poi => "%".into(),
        ExprKind::OffBoard => "#".into(),
        ExprKind::AnySquare => "_".into(),
        ExprKind::Place { file, rank } => format!("@{file:?}{rank:?}"),
        ExprKind::Region(name) => format!("@{name}"),
        ExprKind::Word(w) => w.clone(),
        ExprKind::Piece(c) => c.to_string(),
    }
}

/// Parses one expression, failing the test with the errors if it does not parse.
fn expr(text: &str) -> Expr {
    match parse_expression(text) {
        Ok(e) => e,
        Err(errors) => panic!("{text:?} does not parse: {errors:?}"),
    }
}

/// The compact form of one expression.
fn shape(text: &str) -> String {
    sx(&expr(text))
}

/// Parses a rule file, failing the test with the errors if it does not parse.
fn file(text: &str) -> File {
    match parse_file(text) {
        Ok(f) => f,
        Err(errors) => panic!("{text:?} does not parse: {errors:?}"),
    }
}

/// The errors of an expression that must not parse.
fn expr_errors(text: &str) -> Vec<SyntaxError> {
    match parse_expression(text) {
        Ok(e) => panic!("{text:?} parses, as {}", sx(&e)),
        Err(errors) => errors,
    }
}

/// The errors of a rule file that must not parse.
fn file_errors(text: &str) -> Vec<SyntaxError> {
    match parse_file(text) {
        Ok(f) => panic!("{text:?} parses, into {} items", f.items.len()),
        Err(errors) => errors,
    }
}

/// Each definition of a file as `name = shape` (or `name(a, b) = shape`);
/// declarations are left out.
fn definitions(f: &File) -> Vec<String> {
    f.items
        .iter()
        .filter_map(|item| match item {
            Item::Definition(d) => {
                let params = if d.is_function {
                    let names: Vec<&str> = d.params.iter().map(|p| p.text.as_str()).collect();
                    format!("({})", names.join(", "))
                } else {
                    String::new()
                };
                Some(format!("{}{params} = {}", d.name.text, sx(&d.body)))
            }
            _ => None,
        })
        .collect()
}

/// The text a span covers.
fn text_at(text: &str, span: Span) -> &str {
    &text[span.start..span.end]
}

/// The span of the only occurrence of `needle` in `text`.
fn span_of(text: &str, needle: &str) -> Span {
    let start = text.find(needle).expect("needle present");
    assert_eq!(
        text.rfind(needle),
        Some(start),
        "{needle:?} occurs more than once"
    );
    Span::new(start, start + needle.len())
}

/// The repetition parameters of an expression that must be a repetition.
fn repeat_of(text: &str) -> (u32, Option<u32>, RepeatSyntax, String) {
    match expr(text).kind {
        ExprKind::Repeat {
            body,
            min,
            max,
            syntax,
        } => (min, max, syntax, sx(&body)),
        other => panic!("{text:?} is not a repetition: {other:?}"),
    }
}

/// The exponent and base of an expression that must be a power.
fn power_of(text: &str) -> (i64, String) {
    match expr(text).kind {
        ExprKind::Power { base, exponent } => (exponent, sx(&base)),
        other => panic!("{text:?} is not a power: {other:?}"),
    }
}

// ---- precedence ------------------------------------------------------------

#[test]
fn poi_bind_takes_everything_to_its_right() {
    assert_eq!(shape("%♙: a -> b / c | d"), "(bind ♙ (/ (-> a b) (| c d)))");
    assert_eq!(shape("%p: a b"), "(bind p (seq a b))");
}

#[test]
fn poi_bind_piece_may_be_a_group_with_marks() {
    assert_eq!(shape("%(♙ | ♟)°: a"), "(bind (mark ° (group (| ♙ ♟))) a)");
}

#[test]
fn ordered_choice_is_looser_than_arrow() {
    assert_eq!(shape("a -> b / c -> d"), "(/ (-> a b) (-> c d))");
    assert_eq!(shape("a / b / c"), "(/ a b c)");
}

#[test]
fn arrow_right_side_takes_a_union() {
    assert_eq!(shape("f -> g | h"), "(-> f (| g h))");
    assert_eq!(shape("f | g -> h"), "(-> (| f g) h)");
}

#[test]
fn poi_bind_after_an_operator_needs_brackets() {
    assert_eq!(shape("a | (%♙: b)"), "(| a (group (bind ♙ b)))");
    let errors = expr_errors("a | %♙: b");
    assert!(
        matches!(errors.as_slice(), [SyntaxError::Expected { .. }]),
        "{errors:?}"
    );
}

#[test]
fn arrow_does_not_chain() {
    let errors = expr_errors("a -> b -> c");
    match errors.as_slice() {
        [SyntaxError::Expected { span, found, .. }] => {
            assert_eq!(*span, Span::new(7, 9));
            assert_eq!(found, "`->`");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn union_is_looser_than_glue() {
    assert_eq!(shape("a + b | c + d"), "(| (+ a b) (+ c d))");
    assert_eq!(shape("a | b | c"), "(| a b c)");
}

#[test]
fn glue_is_looser_than_juxtaposition() {
    assert_eq!(shape("a b + c d"), "(+ (seq a b) (seq c d))");
    assert_eq!(shape("a + b + c"), "(+ a b c)");
}

#[test]
fn postfix_binds_tighter_than_juxtaposition() {
    assert_eq!(shape("a b*"), "(seq a (rep 0.. Star b))");
    assert_eq!(shape("(a b)*"), "(rep 0.. Star (group (seq a b)))");
    assert_eq!(shape("a² b"), "(seq (pow 2 a) b)");
}

#[test]
fn plus_followed_by_space_is_repetition_then_juxtaposition() {
    assert_eq!(shape("M+ N"), "(seq (rep 1.. Plus M) N)");
}

#[test]
fn plus_with_spaces_or_before_an_operand_is_glue() {
    assert_eq!(shape("M + N"), "(+ M N)");
    assert_eq!(shape("M +N"), "(+ M N)");
    assert_eq!(shape("M+N"), "(+ M N)");
    assert_eq!(shape("M+(N)"), "(+ M (group N))");
    assert_eq!(shape("%+u."), "(+ % (seq u .))");
}

#[test]
fn plus_at_the_end_of_a_group_is_repetition() {
    assert_eq!(shape("(a+)"), "(group (rep 1.. Plus a))");
    assert_eq!(shape("a+ -> b"), "(-> (rep 1.. Plus a) b)");
}

// ---- repetition and powers -------------------------------------------------

#[test]
fn star_is_zero_or_more() {
    assert_eq!(repeat_of("u*"), (0, None, RepeatSyntax::Star, "u".into()));
}

#[test]
fn plus_is_one_or_more() {
    assert_eq!(repeat_of("u+"), (1, None, RepeatSyntax::Plus, "u".into()));
}

#[test]
fn question_mark_is_zero_or_one() {
    assert_eq!(repeat_of("u?"), (0, Some(1), RepeatSyntax::Optional, "u".into()));
}

#[test]
fn braces_with_one_count_are_exact() {
    assert_eq!(repeat_of("u{3}"), (3, Some(3), RepeatSyntax::Braces, "u".into()));
}

#[test]
fn braces_with_two_counts_are_a_range() {
    assert_eq!(
        repeat_of("u{2, 5}"),
        (2, Some(5), RepeatSyntax::Braces, "u".into())
    );
    assert_eq!(
        repeat_of("u{2,5}"),
        (2, Some(5), RepeatSyntax::Braces, "u".into())
    );
    assert_eq!(
        repeat_of("u{ 0 , 0 }"),
        (0, Some(0), RepeatSyntax::Braces, "u".into())
    );
}

#[test]
fn braces_with_open_upper_bound() {
    assert_eq!(repeat_of("u{2,}"), (2, None, RepeatSyntax::Braces, "u".into()));
}

#[test]
fn braces_with_open_lower_bound_start_at_zero() {
    assert_eq!(repeat_of("u{,4}"), (0, Some(4), RepeatSyntax::Braces, "u".into()));
}

#[test]
fn angle_brackets_are_exact() {
    assert_eq!(repeat_of("u<4>"), (4, Some(4), RepeatSyntax::Angle, "u".into()));
}

#[test]
fn repetition_suffixes_stack_left_to_right() {
    assert_eq!(shape("u{2}*"), "(rep 0.. Star (rep 2..2 Braces u))");
    assert_eq!(shape("u++ v"), "(seq (rep 1.. Plus (rep 1.. Plus u)) v)");
}

#[test]
fn bad_repetition_bounds_are_errors() {
    for text in ["u{5, 2}", "u{-1}", "u{1001}", "u{}", "u<>", "u{,}"] {
        let errors = expr_errors(text);
        assert!(
            matches!(errors.as_slice(), [SyntaxError::RepetitionBounds { .. }]),
            "{text:?}: {errors:?}"
        );
    }
    assert_eq!(repeat_of("u{1000}").1, Some(1000));
}

#[test]
fn superscript_square() {
    assert_eq!(power_of("u²"), (2, "u".into()));
}

#[test]
fn superscript_negative_power() {
    assert_eq!(power_of("u⁻¹"), (-1, "u".into()));
    assert_eq!(power_of("u²³"), (23, "u".into()));
}

#[test]
fn caret_power() {
    assert_eq!(power_of("u^3"), (3, "u".into()));
    assert_eq!(power_of("u^-1"), (-1, "u".into()));
}

#[test]
fn caret_power_in_parentheses() {
    assert_eq!(power_of("u^(-2)"), (-2, "u".into()));
    assert_eq!(power_of("(u r)^( 4 )"), (4, "(group (seq u r))".into()));
}

#[test]
fn malformed_powers_are_errors() {
    for text in ["u^", "u⁻", "u^1000001"] {
        let errors = expr_errors(text);
        assert!(
            matches!(errors.as_slice(), [SyntaxError::MalformedPower { .. }]),
            "{text:?}: {errors:?}"
        );
    }
    assert_eq!(power_of("u^1000000").0, 1_000_000);
}

// ---- marks -----------------------------------------------------------------

#[test]
fn mark_after_a_piece() {
    assert_eq!(shape("♔°"), "(mark ° ♔)");
    assert_eq!(shape("♔°ᵉ"), "(mark °ᵉ ♔)");
}

#[test]
fn mark_after_poi() {
    assert_eq!(shape("%ᵉ"), "(mark ᵉ %)");
}

#[test]
fn marks_come_before_repetition() {
    assert_eq!(shape("♖°*"), "(rep 0.. Star (mark ° ♖))");
}

#[test]
fn marks_in_a_file_that_declares_them() {
    let text = "mark °\nmark ᵉ expires\ncastle = ♔° + r. -> . + r♔\ntake = %ᵉ | ♙ᵉ\n";
    let f = file(text);
    assert_eq!(f.items.len(), 4);
    assert!(!matches!(f.items[0], Item::Definition(_)));
    assert!(!matches!(f.items[1], Item::Definition(_)));
    assert_eq!(
        definitions(&f),
        [
            "castle = (-> (+ (mark ° ♔) (seq r .)) (+ . (seq r ♔)))",
            "take = (| (mark ᵉ %) (mark ᵉ ♙))",
        ]
    );
}

// ---- guards, calls, atoms --------------------------------------------------

#[test]
fn guard_that_holds() {
    assert_eq!(shape("?{u enemy}"), "(?{} (seq u enemy))");
}

#[test]
fn guard_that_fails() {
    assert_eq!(shape("!{a | b}"), "(!{} (| a b))");
}

#[test]
fn guard_right_after_an_operand_is_not_an_optional() {
    assert_eq!(shape("a?{b}"), "(seq a (?{} b))");
    assert_eq!(shape("a!{b}"), "(seq a (!{} b))");
}

#[test]
fn call_with_arguments() {
    assert_eq!(shape("f(a, b c)"), "(call f a (seq b c))");
    assert_eq!(shape("f(g(x))*"), "(rep 0.. Star (call f (call g x)))");
}

#[test]
fn call_name_and_span() {
    let text = "x flipped(a | b, c) y";
    match expr(text).kind {
        ExprKind::Juxtapose(xs) => match &xs[1].kind {
            ExprKind::Call { name, args } => {
                assert_eq!(name.text, "flipped");
                assert_eq!(text_at(text, name.span), "flipped");
                assert_eq!(args.len(), 2);
                assert_eq!(text_at(text, xs[1].span), "flipped(a | b, c)");
            }
            other => panic!("not a call: {other:?}"),
        },
        other => panic!("not a juxtaposition: {other:?}"),
    }
}

#[test]
fn name_with_space_before_bracket_is_not_a_call() {
    assert_eq!(shape("f (a)"), "(seq f (group a))");
}

#[test]
fn atoms() {
    assert_eq!(expr("nil").kind, ExprKind::Nil);
    assert_eq!(expr("0").kind, ExprKind::Empty);
    assert_eq!(expr("1").kind, ExprKind::Identity);
    assert_eq!(expr(".").kind, ExprKind::Square);
    assert_eq!(expr("%").kind, ExprKind::Poi);
    assert_eq!(expr("#").kind, ExprKind::OffBoard);
    assert_eq!(expr("ur").kind, ExprKind::Word("ur".into()));
    assert_eq!(expr("_x1").kind, ExprKind::Word("_x1".into()));
    assert_eq!(expr("♞").kind, ExprKind::Piece('♞'));
}

#[test]
fn atoms_in_sequence() {
    assert_eq!(shape("nil 0 1 . % # nils"), "(seq nil 0 1 . % # nils)");
    assert_eq!(shape("u.%#"), "(seq u . % #)");
    assert_eq!(shape("♙♟"), "(seq ♙ ♟)");
}

#[test]
fn numbers_other_than_zero_and_one_are_errors() {
    for text in ["2", "10", "01"] {
        let errors = expr_errors(text);
        assert!(
            matches!(errors.as_slice(), [SyntaxError::Expected { .. }]),
            "{text:?}: {errors:?}"
        );
    }
}

// ---- layout ----------------------------------------------------------------

#[test]
fn indented_lines_continue_a_definition() {
    let f = file("pawn = %♙: ( a\n         | b )\n\t+ c\n");
    assert_eq!(definitions(&f), ["pawn = (bind ♙ (+ (group (| a b)) c))"]);
}

#[test]
fn blank_lines_and_comment_lines_inside_a_definition() {
    let f = file("a = b\n\n   c\n// a note at column 0\n   d\n");
    assert_eq!(definitions(&f), ["a = (seq b c d)"]);
}

#[test]
fn column_zero_lines_start_new_items() {
    let f = file("a = b\nc = d e\n");
    assert_eq!(definitions(&f), ["a = b", "c = (seq d e)"]);
}

#[test]
fn comments_are_ignored() {
    let text = "// header\n\na = b // after b\n  // indented comment\n  | c\n// between\nd(x, y) = x // end";
    let f = file(text);
    assert_eq!(definitions(&f), ["a = (| b c)", "d(x, y) = x"]);
}

#[test]
fn file_without_trailing_newline_and_with_crlf() {
    let f = file("a = b\r\n  c\r\nd = e");
    assert_eq!(definitions(&f), ["a = (seq b c)", "d = e"]);
}

#[test]
fn empty_and_comment_only_files_have_no_items() {
    assert_eq!(file("").items, []);
    assert_eq!(file("// nothing\n\n   \n").items, []);
}

#[test]
fn indented_definition_is_a_continuation_and_an_error() {
    let text = "a = b\n  c = d\n";
    let errors = file_errors(text);
    assert_eq!(errors.len(), 1);
    match &errors[0] {
        SyntaxError::Expected { span, found, .. } => {
            assert_eq!(found, "`=`");
            assert_eq!(
                *span,
                Span::new(text.rfind('=').unwrap(), text.rfind('=').unwrap() + 1)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn function_definition_with_parameters() {
    let f = file("f(a, b) = a b\n");
    match &f.items[..] {
        [Item::Definition(d)] => {
            assert!(d.is_function);
            let names: Vec<&str> = d.params.iter().map(|p| p.text.as_str()).collect();
            assert_eq!(names, ["a", "b"]);
            assert_eq!(d.params[1].span, Span::new(5, 6));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn function_definition_without_parameters() {
    let text = "f() = u r\ng( ) = f()\n";
    let f = file(text);
    assert_eq!(definitions(&f), ["f() = (seq u r)", "g() = (call f)"]);
    let Item::Definition(d) = &f.items[0] else {
        panic!("{:?}", f.items)
    };
    assert!(d.is_function && d.params.is_empty());
    assert_eq!(text_at(text, d.span), "f() = u r");
}

#[test]
fn call_without_arguments() {
    assert_eq!(shape("f()"), "(call f)");
    assert_eq!(
        shape("f( )* g(f())"),
        "(seq (rep 0.. Star (call f)) (call g (call f)))"
    );
    let text = "a f() b";
    let ExprKind::Juxtapose(xs) = expr(text).kind else {
        panic!()
    };
    assert_eq!(text_at(text, xs[1].span), "f()");
    // With a space, `()` is an empty group, which is not an expression.
    match expr_errors("f ()").as_slice() {
        [SyntaxError::Expected { span, .. }] => assert_eq!(*span, Span::new(3, 4)),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        expr_errors("f(a,)").as_slice(),
        [SyntaxError::Expected { .. }]
    ));
}

// ---- spans -----------------------------------------------------------------

#[test]
fn sub_expression_spans_cover_their_text() {
    let text = "a (b + c)* | d";
    let e = expr(text);
    assert_eq!(e.span, Span::new(0, text.len()));
    let ExprKind::Union(xs) = &e.kind else {
        panic!("{}", sx(&e))
    };
    assert_eq!(text_at(text, xs[0].span), "a (b + c)*");
    assert_eq!(text_at(text, xs[1].span), "d");
    let ExprKind::Juxtapose(seq) = &xs[0].kind else {
        panic!("{}", sx(&xs[0]))
    };
    assert_eq!(seq[1].span, span_of(text, "(b + c)*"));
    let ExprKind::Repeat { body: group, .. } = &seq[1].kind else {
        panic!("{}", sx(&seq[1]))
    };
    assert_eq!(group.span, span_of(text, "(b + c)"));
    let ExprKind::Group(glue) = &group.kind else {
        panic!("{}", sx(group))
    };
    assert_eq!(glue.span, span_of(text, "b + c"));
}

#[test]
fn spans_count_bytes_of_multibyte_symbols() {
    let text = "♙° ♘²";
    let ExprKind::Juxtapose(xs) = expr(text).kind else {
        panic!()
    };
    assert_eq!(xs[0].span, Span::new(0, "♙°".len()));
    assert_eq!(text_at(text, xs[1].span), "♘²");
    let ExprKind::Marked { body, .. } = &xs[0].kind else {
        panic!()
    };
    assert_eq!(body.span, Span::new(0, '♙'.len_utf8()));
}

#[test]
fn spans_exclude_trailing_space_and_comments() {
    let text = "a   b   // note\n";
    let e = expr(text);
    assert_eq!(text_at(text, e.span), "a   b");
}

#[test]
fn spans_in_a_file_are_offsets_into_the_whole_file() {
    let text = "// header\nfirst = x\nsecond = y\n  -> (z | w)? // comment\nthird = v\n";
    let f = file(text);
    let [_, Item::Definition(d), _] = &f.items[..] else {
        panic!("{:?}", f.items)
    };
    assert_eq!(text_at(text, d.span), "second = y\n  -> (z | w)?");
    assert_eq!(text_at(text, d.name.span), "second");
    assert_eq!(text_at(text, d.body.span), "y\n  -> (z | w)?");
    let ExprKind::Arrow { lhs, rhs } = &d.body.kind else {
        panic!("{}", sx(&d.body))
    };
    assert_eq!(lhs.span, span_of(text, "y"));
    assert_eq!(rhs.span, span_of(text, "(z | w)?"));
}

#[test]
fn expression_spans_across_lines_and_comments() {
    let text = "a // one\n| b";
    let e = expr(text);
    assert_eq!(sx(&e), "(| a b)");
    let ExprKind::Union(xs) = &e.kind else { panic!() };
    assert_eq!(xs[1].span, Span::new(text.len() - 1, text.len()));
    assert_eq!(e.span, Span::new(0, text.len()));
}

// ---- errors ----------------------------------------------------------------

#[test]
fn every_broken_item_is_reported() {
    let text = "a = (b\nok = c\nd = e |\nf = g\n";
    let errors = file_errors(text);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(
        errors[0],
        SyntaxError::Unclosed {
            span: span_of(text, "("),
            expected: ')'
        }
    );
    match &errors[1] {
        SyntaxError::Expected { span, expected, .. } => {
            assert_eq!(expected, "an expression");
            // Right after the `|`, where the line ends.
            let after = text.find("d = e |").unwrap() + "d = e |".len();
            assert_eq!(*span, Span::new(after, after + 1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unclosed_bracket() {
    let errors = expr_errors("a (b | {c");
    assert_eq!(
        errors,
        [SyntaxError::Unclosed {
            span: Span::new(7, 8),
            expected: '}'
        }]
    );
}

#[test]
fn unopened_and_mismatched_brackets() {
    assert_eq!(
        expr_errors("a)"),
        [SyntaxError::Unopened {
            span: Span::new(1, 2),
            found: ')'
        }]
    );
    assert_eq!(
        expr_errors("(a}"),
        [SyntaxError::Mismatched {
            span: Span::new(2, 3),
            open: Span::new(0, 1),
            expected: ')',
            found: '}'
        }]
    );
}

#[test]
fn brackets_in_comments_do_not_count() {
    assert_eq!(definitions(&file("a = b // (\n")), ["a = b"]);
    assert_eq!(shape("a // (\n b"), "(seq a b)");
}

#[test]
fn brackets_in_strings_and_names_do_not_count() {
    let text = "import \"a(.alg\"\ngame Foo :) (\nboard\n  . ( :\n  } .\nx = u // )\n";
    let f = file(text);
    let [
        Item::Declaration(Declaration::Import(import)),
        Item::Declaration(Declaration::Game(game)),
        Item::Declaration(Declaration::Board(board)),
        Item::Definition(_),
    ] = &f.items[..]
    else {
        panic!("{:?}", f.items)
    };
    assert_eq!(import.path.text, "a(.alg");
    assert_eq!(game.name.text, "Foo :) (");
    let rows: Vec<&str> = board.rows.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(rows, [". ( :", "} ."]);
    // A string that is not closed ends with its line.
    assert_eq!(
        file_errors("import \"a(\nx = (u\n").last(),
        Some(&SyntaxError::Unclosed {
            span: Span::new(15, 16),
            expected: ')'
        })
    );
}

#[test]
fn brackets_still_count_in_definitions_named_like_declarations() {
    // `game = ...` and `board(x) = ...` are definitions: their brackets count.
    for (text, at) in [
        ("game = (u\n", 7),
        ("board(x) = (x\n", 11),
        ("board\n  (x) = (x\n", 14),
        ("game\t(u\n", 5),
    ] {
        match file_errors(text).as_slice() {
            [SyntaxError::Unclosed { span, .. }] => assert_eq!(span.start, at, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
    assert_eq!(
        definitions(&file("game = u\nboard(x) = x\n")),
        ["game = u", "board(x) = x"]
    );
    // In an expression (for `--expr`) nothing is free text.
    assert!(matches!(
        expr_errors("game (").as_slice(),
        [SyntaxError::Unclosed { .. }]
    ));
}

#[test]
fn operator_without_right_operand() {
    // Reported right after the operator, not after the spaces that follow.
    for (text, at) in [
        ("a ->", 4),
        ("a |", 3),
        ("a / ", 3),
        ("a + ", 3),
        ("a ->\n  // more\n", 4),
        ("%♙:", "%♙:".len()),
    ] {
        let errors = expr_errors(text);
        match errors.as_slice() {
            [SyntaxError::Expected { span, found, .. }] => {
                assert_eq!(span.start, at, "{text:?}");
                assert_eq!(found, "the end of the text", "{text:?}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn operator_without_right_operand_in_a_file() {
    // Reported right after the operator, where the line ends, not on the
    // line of the next item (where pest stops).
    let text = "a = b ->\n\n  // more to come\nc = d\n";
    let errors = file_errors(text);
    match errors.as_slice() {
        [
            SyntaxError::Expected {
                span,
                expected,
                found,
                help,
            },
        ] => {
            assert_eq!(expected, "an expression");
            assert_eq!(found, "the end of the line");
            assert_eq!(*span, Span::new(8, 9), "the line break after `->`");
            assert!(help.contains("starts with a space"), "{help}");
        }
        other => panic!("{other:?}"),
    }
    // Spaces and a comment after the operator, and the last item of a file.
    for (text, at, found) in [
        ("a = b |   // more\nc = d\n", 7, "the end of the line"),
        ("a = b |\r\nc = d\n", 7, "the end of the line"),
        ("c = d\na = b + ", 13, "the end of the text"),
        ("c = d\na = b +\n", 13, "the end of the line"),
    ] {
        match file_errors(text).as_slice() {
            [SyntaxError::Expected { span, found: f, .. }] => {
                assert_eq!((span.start, f.as_str()), (at, found), "{text:?}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn unfinished_declaration_is_reported_where_its_line_ends() {
    let text = "piece   \nx = u\n";
    match file_errors(text).as_slice() {
        [SyntaxError::Expected { span, found, .. }] => {
            assert_eq!(span.start, "piece".len());
            assert_eq!(found, "the end of the line");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn nesting_at_the_limit_parses() {
    // Run with the 8 MiB stack a program's main thread gets (where the CLI
    // parses); `parsing_at_the_limit_on_a_small_stack` tries a small one.
    let depth = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let text = format!("{}u{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
            let parsed = expr(&text);
            let mut e = &parsed;
            let mut depth = 0;
            while let ExprKind::Group(inner) = &e.kind {
                depth += 1;
                e = inner;
            }
            assert_eq!(e.kind, ExprKind::Word("u".into()));
            depth
        })
        .expect("a thread")
        .join()
        .expect("the parse does not panic");
    assert_eq!(depth, MAX_NESTING);
}

#[test]
fn nesting_beyond_the_limit_is_an_error() {
    let n = MAX_NESTING + 1;
    let text = format!("{}u{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(
        expr_errors(&text),
        [SyntaxError::TooDeep {
            span: Span::new(MAX_NESTING, MAX_NESTING + 1),
            limit: MAX_NESTING
        }]
    );
}

#[test]
fn deep_nesting_in_a_file_is_an_error() {
    let n = 10_000;
    let prefix = "a = ";
    let text = format!("{prefix}{}u{}\n", "?{(".repeat(n), ")}".repeat(n));
    let errors = file_errors(&text);
    match errors.as_slice() {
        [SyntaxError::TooDeep { span, limit }] => {
            assert_eq!(*limit, MAX_NESTING);
            // Each `?{(` opens two brackets; the one past the limit is the
            // `{` of the 33rd.
            let at = prefix.len() + 3 * (MAX_NESTING / 2) + 1;
            assert_eq!(*span, Span::new(at, at + 1));
        }
        other => panic!("{other:?}"),
    }
}

/// Runs `f` on a thread with a stack of `kib` KiB.
fn on_a_stack_of<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib << 10)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("the parse does not panic")
}

/// How many `%p:` bindings are nested at the top of an expression.
fn binding_depth(mut e: &Expr) -> usize {
    let mut depth = 0;
    loop {
        match &e.kind {
            ExprKind::PoiBind { body, .. } => {
                depth += 1;
                e = body;
            }
            ExprKind::Group(inner) => e = inner,
            _ => return depth,
        }
    }
}

#[test]
fn poi_bindings_at_the_limit_parse() {
    // On the 2 MiB stack of a test thread.
    let text = format!("x = {}nil\n", "%♙: ".repeat(MAX_NESTING));
    let f = file(&text);
    let [Item::Definition(d)] = &f.items[..] else {
        panic!("{:?}", f.items)
    };
    assert_eq!(binding_depth(&d.body), MAX_NESTING);
    // Brackets and bindings together, 32 of each.
    let n = MAX_NESTING / 2;
    let text = format!("{}nil{}", "(%♙: ".repeat(n), ")".repeat(n));
    assert_eq!(binding_depth(&expr(&text)), n);
}

#[test]
fn poi_bindings_beyond_the_limit_are_an_error() {
    // Far beyond the limit (this runs on a 2 MiB test thread): without the
    // pre-check, building the AST of a thousand overflows the stack, and
    // pest gives up on a hundred thousand with a misleading error.
    let prefix = "x = ";
    let binding = "%♙: ";
    let at = prefix.len() + MAX_NESTING * binding.len();
    let expected = [SyntaxError::TooDeepBinding {
        span: Span::new(at, at + binding.trim_end().len()),
        limit: MAX_NESTING,
    }];
    for n in [1_000, 100_000] {
        let text = format!("{prefix}{}nil\n", binding.repeat(n));
        assert_eq!(file_errors(&text), expected);
        assert_eq!(expr_errors(&text[prefix.len()..]).len(), 1);
    }
    // One binding per line, as a wrapped definition.
    let text = format!("x = {}nil\n", "%(♙ | ♟):\n  ".repeat(100_000));
    assert!(matches!(
        file_errors(&text).as_slice(),
        [SyntaxError::TooDeepBinding { .. }]
    ));
    // Brackets and bindings count together; the limit is passed at a bracket.
    let n = MAX_NESTING / 2 + 1;
    let text = format!("{}nil{}", "(%♙: ".repeat(n), ")".repeat(n));
    let at = (n - 1) * "(%♙: ".len();
    assert_eq!(
        expr_errors(&text),
        [SyntaxError::TooDeepBinding {
            span: Span::new(at, at + 1),
            limit: MAX_NESTING
        }]
    );
}

#[test]
fn poi_bindings_end_with_their_bracket_or_argument() {
    // Side by side, bindings do not nest.
    let n = 10 * MAX_NESTING;
    let text = format!("x = {}\n", "(%♙: u) ".repeat(n));
    let f = file(&text);
    let [Item::Definition(d)] = &f.items[..] else {
        panic!()
    };
    assert!(matches!(&d.body.kind, ExprKind::Juxtapose(xs) if xs.len() == n));
    let args = vec!["%♙: u"; n].join(", ");
    assert!(matches!(expr(&format!("f({args})")).kind, ExprKind::Call { args, .. } if args.len() == n));
    // A `:` that follows no `%` is not a binding: pest reports it.
    let text = format!("x = u {}\n", ": ".repeat(n));
    match file_errors(&text).as_slice() {
        [SyntaxError::Expected { span, .. }] => assert_eq!(span.start, 6),
        other => panic!("{other:?}"),
    }
}

#[test]
fn suffixes_at_the_limit_parse() {
    let e = expr(&format!("♖°{}", "*".repeat(MAX_NESTING)));
    let mut e = &e;
    let mut depth = 0;
    while let ExprKind::Repeat { body, .. } = &e.kind {
        depth += 1;
        e = body;
    }
    assert_eq!(depth, MAX_NESTING);
    assert_eq!(sx(e), "(mark ° ♖)");
}

#[test]
fn suffixes_beyond_the_limit_are_an_error() {
    // Far beyond the limit: without the cap, dropping the AST overflows the
    // stack (this runs on a 2 MiB test thread).
    for suffix in ["*", "+", "?", "{2}", "<1>", "^2", "²*"] {
        let step = if suffix == "²*" { 2 } else { 1 };
        let prefix = "x = u";
        let text = format!("{prefix}{}\n", suffix.repeat(100_000));
        // The 65th suffix (`²*` is two).
        let at = prefix.len() + MAX_NESTING / step * suffix.len();
        let len = if step == 2 { "²".len() } else { suffix.len() };
        assert_eq!(
            file_errors(&text),
            [SyntaxError::TooManySuffixes {
                span: Span::new(at, at + len),
                limit: MAX_NESTING
            }],
            "{suffix}"
        );
    }
    assert!(matches!(
        expr_errors(&format!("(u){}", "*".repeat(MAX_NESTING + 1))).as_slice(),
        [SyntaxError::TooManySuffixes { .. }]
    ));
}

#[test]
fn every_limit_at_once_parses() {
    // 32 brackets and 32 bindings, each bracket with the most suffixes: the
    // deepest tree the parser builds.
    let shape = on_a_stack_of(2048, || {
        let n = MAX_NESTING / 2;
        let stars = "*".repeat(MAX_NESTING);
        let text = format!(
            "x = {}u{stars}{}\n",
            "(%♙: ".repeat(n),
            format!("){stars}").repeat(n)
        );
        let f = file(&text);
        let [Item::Definition(d)] = &f.items[..] else {
            panic!()
        };
        let mut e = &d.body;
        let (mut groups, mut binds, mut repeats) = (0, 0, 0);
        loop {
            e = match &e.kind {
                ExprKind::Group(x) => {
                    groups += 1;
                    x
                }
                ExprKind::PoiBind { body, .. } => {
                    binds += 1;
                    body
                }
                ExprKind::Repeat { body, .. } => {
                    repeats += 1;
                    body
                }
                _ => break,
            };
        }
        (groups, binds, repeats)
    });
    let n = MAX_NESTING / 2;
    assert_eq!(shape, (n, n, (n + 1) * MAX_NESTING));
}

#[test]
fn parsing_at_the_limit_on_a_small_stack() {
    // pest and the AST builder recurse once per level; an unoptimised build
    // needs a few MiB at the limit, which the parser finds by growing its
    // stack instead of overflowing this one.
    let depth = on_a_stack_of(256, || {
        // Four brackets each: a call, a group, a guard and a group.
        let n = MAX_NESTING / 4;
        let text = format!("x = {}u{}\n", "f((?{(".repeat(n), ")}))".repeat(n));
        let f = file(&text);
        let [Item::Definition(d)] = &f.items[..] else {
            panic!()
        };
        let mut depth = 0;
        let mut todo = vec![(&d.body, 0)];
        while let Some((e, k)) = todo.pop() {
            depth = depth.max(k);
            match &e.kind {
                ExprKind::Group(x) | ExprKind::Guard { body: x, .. } => todo.push((x, k + 1)),
                ExprKind::Call { args, .. } => todo.extend(args.iter().map(|a| (a, k + 1))),
                _ => {}
            }
        }
        depth
    });
    assert_eq!(depth, MAX_NESTING);
}

#[test]
fn nested_calls_and_bindings_that_fail_parse_in_linear_time() {
    // Each of these used to be parsed again as a word (or `%`) and a group
    // at every level: 2^64 attempts at the limit.
    let n = MAX_NESTING;
    let failing_call = format!("x = {}u,{}\n", "f(".repeat(n), ")".repeat(n));
    let failing_bind = format!("x = {}u{}\n", "%(".repeat(n), "):".repeat(n));
    for text in [&failing_call, &failing_bind] {
        match file_errors(text).as_slice() {
            [SyntaxError::Expected { span, expected, .. }] => {
                assert_eq!(expected, "an expression");
                assert_eq!(text_at(text, *span), ")");
            }
            other => panic!("{other:?}"),
        }
    }
    // `%(...)` that is no binding: `%` and a group.
    let text = format!("{}u{}", "%(".repeat(n), ")".repeat(n));
    let mut e = expr(&text);
    for _ in 0..n {
        let ExprKind::Juxtapose(mut xs) = e.kind else {
            panic!("{}", sx(&e))
        };
        let Some(Expr {
            kind: ExprKind::Group(inner),
            ..
        }) = xs.pop()
        else {
            panic!()
        };
        assert_eq!(sx(&xs[0]), "%");
        e = *inner;
    }
    assert_eq!(sx(&e), "u");
}

#[test]
fn binding_lookahead_allows_what_a_binding_allows() {
    assert_eq!(shape("% ♙ : a"), "(bind ♙ a)");
    assert_eq!(
        shape("%(♙ // ) comment\n | ♟)°ᵉ // note\n : a"),
        "(bind (mark °ᵉ (group (| ♙ ♟))) a)"
    );
    let f = file("x = %(♙ // ) note\n   | ♟) // (\n   : a\n");
    assert_eq!(definitions(&f), ["x = (bind (group (| ♙ ♟)) a)"]);
    assert_eq!(shape("%_x1: a"), "(bind _x1 a)");
    assert_eq!(shape("%(a (b)): c"), "(bind (group (seq a (group b))) c)");
    // Not bindings: no `:` after the piece.
    assert_eq!(shape("%(a) b"), "(seq % (group a) b)");
    assert_eq!(shape("% ♙"), "(seq % ♙)");
}

#[test]
fn a_comment_may_follow_board() {
    let f = file("board   // the start\n    X.\n    .O\n");
    let [Item::Declaration(Declaration::Board(board))] = &f.items[..] else {
        panic!("{:?}", f.items)
    };
    let rows: Vec<&str> = board.rows.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(rows, ["X.", ".O"]);
}

#[test]
fn a_colour_in_a_region_keeps_the_squares_of_that_colour() {
    let f =
        file("region dark colour a1\nregion light_home a1-d1 colour b1\nregion odd colour a1 colour b1\n");
    let regions: Vec<&RegionDecl> = f
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Declaration(Declaration::Region(r)) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(regions[0].squares(3, 2), [(0, 0), (2, 0), (1, 1)]);
    assert_eq!(regions[1].squares(8, 8), [(1, 0), (3, 0)]);
    assert_eq!(regions[2].squares(2, 1), [(0, 0), (1, 0)]);
    let mut printed = String::new();
    regions[1].print(&mut printed);
    assert_eq!(printed, "region light_home a1-d1 colour b1\n");
    assert!(!file_errors("region x colour a1-b2\n").is_empty());
}
