//! Names of squares and moves: `e2`, `e2e4`, `e7e8q`.

pub(super) mod clicks;
mod error;
pub(super) mod fen;
pub(super) mod numbered;
pub mod pgn;
pub(super) mod san;

pub use error::{FenError, MoveInputError};

use super::{Action, BoardBox, Game, State};
use crate::core::{Content, Coord};
use crate::decl::Notation;

/// A square's name: file letter from the left of the initial board, rank
/// number from its bottom (`a1` is the bottom-left corner).
pub fn square_name(frame_x0: i32, frame_y0: i32, at: Coord) -> String {
    let file = (at.x - frame_x0) as u32;
    let letter = char::from_u32('a' as u32 + file)
        .filter(char::is_ascii_lowercase)
        .unwrap_or('?');
    format!("{letter}{}", at.y - frame_y0 + 1)
}

pub(crate) fn name(frame: &BoardBox, at: Coord) -> String {
    square_name(frame.x0, frame.y0, at)
}

/// The square a name such as `e4` stands for.
pub(crate) fn parse_square(frame: &BoardBox, text: &str) -> Option<Coord> {
    let mut chars = text.chars();
    let file = chars.next().filter(char::is_ascii_lowercase)? as u32 - 'a' as u32;
    let rank: u32 = chars.as_str().parse().ok()?;
    if file >= frame.files || rank == 0 || rank > frame.ranks {
        return None;
    }
    Some(Coord::new(frame.x0 + file as i32, frame.y0 + rank as i32 - 1))
}

/// `pass` for a pass, and for a move that changes nothing (`nil`) without a
/// piece of interest; such a move of a piece by the piece's square twice
/// (`e2e2`: Janggi's pass, as Fairy-Stockfish names it); under `notation
/// coordinates partner`, a piece's move with a partner by the two pieces' start squares (`e1h1`), and so
/// a move written as a piece's with a royal partner (castling as the rook's
/// move, `h1e1`) under any notation; a piece put from a box on the square
/// the piece left adds its letter (`h1e1h`); `e2e4`,
/// with the lower-case FEN letter (or the
/// symbol) of the piece the mover became when it changed (`e7e8q`); a move
/// whose piece of interest stayed where it was (or that has none) and that
/// puts a piece on one empty square is named by that square (`c4`); any
/// other by its changes (`e4=♙,d5=.`).
pub(crate) fn coordinate(game: &Game, state: &State, action: &Action) -> String {
    // A move that changes nothing (`nil`) is a pass too.
    if action.is_pass() || action.changes().is_empty() {
        return match action.from {
            Some(at) if !action.is_pass() => format!("{0}{0}", name(&game.frame, at)),
            _ => "pass".to_string(),
        };
    }
    if let (Some(from), Some(to)) = (action.from, action.to)
        && let Content::Piece(piece, _) = state.position().get(from)
        && let Some((partner, _)) = game.pair_partner(state, action, piece, (from, to), false)
        && (game.spec().notation == Notation::CoordinatesByPartner
            || (!game.info[piece.index()].royal
                && matches!(state.position().get(partner), Content::Piece(p, _) if game.info[p.index()].royal)))
    {
        let mut s = format!("{}{}", name(&game.frame, from), name(&game.frame, partner));
        if let Some(gated) = from_box_onto(game, state, action, from) {
            s.push(letter(game, gated));
        }
        return s;
    }
    let (from, to) = match (action.from, action.to) {
        (Some(from), Some(to)) if from != to => (from, to),
        // A piece that became another where it stands (a promotion in
        // place) is named as a move onto its own square with the letter of
        // what it became, as Fairy-Stockfish names it (`b3b3f`).
        (Some(at), Some(_))
            if matches!(
                (state.position().get(at), arrived_as(state, action, at)),
                (Content::Piece(a, _), Some(b)) if a != b
            ) =>
        {
            (at, at)
        }
        _ => {
            return match (dropped(game, state, action), placed(state, action)) {
                (Some((piece, at)), _) => format!("{}@{}", game.san_letter(piece), name(&game.frame, at)),
                // A piece out of a box put down as its promoted form (`+P`
                // for a `P` from the hand): `+P@a2`, as Fairy-Stockfish
                // names Kyoto shogi's drops.
                (None, Some(at)) if let Some(piece) = dropped_promoted(game, state, action, at) => {
                    format!("+{}@{}", game.san_letter(piece), name(&game.frame, at))
                }
                (None, Some(at)) => name(&game.frame, at),
                (None, None) => changes_name(game, action),
            };
        }
    };
    let mut s = format!("{}{}", name(&game.frame, from), name(&game.frame, to));
    if let (Content::Piece(a, _), Some(b)) = (state.position().get(from), arrived_as(state, action, to))
        && a != b
    {
        match game.info[b.index()].fen {
            // A promotion to a piece FEN writes `+P` is named with `+`, as
            // Fairy-Stockfish names promotions to such pieces, and the way
            // back from `+P` to `P` with `-`.
            Some(_) if game.info[b.index()].fen_promoted => s.push('+'),
            Some(l) if game.info[a.index()].fen_promoted && game.info[a.index()].fen == Some(l) => {
                s.push('-')
            }
            Some(l) => s.push(l.to_ascii_lowercase()),
            None => s.push(game.pieces.symbol(b)),
        }
    }
    // A piece put from a box on the square the piece left (a gate) is
    // named by its letter, as Fairy-Stockfish names gating (`b1c3h`).
    if let Some(piece) = from_box_onto(game, state, action, from) {
        s.push(letter(game, piece));
    }
    s
}

/// A piece's lower-case FEN letter in a move's name, else its symbol.
fn letter(game: &Game, piece: crate::core::PieceId) -> char {
    match game.info[piece.index()].fen {
        Some(l) => l.to_ascii_lowercase(),
        None => game.pieces.symbol(piece),
    }
}

/// The piece a move puts on `at` after taking it out of a box, if it does.
/// When the same move also put a piece of that kind into the box (a capture
/// in S-house, gating the kind it took) the box's count does not change; a
/// piece then put on the square the mover left (not where it arrived) that
/// no other square of the board gave up, of a kind a box holds, came out of
/// the box too.
fn from_box_onto(game: &Game, state: &State, action: &Action, at: Coord) -> Option<crate::core::PieceId> {
    put_from_box(game, state, action, at, |put, taken| taken == put).or_else(|| {
        let put = match action.changes().iter().rfind(|c| c.at == at)?.content {
            Content::Piece(put, _) if action.from == Some(at) && action.to != Some(at) => put,
            _ => return None,
        };
        let gave_up = action.changes().iter().any(|c| {
            c.at != at
                && c.at.tally_slot().is_none()
                && matches!(state.position().get(c.at), Content::Piece(p, _) if p == put)
                && !matches!(c.content, Content::Piece(p, _) if p == put)
        });
        let boxed = (0..game.pieces.box_count()).any(|b| {
            state
                .position()
                .tally(game.pieces.slot(crate::core::BoxId(b as u16), put))
                > 0
        });
        (!gave_up && boxed).then_some(put)
    })
}

/// The piece a move puts on `at` as a promoted form (`fen +P`) of a piece
/// of the same letter that it takes out of a box, if it does.
fn dropped_promoted(game: &Game, state: &State, action: &Action, at: Coord) -> Option<crate::core::PieceId> {
    put_from_box(game, state, action, at, |put, taken| {
        let (put, taken) = (&game.info[put.index()], &game.info[taken.index()]);
        put.fen_promoted && !taken.fen_promoted && put.fen == taken.fen
    })
}

/// The piece a move puts on `at`, if the move also takes a piece out of a
/// box that `matches` it (`matches(put, taken)`).
fn put_from_box(
    game: &Game,
    state: &State,
    action: &Action,
    at: Coord,
    matches: impl Fn(crate::core::PieceId, crate::core::PieceId) -> bool,
) -> Option<crate::core::PieceId> {
    let Some(Content::Piece(put, _)) = action.changes().iter().find(|c| c.at == at).map(|c| c.content) else {
        return None;
    };
    action.changes().iter().find_map(|c| {
        let slot = c.at.tally_slot()?;
        let (_, taken) = game.pieces.slot_of(slot);
        match c.content {
            Content::Count(n) if n < state.position().tally(slot) && matches(put, taken) => Some(put),
            _ => None,
        }
    })
}

/// The piece a move's piece of interest is at the end, on `to`: what stands
/// there after the move, or, if the move emptied the square, the piece it
/// had become (a promotion that exploded on arrival is still `=Q`).
pub(crate) fn arrived_as(state: &State, action: &Action, to: Coord) -> Option<crate::core::PieceId> {
    let after = action
        .changes()
        .iter()
        .find(|c| c.at == to)
        .map_or_else(|| state.position().get(to), |c| c.content);
    match after {
        Content::Piece(p, _) => Some(p),
        _ => action.became(),
    }
}

/// The one empty square a move puts a piece on, if it puts a piece on exactly one.
pub(crate) fn placed(state: &State, action: &Action) -> Option<Coord> {
    let mut placed = action
        .changes()
        .iter()
        .filter(|c| state.position().get(c.at) == Content::Empty && matches!(c.content, Content::Piece(..)))
        .map(|c| c.at);
    let first = placed.next()?;
    placed.next().is_none().then_some(first)
}

/// A placement whose piece came out of a box (a drop, `N@f3`): the piece and its square.
pub(crate) fn dropped(game: &Game, state: &State, action: &Action) -> Option<(crate::core::PieceId, Coord)> {
    let at = placed(state, action)?;
    from_box_onto(game, state, action, at).map(|piece| (piece, at))
}

/// A move named by all its changes: `e4=♙,d5=.` (a box: `hand♘=2`).
pub(crate) fn changes_name(game: &Game, action: &Action) -> String {
    let parts: Vec<String> = action
        .changes()
        .iter()
        .map(|c| {
            let place = match c.at.tally_slot() {
                Some(slot) => {
                    let (bx, p) = game.pieces.slot_of(slot);
                    format!("{}{}", game.pieces.box_name(bx), game.pieces.symbol(p))
                }
                None => name(&game.frame, c.at),
            };
            format!("{place}={}", content_symbol(game, c.content))
        })
        .collect();
    parts.join(",")
}

/// The squares a move's name already says: where its piece left and
/// arrived, or the square it was placed on.
pub(crate) fn named_squares(state: &State, action: &Action) -> Vec<Coord> {
    match (action.from, action.to) {
        (Some(from), Some(to)) if from != to => vec![from, to],
        _ => placed(state, action).into_iter().collect(),
    }
}

/// `names` (one per move of `legal`) with the ones that several moves share
/// told apart: first by the other squares each move changes (`d1d7/g7`; a
/// move that changes nothing by its piece's square: `pass/e1`), then, if
/// that is not enough, by all its changes (`f3/f3=♘`), and last by their
/// order (`pass/2`): every move has a name of its own.
pub(crate) fn distinct(game: &Game, state: &State, legal: &[Action], mut names: Vec<String>) -> Vec<String> {
    for round in 0..3 {
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for n in &names {
            *seen.entry(n.as_str()).or_default() += 1;
        }
        let shared: Vec<usize> = (0..names.len())
            .filter(|&i| seen[names[i].as_str()] > 1)
            .collect();
        if shared.is_empty() {
            break;
        }
        if round == 2 {
            let mut count: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
            for i in shared {
                let k = count.entry(names[i].clone()).or_default();
                *k += 1;
                names[i] = format!("{}/{k}", names[i]);
            }
            break;
        }
        // The moves of each shared name, for Fairy-Stockfish's walls (a
        // move's name is read here before the loop below renames it).
        let mut alike: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
        if round == 0 && game.spec().wall_names {
            for &i in &shared {
                alike.entry(names[i].clone()).or_default().push(i);
            }
        }
        for i in shared {
            let action = &legal[i];
            let suffix = if round == 0 && action.changes().is_empty() {
                action.from.map(|f| game.square_label(f)).unwrap_or_default()
            } else if round == 0 {
                let said = named_squares(state, action);
                let others: Vec<String> = action
                    .changes()
                    .iter()
                    // The square left is said only if it was left empty
                    // (an arrow shot back onto it is another change).
                    .filter(|c| {
                        c.at.tally_slot().is_none()
                            && (!said.contains(&c.at)
                                || (Some(c.at) == action.from && c.content != Content::Empty))
                    })
                    .map(|c| game.square_label(c.at))
                    .collect();
                others.join(",")
            } else {
                changes_name(game, action)
            };
            let base = names[i].split('/').next().unwrap_or_default().to_string();
            names[i] = match (action.to, alike.get(&names[i])) {
                (Some(to), Some(alike)) if !suffix.is_empty() => {
                    let put = wall_squares(game, legal, alike, i);
                    format!("{base},{}{put}", game.square_label(to))
                }
                _ => format!("{base}/{suffix}"),
            };
        }
    }
    names
}

/// Fairy-Stockfish's name for the wall of `legal[i]` (`notation
/// coordinates walls`): the squares where it puts a piece that the other
/// moves of its name (`alike`, itself among them) do not all put there
/// (the duck's new square, not the rook's in castling).
fn wall_squares(game: &Game, legal: &[Action], alike: &[usize], i: usize) -> String {
    (legal[i].changes().iter())
        .filter(|c| matches!(c.content, Content::Piece(..)) && Some(c.at) != legal[i].to)
        .filter(|c| !alike.iter().all(|&j| legal[j].changes().contains(c)))
        .map(|c| game.square_label(c.at))
        .collect()
}

fn content_symbol(game: &Game, c: Content) -> String {
    match c {
        Content::NoSquare => "#".to_string(),
        Content::Empty => ".".to_string(),
        Content::Piece(p, m) => format!("{}{}", game.pieces.symbol(p), game.pieces.mark_symbols(m)),
        Content::Count(n) => n.to_string(),
    }
}
