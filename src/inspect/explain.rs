//! `explain`: why a move is legal, or why not, in the rule file's own words.
//!
//! A derivation is found by walking the player's `moves` expression as
//! written, from the top: at each choice (`|`, `/`) the branches whose moves
//! (expanded in their place: inside the `%p:`, the sequence and the
//! `flipped(...)` around them) give the move are followed, definitions and
//! function calls are entered with their arguments, each step of a sequence
//! is shown with the squares it changed, each repetition with how many
//! times it went round. The engine is the judge of every claim: a branch is
//! shown only if running it gives the move. A move the rules do not give is
//! explained by the derivations that got furthest for the piece on its
//! first square, and the step where each stopped.

use crate::core::{Content, Coord, Movement};
use crate::decl::Spec;
use crate::engine::Cache;
use crate::game::{Action, Game, PlayError, State};
use crate::ir::{CellSet, Move, Value};
use crate::syntax::ast::{self, Expr, ExprKind};

/// What the move is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A legal move.
    Legal,
    /// The rules give it, but the legality policy refuses it: a royal piece
    /// would be attacked (by these moves: mover, square, move name).
    LeavesRoyalAttacked(Vec<String>),
    /// The rules do not give it.
    NotGiven,
}

/// One line of an explanation, indented by `depth`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Line {
    /// How deep in the derivation.
    pub depth: usize,
    /// What it says.
    pub text: String,
    /// Where in the rule files (`rules/chess.alg:94`), if anywhere.
    pub place: Option<String>,
}

/// An explanation of one move.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Explanation {
    /// The move as asked.
    pub asked: String,
    /// Its name in the game's notation (when the rules give it).
    pub name: Option<String>,
    /// What it is.
    pub verdict: Verdict,
    /// The derivations (or the closest ones), line by line.
    pub lines: Vec<Line>,
}

/// Why a move cannot be explained at all.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ExplainError {
    /// A search gave up.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Play(#[from] PlayError),
    /// The move is neither a legal move's name nor squares.
    #[error("`{0}` is not a move of this position: give a legal move's name or SAN, or its squares (`e1g1`)")]
    #[diagnostic(code = "chessalg::inspect::explain_move")]
    Unreadable(String),
    /// The player to move has no `moves` expression.
    #[error("{0} has no moves in this rule file")]
    #[diagnostic(code = "chessalg::inspect::explain_player")]
    NoMoves(String),
}

/// What surrounds the expression being looked at, innermost last: each
/// turns that expression's move into the whole move.
#[derive(Clone, Debug)]
enum Frame {
    /// `colour_swapped(...)`, or with `flip` `flipped(...)`.
    Swapped { flip: bool },
    /// A movement applied (`R M`).
    Moved(Movement),
    /// `%p: ...`.
    Poi(CellSet),
    /// A step of a sequence, between the others.
    Seq { before: Vec<Move>, after: Vec<Move> },
}

impl Frame {
    /// What a built-in call puts around its argument: `flipped(M)`,
    /// `colour_swapped(M)`, a movement applied (`ur(M)`, or `m(M)` for a
    /// parameter `m` that holds one).
    fn of_call(name: &str, scope: &[(String, Value)]) -> Option<Frame> {
        if let Some((_, value)) = scope.iter().rev().find(|(p, _)| p == name) {
            // A parameter that holds a movement, applied: `m(f + g)`.
            return match value {
                Value::Movement(m) => Some(Frame::Moved(*m)),
                _ => None,
            };
        }
        match name {
            "flipped" => Some(Frame::Swapped { flip: true }),
            "colour_swapped" => Some(Frame::Swapped { flip: false }),
            _ if crate::ir::is_movement_word(name) => Some(Frame::Moved(crate::ir::movement_of_word(name))),
            _ => None,
        }
    }
}

/// Parameters bound to their values.
type Scope = Vec<(String, Value)>;

/// The most repetitions tried when counting how often one went round.
const MAX_ROUNDS: u32 = 32;

/// The walk's context.
struct Walk<'a> {
    spec: &'a Spec,
    game: &'a Game,
    state: &'a State,
    cache: Cache,
    /// The move explained (a move the rules give), or none.
    target: Option<Action>,
    /// The square the move starts from.
    from: Option<Coord>,
    lines: Vec<Line>,
    /// The arguments of the calls being walked through, innermost last:
    /// a parameter's expression as written, its scope and source.
    args: Vec<(String, Expr, Scope, usize)>,
    /// Where the piece of interest stands at the step being walked.
    poi_now: Option<Coord>,
}

/// A place of an explanation (`path:line`) as people other than the
/// server's host may see it: the path relative to the folder of the rule
/// file explained (an imported file beside it: `chess.alg:12`), else the
/// file's name alone, never the server's folders.
pub fn public_place(spec: &Spec, place: &str) -> String {
    use std::path::{Component, Path};
    let Some((path, line)) = place.rsplit_once(':') else {
        return place.to_string();
    };
    let root = Path::new(&spec.rules().source_of(0).name);
    let folder = root.parent().unwrap_or(Path::new(""));
    let path = Path::new(path);
    let inside = path.strip_prefix(folder).ok().filter(|rel| {
        rel.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    });
    let shown = match inside {
        Some(rel) => rel.display().to_string(),
        None => path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    };
    format!("{shown}:{line}")
}

/// Explains `text` (a move's name, SAN, or its squares) at `state`.
pub fn explain(spec: &Spec, game: &Game, state: &State, text: &str) -> Result<Explanation, ExplainError> {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache)?;
    let generated = game.generated_actions(state, &mut cache)?;
    let player = state.turn();
    let player_name = game.player_name(player).to_string();
    let (verdict, target, name) = match game.read_move(state, &legal, text) {
        Ok(i) => (
            Verdict::Legal,
            Some(legal[i].clone()),
            Some(game.move_names(state, &legal)[i].clone()),
        ),
        Err(_) => {
            let names = game.move_names(state, &generated);
            match names.iter().position(|n| n == text.trim()) {
                Some(i) => {
                    let action = generated[i].clone();
                    let attackers = royal_attackers(game, state, &action, &mut cache)?;
                    (
                        Verdict::LeavesRoyalAttacked(attackers),
                        Some(action),
                        Some(names[i].clone()),
                    )
                }
                None => (Verdict::NotGiven, None, None),
            }
        }
    };
    // The same move with the squares its piece passed through (the legal
    // moves carry them only where the notation needs them).
    let target = target.map(|t| {
        (generated.iter())
            .find(|g| g.changes() == t.changes() && g.from() == t.from() && g.to() == t.to())
            .cloned()
            .unwrap_or(t)
    });
    let from = match &target {
        Some(a) => a.from(),
        None => Some(
            squares_of(game, state, text)
                .ok_or_else(|| ExplainError::Unreadable(text.trim().to_string()))?
                .0,
        ),
    };
    let (expr, origin) =
        moves_expr(spec, &player_name).ok_or_else(|| ExplainError::NoMoves(player_name.clone()))?;
    let mut walk = Walk {
        spec,
        game,
        state,
        cache,
        target,
        from,
        lines: Vec::new(),
        args: Vec::new(),
        poi_now: from,
    };
    let place = walk.place(origin, expr.span);
    walk.line(
        0,
        format!("moves {player_name} = {}", walk.text(origin, expr)),
        place,
    );
    let mut frames = Vec::new();
    match walk.target.clone() {
        Some(target) => {
            walk.derive(expr, &[], origin, &mut frames, 1)?;
            let changes: Vec<String> = (target.changes().iter())
                .filter(|c| c.at.tally_slot().is_none())
                .map(|c| {
                    format!(
                        "{} {} -> {}",
                        game.square_label(c.at),
                        show_content(game, state.position().get(c.at)),
                        show_content(game, c.content)
                    )
                })
                .collect();
            walk.line(0, format!("the move changes {}", changes.join(", ")), None);
            if verdict == Verdict::Legal && game.legality() == crate::decl::Legality::RoyalSafe {
                let next = game.play(state, &target);
                let royals: Vec<String> = (next.position().squares())
                    .filter_map(|(at, c)| match c {
                        Content::Piece(p, _)
                            if game.piece_info(p).royal && game.piece_info(p).owner == Some(player) =>
                        {
                            Some(format!("{} on {}", show_content(game, c), game.square_label(at)))
                        }
                        _ => None,
                    })
                    .collect();
                if !royals.is_empty() {
                    walk.line(
                        0,
                        format!(
                            "legal (royal_safe): afterwards no other player's move changes the square of {player_name}'s {}",
                            royals.join(", ")
                        ),
                        None,
                    );
                }
            }
        }
        None => walk.closest(expr, &[], origin, &mut frames, 1)?,
    }
    Ok(Explanation {
        asked: text.trim().to_string(),
        name,
        verdict,
        lines: walk.lines,
    })
}

/// The expression of `moves PLAYER` and its source.
fn moves_expr<'s>(spec: &'s Spec, player: &str) -> Option<(&'s Expr, usize)> {
    spec.rules().items().find_map(|(item, origin)| match item {
        ast::Item::Declaration(ast::Declaration::Moves(m)) if m.player.text == player => {
            Some((&m.body, origin))
        }
        _ => None,
    })
}

/// The first two squares named in `text`: the game's square names apart
/// (`11-16`, `e1-g1`) or run together (`e1g1`).
fn squares_of(game: &Game, state: &State, text: &str) -> Option<(Coord, Coord)> {
    let labels: Vec<(String, Coord)> = (state.position().squares())
        .filter(|(at, _)| at.tally_slot().is_none())
        .map(|(at, _)| (game.square_label(at), at))
        .collect();
    let named: Vec<Coord> = (text.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter_map(|w| labels.iter().find(|(l, _)| l == w).map(|&(_, at)| at))
        .collect();
    if let [a, b, ..] = named.as_slice() {
        return Some((*a, *b));
    }
    // Run together (`e1g1`, `e7e8q`): two square names, then at most a letter.
    let mut found = Vec::new();
    let mut rest = text.trim();
    while found.len() < 2 {
        let (l, at) = (labels.iter())
            .filter(|(l, _)| rest.starts_with(l.as_str()))
            .max_by_key(|(l, _)| l.len())?;
        found.push(*at);
        rest = &rest[l.len()..];
    }
    if rest.chars().count() > 1 {
        return None;
    }
    (found.len() == 2).then(|| (found[0], found[1]))
}

/// The moves that would attack a royal piece of the mover after `action`.
fn royal_attackers(
    game: &Game,
    state: &State,
    action: &Action,
    cache: &mut Cache,
) -> Result<Vec<String>, PlayError> {
    let mover = state.turn();
    let next = game.play(state, action);
    let mut out = Vec::new();
    for (at, content) in next.position().squares() {
        let Content::Piece(p, _) = content else { continue };
        let info = game.piece_info(p);
        if !(info.royal && info.owner == Some(mover)) {
            continue;
        }
        for (who, m) in game.moves_changing(next.position(), at, mover, cache)? {
            let piece = m
                .from()
                .map(|f| show_content(game, next.position().get(f)))
                .unwrap_or_default();
            let line = format!(
                "{}'s {} on {} is attacked by {}'s {}{} ({})",
                game.player_name(mover),
                show_content(game, content),
                game.square_label(at),
                game.player_name(who),
                piece,
                m.from()
                    .map(|f| format!(" on {}", game.square_label(f)))
                    .unwrap_or_default(),
                plain_name(game, &next, &m)
            );
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    Ok(out)
}

/// A move's coordinates, whoever's turn it is.
fn plain_name(game: &Game, state: &State, action: &Action) -> String {
    match (action.from(), action.to()) {
        (Some(f), Some(t)) => format!("{}{}", game.square_label(f), game.square_label(t)),
        _ => game.action_name(state, action),
    }
}

/// A square's content as the diagrams draw it (`♔°`, `.`).
fn show_content(game: &Game, c: Content) -> String {
    match c {
        Content::Empty => ".".to_string(),
        Content::NoSquare => "#".to_string(),
        Content::Count(n) => n.to_string(),
        Content::Piece(p, marks) => {
            let pieces = game.pieces();
            format!("{}{}", pieces.symbol(p), pieces.mark_symbols(marks))
        }
    }
}

impl Walk<'_> {
    fn line(&mut self, depth: usize, text: String, place: Option<String>) {
        self.lines.push(Line { depth, text, place });
    }

    /// `file:line` of a span.
    fn place(&self, origin: usize, span: crate::source::Span) -> Option<String> {
        let source = self.spec.rules().source_of(origin);
        let line = source.text.get(..span.start)?.matches('\n').count() + 1;
        Some(format!("{}:{line}", source.name))
    }

    /// An expression's text as written, on one line, shortened if long.
    fn text(&self, origin: usize, e: &Expr) -> String {
        let source = self.spec.rules().source_of(origin);
        let raw = source.text.get(e.span.start..e.span.end).unwrap_or("");
        let one: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        match one.chars().count() > 90 {
            true => format!("{}…", one.chars().take(89).collect::<String>()),
            false => one,
        }
    }

    /// `e`'s move, expanded in its scope, or none.
    fn value(&self, e: &Expr, scope: &[(String, Value)], origin: usize) -> Option<Value> {
        self.spec.rules().expand_with(e, origin, scope)
    }

    /// `m` put back in its place: the whole move (or, with `prefix`, the
    /// whole move cut after `m`'s step at every level).
    fn wrap(&self, frames: &[Frame], m: Move, prefix: bool) -> Option<Move> {
        let pieces = self.game.pieces();
        let mut m = m;
        for f in frames.iter().rev() {
            m = match f {
                Frame::Swapped { flip } => {
                    let Value::Move(s) = Value::Move(m).colour_swapped(pieces) else {
                        return None;
                    };
                    match flip {
                        true => s.moved(Movement::TURN.pow(2).ok()?).ok()?,
                        false => s,
                    }
                }
                Frame::Moved(mv) => m.moved(*mv).ok()?,
                Frame::Poi(cells) => Move::WithPoi {
                    pieces: cells.clone(),
                    body: Box::new(m),
                },
                Frame::Seq { before, after } => {
                    let mut steps = before.clone();
                    steps.push(m);
                    if !prefix {
                        steps.extend(after.iter().cloned());
                    }
                    Move::Seq(steps)
                }
            };
        }
        Some(m)
    }

    /// The moves `m` gives at the position, starting from the move's square.
    fn results(&mut self, m: &Move) -> Result<Vec<Action>, PlayError> {
        let Ok(program) = crate::program::compile(m, self.game.pieces()) else {
            return Ok(Vec::new());
        };
        let all = self.game.program_actions(&program, self.state, &mut self.cache)?;
        Ok(all
            .into_iter()
            .filter(|a| self.from.is_none() || a.from() == self.from)
            .collect())
    }

    /// Whether `m`, in its place, gives the move explained.
    fn gives(&mut self, frames: &[Frame], m: Move) -> Result<bool, PlayError> {
        let Some(whole) = self.wrap(frames, m, false) else {
            return Ok(false);
        };
        let target = self.target.clone();
        Ok(self.results(&whole)?.iter().any(|a| {
            target
                .as_ref()
                .is_some_and(|t| a.changes() == t.changes() && a.to() == t.to())
        }))
    }

    /// Follows the derivations of the move explained through `e`.
    fn derive(
        &mut self,
        e: &Expr,
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        match &e.kind {
            ExprKind::Group(inner) => self.derive(inner, scope, origin, frames, depth),
            ExprKind::Union(alts) => self.derive_branches("|", alts, scope, origin, frames, depth),
            ExprKind::Ordered(alts) => self.derive_branches("/", alts, scope, origin, frames, depth),
            ExprKind::Word(name) if scope.iter().any(|(p, _)| p == name) => {
                self.derive_parameter(name, frames, depth)
            }
            ExprKind::Word(name) => {
                let Some((def, src)) = self.spec.rules().definition_ast(name) else {
                    return Ok(());
                };
                if def.is_function {
                    return Ok(());
                }
                let place = self.place(src, def.name.span);
                let text = format!("{name} = {}", self.text(src, &def.body));
                self.line(depth, text, place);
                self.derive(&def.body, &[], src, frames, depth + 1)
            }
            ExprKind::Call { name, args } => self.derive_call(name, args, scope, origin, frames, depth),
            ExprKind::Juxtapose(items) => self.derive_steps(items, scope, origin, frames, depth),
            ExprKind::PoiBind { body, .. } => self.derive_poi_bind(e, body, scope, origin, frames, depth),
            ExprKind::Repeat { body, min, max, .. } => {
                let Some(Value::Move(inner)) = self.value(body, scope, origin) else {
                    return Ok(());
                };
                self.derive_repeat(&inner, (*min, *max), frames, depth)
            }
            ExprKind::Guard { holds, body } => {
                let attacked = matches!(&body.kind, ExprKind::Word(w) if w == "attacked");
                let what = match (holds, attacked, self.poi_now) {
                    (false, true, Some(at)) => {
                        format!("held: {} is not attacked", self.game.square_label(at))
                    }
                    (true, true, Some(at)) => format!("held: {} is attacked", self.game.square_label(at)),
                    (true, _, _) => "held: it has a result".to_string(),
                    (false, _, _) => "held: it has no result".to_string(),
                };
                self.line(depth, what, None);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A choice (`|`, or `/` as `sign` says): each branch `alts` of it that
    /// gives the move explained, followed.
    fn derive_branches(
        &mut self,
        sign: &str,
        alts: &[Expr],
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        for (k, alt) in alts.iter().enumerate() {
            let Some(Value::Move(m)) = self.value(alt, scope, origin) else {
                continue;
            };
            if self.gives(frames, m)? {
                let text = format!(
                    "`{sign}` branch {} of {}: {}",
                    k + 1,
                    alts.len(),
                    self.text(origin, alt)
                );
                self.line(depth, text, None);
                self.derive(alt, scope, origin, frames, depth + 1)?;
            }
        }
        Ok(())
    }

    /// A parameter `name` of the function entered last: its argument as
    /// the caller wrote it, followed in the caller's scope.
    fn derive_parameter(
        &mut self,
        name: &str,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        let Some(k) = self.args.iter().rposition(|a| a.0 == name) else {
            return Ok(());
        };
        let (_, arg, arg_scope, arg_origin) = self.args[k].clone();
        let saved = self.args.split_off(k);
        self.line(depth, format!("{name} is {}", self.text(arg_origin, &arg)), None);
        let r = self.derive(&arg, &arg_scope, arg_origin, frames, depth + 1);
        self.args.extend(saved);
        r
    }

    /// `%p: M` (`e`, whose move is `body`): the piece of interest (and
    /// the square it stands on), then M with the binding around it.
    fn derive_poi_bind(
        &mut self,
        e: &Expr,
        body: &Expr,
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        let Some(Value::Move(Move::WithPoi { pieces, .. })) = self.value(e, scope, origin) else {
            return Ok(());
        };
        let on = self.from.map(|f| {
            let c = self.state.position().get(f);
            format!(
                ": {} on {}",
                show_content(self.game, c),
                self.game.square_label(f)
            )
        });
        self.line(
            depth,
            format!("the piece of interest{}", on.unwrap_or_default()),
            None,
        );
        frames.push(Frame::Poi(pieces));
        let r = self.derive(body, scope, origin, frames, depth + 1);
        frames.pop();
        r
    }

    /// A repetition of the move `inner` from `min` to `max` times: how
    /// many rounds give the move explained (at most [`MAX_ROUNDS`] past
    /// `min` are tried) and, with one count, the piece of interest's path.
    fn derive_repeat(
        &mut self,
        inner: &Move,
        (min, max): (u32, Option<u32>),
        frames: &[Frame],
        depth: usize,
    ) -> Result<(), PlayError> {
        let top = max.unwrap_or(min + MAX_ROUNDS).min(min + MAX_ROUNDS);
        let mut rounds = Vec::new();
        for k in min..=top {
            if self.gives(frames, exactly(inner, k))? {
                rounds.push(k.to_string());
            }
        }
        let times = match rounds.as_slice() {
            [one] if one == "1" => "once".to_string(),
            [one] => format!("{one} times"),
            many => format!("{} times (each gives it)", many.join(" or ")),
        };
        let mut path = String::new();
        if let [one] = rounds.as_slice()
            && let Ok(k) = one.parse::<u32>()
        {
            path = self.poi_path(inner, k, frames)?;
        }
        self.line(depth, format!("went round {times}{path}"), None);
        Ok(())
    }

    /// Where the piece of interest stood after each of `k` rounds of
    /// `inner` (the move cut after it, when that is one move), as a
    /// note to a repetition's line; empty if that is not known.
    fn poi_path(&mut self, inner: &Move, k: u32, frames: &[Frame]) -> Result<String, PlayError> {
        let Some(start) = self.poi_now.filter(|_| k > 0) else {
            return Ok(String::new());
        };
        let mut squares = vec![self.game.square_label(start)];
        for j in 1..=k {
            let Some(m) = self.wrap(frames, exactly(inner, j), true) else {
                break;
            };
            let results = self.results(&m)?;
            let fit: Vec<&Action> = (results.iter())
                .filter(|a| self.target.as_ref().is_none_or(|t| agrees(a, t)))
                .collect();
            match fit.as_slice() {
                [a] => squares.push(a.to().map_or("?".into(), |t| self.game.square_label(t))),
                _ => break,
            }
        }
        Ok(if squares.len() == k as usize + 1 {
            format!(" (the piece of interest: {})", squares.join(" → "))
        } else {
            String::new()
        })
    }

    /// A call: a user function entered with its arguments, `flipped` and
    /// `colour_swapped` around their argument, a movement applied.
    fn derive_call(
        &mut self,
        name: &ast::Ident,
        args: &[Expr],
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        let n = name.text.as_str();
        if let Some((def, src)) = self.spec.rules().definition_ast(n)
            && def.is_function
            && def.params.len() == args.len()
        {
            let mut inner = Vec::new();
            let mut shown = Vec::new();
            for (p, a) in def.params.iter().zip(args) {
                let Some(v) = self.value(a, scope, origin) else {
                    return Ok(());
                };
                shown.push(format!("{} = {}", p.text, self.text(origin, a)));
                inner.push((p.text.clone(), v));
            }
            let params: Vec<&str> = def.params.iter().map(|p| p.text.as_str()).collect();
            let body = self.text(src, &def.body);
            let text = match body.chars().count() <= 50 {
                true => format!("{n}({}) = {body}   with {}", params.join(", "), shown.join(", ")),
                false => format!("{n}({}) with {}", params.join(", "), shown.join(", ")),
            };
            let place = self.place(src, def.name.span);
            self.line(depth, text, place);
            let mark = self.args.len();
            for (p, a) in def.params.iter().zip(args) {
                self.args
                    .push((p.text.clone(), a.clone(), scope.to_vec(), origin));
            }
            let r = self.derive(&def.body, &inner, src, frames, depth + 1);
            self.args.truncate(mark);
            return r;
        }
        let Some(frame) = Frame::of_call(n, scope) else {
            return Ok(());
        };
        let [arg] = args else { return Ok(()) };
        self.line(depth, format!("{n}(...) of {}", self.text(origin, arg)), None);
        frames.push(frame);
        let r = self.derive(arg, scope, origin, frames, depth + 1);
        frames.pop();
        r
    }

    /// A juxtaposition: moves in sequence (each step with what it changed)
    /// or movements applied to a move.
    fn derive_steps(
        &mut self,
        items: &[Expr],
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        let values: Vec<Option<Value>> = items.iter().map(|i| self.value(i, scope, origin)).collect();
        let moves: Vec<Move> = values
            .iter()
            .filter_map(|v| match v {
                Some(Value::Move(m)) => Some(m.clone()),
                _ => None,
            })
            .collect();
        if moves.len() != items.len() {
            // Movements applied to the last item: `R M`, `ur step(u)`.
            let Some((last, lead)) = items.split_last() else {
                return Ok(());
            };
            let lead_expr = match lead {
                [one] => one.clone(),
                _ => Expr {
                    kind: ExprKind::Juxtapose(lead.to_vec()),
                    span: lead[0].span.join(lead[lead.len() - 1].span),
                },
            };
            let Some(Value::Movement(mv)) = self.value(&lead_expr, scope, origin) else {
                return Ok(());
            };
            frames.push(Frame::Moved(mv));
            let r = self.derive(last, scope, origin, frames, depth);
            frames.pop();
            return r;
        }
        let mut before_state: Option<Vec<(Coord, Content)>> = Some(Vec::new());
        for (i, item) in items.iter().enumerate() {
            frames.push(Frame::Seq {
                before: moves[..i].to_vec(),
                after: moves[i + 1..].to_vec(),
            });
            // What this step changed: the move cut after it, against the
            // move cut before it (when each gives one result).
            let cut = self.wrap(frames, moves[i].clone(), true);
            let after = match cut {
                Some(m) => {
                    let results = self.results(&m)?;
                    let mut consistent: Vec<&Action> = results
                        .iter()
                        .filter(|a| self.target.as_ref().is_none_or(|t| agrees(a, t)))
                        .collect();
                    // Cut after the last step, the move itself is among them.
                    if let Some(t) = &self.target
                        && let Some(exact) = consistent
                            .iter()
                            .find(|a| a.changes() == t.changes() && a.to() == t.to())
                    {
                        consistent = vec![*exact];
                    }
                    match consistent.as_slice() {
                        [one] => Some((
                            one.changes()
                                .iter()
                                .map(|c| (c.at, c.content))
                                .collect::<Vec<_>>(),
                            one.to(),
                        )),
                        _ => None,
                    }
                }
                None => None,
            };
            let changed = match (&before_state, &after) {
                (Some(b), Some((a, _))) => {
                    let writes: Vec<String> = a
                        .iter()
                        .filter(|(at, c)| b.iter().find(|(s, _)| s == at).map(|(_, old)| old) != Some(c))
                        .map(|&(at, c)| {
                            let old = b
                                .iter()
                                .find(|(s, _)| *s == at)
                                .map_or(self.state.position().get(at), |&(_, o)| o);
                            format!(
                                "{} {} -> {}",
                                self.game.square_label(at),
                                show_content(self.game, old),
                                show_content(self.game, c)
                            )
                        })
                        .collect();
                    match writes.is_empty() {
                        true => String::new(),
                        false => format!("   [{}]", writes.join(", ")),
                    }
                }
                _ => String::new(),
            };
            let at = match &after {
                Some((_, Some(to))) => {
                    format!(" (the piece of interest then on {})", self.game.square_label(*to))
                }
                _ => String::new(),
            };
            let place = self.place(origin, item.span);
            self.line(
                depth,
                format!("step {}: {}{changed}{at}", i + 1, self.text(origin, item)),
                place,
            );
            // Guards look at where the piece stood before this step.
            let before_poi = self.poi_now;
            self.derive(item, scope, origin, frames, depth + 1)?;
            self.poi_now = match &after {
                Some((_, to)) => *to,
                None => before_poi,
            };
            frames.pop();
            before_state = after.map(|(a, _)| a);
        }
        Ok(())
    }

    /// For a move the rules do not give: the derivations for the piece on
    /// its first square, and where each stopped.
    fn closest(
        &mut self,
        e: &Expr,
        scope: &[(String, Value)],
        origin: usize,
        frames: &mut Vec<Frame>,
        depth: usize,
    ) -> Result<(), PlayError> {
        let mut leaves = Vec::new();
        self.collect_leaves(e, scope.to_vec(), origin, frames, &mut Vec::new(), &mut leaves);
        let Some(from) = self.from else { return Ok(()) };
        let mut reports: Vec<(bool, usize, Vec<Line>)> = Vec::new();
        for leaf in leaves {
            // Only the `%p:`s whose piece stands on the move's first square.
            let Some(bound) = self.wrap(&leaf.frames, Move::Nil, true) else {
                continue;
            };
            if self.results(&bound)?.is_empty() {
                continue;
            }
            let mut lines = vec![Line {
                depth,
                text: leaf.chain.join(" → "),
                place: leaf.place.clone(),
            }];
            let mut reached = 0;
            let mut poi = Some(from);
            for (i, step) in leaf.steps.iter().enumerate() {
                let mut fr = leaf.frames.clone();
                fr.push(Frame::Seq {
                    before: leaf.steps[..i].iter().map(|s| s.1.clone()).collect(),
                    after: Vec::new(),
                });
                let Some(cut) = self.wrap(&fr, step.1.clone(), true) else {
                    break;
                };
                let results = self.results(&cut)?;
                if results.is_empty() {
                    let why = self.why_stopped(&step.0, &leaf, poi)?;
                    lines.push(Line {
                        depth: depth + 1,
                        text: format!(
                            "stopped at step {}: {}{why}",
                            i + 1,
                            self.text(leaf.origin, &step.0)
                        ),
                        place: self.place(leaf.origin, step.0.span),
                    });
                    break;
                }
                reached = i + 1;
                let tos: Vec<Option<Coord>> = results.iter().map(Action::to).collect();
                poi = if tos.iter().all(|t| *t == tos[0]) {
                    tos[0]
                } else {
                    None
                };
                if reached == leaf.steps.len() {
                    let ends: Vec<String> = results
                        .iter()
                        .filter_map(|a| a.to().map(|t| self.game.square_label(t)))
                        .collect();
                    lines.push(Line {
                        depth: depth + 1,
                        text: format!("every step matched; its moves end on {}", ends.join(" ")),
                        place: None,
                    });
                }
            }
            let stopped = reached < leaf.steps.len();
            reports.push((stopped, reached, lines));
        }
        // Those that stopped first (furthest first), then those that went
        // through but end elsewhere.
        reports.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let square = self.game.square_label(from);
        match reports.is_empty() {
            true => self.line(
                depth,
                format!("no `%p:` of these moves takes the piece on {square} as its piece of interest"),
                None,
            ),
            false => self.line(
                depth,
                format!("the derivations for the piece on {square} that got furthest:"),
                None,
            ),
        }
        for (_, _, lines) in reports.into_iter().take(3) {
            self.lines.extend(lines);
        }
        Ok(())
    }

    /// Why step `step` had no result: a failed `!{attacked}` says by what.
    fn why_stopped(&mut self, step: &Expr, leaf: &Leaf, poi: Option<Coord>) -> Result<String, PlayError> {
        let mut inner = step;
        while let ExprKind::Group(e) = &inner.kind {
            inner = e;
        }
        if let ExprKind::Guard { holds: false, body } = &inner.kind
            && matches!(&body.kind, ExprKind::Word(w) if w == "attacked")
            && let Some(at) = poi
        {
            let owner = match self.state.position().get(at) {
                Content::Piece(p, _) => self.game.piece_info(p).owner,
                _ => None,
            }
            .unwrap_or(self.state.turn());
            // The position as it stood at that step: the move cut before it.
            let before = leaf_position(self, leaf, step)?;
            let by = self.game.moves_changing(&before, at, owner, &mut self.cache)?;
            let mut list: Vec<String> = by
                .iter()
                .map(|(_, m)| {
                    let f = m.from().map(|f| {
                        format!(
                            "{} on {}",
                            show_content(self.game, before.get(f)),
                            self.game.square_label(f)
                        )
                    });
                    f.unwrap_or_else(|| "a move".to_string())
                })
                .collect();
            list.dedup();
            return Ok(format!(
                ": {} is attacked by {}",
                self.game.square_label(at),
                list.join(", ")
            ));
        }
        Ok(": it has no result here".to_string())
    }

    /// The `%p:` sequences under `e` (or single moves), with how they were
    /// reached.
    fn collect_leaves(
        &self,
        e: &Expr,
        scope: Vec<(String, Value)>,
        origin: usize,
        frames: &mut Vec<Frame>,
        chain: &mut Vec<String>,
        out: &mut Vec<Leaf>,
    ) {
        if out.len() > 200 || chain.len() > 24 {
            return;
        }
        match &e.kind {
            ExprKind::Group(inner) => self.collect_leaves(inner, scope, origin, frames, chain, out),
            ExprKind::Union(alts) | ExprKind::Ordered(alts) => {
                for alt in alts {
                    self.collect_leaves(alt, scope.clone(), origin, frames, chain, out);
                }
            }
            ExprKind::Word(name) if !scope.iter().any(|(p, _)| p == name) => {
                if let Some((def, src)) = self.spec.rules().definition_ast(name)
                    && !def.is_function
                {
                    chain.push(name.clone());
                    self.collect_leaves(&def.body, Vec::new(), src, frames, chain, out);
                    chain.pop();
                }
            }
            ExprKind::Call { name, args } => {
                let n = name.text.as_str();
                if let Some((def, src)) = self.spec.rules().definition_ast(n)
                    && def.is_function
                    && def.params.len() == args.len()
                {
                    let inner: Option<Vec<(String, Value)>> = (def.params.iter().zip(args))
                        .map(|(p, a)| Some((p.text.clone(), self.value(a, &scope, origin)?)))
                        .collect();
                    if let Some(inner) = inner {
                        chain.push(self.text(origin, e));
                        self.collect_leaves(&def.body, inner, src, frames, chain, out);
                        chain.pop();
                    }
                    return;
                }
                let Some(frame) = Frame::of_call(n, &scope) else {
                    return;
                };
                if let [arg] = args.as_slice() {
                    chain.push(format!("{n}(...)"));
                    frames.push(frame);
                    self.collect_leaves(arg, scope, origin, frames, chain, out);
                    frames.pop();
                    chain.pop();
                }
            }
            ExprKind::PoiBind { body, .. } => {
                let Some(Value::Move(Move::WithPoi { pieces, .. })) = self.value(e, &scope, origin) else {
                    return;
                };
                let mut inner: &Expr = body;
                while let ExprKind::Group(g) = &inner.kind {
                    inner = g;
                }
                let items: Vec<&Expr> = match &inner.kind {
                    ExprKind::Juxtapose(items) => items.iter().collect(),
                    _ => vec![inner],
                };
                let steps: Option<Vec<(Expr, Move)>> = items
                    .iter()
                    .map(|i| match self.value(i, &scope, origin) {
                        Some(Value::Move(m)) => Some(((*i).clone(), m)),
                        _ => None,
                    })
                    .collect();
                let mut fr = frames.clone();
                fr.push(Frame::Poi(pieces));
                match steps {
                    Some(steps) => out.push(Leaf {
                        chain: chain.clone(),
                        place: self.place(origin, e.span),
                        origin,
                        frames: fr,
                        steps,
                    }),
                    // Movements applied inside: one step, the whole body.
                    None => {
                        if let Some(Value::Move(m)) = self.value(inner, &scope, origin) {
                            out.push(Leaf {
                                chain: chain.clone(),
                                place: self.place(origin, e.span),
                                origin,
                                frames: fr,
                                steps: vec![(inner.clone(), m)],
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// A `%p:` and its steps, as reached from the top.
#[derive(Clone)]
struct Leaf {
    chain: Vec<String>,
    place: Option<String>,
    origin: usize,
    frames: Vec<Frame>,
    steps: Vec<(Expr, Move)>,
}

/// The position just before `step` of `leaf` (the move cut before it), if
/// the steps before it give one result; else the position searched.
fn leaf_position(
    walk: &mut Walk<'_>,
    leaf: &Leaf,
    step: &Expr,
) -> Result<crate::engine::Position, PlayError> {
    let i = leaf.steps.iter().position(|s| s.0.span == step.span).unwrap_or(0);
    if i == 0 {
        return Ok(walk.state.position().clone());
    }
    let mut fr = leaf.frames.clone();
    fr.push(Frame::Seq {
        before: leaf.steps[..i - 1].iter().map(|s| s.1.clone()).collect(),
        after: Vec::new(),
    });
    let Some(cut) = walk.wrap(&fr, leaf.steps[i - 1].1.clone(), true) else {
        return Ok(walk.state.position().clone());
    };
    let results = walk.results(&cut)?;
    Ok(match results.as_slice() {
        [one] => walk.game.play(walk.state, one).position().clone(),
        _ => walk.state.position().clone(),
    })
}

/// The move `m` repeated exactly `k` times.
fn exactly(m: &Move, k: u32) -> Move {
    Move::Repeat {
        body: Box::new(m.clone()),
        min: k,
        max: Some(k),
    }
}

/// Whether a move cut after some step can still become `target`: each
/// square it changed is changed the same way by the target or again later
/// (a square the target leaves as it was may have been passed through).
fn agrees(partial: &Action, target: &Action) -> bool {
    partial.from() == target.from()
        && partial
            .changes()
            .iter()
            .all(|c| target.changes().iter().any(|t| t.at == c.at) || target.path().contains(&c.at))
}
