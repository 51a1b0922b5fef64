//! One game on the server: a [`Session`] (where it started, the moves
//! played, its clock, its cache) with what the server adds: each move's
//! name, record and time as the database keeps them, who may play each
//! seat, and a version every page compares; and the JSON every page is
//! shown it as.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::store::{Ended, StoredGame, StoredMove};
use super::{ApiError, bad, svg};
use crate::ai::Budget;
use crate::core::{Content, Coord, PlayerId};
use crate::engine::Cache;
use crate::game::{Action, Ending, Game, Reason, State};
use crate::session::{Clock, Controller, Session, TimeControl, now_ms};

/// One game in the server's memory, as its database row holds it too.
pub(super) struct Played {
    /// The game: its rules, start, positions, moves, clock and cache.
    pub(super) session: Session,
    pub(super) start_fen: String,
    /// Each move's name, as `moves` names it.
    pub(super) names: Vec<String>,
    /// The moves in the game's notation (SAN; `11-15` under `notation numbered`).
    pub(super) record: Vec<String>,
    /// When each move was played, and the clocks after it.
    pub(super) played: Vec<StoredMove>,
    /// Each player's seat token (none: anyone may move).
    pub(super) seats: Option<Vec<String>>,
    pub(super) created_ms: u64,
    /// The rule text it is played under, when not the server's (a
    /// playground game).
    pub(super) rules_text: Option<String>,
    /// Counts up on every change (a move, a take-back, a time loss), from
    /// the time it was made or loaded in microseconds, so it keeps growing
    /// across a server restart: a page takes a description only if it is
    /// not older than the one it shows (an event stream's message can
    /// arrive after the reply to a later move).
    pub(super) version: u64,
    /// How it ended by its players' word (a resignation, a draw agreed,
    /// a game abandoned), if it did.
    pub(super) ended: Option<Ended>,
    /// The player who offers a draw now, if one does (until a move).
    pub(super) draw_offer: Option<usize>,
    /// The player who asks to take back their last move, if one does
    /// (until a move).
    pub(super) takeback_ask: Option<usize>,
    /// The player who wants a rematch, if one does (the game over).
    pub(super) rematch_ask: Option<usize>,
    /// The game its players went on to play next.
    pub(super) rematch: Option<u64>,
    /// The player waiting in the lobby for an opponent (a seek nobody
    /// joined: the other seats are open).
    pub(super) open_seek: Option<usize>,
    /// The event streams open on it.
    pub(super) presence: Presence,
}

/// Who follows a game: the event streams open on it, by seat and without.
#[derive(Clone, Debug, Default)]
pub(super) struct Presence {
    /// Streams without a seat's token.
    pub(super) watchers: usize,
    /// Streams per seat, in turn order.
    pub(super) seats: Vec<usize>,
    /// When each seat last had no stream open (its last stream closed,
    /// or the game was made or loaded).
    pub(super) away_since: Vec<u64>,
}

impl Presence {
    fn new(seats: usize, now: u64) -> Presence {
        Presence {
            watchers: 0,
            seats: vec![0; seats],
            away_since: vec![now; seats],
        }
    }

    /// A stream for `viewer` opened.
    pub(super) fn open(&mut self, viewer: Viewer) {
        match viewer {
            Viewer::Seat(i) if i < self.seats.len() => self.seats[i] += 1,
            _ => self.watchers += 1,
        }
    }

    /// A stream for `viewer` closed at `now`.
    pub(super) fn close(&mut self, viewer: Viewer, now: u64) {
        match viewer {
            Viewer::Seat(i) if i < self.seats.len() => {
                self.seats[i] = self.seats[i].saturating_sub(1);
                if self.seats[i] == 0 {
                    self.away_since[i] = now;
                }
            }
            _ => self.watchers = self.watchers.saturating_sub(1),
        }
    }

    /// How long seat `i` has had no stream open at `now` (none: it has one).
    pub(super) fn away(&self, i: usize, now: u64) -> Option<u64> {
        match self.seats.get(i) {
            Some(0) => Some(now.saturating_sub(self.away_since[i])),
            Some(_) => None,
            None => Some(u64::MAX),
        }
    }
}

/// Who a request is, by its seat token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Viewer {
    /// A game without seats: anyone plays.
    Anyone,
    /// The holder of a seat's token.
    Seat(usize),
    /// Someone without a seat of this game.
    Watcher,
}

impl Played {
    /// A new game of `game` from `start`; its clock, if any, starts with
    /// the first move (which is not timed).
    pub(super) fn new(
        game: Arc<Game>,
        start: State,
        seats: Option<Vec<String>>,
        clock: Option<TimeControl>,
    ) -> Played {
        let players = game.players().len();
        let start_fen = game.to_fen(&start);
        // People play every seat: the page asks for the AI's moves.
        let budget = Budget { depth: 1, time: None };
        let mut session = Session::new(game, start, vec![Controller::Human; players], budget, 0);
        session.clock = clock.map(|c| Clock::new(c, players));
        Played {
            session,
            start_fen,
            names: Vec::new(),
            record: Vec::new(),
            played: Vec::new(),
            seats,
            created_ms: now_ms(),
            rules_text: None,
            version: now_ms().saturating_mul(1000),
            ended: None,
            draw_offer: None,
            takeback_ask: None,
            rematch_ask: None,
            rematch: None,
            open_seek: None,
            presence: Presence::new(players, now_ms()),
        }
    }

    /// The rules it is played under.
    pub(super) fn game(&self) -> &Arc<Game> {
        &self.session.game
    }

    /// The game as the database keeps it.
    pub(super) fn stored(&self) -> StoredGame {
        StoredGame {
            id: 0,
            game: self.game().name().to_string(),
            start_fen: self.start_fen.clone(),
            created_ms: self.created_ms,
            seats: self.seats.clone(),
            clock: self.session.clock.as_ref().map(Clock::control),
            flagged: self.flagged(),
            moves: self.played.clone(),
            rules_text: self.rules_text.clone(),
            ended: self.ended,
            rematch: self.rematch,
        }
    }

    /// A stored game played again from its start under `game`; why not,
    /// if its record does not fit these rules (a row edited by hand, a
    /// move no longer legal).
    pub(super) fn replayed(game: Arc<Game>, stored: &StoredGame) -> Result<Played, String> {
        let players = game.players().len();
        if let Some(seats) = &stored.seats
            && seats.len() != players
        {
            return Err(format!("it has {} seats for {players} players", seats.len()));
        }
        match (stored.flagged, &stored.clock) {
            (Some(p), _) if p >= players => {
                return Err(format!(
                    "its player out of time is number {}, of {players}",
                    p + 1
                ));
            }
            (Some(_), None) => return Err("a player ran out of time, and it has no clock".into()),
            _ => {}
        }
        if let Some(winner) = stored.ended.and_then(|e| e.winner)
            && winner >= players
        {
            return Err(format!(
                "its winner is player number {}, of {players}",
                winner + 1
            ));
        }
        let mut cache = Cache::new();
        let start = game
            .from_fen_checked(&stored.start_fen, &mut cache)
            .map_err(|e| format!("its start does not read: {e}"))?;
        let mut p = Played::new(game, start, stored.seats.clone(), stored.clock);
        p.created_ms = stored.created_ms;
        for (ply, m) in stored.moves.iter().enumerate() {
            if let Some(clocks) = &m.clocks
                && (p.session.clock.is_none() || clocks.len() != players)
            {
                return Err(format!(
                    "move {} has {} clocks for {players} players",
                    ply + 1,
                    clocks.len()
                ));
            }
            let (legal, _) = p.legal_and_ending().map_err(|e| e.1)?;
            let state = p.last().clone();
            let i = (p.game().move_names(&state, &legal).iter())
                .position(|n| *n == m.name)
                .ok_or_else(|| format!("its move {} ({}) is not legal under these rules", ply + 1, m.name))?;
            p.push(&legal, i, m.played_ms);
            // The clocks as they were stored (they ran while it was played).
            if let Some(clock) = &mut p.session.clock {
                clock.restore(m.clocks.as_deref(), Some(m.played_ms));
            }
            p.played[ply] = m.clone();
        }
        if let (Some(out), Some(clock)) = (stored.flagged, &mut p.session.clock) {
            clock.flag(PlayerId::new(out));
        }
        p.ended = stored.ended;
        p.rematch = stored.rematch;
        Ok(p)
    }

    /// The number of moves played.
    pub(super) fn plies(&self) -> usize {
        self.session.actions.len()
    }

    /// The position now.
    pub(super) fn last(&self) -> &State {
        self.session.state()
    }

    /// The position after the first `ply` moves (`None`: the last), with
    /// that ply and the number of moves played; a 400 past the last.
    pub(super) fn at(&self, ply: Option<usize>) -> Result<(&State, usize, usize), ApiError> {
        let last = self.plies();
        let shown = ply.unwrap_or(last);
        let state = (self.session.states)
            .get(shown)
            .ok_or_else(|| bad(format!("the game has {last} moves, not {shown}")))?;
        Ok((state, shown, last))
    }

    /// Who holds `token` in this game.
    pub(super) fn viewer(&self, token: Option<&str>) -> Viewer {
        match &self.seats {
            None => Viewer::Anyone,
            Some(seats) => match token.and_then(|t| seats.iter().position(|s| s == t)) {
                Some(i) => Viewer::Seat(i),
                None => Viewer::Watcher,
            },
        }
    }

    /// The legal moves of the position now and how the game stands there
    /// (ended, and why, or not), with the game's own cache.
    pub(super) fn legal_and_ending(&mut self) -> Result<(Vec<Action>, Standing), ApiError> {
        let Session {
            game, states, cache, ..
        } = &mut self.session;
        let state = states.last().expect("a game has a position");
        legal_and_ending(game, state, cache)
    }

    /// Plays the `i`th of `legal` (the moves of the position now) at `now`,
    /// recording its name, its SAN, when, and the clocks after it (the
    /// mover's clock charged).
    pub(super) fn push(&mut self, legal: &[Action], i: usize, now: u64) {
        let Session {
            game, states, cache, ..
        } = &mut self.session;
        let state = states.last().expect("a game has a position");
        let name = game.move_names(state, legal).swap_remove(i);
        let san = game.san(state, &legal[i], legal, cache);
        self.record.push(san.unwrap_or_else(|_| name.clone()));
        self.session.push_at(legal[i].clone(), now);
        let clocks = self.session.clock.as_ref().map(|c| c.times().to_vec());
        self.version += 1;
        // A move withdraws an offer of a draw and a request to take back.
        self.draw_offer = None;
        self.takeback_ask = None;
        self.played.push(StoredMove {
            name: name.clone(),
            played_ms: now,
            clocks,
        });
        self.names.push(name);
    }

    /// Takes the last move back at `now` (its clocks, a time loss and a
    /// resignation too);
    /// false if there is none.
    pub(super) fn pop(&mut self, now: u64) -> bool {
        if self.session.undo() == 0 {
            return false;
        }
        self.version += 1;
        self.ended = None;
        self.draw_offer = None;
        self.takeback_ask = None;
        self.names.pop();
        self.record.pop();
        self.played.pop();
        let before = self.played.last().and_then(|m| m.clocks.clone());
        let running = !self.played.is_empty();
        if let Some(clock) = &mut self.session.clock {
            clock.restore(before.as_deref(), running.then_some(now));
        }
        true
    }

    /// The player whose time ran out, if one did.
    pub(super) fn flagged(&self) -> Option<usize> {
        self.session.clock.as_ref()?.flagged().map(PlayerId::index)
    }

    /// The player to move's time ran out: the game ends so.
    pub(super) fn flag(&mut self) {
        let turn = self.last().turn();
        if let Some(clock) = &mut self.session.clock {
            clock.flag(turn);
            self.version += 1;
        }
    }

    /// Whether the player to move's time has run out at `now` (and the
    /// game is not flagged already, nor ended by its players).
    pub(super) fn out_of_time(&self, now: u64) -> bool {
        let turn = self.last().turn();
        self.ended.is_none() && (self.session.clock.as_ref()).is_some_and(|c| c.out_of_time(turn, now))
    }

    /// When the player to move runs out of time, if their clock runs.
    pub(super) fn deadline(&self) -> Option<u64> {
        let turn = self.last().turn();
        match self.ended {
            Some(_) => None,
            None => self.session.clock.as_ref().and_then(|c| c.deadline(turn)),
        }
    }

    /// Whether the game stopped on a clock or by its players' word (not
    /// by its rules: [`Played::legal_and_ending`] says that).
    pub(super) fn stopped(&self) -> bool {
        self.flagged().is_some() || self.ended.is_some()
    }

    /// Whether the game is over, by any means.
    pub(super) fn over(&mut self) -> Result<bool, ApiError> {
        Ok(self.stopped() || self.legal_and_ending()?.1.is_some())
    }

    /// The game's result now (`{"winner", "reason", "score"}`), if it is over.
    pub(super) fn outcome(&mut self) -> Result<Option<Value>, ApiError> {
        let game = self.game().clone();
        if let Some(out) = self.flagged() {
            return Ok(Some(time_loss(&game, out)));
        }
        if let Some(e) = self.ended {
            let by = e.by.name();
            return Ok(Some(result(&game, e.winner, by, by, None)));
        }
        let (legal, ending) = self.legal_and_ending()?;
        if ending.is_none() {
            return Ok(None);
        }
        let Session { states, cache, .. } = &mut self.session;
        let state = states.last().expect("a game has a position");
        rule_result(&game, state, &legal, cache)
    }

    /// The ply of the last move player `who` made (where taking it back
    /// goes back to), if they made one.
    pub(super) fn last_move_of(&self, who: usize) -> Option<usize> {
        let states = &self.session.states;
        (0..self.plies()).rev().find(|&k| states[k].turn().index() == who)
    }

    /// The JSON of the position after `ply` moves (`None`: the last) for
    /// `viewer`: board, turn, legal moves, record, clocks, result.
    pub(super) fn describe(
        &mut self,
        id: u64,
        ply: Option<usize>,
        viewer: Viewer,
    ) -> Result<Value, ApiError> {
        let flagged = self.flagged();
        let (_, shown, last) = self.at(ply)?;
        let Session {
            game,
            states,
            actions,
            cache,
            clock: game_clock,
            ..
        } = &mut self.session;
        let (game, state) = (&**game, &states[shown]);
        let (legal, ending) = legal_and_ending(game, state, cache)?;
        let player = |p: PlayerId| game.players()[p.index()].clone();
        let result = match (flagged, self.ended, ending) {
            (Some(out), _, _) if shown == last => Some(time_loss(game, out)),
            (_, Some(ended), _) if shown == last => {
                let by = ended.by.name();
                Some(result(game, ended.winner, by, by, None))
            }
            (_, _, Some(_)) => rule_result(game, state, &legal, cache)?,
            _ => None,
        };
        let (files, ranks) = game.dimensions();
        // A past position is shown, not played from; a watcher sees no moves.
        let may_move = match viewer {
            Viewer::Anyone => true,
            Viewer::Seat(i) => i == state.turn().index(),
            Viewer::Watcher => false,
        };
        let moves = if result.is_some() || shown != last || !may_move {
            Vec::new()
        } else {
            legal_moves(game, state, &legal)
        };
        let now = now_ms();
        let clock =
            (game_clock.as_ref()).map(|c| clock_json(game, c, states[last].turn(), result.is_none(), now));
        // The royal pieces of the player to move that stand attacked.
        let check: Vec<String> = game
            .attacked_royals(state.position(), state.turn(), cache)
            .map_err(|e| bad(e.to_string()))?
            .into_iter()
            .map(|at| game.square_label(at))
            .collect();
        let you = match viewer {
            Viewer::Seat(i) => json!(game.players()[i]),
            _ => Value::Null,
        };
        let name = |who: Option<usize>| who.map(|i| game.players()[i].clone());
        let seated = self.seats.is_some();
        let online = seated.then(|| seats_online(game, &self.presence));
        Ok(json!({
            "id": id,
            "game": game.name(),
            "players": game.players(),
            "player_names": player_names(game),
            "player_colours": player_colours(game),
            "files": files,
            "ranks": ranks,
            "turn": player(state.turn()),
            "fen": game.to_fen(state),
            "board": board_cells(game, state),
            "svg": svg::position_svg(game, state, svg::PieceSet::Page),
            "pockets": pockets(game, state),
            "legal": moves,
            "ply": shown,
            "plies": last,
            "version": self.version,
            "history": self.names,
            "record": self.record,
            "result": result,
            "last_move": last_move_squares(game, states, actions, shown),
            "check": check,
            "seated": self.seats.is_some(),
            "you": you,
            "clock": clock,
            "draw_offer": name(self.draw_offer),
            "takeback_ask": name(self.takeback_ask),
            "rematch_ask": name(self.rematch_ask),
            "rematch": self.rematch,
            "watchers": self.presence.watchers,
            "online": online,
            "open_seats": open_seats(game, self.open_seek),
        }))
    }
}

/// Each square of `state`'s board as the page draws it: its name, file
/// and rank (from the bottom-left corner), colour, and the piece on it
/// with its marks, owner and FEN letter.
fn board_cells(game: &Game, state: &State) -> Vec<Value> {
    let mut cells = Vec::new();
    for (at, content) in state.position().squares() {
        let file = at.x - game.square_at(0, 0).x;
        let rank = at.y - game.square_at(0, 0).y;
        let (piece, marks, owner, letter) = match content {
            Content::Piece(pc, marks) => {
                let info = game.piece_info(pc);
                (
                    Some(game.pieces().symbol(pc).to_string()),
                    Some(game.pieces().mark_symbols(marks)),
                    info.owner.map(|o| o.index()),
                    info.fen.map(|l| l.to_string()),
                )
            }
            _ => (None, None, None, None),
        };
        cells.push(json!({
            "square": game.square_label(at), "file": file, "rank": rank,
            "piece": piece, "marks": marks, "owner": owner, "letter": letter,
            "dark": (file + rank) % 2 == 0,
        }));
    }
    cells
}

/// The moves of `legal` (the legal moves of `state`) as the page offers
/// them: each with its name, the squares it leaves and reaches, the piece
/// it drops, and the squares clicked to make it. Moves made by the same
/// clicks are told apart by a picker at their last square, showing the
/// piece each leaves there.
fn legal_moves(game: &Game, state: &State, legal: &[Action]) -> Vec<Value> {
    let label = |at: Coord| game.square_label(at);
    let names = game.move_names(state, legal);
    let clicks = if names.is_empty() {
        Vec::new()
    } else {
        game.click_sequences(state, legal)
    };
    let mut same_clicks: HashMap<&[Coord], usize> = HashMap::new();
    for c in clicks.iter().filter(|c| !c.is_empty()) {
        *same_clicks.entry(c.as_slice()).or_default() += 1;
    }
    names
        .iter()
        .zip(legal)
        .zip(&clicks)
        .map(|((name, action), clicks)| {
            let drop = game.dropped_piece(state, action);
            let (from, to) = move_squares(game, state, action);
            let mut v = json!({
                "name": name,
                "from": from.map(label),
                "to": to.map(label),
                "drop": drop.map(|(pc, _)| game.pieces().symbol(pc).to_string()),
                "pass": action.is_pass(),
                "clicks": clicks.iter().map(|&at| label(at)).collect::<Vec<_>>(),
            });
            if let Some(&last) = clicks.last()
                && same_clicks.get(clicks.as_slice()).is_some_and(|&n| n > 1)
                && let Content::Piece(pc, _) = game.play(state, action).position().get(last)
            {
                v["leaves"] = json!({
                    "piece": game.pieces().symbol(pc).to_string(),
                    "svg": svg::lone_piece_svg(game, pc, svg::PieceSet::Page),
                });
            }
            v
        })
        .collect()
}

/// What the boxes of `state` hold: each kind of piece in a box, with its
/// owner and count.
fn pockets(game: &Game, state: &State) -> Vec<Value> {
    let mut pockets = Vec::new();
    for slot in 0..game.pieces().box_count() * game.pieces().len() {
        let n = state.position().tally(slot);
        if n > 0 {
            let (bx, pc) = game.pieces().slot_of(slot);
            pockets.push(json!({
                "box": game.pieces().box_name(bx),
                "piece": game.pieces().symbol(pc).to_string(),
                "owner": game.piece_info(pc).owner.map(|o| o.index()),
                "count": n,
            }));
        }
    }
    pockets
}

/// The game's clock at `now` with `turn` to move: each player's time
/// left, whose clock runs (none unless the game is `going_on`), and the
/// time control.
fn clock_json(game: &Game, clock: &Clock, turn: PlayerId, going_on: bool, now: u64) -> Value {
    let left = clock.left_at(turn, now);
    let running = (clock.running() && going_on).then(|| game.players()[turn.index()].clone());
    json!({
        "left_ms": game.players().iter().cloned().zip(left.into_iter().map(Value::from)).collect::<serde_json::Map<String, Value>>(),
        "running": running,
        "base_ms": clock.control().base.as_millis() as u64,
        "increment_ms": clock.control().increment.as_millis() as u64,
    })
}

/// The squares the move that led to the position after `shown` moves
/// left and reached (none at the start).
fn last_move_squares(game: &Game, states: &[State], actions: &[Action], shown: usize) -> Vec<String> {
    match shown.checked_sub(1) {
        Some(before) => {
            let (from, to) = move_squares(game, &states[before], &actions[before]);
            from.into_iter()
                .chain(to)
                .map(|at| game.square_label(at))
                .collect()
        }
        None => Vec::new(),
    }
}

/// Whether each seat has an event stream open, by player.
fn seats_online(game: &Game, presence: &Presence) -> serde_json::Map<String, Value> {
    (game.players().iter().cloned())
        .zip(presence.seats.iter().map(|&n| Value::from(n > 0)))
        .collect()
}

/// The seats of a seek nobody joined yet: every player but the one
/// `waiting` (none without a seek).
fn open_seats(game: &Game, waiting: Option<usize>) -> Vec<String> {
    match waiting {
        Some(waiting) => (game.players().iter().enumerate())
            .filter(|&(i, _)| i != waiting)
            .map(|(_, p)| p.clone())
            .collect(),
        None => Vec::new(),
    }
}

/// Each player's display name (the rule file's `player` lines), by player.
pub(super) fn player_names(game: &Game) -> Value {
    let names: serde_json::Map<String, Value> = (game.players().iter().enumerate())
        .map(|(i, p)| (p.clone(), json!(game.display_name(PlayerId::new(i)))))
        .collect();
    Value::Object(names)
}

/// The colours the rule file gives its players (`player ... colour`), by
/// player; a player without one is left out.
pub(super) fn player_colours(game: &Game) -> Value {
    let colours: serde_json::Map<String, Value> = (game.players().iter().enumerate())
        .filter_map(|(i, p)| Some((p.clone(), json!(game.player_colour(PlayerId::new(i))?))))
        .collect();
    Value::Object(colours)
}

/// The square a move leaves (none for a drop) and the one it reaches (a
/// drop's or placement's square), as the page marks them.
fn move_squares(game: &Game, state: &State, action: &Action) -> (Option<Coord>, Option<Coord>) {
    let drop = game.dropped_piece(state, action);
    let to = action
        .to()
        .filter(|&t| Some(t) != action.from())
        .or_else(|| drop.map(|(_, at)| at))
        .or_else(|| game.placed_square(state, action));
    let from = if drop.is_some() {
        None
    } else {
        action.from().filter(|&f| Some(f) != to)
    };
    (from, to)
}

/// The result of a game where player `out`'s time ran out: with two
/// players the other wins, with more it is a draw.
fn time_loss(game: &Game, out: usize) -> Value {
    let players = game.players();
    let reason = format!("{} ran out of time", game.display_name(PlayerId::new(out)));
    let winner = (players.len() == 2).then(|| 1 - out);
    result(game, winner, &reason, &reason, None)
}

/// The result of a game a rule ended in `state` (whose moves are
/// `legal`), in the rule file's words, if one did.
fn rule_result(
    game: &Game,
    state: &State,
    legal: &[Action],
    cache: &mut Cache,
) -> Result<Option<Value>, ApiError> {
    let ended = game.ended(state, legal, cache).map_err(|e| bad(e.to_string()))?;
    Ok(ended.map(|ended| {
        let winner = match ended.ending {
            Ending::Win(p) => Some(p.index()),
            Ending::Draw => None,
        };
        result(
            game,
            winner,
            &ended.called(),
            &ended.reason.to_string(),
            ended.detail.clone(),
        )
    }))
}

/// A result as the API writes it: `{"winner", "reason"` (the rule file's
/// name for it), `"rule"` (the rule's own words), `"detail"` (a count's
/// `"33-31"`), `"score"}`.
pub(super) fn result(
    game: &Game,
    winner: Option<usize>,
    reason: &str,
    rule: &str,
    detail: Option<String>,
) -> Value {
    let players = game.players();
    json!({
        "winner": winner.map(|w| players[w].clone()),
        "reason": reason,
        "rule": rule,
        "detail": detail,
        "score": score(players.len(), winner),
    })
}

/// The score of a game of `players` players that `winner` won (none: a
/// draw), in turn order: a point to the winner, none to the others
/// (`1-0`, `0-1`, `0-1-0`), a half each in a drawn game of two (`½-½`);
/// none for a drawn game of more or fewer.
pub(super) fn score(players: usize, winner: Option<usize>) -> Option<String> {
    match winner {
        Some(w) if w < players => Some(
            (0..players)
                .map(|i| if i == w { "1" } else { "0" })
                .collect::<Vec<_>>()
                .join("-"),
        ),
        None if players == 2 => Some("½-½".to_string()),
        _ => None,
    }
}

/// How a game stands: ended (and why), or not.
pub(super) type Standing = Option<(Ending, Reason)>;

/// The legal moves of `state` and how the game stands there (ended, and
/// why, or not), as every handler needs them.
pub(super) fn legal_and_ending(
    game: &Game,
    state: &State,
    cache: &mut Cache,
) -> Result<(Vec<Action>, Standing), ApiError> {
    let legal = game.legal_actions(state, cache).map_err(|e| bad(e.to_string()))?;
    let ending = game
        .ending_reason(state, &legal, cache)
        .map_err(|e| bad(e.to_string()))?;
    Ok((legal, ending))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_go_by_player_index() {
        assert_eq!(score(2, Some(0)).as_deref(), Some("1-0"));
        assert_eq!(score(2, Some(1)).as_deref(), Some("0-1"));
        assert_eq!(score(2, None).as_deref(), Some("½-½"));
        assert_eq!(score(3, Some(1)).as_deref(), Some("0-1-0"));
        assert_eq!(score(3, None), None);
        assert_eq!(score(2, Some(2)), None);
    }

    #[test]
    fn a_game_played_again_from_its_record_has_the_same_clocks() {
        let game = Arc::new(crate::game::test_game("rules/chess.alg"));
        let clock: TimeControl = "0.2+0".parse().unwrap();
        let mut p = Played::new(game.clone(), game.initial(), None, Some(clock));
        let play = |p: &mut Played, name: &str, now: u64| {
            let (legal, _) = p.legal_and_ending().unwrap();
            let i = (p.game().move_names(p.last(), &legal).iter())
                .position(|n| n == name)
                .unwrap();
            p.push(&legal, i, now);
        };
        let clocks = |p: &Played| {
            let c = p.session.clock.as_ref().unwrap();
            (c.times().to_vec(), p.deadline())
        };
        play(&mut p, "e2e4", 1_000);
        play(&mut p, "e7e5", 2_000);
        // Taken back at 12 s and played again at 20 s: the 8 s since the
        // take-back count (of black's 12), not the 19 s since white's move.
        assert!(p.pop(12_000));
        play(&mut p, "e7e6", 20_000);
        assert_eq!(clocks(&p), (vec![12_000, 4_000], Some(32_000)));
        let back = Played::replayed(game.clone(), &p.stored()).unwrap();
        assert_eq!(clocks(&back), clocks(&p));
        assert_eq!(back.names, ["e2e4", "e7e6"]);
        // A time loss is kept, and only with a clock.
        p.flag();
        let mut stored = p.stored();
        assert_eq!(
            Played::replayed(game.clone(), &stored).unwrap().flagged(),
            Some(0)
        );
        stored.clock = None;
        assert!(Played::replayed(game, &stored).is_err());
    }

    #[test]
    fn a_record_that_does_not_fit_the_rules_is_an_error_not_a_panic() {
        let game = Arc::new(crate::game::test_game("rules/chess.alg"));
        let clock: TimeControl = "5+0".parse().unwrap();
        let mut p = Played::new(
            game.clone(),
            game.initial(),
            Some(vec!["a".into(), "b".into()]),
            Some(clock),
        );
        let (legal, _) = p.legal_and_ending().unwrap();
        p.push(&legal, 0, 1);
        let good = p.stored();
        type Edit = (&'static str, fn(&mut StoredGame));
        let edits: [Edit; 5] = [
            ("3 seats for 2 players", |g| {
                g.seats = Some(vec!["a".into(), "b".into(), "c".into()])
            }),
            ("number 8, of 2", |g| g.flagged = Some(7)),
            ("has 3 clocks", |g| g.moves[0].clocks = Some(vec![1, 2, 3])),
            ("is not legal", |g| g.moves[0].name = "e2e5".into()),
            ("does not read", |g| g.start_fen = "8/8 w".into()),
        ];
        for (said, edit) in edits {
            let mut g = good.clone();
            edit(&mut g);
            let e = Played::replayed(game.clone(), &g).err().unwrap();
            assert!(e.contains(said), "{said}: {e}");
        }
    }
}
