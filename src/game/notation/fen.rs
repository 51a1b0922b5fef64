//! FEN in and out, for games whose pieces declare FEN letters. The castling
//! and en passant fields map to piece marks as the rule file's `fen rights`
//! and `fen target` lines say.

use crate::core::{BoxId, Change, Content, Coord, Marks, PieceId, PlayerId};

use crate::decl::Files;
use crate::engine::Position;

use super::error::{FenError, bad};
use super::{name, parse_square};
use crate::engine::Cache;
use crate::game::{Game, State};

/// A FEN's counts of a box's pieces, and whether they count what was
/// given so far (`+0+1`, after the last field) rather than what is still
/// in the box (`3+2`, a field of its own).
type FenCounts = (Vec<u16>, bool);

impl Game {
    /// The state a FEN string describes.
    pub fn from_fen(&self, fen: &str) -> Result<State, FenError> {
        self.read_fen(fen, &mut Vec::new())
    }

    /// [`Game::from_fen`], refusing a position the game could not reach as
    /// far as the rule file tells: more royal pieces than the initial
    /// position has, a piece where no move could have put it, a rights
    /// letter or a target square that marks no piece.
    pub fn from_fen_checked(&self, fen: &str, cache: &mut Cache) -> Result<State, FenError> {
        let mut doubts = Vec::new();
        let state = self.read_fen(fen, &mut doubts)?;
        if doubts.is_empty() {
            doubts.extend(self.implausible(&state, cache));
        }
        match doubts.into_iter().next() {
            Some(reason) => Err(FenError::Implausible { reason }),
            None => Ok(state),
        }
    }

    /// [`Game::from_fen`], noting in `doubts` the fields that mark nothing.
    fn read_fen(&self, fen: &str, doubts: &mut Vec<String>) -> Result<State, FenError> {
        if self.is_numbered() && super::numbered::looks_numbered(fen) {
            return super::numbered::from_fen(self, fen);
        }
        let mut fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(bad("board", "the FEN is empty"));
        }
        let counts = self.take_counts(&mut fields)?;
        let (mut position, pocket) = self.fen_board(fields[0])?;
        let turn = self.fen_turn(fields.get(1).copied())?;
        // A number where the rights would be: the FEN has no rights and
        // target fields (a game that declares neither writes it so).
        let fields: Vec<&str> = if fields.get(2).is_some_and(|f| f.parse::<u32>().is_ok()) {
            [&fields[..2], &["-", "-"], &fields[2..]].concat()
        } else {
            fields
        };
        let rights = fields.get(2).copied().unwrap_or("-");
        if rights != "-" {
            position = self.mark_rights(position, rights, doubts)?;
        }
        let target = fields.get(3).copied().unwrap_or("-");
        // Fairy-Stockfish writes its counting limit here in games with a
        // counting rule: a number, which no square's name is; read as none.
        let counting = target.bytes().all(|b| b.is_ascii_digit());
        if target != "-" && !counting {
            position = self.mark_target(position, target, turn, doubts)?;
        }
        let number = |i: usize, field: &'static str, default: u32| -> Result<u32, FenError> {
            match fields.get(i) {
                None => Ok(default),
                Some(t) => t
                    .parse()
                    .map_err(|_| bad(field, format!("`{t}` is not a number"))),
            }
        };
        let quiet = number(4, "halfmove clock", 0)?;
        let fullmove = number(5, "move number", 1)?.max(1);
        if fields.len() > 6 {
            return Err(bad("move number", "there is text after the last field"));
        }
        if let (Some(bx), Some(pocket)) = (self.spec().fen_box, pocket) {
            self.fill_fen_box(&mut position, bx, pocket)?;
        }
        if let Some((bx, pieces)) = &self.spec().fen_counts {
            self.fill_counted_box(&mut position, *bx, pieces, counts.as_ref())?;
        }
        let mut state = State::new(position, turn, quiet, fullmove);
        self.begin(&mut state);
        Ok(state)
    }

    /// Takes the counts out of `fields`, in a game with `fen counts`:
    /// after the last field (`+0+1`: given so far) or as a field of their
    /// own after the en passant square (`3+2`: still in the box).
    fn take_counts(&self, fields: &mut Vec<&str>) -> Result<Option<FenCounts>, FenError> {
        if self.spec().fen_counts.is_none() {
            return Ok(None);
        }
        if let Some(last) = fields.last()
            && last.starts_with('+')
        {
            let counts = (parse_counts(&last[1..])?, true);
            fields.pop();
            Ok(Some(counts))
        } else if let Some(i) = fields.iter().skip(2).position(|f| f.contains('+')).map(|i| i + 2) {
            let counts = (parse_counts(fields[i])?, false);
            fields.remove(i);
            Ok(Some(counts))
        } else {
            Ok(None)
        }
    }

    /// The player to move by the turn field (the first player without one).
    fn fen_turn(&self, field: Option<&str>) -> Result<PlayerId, FenError> {
        let letters = self.turn_letters();
        match field {
            None => Ok(PlayerId::FIRST),
            Some(t) => match letters.iter().position(|l| t.chars().eq(std::iter::once(*l))) {
                Some(i) => Ok(PlayerId::new(i)),
                None => {
                    let named: Vec<String> = letters.iter().map(|l| format!("`{l}`")).collect();
                    Err(bad(
                        "turn",
                        format!("`{t}` is not a turn letter of this game ({})", named.join(", ")),
                    ))
                }
            },
        }
    }

    /// `position` with the marks the rights field `rights` gives (as the
    /// `fen rights` lines say), noting in `doubts` a letter whose piece is
    /// not on its square.
    fn mark_rights(
        &self,
        mut position: Position,
        rights: &str,
        doubts: &mut Vec<String>,
    ) -> Result<Position, FenError> {
        let mut marks: Vec<Change> = Vec::new();
        for letter in rights.chars() {
            // A letter with several lines means the first whose pieces
            // all stand where it says (a rook's file: castling; else the
            // piece there may still gate).
            let mut lines = self
                .spec()
                .rights
                .iter()
                .filter(|c| c.letter == letter)
                .peekable();
            let Some(&first) = lines.peek() else {
                return Err(bad(
                    "rights (third)",
                    format!("`{letter}` is not a rights letter of this game"),
                ));
            };
            let rule = lines
                .find(|rule| self.rights_hold(&position, rule, false))
                .unwrap_or(first);
            for &(piece, m, sq) in &rule.squares {
                let before = marks.len();
                for at in self.rights_squares(sq) {
                    if let Content::Piece(p, have) = position.get(at)
                        && piece.is_none_or(|q| p == q)
                    {
                        marks.push(Change {
                            at,
                            content: Content::Piece(p, have.union(m)),
                        });
                        if sq.searches() {
                            break;
                        }
                    }
                }
                if marks.len() == before {
                    let symbol = piece.map_or("piece".to_string(), |q| self.pieces.symbol(q).to_string());
                    doubts.push(format!(
                        "the rights letter `{letter}` names a {symbol} that is not on its square"
                    ));
                }
            }
            position = position.with_changes(&marks);
            marks.clear();
        }
        Ok(position)
    }

    /// `position` with the marks the target field `target` gives (as the
    /// `fen target` lines say) to the pieces of the player not to move
    /// (`turn` is), noting in `doubts` a target that marks no piece.
    fn mark_target(
        &self,
        position: Position,
        target: &str,
        turn: PlayerId,
        doubts: &mut Vec<String>,
    ) -> Result<Position, FenError> {
        let Some(listed) = parse_squares(&self.frame, target) else {
            return Err(bad(
                "target square (fourth)",
                format!("`{target}` is not a square of the board"),
            ));
        };
        let mut marks: Vec<Change> = Vec::new();
        // A piece is marked when the field lists exactly the squares at
        // the rule's movements from it.
        for rule in &self.spec().targets {
            if rule.offsets.len() != listed.len() {
                continue;
            }
            let first = rule.offsets[0];
            for &sq in &listed {
                let at = Coord::new(sq.x - first.x, sq.y - first.y);
                let all = rule
                    .offsets
                    .iter()
                    .all(|o| listed.contains(&Coord::new(at.x + o.x, at.y + o.y)));
                if all
                    && let Content::Piece(p, have) = position.get(at)
                    && p == rule.piece
                    && self.info[p.index()].owner != Some(turn)
                    && !marks.iter().any(|m| m.at == at)
                {
                    marks.push(Change {
                        at,
                        content: Content::Piece(p, have.union(rule.marks)),
                    });
                }
            }
        }
        if marks.is_empty() {
            doubts.push(format!(
                "the target square {target} has no piece beside it for the target rules to mark"
            ));
        }
        Ok(position.with_changes(&marks))
    }

    /// Puts the pieces the board field's box part `pocket` lists (`Qn`)
    /// into box `bx` of `position`.
    fn fill_fen_box(&self, position: &mut Position, bx: BoxId, pocket: &str) -> Result<(), FenError> {
        for c in pocket.chars() {
            let Some(p) = self.piece_of_letter(c) else {
                return Err(bad(
                    "board",
                    format!("`{c}` in the box is not a piece letter of this game"),
                ));
            };
            let slot = self.pieces.slot(bx, p);
            position.set_tally(slot, position.tally(slot).saturating_add(1));
        }
        Ok(())
    }

    /// Fills box `bx` of `position`, whose `pieces` the FEN counts, by
    /// `counts`: what is given so far taken from what the box holds at the
    /// start, or what is left; without counts, what it holds at the start.
    fn fill_counted_box(
        &self,
        position: &mut Position,
        bx: BoxId,
        pieces: &[PieceId],
        counts: Option<&FenCounts>,
    ) -> Result<(), FenError> {
        if let Some((numbers, _)) = counts
            && numbers.len() != pieces.len()
        {
            return Err(bad(
                "counts",
                format!(
                    "{} counts given, this game counts {}",
                    numbers.len(),
                    pieces.len()
                ),
            ));
        }
        let start = self.initial();
        for (i, &p) in pieces.iter().enumerate() {
            let slot = self.pieces.slot(bx, p);
            let at_start = start.position().tally(slot);
            position.set_tally(
                slot,
                match counts {
                    // Without the field, the box holds what it holds at the start.
                    None => at_start,
                    Some((given, true)) => at_start.saturating_sub(given[i]),
                    Some((left, false)) => left[i],
                },
            );
        }
        Ok(())
    }

    /// The piece whose FEN letter is `+c` (a promoted piece).
    fn promoted_piece_of_letter(&self, c: char) -> Option<crate::core::PieceId> {
        self.info
            .iter()
            .position(|i| i.fen == Some(c) && i.fen_promoted)
            .map(|p| crate::core::PieceId(p as u16))
    }

    /// The piece whose FEN letter is `c` (or whose symbol is `c`).
    fn piece_of_letter(&self, c: char) -> Option<crate::core::PieceId> {
        self.info
            .iter()
            .position(|i| i.fen == Some(c) && !i.fen_promoted)
            .map(|p| crate::core::PieceId(p as u16))
            .or_else(|| self.pieces.lookup(c))
    }

    /// The board field's position, and the box written after it (`[Qn]` or
    /// a rank more than the board has), if the game has `fen box`.
    fn fen_board<'f>(&self, field: &'f str) -> Result<(Position, Option<&'f str>), FenError> {
        let f = self.frame;
        let mut field = field;
        let mut pocket = None;
        if self.spec().fen_box.is_some() {
            if let Some(open) = field.find('[') {
                let Some(inner) = field[open + 1..].strip_suffix(']') else {
                    return Err(bad(
                        "board",
                        "the box `[...]` is not closed by `]` at the end of the field",
                    ));
                };
                // `[-]`: an empty box, as Fairy-Stockfish writes a start.
                pocket = Some(if inner == "-" { "" } else { inner });
                field = &field[..open];
            } else if field.split('/').count() == f.ranks as usize + 1 {
                let cut = field.rfind('/').expect("more than one rank");
                pocket = Some(&field[cut + 1..]);
                field = &field[..cut];
            }
        }
        let rows: Vec<&str> = field.split('/').collect();
        if rows.len() != f.ranks as usize {
            return Err(bad(
                "board",
                format!("{} ranks given, the board has {}", rows.len(), f.ranks),
            ));
        }
        let start = self.initial();
        let initial = start.position();
        let mut squares = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            let y = f.y0 + f.ranks as i32 - 1 - i as i32;
            let mut x = 0u32;
            let mut digits = String::new();
            let flush = |digits: &mut String, x: &mut u32| -> Result<(), FenError> {
                if !digits.is_empty() {
                    let n: u32 = digits
                        .parse()
                        .map_err(|_| bad("board", "a run of empty squares is too long"))?;
                    *x += n;
                    digits.clear();
                }
                Ok(())
            };
            let mut promoted = false;
            for c in row.chars() {
                if c.is_ascii_digit() && !promoted {
                    digits.push(c);
                    continue;
                }
                flush(&mut digits, &mut x)?;
                // `+P`: the piece whose FEN letter is `+P` (a promoted piece).
                if c == '+' && !promoted {
                    promoted = true;
                    continue;
                }
                if promoted {
                    promoted = false;
                    let Some(p) = self.promoted_piece_of_letter(c) else {
                        return Err(bad("board", format!("`+{c}` is not a piece letter of this game")));
                    };
                    squares.push((Coord::new(f.x0 + x as i32, y), Content::Piece(p, Marks::NONE)));
                    x += 1;
                    continue;
                }
                // A mark's FEN character after a piece (`Q~`).
                if let Some(&(m, _)) = self.spec().mark_fen.iter().find(|(_, mc)| *mc == c)
                    && let Some((_, Content::Piece(_, have))) = squares.last_mut()
                    && x > 0
                {
                    *have = have.union(m);
                    continue;
                }
                let at = Coord::new(f.x0 + x as i32, y);
                // `*`: a place that is no square (a wall), as Fairy-Stockfish
                // writes one; on a square, the piece written `*` (a duck).
                if c == '*' && initial.get(at) == Content::NoSquare {
                    x += 1;
                    continue;
                }
                let Some(p) = self.piece_of_letter(c) else {
                    if c == '*' {
                        return Err(bad(
                            "board",
                            format!(
                                "`*` marks a place that is no square, but {} is a square of this board",
                                name(&f, at)
                            ),
                        ));
                    }
                    return Err(bad("board", format!("`{c}` is not a piece letter of this game")));
                };
                squares.push((at, Content::Piece(p, Marks::NONE)));
                x += 1;
            }
            flush(&mut digits, &mut x)?;
            if promoted {
                return Err(bad(
                    "board",
                    "a `+` ends a rank: it must come before a piece letter",
                ));
            }
            if x != f.files {
                return Err(bad(
                    "board",
                    format!(
                        "rank {} has {x} squares, the board has {}",
                        f.ranks as usize - i,
                        f.files
                    ),
                ));
            }
        }
        let mut all: Vec<(Coord, Content)> = initial.squares().map(|(at, _)| (at, Content::Empty)).collect();
        for (at, content) in squares {
            match all.iter_mut().find(|(a, _)| *a == at) {
                Some(slot) => slot.1 = content,
                None => {
                    return Err(bad(
                        "board",
                        format!("{} is not a square of this board", name(&f, at)),
                    ));
                }
            }
        }
        Ok((Position::from_squares(all), pocket))
    }

    /// The FEN of a state (under `notation numbered`, its numbered form).
    pub fn to_fen(&self, state: &State) -> String {
        if self.is_numbered() {
            return super::numbered::to_fen(self, state);
        }
        let f = self.frame;
        let mut board = String::new();
        for rank in (0..f.ranks).rev() {
            let mut empty = 0;
            for file in 0..f.files {
                let at = Coord::new(f.x0 + file as i32, f.y0 + rank as i32);
                match state.position().get(at) {
                    Content::Piece(p, marks) => {
                        if empty > 0 {
                            board.push_str(&empty.to_string());
                            empty = 0;
                        }
                        // A piece without a FEN letter is written by its symbol.
                        if self.info[p.index()].fen_promoted {
                            board.push('+');
                        }
                        board.push(self.info[p.index()].fen.unwrap_or_else(|| self.pieces.symbol(p)));
                        for &(m, c) in &self.spec().mark_fen {
                            if marks.contains(m) {
                                board.push(c);
                            }
                        }
                    }
                    // A place that is no square is a wall, `*`, as
                    // Fairy-Stockfish writes it.
                    Content::NoSquare => {
                        if empty > 0 {
                            board.push_str(&empty.to_string());
                            empty = 0;
                        }
                        board.push('*');
                    }
                    _ => empty += 1,
                }
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
            if rank > 0 {
                board.push('/');
            }
        }
        if let Some(bx) = self.spec().fen_box {
            board.push('[');
            board.push_str(&self.box_letters(state.position(), bx));
            board.push(']');
        }
        let turn = self
            .turn_letters()
            .get(state.turn().index())
            .copied()
            .unwrap_or('?');
        let mut rights: String = self
            .spec()
            .rights
            .iter()
            .filter(|rule| {
                !rule.squares.iter().any(|(_, _, sq)| sq.searches())
                    && self.rights_hold(state.position(), rule, true)
            })
            // A letter that says nothing the letters before it did not
            // (Seirawan's `E` after `K`: the king unmoved) is left out, as
            // Fairy-Stockfish leaves it out.
            .scan(Vec::new(), |said: &mut Vec<_>, rule| {
                let new = rule.squares.iter().any(|t| !said.contains(t));
                said.extend(rule.squares.iter().copied());
                Some(new.then_some(rule.letter))
            })
            .flatten()
            .collect();
        if rights.is_empty() {
            rights.push('-');
        }
        let mut target = "-".to_string();
        for (at, c) in state.position().squares() {
            if let Content::Piece(p, have) = c
                && let Some(rule) = self
                    .spec()
                    .targets
                    .iter()
                    .find(|r| r.piece == p && have.contains(r.marks))
            {
                // Squares a1 first, rank by rank, as Fairy-Stockfish writes them.
                let mut squares: Vec<Coord> = rule
                    .offsets
                    .iter()
                    .map(|o| Coord::new(at.x + o.x, at.y + o.y))
                    .collect();
                squares.sort_by_key(|c| (c.y, c.x));
                target = squares.iter().map(|&c| name(&f, c)).collect();
            }
        }
        if let Some((bx, pieces)) = &self.spec().fen_counts {
            let counts: Vec<String> = pieces
                .iter()
                .map(|&p| state.position().tally(self.pieces.slot(*bx, p)).to_string())
                .collect();
            target = format!("{target} {}", counts.join("+"));
        }
        let (quiet, fullmove) = (state.quiet_plies(), state.fullmove());
        // A game with a box in its FEN writes every field, as Fairy-Stockfish
        // writes its drop games (`...[] w - - 0 1`).
        let full = self.spec().fen_full.unwrap_or(
            !self.spec().rights.is_empty()
                || !self.spec().targets.is_empty()
                || self.spec().fen_box.is_some(),
        );
        if !full {
            return format!("{board} {turn} {quiet} {fullmove}");
        }
        format!("{board} {turn} {rights} {target} {quiet} {fullmove}")
    }

    /// What box `bx` holds, as FEN letters, in [`Game::box_order`] (`QRBNPqn`,
    /// as lichess writes a hand).
    pub(crate) fn box_letters(&self, position: &Position, bx: crate::core::BoxId) -> String {
        let mut out = String::new();
        for p in self.box_order() {
            let letter = self.info[p.index()].fen.unwrap_or_else(|| self.pieces.symbol(p));
            for _ in 0..position.tally(self.pieces.slot(bx, p)) {
                if self.info[p.index()].fen_promoted {
                    out.push('+');
                }
                out.push(letter);
            }
        }
        out
    }

    /// Whether every piece a rights line names stands on its square (and,
    /// if `marked`, carries the line's marks).
    fn rights_hold(&self, position: &Position, rule: &crate::decl::RightsLetter, marked: bool) -> bool {
        rule.squares.iter().all(|&(piece, m, sq)| {
            let want = if marked { m } else { Marks::NONE };
            self.rights_squares(sq).any(|at| {
                matches!(position.get(at), Content::Piece(p, have) if piece.is_none_or(|q| p == q) && have.contains(want))
            })
        })
    }

    /// The squares a `fen rights` square names, in the order to look at
    /// them: one, a whole rank, or a rank from the left or the right.
    fn rights_squares(&self, sq: crate::decl::SquareName) -> impl Iterator<Item = Coord> {
        let f = self.frame;
        let files: Box<dyn Iterator<Item = u32>> = match sq.files {
            Files::One(file) => Box::new(file..file + 1),
            Files::Any | Files::FirstFromLeft => Box::new(0..f.files),
            Files::FirstFromRight => Box::new((0..f.files).rev()),
        };
        files.map(move |file| Coord::new(f.x0 + file as i32, f.y0 + sq.rank as i32))
    }

    /// FEN's turn letter for each player: `fen turn`, else `w` and `b`.
    fn turn_letters(&self) -> Vec<char> {
        if self.spec().turn_letters.is_empty() {
            vec!['w', 'b']
        } else {
            self.spec().turn_letters.clone()
        }
    }
}

/// The numbers of a counts field: `3+3`.
fn parse_counts(text: &str) -> Result<Vec<u16>, FenError> {
    text.split('+')
        .map(|n| {
            n.parse::<u16>()
                .map_err(|_| bad("counts", format!("`{text}` is not counts such as `3+3`")))
        })
        .collect()
}

/// The squares of a field that runs square names together (`c5d6`).
fn parse_squares(frame: &super::BoardBox, text: &str) -> Option<Vec<Coord>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let letters = rest.find(|c: char| c.is_ascii_digit())?;
        let end = rest[letters..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |e| letters + e);
        out.push(parse_square(frame, &rest[..end])?);
        rest = &rest[end..];
    }
    (!out.is_empty()).then_some(out)
}
