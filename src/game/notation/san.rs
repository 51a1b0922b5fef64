//! Standard algebraic notation (SAN), derived from the rule file alone, and
//! reading a move a person typed (SAN or coordinate notation).
//!
//! - The letter is the moving piece's upper-case FEN letter (its symbol when
//!   it has none); pieces declared `san -` get no letter, and their captures
//!   are named by the file they left (`exd5`).
//! - A capture is a move that lowers the number of the opponents' pieces: `x`.
//! - A move where a royal piece stays on its rank (or on its square) while
//!   another of the mover's pieces comes to stand beside it is `O-O` when
//!   that piece ends on the royal piece's lower-file side (a rook on f1 beside
//!   a king on g1) and `O-O-O` on the higher (d1 beside c1).
//! - A piece that changes into another is promoted: `=Q`.
//! - A move that changes nothing is `pass` (named by its piece's square
//!   twice, `e2e2`, when several pieces could pass).
//! - After the move: `#` when the move wins the game, `+` when a royal piece
//!   of the player to move is attacked.
//! - When several pieces of the same kind can reach the square, the file of
//!   the square left is added, else its rank, else both.

use crate::core::{Content, Coord};

use crate::core::PieceId;
use crate::engine::Cache;

use super::error::MoveInputError;
use super::{name, parse_square};
use crate::game::{Action, Game, PlayError, State};

impl Game {
    /// The SAN of a legal move, without the `+` or `#` that depends on what follows.
    pub fn san_core(&self, state: &State, action: &Action, legal: &[Action]) -> String {
        if self.is_numbered() {
            return self.action_name(state, action);
        }
        // A move that changes nothing is `pass` where it is the only one,
        // else named by its piece's square twice (`e2e2`).
        if action.changes().is_empty() {
            let alone = legal.iter().filter(|a| a.changes().is_empty()).count() <= 1;
            return if alone {
                "pass".to_string()
            } else {
                self.action_name(state, action)
            };
        }
        if let Some((piece, at)) = super::dropped(self, state, action) {
            let letter = if self.info[piece.index()].san_unlettered {
                String::new()
            } else {
                self.san_letter(piece).to_string()
            };
            let drop = self.spec.san.drop.as_deref().unwrap_or("@");
            return format!("{letter}{drop}{}", self.san_square(at));
        }
        let (Some(from), Some(to)) = (action.from, action.to) else {
            return self.action_name(state, action);
        };
        let Content::Piece(piece, _) = state.position().get(from) else {
            return self.action_name(state, action);
        };
        let info = &self.info[piece.index()];
        if let Some(pair) = self.royal_pair_move(state, action, piece, from, to) {
            return pair.to_string();
        }
        let capture = self.captured_value(state, action).is_some();
        let mut s = String::new();
        let others: Vec<Coord> = legal
            .iter()
            .filter(|a| a.to == Some(to) && a.from != Some(from))
            .filter_map(|a| a.from)
            .filter(|&f| matches!(state.position().get(f), Content::Piece(p, _) if p == piece))
            .collect();
        let (file, rank) = self.san_parts(from);
        let square = format!("{file}{rank}");
        if info.san_unlettered {
            if capture || !others.is_empty() {
                s.push_str(&file);
            }
            let same_file: Vec<&Coord> = others.iter().filter(|c| c.x == from.x).collect();
            if (capture || !others.is_empty()) && !same_file.is_empty() {
                s.push_str(&rank);
            }
        } else {
            s.push(self.san_letter(piece));
            if !others.is_empty() {
                if others.iter().all(|c| c.x != from.x) {
                    s.push_str(&file);
                } else if others.iter().all(|c| c.y != from.y) {
                    s.push_str(&rank);
                } else {
                    s.push_str(&square);
                }
            }
        }
        if capture {
            s.push('x');
        } else if let Some(step) = &self.spec.san.step {
            s.push_str(step);
        }
        s.push_str(&self.san_square(to));
        let became = super::arrived_as(state, action, to).unwrap_or(piece);
        if became != piece {
            match &self.spec.san.promotion {
                Some(promotion) => s.push_str(promotion),
                None => {
                    s.push('=');
                    s.push(self.san_letter(became));
                }
            }
        } else if let Some(declined) = &self.spec.san.declined {
            // Another legal move between the same squares changes the piece:
            // this one declines to.
            let could = legal.iter().any(|a| {
                a.from == Some(from)
                    && a.to == Some(to)
                    && super::arrived_as(state, a, to).is_some_and(|p| p != piece)
            });
            if could {
                s.push_str(declined);
            }
        }
        s
    }

    /// A square as SAN writes it, as its file's part and its rank's: by the
    /// rule file's labels where it gives both files' and ranks' (`7`, `f`),
    /// else as moves name it (`e`, `4`).
    pub(crate) fn san_parts(&self, at: Coord) -> (String, String) {
        let (files, ranks) = (&self.spec.file_labels, &self.spec.rank_labels);
        let (file, rank) = ((at.x - self.frame.x0) as usize, (at.y - self.frame.y0) as usize);
        if let (Some(f), Some(r)) = (files.get(file), ranks.get(rank)) {
            return (f.clone(), r.clone());
        }
        let square = name(&self.frame, at);
        let (f, r) = square.split_at(1);
        (f.to_string(), r.to_string())
    }

    /// A square as SAN writes it (`e4`; `7f` by the rule file's labels).
    pub(crate) fn san_square(&self, at: Coord) -> String {
        let (file, rank) = self.san_parts(at);
        file + &rank
    }

    /// The SAN of a legal move, with `+` or `#`.
    pub fn san(
        &self,
        state: &State,
        action: &Action,
        legal: &[Action],
        cache: &mut Cache,
    ) -> Result<String, PlayError> {
        let s = match legal.iter().position(|a| a == action) {
            Some(i) => self.san_cores(state, legal).swap_remove(i),
            None => self.san_core(state, action, legal),
        };
        self.with_check_suffix(s, state, action, cache)
    }

    /// A move's SAN with `#` when it wins the game, `+` when it leaves a
    /// royal piece of the next player attacked.
    fn with_check_suffix(
        &self,
        mut s: String,
        state: &State,
        action: &Action,
        cache: &mut Cache,
    ) -> Result<String, PlayError> {
        if self.is_numbered() {
            // Numbered notation marks neither check nor mate.
            return Ok(s);
        }
        let next = self.play(state, action);
        if self.won_by(&next, state.turn(), cache)? {
            s.push('#');
        } else if self.royal_attacked(next.position(), next.turn(), cache)? {
            s.push_str(self.spec.san.check.as_deref().unwrap_or("+"));
        }
        Ok(s)
    }

    /// The SAN of every legal move, in the order given.
    pub fn san_all(
        &self,
        state: &State,
        legal: &[Action],
        cache: &mut Cache,
    ) -> Result<Vec<String>, PlayError> {
        let cores = self.san_cores(state, legal);
        cores
            .into_iter()
            .zip(legal)
            .map(|(s, a)| self.with_check_suffix(s, state, a, cache))
            .collect()
    }

    /// The SAN of every legal move without `+` or `#`, each its own: where
    /// SAN's rules give two moves one name, the other squares they change
    /// tell them apart (`Qd7/g7`).
    fn san_cores(&self, state: &State, legal: &[Action]) -> Vec<String> {
        let cores = legal.iter().map(|a| self.san_core(state, a, legal)).collect();
        super::distinct(self, state, legal, cores)
    }

    /// The plain name of every legal move (see [`Game::action_name`]), each
    /// its own: moves whose names would be the same are told apart by the
    /// other squares they change (`d1d7/g7`), or else by all their changes.
    pub fn move_names(&self, state: &State, legal: &[Action]) -> Vec<String> {
        let names = legal.iter().map(|a| self.action_name(state, a)).collect();
        super::distinct(self, state, legal, names)
    }

    /// The letter SAN gives a piece: its upper-case FEN letter, else its symbol.
    pub(crate) fn san_letter(&self, piece: PieceId) -> char {
        match self.info[piece.index()].fen {
            Some(l) => l.to_ascii_uppercase(),
            None => self.pieces.symbol(piece),
        }
    }

    /// `O-O` or `O-O-O` for a royal piece's move with a partner (see
    /// [`Game::pair_partner`]), by the side of it the partner ends on.
    fn royal_pair_move(
        &self,
        state: &State,
        action: &Action,
        piece: PieceId,
        from: Coord,
        to: Coord,
    ) -> Option<&'static str> {
        let (_, end) = self.pair_partner(state, action, piece, (from, to), true)?;
        // Towards the lower files of the royal piece is `O-O` (as a rook
        // ends on f1 beside a king on g1), towards the higher `O-O-O`.
        Some(if end.x < to.x { "O-O" } else { "O-O-O" })
    }

    /// A royal piece's move with a partner (any piece's, unless
    /// `royal_only`): `piece` stays on its rank (or its square) while
    /// another of the mover's pieces, already on the board, comes to stand
    /// beside it. The partner's start and end squares (the same when it
    /// only lost a mark).
    pub(crate) fn pair_partner(
        &self,
        state: &State,
        action: &Action,
        piece: PieceId,
        (from, to): (Coord, Coord),
        royal_only: bool,
    ) -> Option<(Coord, Coord)> {
        if (royal_only && !self.info[piece.index()].royal) || from.y != to.y {
            return None;
        }
        let owner = self.info[piece.index()].owner;
        action.changes().iter().find_map(|end| {
            let Content::Piece(partner, _) = end.content else {
                return None;
            };
            if end.at == to
                || end.at.y != to.y
                || (end.at.x - to.x).abs() != 1
                || partner == piece
                || self.info[partner.index()].owner != owner
                || end.content == state.position().get(end.at)
            {
                return None;
            }
            let is_partner = |c: Content| matches!(c, Content::Piece(p, _) if p == partner);
            // Where it left: a square of the rank that held it and no longer
            // does; else it stood there already and only lost a mark (a piece
            // put there from a box is no partner).
            let start = action
                .changes()
                .iter()
                .find(|c| c.at.y == to.y && is_partner(state.position().get(c.at)) && !is_partner(c.content))
                .map(|c| c.at);
            match start {
                Some(start) => Some((start, end.at)),
                None if is_partner(state.position().get(end.at)) => Some((end.at, end.at)),
                None => None,
            }
        })
    }

    /// The value of the opponents' pieces a move removes, if it removes any
    /// (`Some(0.0)` for pieces without a value).
    pub fn captured_value(&self, state: &State, action: &Action) -> Option<f64> {
        let mover = Some(state.turn());
        let (mut removed, mut added, mut value) = (0, 0, 0.0);
        for c in action.changes() {
            if let Content::Piece(p, _) = state.position().get(c.at)
                && self.info[p.index()].owner.is_some_and(|o| Some(o) != mover)
            {
                removed += 1;
                value += self.info[p.index()].value.unwrap_or(0.0);
            }
            if let Content::Piece(p, _) = c.content
                && self.info[p.index()].owner.is_some_and(|o| Some(o) != mover)
            {
                added += 1;
                value -= self.info[p.index()].value.unwrap_or(0.0);
            }
        }
        (removed > added).then_some(value)
    }

    /// The legal move a person typed: SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`; the
    /// `x`, `=`, `+` and `#` may be left out, `0-0` is `O-O`) or coordinate
    /// notation (`g1f3`, `e7e8q`). Returns the move's index in `legal`.
    pub fn read_move(&self, state: &State, legal: &[Action], text: &str) -> Result<usize, MoveInputError> {
        if self.is_numbered()
            && let Some(read) = super::numbered::read(self, state, legal, text)
        {
            return read;
        }
        let wanted = normalise(text.trim());
        let mut found: Vec<usize> = Vec::new();
        let sans = self.san_cores(state, legal);
        if !wanted.is_empty() {
            let names = self.move_names(state, legal);
            // A move's exact name is that move (`e2d1+`, a promotion whose
            // `+` SAN would read as check).
            if let Some(i) = names.iter().position(|n| n == text.trim()) {
                return Ok(i);
            }
            // So is its exact SAN (`P2c+` and `P2c=`, which only their
            // signs tell apart).
            if let Some(i) = sans.iter().position(|n| n == text.trim()) {
                return Ok(i);
            }
            // A name or SAN that only one move has is that move, even where
            // a shorter spelling of it would fit others too.
            for own in [&names, &sans] {
                let hits: Vec<usize> = (0..legal.len())
                    .filter(|&i| normalise(&own[i]) == wanted)
                    .collect();
                if let [one] = hits.as_slice() {
                    return Ok(*one);
                }
            }
            for (i, a) in legal.iter().enumerate() {
                if self
                    .spellings(state, a, legal)
                    .iter()
                    .any(|s| normalise(s) == wanted)
                {
                    found.push(i);
                }
            }
        }
        match found.len() {
            1 => Ok(found[0]),
            0 => Err(MoveInputError::NoMatch {
                text: text.trim().to_string(),
            }),
            _ => Err(MoveInputError::Ambiguous {
                text: text.trim().to_string(),
                candidates: found.iter().map(|&i| sans[i].clone()).collect(),
            }),
        }
    }

    /// Every way a move may be typed: its SAN, its coordinate name, and SAN
    /// with the square left written in part or in full.
    fn spellings(&self, state: &State, action: &Action, legal: &[Action]) -> Vec<String> {
        let san = self.san_core(state, action, legal);
        let mut out = vec![self.action_name(state, action), super::changes_name(self, action)];
        if action.changes().is_empty() {
            // A pass, also as UCI's null move.
            out.push("pass".to_string());
            out.push("0000".to_string());
        }
        if let (Some(from), Some(to), Content::Piece(piece, _)) = (
            action.from,
            action.to,
            action.from.map_or(Content::Empty, |f| state.position().get(f)),
        ) {
            let letter = if self.info[piece.index()].san_unlettered {
                String::new()
            } else {
                self.san_letter(piece).to_string()
            };
            let (file, rank) = self.san_parts(from);
            let square = format!("{file}{rank}");
            let to = self.san_square(to);
            // What SAN writes after the square: `=Q`, or the rule file's
            // words for a promotion or a promotion declined.
            let words = [&self.spec.san.promotion, &self.spec.san.declined];
            let promotion = match san.find('=') {
                Some(i) if self.spec.san.promotion.is_none() => &san[i..],
                _ => words
                    .into_iter()
                    .flatten()
                    .find(|w| !w.is_empty() && san.ends_with(w.as_str()))
                    .map_or("", |w| w.as_str()),
            };
            for left in [file.as_str(), rank.as_str(), square.as_str()] {
                out.push(format!("{letter}{left}{to}{promotion}"));
            }
        }
        if let Some(i) = san.find('=') {
            // Without the piece it becomes: ambiguous, so the choices are listed.
            out.push(san[..i].to_string());
        }
        out.push(san);
        out
    }

    /// The legal moves to show when `text` was refused: those from the square
    /// it starts with, or of the piece its letter names, else all of them.
    pub fn moves_for_input(&self, state: &State, legal: &[Action], text: &str) -> Vec<usize> {
        let text = text.trim();
        if self.is_numbered()
            && let Some(from) = super::numbered::moves_from_typed(self, legal, text)
        {
            return from;
        }
        let square = (2..=text.len().min(3))
            .rev()
            .filter(|&n| text.is_char_boundary(n))
            .find_map(|n| parse_square(&self.frame, &text[..n]));
        let all = || (0..legal.len()).collect::<Vec<usize>>();
        if let Some(at) = square {
            return (0..legal.len()).filter(|&i| legal[i].from == Some(at)).collect();
        }
        let Some(first) = text.chars().next() else {
            return all();
        };
        let of_piece: Vec<usize> = (0..legal.len())
            .filter(|&i| {
                legal[i].from.is_some_and(|f| match state.position().get(f) {
                    Content::Piece(p, _) => {
                        !self.info[p.index()].san_unlettered && self.san_letter(p) == first
                    }
                    _ => false,
                })
            })
            .collect();
        if of_piece.is_empty() { all() } else { of_piece }
    }
}

/// A typed move with what SAN lets one leave out removed: `x`, `=`, `+`,
/// `#`, `!`, `?`, `-`, and with `0` read as `O` (castling).
fn normalise(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, 'x' | ':' | '=' | '+' | '#' | '!' | '?' | '-'))
        .map(|c| if c == '0' { 'O' } else { c })
        .collect()
}
