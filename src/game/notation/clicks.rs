//! How a person plays a move on the board: the squares to click, in order.
//! A move's piece is clicked, then the squares it goes to (every landing of
//! a capture chain, where the notation traces it); a placement or a drop is
//! its square. Where that leaves several moves alike, the other squares each
//! changes are clicked after (an arrow shot, a second piece moved); what is
//! still alike (a promotion's piece) the page asks in a picker.

use smallvec::SmallVec;

use crate::core::{Coord, PieceId};
use crate::game::{Action, Game, State};

/// The squares a person clicks to play one move, in order (a few inline).
pub type Clicks = SmallVec<[Coord; 4]>;

impl Game {
    /// For each of `legal`, the squares a person clicks to play it, in
    /// order (empty for a pass or a move that changes no square).
    pub fn click_sequences(&self, state: &State, legal: &[Action]) -> Vec<Clicks> {
        click_sequences(self, state, legal)
    }
}

fn click_sequences(game: &Game, state: &State, legal: &[Action]) -> Vec<Clicks> {
    // Without boxes nothing is dropped.
    let boxes = game.pieces.box_count() > 0;
    let dropped: Vec<Option<(PieceId, Coord)>> = legal
        .iter()
        .map(|a| boxes.then(|| game.dropped_piece(state, a)).flatten())
        .collect();
    let mut clicks: Vec<Clicks> = legal
        .iter()
        .zip(&dropped)
        .map(|(a, d)| base_clicks(game, state, a, d.map(|(_, at)| at)))
        .collect();
    // The moves alike (the same piece dropped, the same squares), side by
    // side once sorted (a drop's square is its clicks' one).
    let mut order: Vec<usize> = (0..legal.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        dropped[a]
            .cmp(&dropped[b])
            .then_with(|| clicks[a].cmp(&clicks[b]))
    });
    let alike = |a: usize, b: usize| dropped[a] == dropped[b] && clicks[a] == clicks[b];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut start = 0;
    for k in 1..=order.len() {
        if k == order.len() || !alike(order[start], order[k]) {
            if k - start > 1 {
                groups.push(order[start..k].to_vec());
            }
            start = k;
        }
    }
    for group in groups {
        let extras: Vec<Vec<Coord>> = group
            .iter()
            .map(|&i| other_squares(&legal[i], &clicks[i]))
            .collect();
        if extras.iter().any(|e| e != &extras[0]) {
            for (&i, extra) in group.iter().zip(extras) {
                clicks[i].extend(extra);
            }
        }
    }
    clicks
}

/// The squares that say a move on their own: its piece's start and every
/// square it moved to; the square of a drop (`dropped`, where the piece
/// went) or a placement.
fn base_clicks(game: &Game, state: &State, action: &Action, dropped: Option<Coord>) -> Clicks {
    if action.is_pass() {
        return Clicks::new();
    }
    if let Some(at) = dropped {
        return SmallVec::from_slice(&[at]);
    }
    match (action.from(), action.to()) {
        (Some(from), Some(to)) if from != to => {
            let mut squares: Clicks = SmallVec::from_slice(&[from]);
            for &at in action.path() {
                if squares.last() != Some(&at) {
                    squares.push(at);
                }
            }
            if squares.last() != Some(&to) {
                squares.push(to);
            }
            squares
        }
        _ => game
            .placed_square(state, action)
            .or(action.from())
            .into_iter()
            .collect(),
    }
}

/// The board squares a move changes beyond `said`, in board order; the
/// square its piece left counts when something else was put there.
fn other_squares(action: &Action, said: &[Coord]) -> Vec<Coord> {
    let mut others: Vec<Coord> = action
        .changes()
        .iter()
        .filter(|c| {
            c.at.tally_slot().is_none()
                && (!said.contains(&c.at)
                    || (Some(c.at) == action.from()
                        && c.content != crate::core::Content::Empty
                        && action.from() != action.to()))
        })
        .map(|c| c.at)
        .collect();
    others.sort_by_key(|c| (c.y, c.x));
    others.dedup();
    others
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Cache;

    use crate::game::test_game as load;

    /// The click sequences of a position's moves, by the moves' names.
    fn sequences(path: &str, fen: Option<&str>) -> Vec<(String, Vec<String>)> {
        let game = load(path);
        let state = fen.map_or_else(|| game.initial(), |f| game.from_fen(f).unwrap());
        let legal = game.legal_actions(&state, &mut Cache::new()).unwrap();
        let names = game.move_names(&state, &legal);
        let clicks = click_sequences(&game, &state, &legal);
        names
            .into_iter()
            .zip(clicks)
            .map(|(n, c)| (n, c.into_iter().map(|at| game.square_label(at)).collect()))
            .collect()
    }

    fn clicks_of<'a>(all: &'a [(String, Vec<String>)], name: &str) -> &'a [String] {
        &all.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_move_is_its_piece_and_where_it_goes() {
        let all = sequences("rules/chess.alg", None);
        assert_eq!(clicks_of(&all, "e2e4"), ["e2", "e4"]);
        let all = sequences("rules/chess.alg", Some("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"));
        assert_eq!(clicks_of(&all, "e1g1"), ["e1", "g1"], "castling: the king's move");
    }

    #[test]
    fn promotions_share_their_squares_and_are_picked() {
        let all = sequences("rules/chess.alg", Some("k7/4P3/8/8/8/8/8/7K w - - 0 1"));
        for piece in ["q", "r", "b", "n"] {
            assert_eq!(clicks_of(&all, &format!("e7e8{piece}")), ["e7", "e8"]);
        }
    }

    #[test]
    fn a_capture_chain_is_clicked_landing_by_landing() {
        let all = sequences("rules/checkers.alg", Some("B:W14,22,23,30:B9"));
        assert_eq!(clicks_of(&all, "9x18x25"), ["9", "18", "25"]);
        assert_eq!(clicks_of(&all, "9x18x27"), ["9", "18", "27"]);
    }

    #[test]
    fn an_arrow_is_a_third_click_and_every_move_has_its_own_sequence() {
        let all = sequences("rules/amazons.alg", None);
        assert_eq!(clicks_of(&all, "a4a1/a2"), ["a4", "a1", "a2"]);
        // Shot back onto the square the amazon left.
        assert_eq!(clicks_of(&all, "a4a1/a4"), ["a4", "a1", "a4"]);
        let mut seen = std::collections::HashSet::new();
        assert!(all.iter().all(|(_, c)| seen.insert(c.clone())));
    }

    #[test]
    fn placements_and_drops_are_one_square() {
        let all = sequences("rules/tictactoe.alg", None);
        assert!(
            all.iter()
                .all(|(n, c)| c.len() == 1 && n.ends_with(c[0].as_str()))
        );
        let all = sequences("rules/crazyhouse.alg", Some("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"));
        assert_eq!(clicks_of(&all, "N@d4"), ["d4"]);
    }
}
