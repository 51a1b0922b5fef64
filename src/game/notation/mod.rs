//! Names of squares and moves: `e2`, `e2e4`, `e7e8q`.

pub(super) mod fen;
pub(super) mod numbered;
pub mod pgn;
pub(super) mod san;

use super::{Action, BoardBox, Game, State};
use crate::core::{Content, Coord};

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

/// `pass` for a pass; `e2e4`, with the lower-case FEN letter (or the symbol) of the piece the
/// mover became when it changed (`e7e8q`); moves without a piece of interest
/// are named by their changes (`e4=♙,d5=.`).
pub(crate) fn coordinate(game: &Game, state: &State, action: &Action) -> String {
    if action.is_pass() {
        return "pass".to_string();
    }
    let (Some(from), Some(to)) = (action.from, action.to) else {
        let parts: Vec<String> = action
            .changes()
            .iter()
            .map(|c| format!("{}={}", name(&game.frame, c.at), content_symbol(game, c.content)))
            .collect();
        return parts.join(",");
    };
    let mut s = format!("{}{}", name(&game.frame, from), name(&game.frame, to));
    let before = state.position().get(from);
    let after = action
        .changes()
        .iter()
        .find(|c| c.at == to)
        .map_or_else(|| state.position().get(to), |c| c.content);
    if let (Content::Piece(a, _), Content::Piece(b, _)) = (before, after)
        && a != b
    {
        match game.info[b.index()].fen {
            Some(l) => s.push(l.to_ascii_lowercase()),
            None => s.push(game.pieces.symbol(b)),
        }
    }
    s
}

fn content_symbol(game: &Game, c: Content) -> String {
    match c {
        Content::NoSquare => "#".to_string(),
        Content::Empty => ".".to_string(),
        Content::Piece(p, m) => format!("{}{}", game.pieces.symbol(p), game.pieces.mark_symbols(m)),
    }
}
