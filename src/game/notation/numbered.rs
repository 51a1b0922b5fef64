//! `notation numbered`: squares numbered 1, 2, ... in reading order of the
//! board diagram (top row first, left to right, non-squares skipped).
//!
//! - A move is `from-to` (`11-15`); a capture (a move that leaves an
//!   opponent fewer pieces) writes every square the piece landed on:
//!   `15x24`, a chain `15x24x31`. Typed moves may leave the middle landing
//!   squares out (`15x31`) when that names one move.
//! - A position is `B:W21,22,K30:B1-12`: the player to move, then per
//!   player its squares, each after the upper-case FEN letter of the piece
//!   on it, except pieces declared `san -`, which go unlettered;
//!   `a-b` is a run of squares. A player is written by its name's initial
//!   (its whole name when two players share one).

use crate::core::{Content, Coord, Marks, PieceId, PlayerId};
use crate::engine::Position;

use super::error::{FenError, MoveInputError, bad};
use crate::game::{Action, Game, State};

/// The squares in reading order of the diagram: top row first, left to right.
pub(crate) fn numbering(squares: impl Iterator<Item = Coord>) -> Vec<Coord> {
    let mut all: Vec<Coord> = squares.collect();
    all.sort_by_key(|c| (-c.y, c.x));
    all
}

/// The name of a move: `11-15`, or `15x24x31` for a capture.
pub(crate) fn name(game: &Game, state: &State, action: &Action) -> String {
    let (Some(from), Some(to)) = (action.from(), action.to()) else {
        return super::coordinate(game, state, action);
    };
    if game.captured_value(state, action).is_none() {
        return format!("{}-{}", game.square_label(from), game.square_label(to));
    }
    let mut s = game.square_label(from);
    let landings: &[Coord] = if action.path().is_empty() {
        std::slice::from_ref(&to)
    } else {
        action.path()
    };
    for &at in landings {
        s.push('x');
        s.push_str(&game.square_label(at));
    }
    if landings.last() != Some(&to) {
        s.push('x');
        s.push_str(&game.square_label(to));
    }
    s
}

/// The squares a typed move names (`11-15`, `15x24x31`, `15:24`), if it is one.
fn typed_squares(game: &Game, text: &str) -> Option<Vec<Coord>> {
    let squares: Option<Vec<Coord>> = text
        .split(['-', 'x', 'X', ':'])
        .map(|n| {
            game.numbers
                .get(n.parse::<usize>().ok()?.checked_sub(1)?)
                .copied()
        })
        .collect();
    squares.filter(|s| s.len() >= 2)
}

/// The legal move a typed numbered move names: its index in `legal`. `None`
/// when the text is not a numbered move at all (it may still be another
/// spelling).
pub(crate) fn read(
    game: &Game,
    state: &State,
    legal: &[Action],
    text: &str,
) -> Option<Result<usize, MoveInputError>> {
    let text = text.trim();
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let refused = || MoveInputError::NoMatch {
        text: text.to_string(),
    };
    let Some(typed) = typed_squares(game, text) else {
        return Some(Err(refused()));
    };
    let (first, last) = (typed[0], typed[typed.len() - 1]);
    let middle = &typed[1..typed.len() - 1];
    let found: Vec<usize> = (0..legal.len())
        .filter(|&i| {
            let a = &legal[i];
            a.from() == Some(first) && a.to() == Some(last) && {
                // The typed middle squares, in order, among the landing squares.
                let mut path = a.path().iter();
                middle.iter().all(|m| path.any(|p| p == m))
            }
        })
        .collect();
    Some(match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(refused()),
        many => {
            // A move typed in full is not ambiguous with longer chains.
            let exact: Vec<usize> = many
                .iter()
                .copied()
                .filter(|&i| name(game, state, &legal[i]) == text)
                .collect();
            match exact.as_slice() {
                [one] => Ok(*one),
                _ => Err(MoveInputError::Ambiguous {
                    text: text.to_string(),
                    candidates: many.iter().map(|&i| name(game, state, &legal[i])).collect(),
                }),
            }
        }
    })
}

/// The legal moves from the square a refused typed move starts with.
pub(crate) fn moves_from_typed(game: &Game, legal: &[Action], text: &str) -> Option<Vec<usize>> {
    let digits: String = text.trim().chars().take_while(char::is_ascii_digit).collect();
    let at = *game.numbers.get(digits.parse::<usize>().ok()?.checked_sub(1)?)?;
    Some(
        (0..legal.len())
            .filter(|&i| legal[i].from() == Some(at))
            .collect(),
    )
}

/// How a player is written: its name's initial, upper case, or its whole
/// name when another player's name starts with the same letter.
fn player_tag(game: &Game, player: PlayerId) -> String {
    let initial = |name: &str| name.chars().next().map(|c| c.to_uppercase().to_string());
    let mine = initial(game.player_name(player));
    let shared = game
        .players()
        .iter()
        .enumerate()
        .any(|(q, other)| q != player.index() && initial(other) == mine);
    match mine {
        Some(i) if !shared => i,
        _ => game.player_name(player).to_string(),
    }
}

/// The player a tag names (case aside).
fn tagged_player(game: &Game, tag: &str) -> Option<PlayerId> {
    (0..game.players().len()).map(PlayerId::new).find(|&p| {
        player_tag(game, p).eq_ignore_ascii_case(tag) || game.player_name(p).eq_ignore_ascii_case(tag)
    })
}

/// The letter a piece's squares are written after (none for `san -` pieces).
fn piece_letter(game: &Game, piece: PieceId) -> Option<char> {
    let info = game.piece_info(piece);
    if info.san_unlettered {
        return None;
    }
    Some(
        info.fen
            .map_or_else(|| game.pieces().symbol(piece), |l| l.to_ascii_uppercase()),
    )
}

/// The numbered position of a state: `B:W21,22,K30:B1,2,3`.
pub(crate) fn to_fen(game: &Game, state: &State) -> String {
    let mut out = player_tag(game, state.turn());
    for player in (0..game.players().len()).map(PlayerId::new) {
        out.push(':');
        out.push_str(&player_tag(game, player));
        let mut first = true;
        for (i, &at) in game.numbers.iter().enumerate() {
            if let Content::Piece(p, _) = state.position().get(at)
                && game.piece_info(p).owner == Some(player)
            {
                if !first {
                    out.push(',');
                }
                first = false;
                if let Some(l) = piece_letter(game, p) {
                    out.push(l);
                }
                out.push_str(&(i + 1).to_string());
            }
        }
    }
    out
}

/// Whether a FEN argument is written the numbered way (it has `:` fields).
pub(crate) fn looks_numbered(text: &str) -> bool {
    text.contains(':')
}

/// The state a numbered position describes.
pub(crate) fn from_fen(game: &Game, text: &str) -> Result<State, FenError> {
    let text = text.trim();
    let mut fields = text.split(':');
    let turn_tag = fields.next().unwrap_or("").trim();
    let turn = tagged_player(game, turn_tag).ok_or_else(|| {
        bad(
            "turn",
            format!("`{turn_tag}` names no player (write one of {})", tags(game)),
        )
    })?;
    let initial = game.initial();
    let mut squares: Vec<(Coord, Content)> = initial
        .position()
        .squares()
        .map(|(at, _)| (at, Content::Empty))
        .collect();
    let mut seen = vec![false; game.players().len()];
    for field in fields {
        let field = field.trim();
        let tag_end = field
            .find(|c: char| c.is_ascii_digit() || c == ',')
            .unwrap_or(field.len());
        // The tag is the player's; a piece letter may follow it before the first number.
        let (player, rest) = (1..=tag_end)
            .rev()
            .filter(|&n| field.is_char_boundary(n))
            .find_map(|n| tagged_player(game, &field[..n]).map(|p| (p, &field[n..])))
            .ok_or_else(|| {
                bad(
                    "board",
                    format!("`{field}` does not start with a player (one of {})", tags(game)),
                )
            })?;
        if std::mem::replace(&mut seen[player.index()], true) {
            return Err(bad(
                "board",
                format!("{} is listed twice", game.player_name(player)),
            ));
        }
        for entry in rest.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let digits_at = entry.find(|c: char| c.is_ascii_digit()).unwrap_or(entry.len());
            let (letter, numbers) = entry.split_at(digits_at);
            let piece = entry_piece(game, player, letter)?;
            let (lo, hi) = match numbers.split_once('-') {
                Some((a, b)) => (square_number(game, a)?, square_number(game, b)?),
                None => {
                    let n = square_number(game, numbers)?;
                    (n, n)
                }
            };
            for n in lo..=hi {
                let at = game.numbers[n - 1];
                if let Some(slot) = squares.iter_mut().find(|(a, _)| *a == at) {
                    if slot.1 != Content::Empty {
                        return Err(bad("board", format!("square {n} is listed twice")));
                    }
                    slot.1 = Content::Piece(piece, Marks::NONE);
                }
            }
        }
    }
    let mut state = State::new(Position::from_squares(squares), turn, 0, 1);
    game.begin(&mut state);
    Ok(state)
}

/// Every player's tag, for error messages.
fn tags(game: &Game) -> String {
    (0..game.players().len())
        .map(|p| format!("`{}`", player_tag(game, PlayerId::new(p))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A square number of the board.
fn square_number(game: &Game, text: &str) -> Result<usize, FenError> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=game.numbers.len()).contains(&n) => Ok(n),
        _ => Err(bad(
            "board",
            format!("`{text}` is not a square number (1 to {})", game.numbers.len()),
        )),
    }
}

/// The piece of `player` an entry's letter (or its absence) stands for.
fn entry_piece(game: &Game, player: PlayerId, letter: &str) -> Result<PieceId, FenError> {
    let wanted = letter.trim().chars().next();
    let mut pieces = game
        .pieces()
        .ids()
        .filter(|&p| game.piece_info(p).owner == Some(player) && piece_letter(game, p) == wanted);
    pieces.next().ok_or_else(|| {
        bad(
            "board",
            match wanted {
                Some(l) => format!("`{l}` is not a piece letter of {}", game.player_name(player)),
                None => format!(
                    "{} has no piece written without a letter",
                    game.player_name(player)
                ),
            },
        )
    })
}

/// The board's square numbers laid out as the board is drawn, one line per
/// rank from the top: the key beside a diagram.
pub(crate) fn key_rows(game: &Game) -> Vec<String> {
    let (files, ranks) = game.dimensions();
    let width = game.numbers.len().to_string().len() + 1;
    (0..ranks)
        .rev()
        .map(|rank| {
            (0..files)
                .map(|file| {
                    let at = game.square_at(file, rank);
                    match game.square_number(at) {
                        Some(n) => format!("{n:>width$}"),
                        None => " ".repeat(width),
                    }
                })
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}
