//! Tests of the walker on small programs.

use super::Walker;
use crate::ir::{Rules, Value};
use crate::program::{Program, compile};
use crate::source::Source;

/// The program of the move `expr` (the prelude's pieces).
pub(in crate::engine) fn program_of(expr: &str) -> Program {
    let rules = Rules::prelude();
    let Value::Move(m) = rules.expand(&Source::new("<test>", expr)).unwrap() else {
        panic!("not a move")
    };
    compile(&m, rules.pieces()).unwrap()
}

/// The walker of `expr`'s program on an 8 by 8 board.
fn walker(expr: &str) -> Walker {
    Walker::new(&program_of(expr), 8, 8).unwrap()
}

/// How many loop heads of `expr`'s program the walker runs as slides.
fn slides(expr: &str) -> usize {
    walker(expr).shapes.slides.iter().flatten().count()
}

/// How many rewrites of `expr`'s program the walker runs as steps.
fn steps(expr: &str) -> usize {
    walker(expr).shapes.steps.iter().flatten().count()
}

#[test]
fn a_move_of_the_piece_onto_one_square_is_a_step() {
    assert_eq!(
        steps("%♘: (% + uur(. | ♟) -> . + uur%) | (% + uul(. | ♟) -> . + uul%)"),
        2
    );
    // The piece stays, or two squares change besides it: the general matcher.
    assert_eq!(steps("%♕: % + u. -> % + u♙"), 0);
    assert_eq!(steps("%♙: % + r♟ + ur. -> . + r. + ur%"), 0);
}

#[test]
fn pieces_put_down_next_to_the_piece_and_slid_are_a_fan() {
    // (fans, of which counted without keys)
    let fans = |expr: &str| {
        let w = walker(expr);
        let fans: Vec<_> = w.shapes.fans.iter().flatten().collect();
        (fans.len(), fans.iter().filter(|f| f.keyless).count())
    };
    // (fans whose shoots all count the squares holding what they fly over)
    let uniform = |expr: &str| {
        walker(expr)
            .shapes
            .fans
            .iter()
            .flatten()
            .filter(|f| f.uniform.is_some())
            .count()
    };
    let arrow = |m: &str| format!("((% + {m}. -> % + {m}♙) (%♙: (% + {m}. -> . + {m}%)* (% -> ♜)))");
    let (u, d, uu) = (arrow("u"), arrow("d"), arrow("uu"));
    assert_eq!(fans(&format!("%♖: (% + r. -> . + r%)+ ({u} | {d})")), (1, 1));
    assert_eq!(uniform(&format!("%♖: (% + r. -> . + r%)+ ({u} | {d})")), 1);
    // An arrow that ends otherwise: counted without keys, shoot by shoot.
    let stays = "((% + l. -> % + l♙) (%♙: (% + l. -> . + l%)* (% -> ♜) (% -> ♜)))";
    assert_eq!(fans(&format!("%♖: (% + r. -> . + r%)+ ({u} | {stays})")), (1, 1));
    assert_eq!(uniform(&format!("%♖: (% + r. -> . + r%)+ ({u} | {stays})")), 0);
    // The move may take what an arrow leaves: two states could give one result.
    assert_eq!(fans(&format!("%♖: (% + r(. | ♜) -> . + r%) ({u} | {d})")), (1, 0));
    // Two arrows the same way: their rays meet.
    assert_eq!(fans(&format!("%♖: (% + r. -> . + r%) ({u} | {uu})")), (1, 0));
    assert_eq!(fans(&format!("%♖: (% + r. -> . + r%)* ({u} | {uu})")), (1, 0));
    // A result without an arrow.
    assert_eq!(fans(&format!("%♖: (% + r. -> . + r%) ({u} | {d} | nil)")), (0, 0));
    assert_eq!(
        fans(&format!(
            "(%♖: (% + r. -> . + r%) ({u} | {d})) | (%♖: % + l. -> . + l%)"
        )),
        (1, 0)
    );
}

#[test]
fn a_content_written_next_to_the_piece_is_a_stamp() {
    let stamps = |expr: &str| walker(expr).shapes.stamps.iter().flatten().count();
    assert_eq!(stamps("%♖: (% + r. -> % + r♙) | (% + u(. | ♟) -> % + u♟)"), 2);
    // The piece's square written with a content, or two squares besides it.
    assert_eq!(stamps("%♖: % + r. -> . + r♙"), 0);
    assert_eq!(stamps("%♖: % + r. + r². -> % + r♙ + r²♙"), 0);
}

#[test]
fn a_slide_over_empty_squares_is_a_ray() {
    assert_eq!(slides("%♖: (% + u. -> . + u%)* (% + u(. | ♟) -> . + u%)"), 1);
    assert_eq!(slides("%♖: (% + u. -> . + u%)* | (% + r. -> . + r%)*"), 2);
}

#[test]
fn other_loops_are_stepped() {
    // Over two contents: what it leaves behind is not what was there.
    assert_eq!(slides("%♖: (% + u(. | ♙) -> . + u%)*"), 0);
    // Leaves something else behind.
    assert_eq!(slides("%♖: (% + u. -> ♙ + u%)*"), 0);
    // Can come back: not a fixed step.
    assert_eq!(slides("%♖: ((% + u. -> . + u%) | (% + d. -> . + d%))*"), 0);
}

#[test]
fn a_piece_moved_by_one_rewrite_is_also_a_choice_of_rewrites() {
    // Whether the moves have a traced plan whose results are distinct
    // (which then lists and counts them), or one at all (which says
    // whether there is one).
    let traced = |expr: &str| {
        let w = walker(expr);
        crate::engine::choice::compile::traced_plan(w.program(), 8, 8).ok()
    };
    let as_sets = |expr: &str| traced(expr).is_some_and(|p| p.distinct);
    assert!(as_sets("%(♙|♘): (% + u. -> . + u%) | (% + ur♟ -> . + ur♕)"));
    // Two rewrites in turn, a loop, a rewrite away from the piece.
    assert!(!as_sets("%♙: (% + u. -> . + u%) (% + u. -> . + u%)"));
    assert!(!as_sets("%♖: (% + u. -> . + u%)+"));
    assert!(!as_sets("%♙: ♟ -> ."));
    // Two alternatives that may make the same move.
    assert!(!as_sets("%♖: (% + u. -> . + u%) | (% + u(. | ♟) -> . + u%)"));
    // The piece may stay where it is without a change: a move of its own.
    assert!(as_sets("%♖: (% + u. -> . + u%) | nil"));
    // Staying, and promoting where it stands: the same step, for tests only.
    assert!(!as_sets("%♙: (% -> ♕) | nil"));
    assert!(traced("%♙: (% -> ♕) | nil").is_some());
    // Choices of binds; a choice made after the move at most once.
    assert!(as_sets(
        "(%♙: (% + u. -> . + u%) ((% + u# -> ♕ + u#) / nil)) | (%♘: % + uur. -> . + uur%)"
    ));
    // One that may make two moves.
    assert!(!as_sets(
        "%♙: (% + u. -> . + u%) (((% + r. -> % + r♟) | (% + l. -> % + l♟)) / nil)"
    ));
}

#[test]
fn ordered_choices_of_rewrites_run_in_line_and_guards_at_the_piece_use_square_sets() {
    // How many ordered choices run in line, how many guards use square sets.
    let shape = |expr: &str| {
        let w = walker(expr);
        let guards = w.prog.insts.iter().filter(
            |i| matches!(i, crate::program::Inst::Guard { sub, .. } if w.plans.poi_plans[sub.index()].is_some()),
        );
        (w.shapes.in_line.iter().flatten().count(), guards.count())
    };
    assert_eq!(
        shape(
            "%♖: (((% + u. -> . + u%) | (% + r. -> . + r%)) / nil) ?{(% + u♟ -> % + u♟) | (% + r. -> % + r.)}"
        ),
        (1, 1)
    );
    // An alternative that moves twice; a guard's rewrite away from the piece.
    assert_eq!(
        shape("%♖: (((% + u. -> . + u%) (% + u. -> . + u%)) / nil) !{♟ -> ♟}"),
        (0, 0)
    );
}

#[test]
fn the_first_rewrites_of_the_bound_pieces_are_a_plan() {
    assert!(
        walker("%♙: (% + u♟ + u². -> . + u. + u²%)+ !{% + u♟ + u². -> . + u. + u²%}")
            .plans
            .entry
            .is_some()
    );
    assert!(
        walker("(%♙: (% + u. -> . + u%)+) | (%♘: (% + uur. -> . + uur%) (% + u. -> . + u%))")
            .plans
            .entry
            .is_some()
    );
    // A piece that may do nothing first, or a guard first.
    assert!(walker("%♙: (% + u. -> . + u%)*").plans.entry.is_none());
    assert!(
        walker("%♙: ?{% + u♟ -> % + u♟} (% + u. -> . + u%)")
            .plans
            .entry
            .is_none()
    );
}

#[test]
fn before_any_change_only_the_pieces_that_can_make_a_first_rewrite_are_bound() {
    use crate::engine::position::Position;
    use crate::engine::squares::SetScratch;
    // Pawns on a2 (a1 and a3 free), b2 (between b1 and b3), c2 and h8.
    let diagram = "
.......♙
........
........
........
........
.♟......
♙♙♙.....
.♟......
";
    let position = Position::from_diagram(diagram.trim_start(), Rules::prelude().pieces()).unwrap();
    let (a2, b2, c2, h8) = (1u128 << 8, 1u128 << 9, 1u128 << 10, 1u128 << 63);
    // The same moves written from the piece's square or from another one
    // (so that the plan measures from a square that is not the piece's).
    for (expr, expected) in [
        ("%♙: % + u. -> . + u%", a2 | c2),
        ("%♙: u. + % -> u% + .", a2 | c2),
        ("%♙: % + d. -> . + d%", a2 | c2 | h8),
        ("%♙: d. + % -> d% + .", a2 | c2 | h8),
        ("%♙: (% + u. -> . + u%) | (d♟ + % -> d% + .)", a2 | b2 | c2),
    ] {
        let w = walker(expr);
        let entry = w.plans.entry.as_ref().expect("a first rewrite");
        let mut sets = SetScratch::default();
        sets.load(&position, w.codes());
        assert_eq!(entry.poi_places(&sets.occupied), expected, "{expr}");
    }
}
