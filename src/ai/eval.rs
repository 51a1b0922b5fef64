//! The evaluation: what a position and a move are worth by the rule file's
//! declared values, each piece weighed by the scope it keeps (Prospects).

use crate::core::{Content, Coord, PlayerId};
use crate::game::{Action, Game, Prospects, State};

/// A piece's declared value in hundredths (0 for anything else).
pub(super) fn value_of(game: &Game, content: Content) -> i32 {
    match content {
        Content::Piece(p, _) => (game.piece_info(p).value.unwrap_or(0.0) * 100.0).round() as i32,
        _ => 0,
    }
}

/// What a move wins by the declared values alone: what it takes from the
/// other players, and what the mover's pieces gain in value where no piece
/// is added (a promotion). Placing a new piece (a drop, a stone) is not a
/// gain: in games made of placements it would make every move one.
pub(super) fn value_gain(game: &Game, state: &State, action: &Action) -> i32 {
    let (mut taken, mut own, mut added) = (0, 0, 0i32);
    for c in action.changes() {
        for (content, sign) in [(state.position().get(c.at), -1), (c.content, 1)] {
            if let Content::Piece(p, _) = content {
                match game.piece_info(p).owner {
                    Some(o) if o == state.turn() => {
                        own += sign * value_of(game, content);
                        added += sign;
                    }
                    Some(_) => taken -= sign * value_of(game, content),
                    None => {}
                }
            }
        }
    }
    if added > 0 { taken } else { taken + own }
}

/// The changes of `action` that take, put or move a piece with an owner
/// (those that decide an exchange), in order.
pub(super) fn owned_changes(game: &Game, state: &State, action: &Action) -> Vec<(Coord, Content)> {
    let owned = |c: Content| matches!(c, Content::Piece(p, _) if game.piece_info(p).owner.is_some());
    (action.changes().iter())
        .filter(|c| owned(c.content) || owned(state.position().get(c.at)))
        .map(|c| (c.at, c.content))
        .collect()
}

/// How many of `moves` count for mobility: those that move a piece on the
/// board (a piece of interest), where there are any; else all of them. A
/// drop from a hand is not counted: a player with pieces in hand has a
/// drop onto nearly every empty square, which says little about its
/// position and would make holding pieces look better than playing them.
pub(super) fn mobility(moves: &[Action]) -> usize {
    let moving = moves.iter().filter(|a| a.from().is_some()).count();
    if moving > 0 { moving } else { moves.len() }
}

/// Whether the player to move has a piece that is not royal and is worth
/// more than the least of its other pieces: where all it has left are its
/// least pieces (pawns and kings), zugzwang is common and a null move lies.
pub(super) fn has_more_than_least(game: &Game, state: &State) -> bool {
    let mut least = i32::MAX;
    let mut most = i32::MIN;
    for (_, c) in state.position().squares() {
        if let Content::Piece(p, _) = c {
            let info = game.piece_info(p);
            if info.owner == Some(state.turn()) && !info.royal {
                let v = value_of(game, c);
                least = least.min(v);
                most = most.max(v);
            }
        }
    }
    most > least
}

/// A piece's worth in hundredths, for `player`: positive if theirs. Half of
/// the declared value is the piece's own; the other half goes with the share
/// of its scope (the squares it could ever take on) it keeps where it stands,
/// so a piece that has run out of moves, or past what it could attack, in a
/// game whose pieces cannot come back, is worth less.
fn worth(game: &Game, prospects: &Prospects, at: Coord, content: Content, player: PlayerId) -> i32 {
    let Content::Piece(p, _) = content else { return 0 };
    let info = &game.piece_info(p);
    let value = value_of(game, content);
    let full = prospects.full_scope(p) as i32;
    let value = if full == 0 {
        value
    } else {
        value / 2 + value * prospects.scope(game, p, at) as i32 / full / 2
    };
    match info.owner {
        Some(o) if o == player => value,
        Some(_) => -value,
        None => 0,
    }
}

/// What `count` pieces in tally slot `slot` (one piece in one box: a hand)
/// are worth in hundredths, for `player`: each its full declared value,
/// positive if its owner is `player`. A piece in a box has no square to
/// keep a scope from; it can be put where it is worth most.
fn boxed_worth(game: &Game, slot: usize, count: i32, player: PlayerId) -> i32 {
    let (_, piece) = game.pieces().slot_of(slot);
    let info = game.piece_info(piece);
    let value = (info.value.unwrap_or(0.0) * 100.0).round() as i32 * count;
    match info.owner {
        Some(o) if o == player => value,
        Some(_) => -value,
        None => 0,
    }
}

/// The material balance for the player to move, in hundredths of a value
/// point, each piece on the board weighed by the scope it keeps, each piece
/// in a box by its declared value.
pub fn material(game: &Game, prospects: &Prospects, state: &State) -> i32 {
    let position = state.position();
    let on_board: i32 = (position.squares())
        .map(|(at, c)| worth(game, prospects, at, c, state.turn()))
        .sum();
    let boxed: i32 = (position.tallies())
        .map(|(slot, n)| boxed_worth(game, slot, n as i32, state.turn()))
        .sum();
    on_board + boxed
}

/// How much a move changes the mover's material balance (captures,
/// promotions, pieces put into or taken out of a box, and the scope the
/// moved pieces keep).
pub(super) fn material_gain(game: &Game, prospects: &Prospects, state: &State, action: &Action) -> i32 {
    let position = state.position();
    (action.changes().iter())
        .map(|c| match (c.at.tally_slot(), c.content) {
            (Some(slot), Content::Count(n)) => {
                let before = position.tally(slot) as i32;
                boxed_worth(game, slot, n as i32 - before, state.turn())
            }
            (Some(_), _) => 0,
            (None, content) => {
                worth(game, prospects, c.at, content, state.turn())
                    - worth(game, prospects, c.at, position.get(c.at), state.turn())
            }
        })
        .sum()
}
