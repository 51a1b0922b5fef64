//! The algebra's laws, checked on expansions of expression text: movement
//! normalisation, rotation about the middle of the origin square, and the
//! canonical text parsing back to the same IR.

use chessalg::ir::{Expanded, Rules, Value, print};
use chessalg::source::Source;
use proptest::prelude::*;

fn expand(rules: &Rules, text: &str) -> Value {
    rules
        .expand(&Source::new("<expr>", text))
        .unwrap_or_else(|p| panic!("{text}: {:?}", p.list))
}

fn same(a: &str, b: &str) {
    let rules = Rules::prelude();
    assert_eq!(expand(&rules, a), expand(&rules, b), "{a} should equal {b}");
}

fn canonical(text: &str) -> String {
    let rules = Rules::prelude();
    print::value(&expand(&rules, text), rules.pieces())
}

#[test]
fn four_quarter_turns_are_the_identity() {
    same("R⁴", "1");
    same("R^4", "1");
    same("RRRR", "1");
    assert_ne!(canonical("R³"), "1");
}

#[test]
fn translations_commute() {
    same("ur", "ru");
    same("ur.", "ru.");
    same("uurd ♙", "ur ♙");
}

#[test]
fn inverses_cancel() {
    same("u⁻¹u", "1");
    same("u^-1 u", "1");
    same("(ur)⁻¹", "dl");
    same("R⁻¹", "R³");
}

#[test]
fn rotation_turns_about_the_middle_of_the_origin_square() {
    same("R.", ".");
    same("R u.", "l.");
    same("R r.", "u.");
    same("R² u.", "d.");
    same("R(. + u.)", ". + l.");
}

#[test]
fn identity_and_empty_fragment() {
    same("1u.", "u.");
    same("u1.", "u.");
    same("♙ + 0", "♙");
    same("u 0", "0");
}

#[test]
fn movements_distribute_over_gluing() {
    same("u(♙ + r.)", "u♙ + ur.");
}

#[test]
fn a_movement_parameter_applies_to_a_bracketed_operand_as_a_movement_does() {
    let file = "step(m) = % + m(. | ♟) -> . + m%\nstep_ur = step(ur)\n";
    let (rules, _) = Rules::load(&Source::new("steps.alg", file)).unwrap_or_else(|p| panic!("{:?}", p.list));
    assert_eq!(
        expand(&rules, "step_ur"),
        expand(&rules, "% + ur(. | ♟) -> . + ur%"),
    );
    // A parameter that holds a fragment is not applied.
    let wrong = "g(x) = x(u.)\nh = g(♙)\n";
    let problems = Rules::load(&Source::new("wrong.alg", wrong)).unwrap_err();
    assert!(
        format!("{:?}", problems.list).contains("holds a fragment"),
        "{:?}",
        problems.list
    );
}

#[test]
fn gluing_commutes() {
    same("♙ + u.", "u. + ♙");
}

#[test]
fn nil_is_the_unit_of_sequence() {
    same("nil (♙ -> .)", "♙ -> .");
    same("(♙ -> .) nil", "♙ -> .");
    same("(♙ -> .){0}", "nil");
}

#[test]
fn repetitions_are_one_node() {
    assert_eq!(canonical("(♙ -> .){0, 1}"), "(♙ -> .)?");
    assert_eq!(canonical("(♙ -> .){0,}"), "(♙ -> .)*");
    assert_eq!(canonical("(♙ -> .){1,}"), "(♙ -> .)+");
    assert_eq!(canonical("(♙ -> .)<3>"), "(♙ -> .){3}");
    assert_eq!(canonical("(♙ -> .){2, 4}"), "(♙ -> .){2, 4}");
}

#[test]
fn arrow_takes_the_union_on_its_right() {
    same("♙ -> ♕ | ♖", "♙ -> (♕ | ♖)");
}

#[test]
fn colour_swapped_and_flipped() {
    same("colour_swapped(♙ + ur♟ -> . + ur♙)", "♟ + ur♙ -> . + ur♟");
    same("flipped(♙ + u. -> . + u♙)", "♟ + d. -> . + d♟");
    same("colour_swapped(colour_swapped(♙ + ur♚))", "♙ + ur♚");
    same("flipped(%♙: % -> .)", "%♟: % -> .");
}

/// The seed's rules, printed canonically, parse back to the same IR.
#[test]
fn canonical_text_parses_back() {
    let text = std::fs::read_to_string("tests/data/seed/seed003.alg").unwrap();
    let (rules, _) = Rules::load(&Source::new("seed003.alg", text)).unwrap();
    for (name, e) in rules.definitions() {
        if let Expanded::Value(v) = e {
            let printed = print::value(v, rules.pieces());
            let again = rules
                .expand(&Source::new(name.as_str(), printed.as_str()))
                .unwrap_or_else(|p| panic!("{name}: {printed}: {:?}", p.list));
            assert_eq!(&again, v, "{name}: {printed}");
        }
    }
}

proptest! {
    /// Any movement word, raised to any power, normalises so that m m⁻¹ = 1.
    #[test]
    fn movement_words_normalise(word in "[udlrR]{1,12}", k in -6i64..6) {
        let rules = Rules::prelude();
        let m = expand(&rules, &format!("({word})^{k} ({word})^{} ", -k));
        prop_assert_eq!(print::value(&m, rules.pieces()), "1");
    }

    /// No input makes parsing or expansion panic.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}") {
        let source = Source::new("fuzz", text.as_str());
        let _ = Rules::load(&source);
        let _ = Rules::prelude().expand(&source);
    }

    /// Text made of the notation's own characters never panics either.
    #[test]
    fn notation_soup_never_panics(text in "[ .%#0-9udlrRx♙♟♖(){}<>|+*?!/:=,^²⁻¹\n-]{0,60}") {
        let source = Source::new("fuzz", text.as_str());
        let _ = Rules::load(&source);
        let _ = Rules::prelude().expand(&source);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("x = {}.{}", "(".repeat(5000), ")".repeat(5000));
    assert!(Rules::load(&Source::new("deep", deep)).is_err());
    let stacked_suffixes = format!("x = (. -> ♙){}", "{2}".repeat(3000));
    assert!(Rules::load(&Source::new("deep", stacked_suffixes)).is_err());
    let guards = format!("x = {}nil{}", "?{".repeat(5000), "}".repeat(5000));
    assert!(Rules::load(&Source::new("deep", guards)).is_err());
}

#[test]
fn long_chains_of_definitions_are_bounded() {
    let mut text = String::from("d0 = . -> ♙\n");
    for i in 1..2000 {
        text.push_str(&format!("d{i} = (d{})\n", i - 1));
    }
    let _ = Rules::load(&Source::new("chain", text));
    let mut doubling = String::from("d0 = . -> ♙\n");
    for i in 1..40 {
        doubling.push_str(&format!("d{i} = d{} d{}\n", i - 1, i - 1));
    }
    assert!(Rules::load(&Source::new("doubling", doubling)).is_err());
}
