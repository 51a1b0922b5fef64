//! One game on the server: where it started, the moves played, who may
//! play each seat, its clock; and the JSON every page is shown it as.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::store::{ClockSetting, StoredGame, StoredMove};
use super::{ApiError, bad, svg};
use crate::core::{Content, Coord, PlayerId};
use crate::engine::Cache;
use crate::game::{Action, Ending, Game, Reason, State};

/// Milliseconds since the Unix epoch, now.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A game's clock: each player's time left when their clock last stopped,
/// and since when the running one (the player to move's) runs.
#[derive(Clone, Debug)]
pub(super) struct Clock {
    pub(super) setting: ClockSetting,
    /// Per player, in turn order, milliseconds.
    left: Vec<u64>,
    /// When the player to move's clock started (none before the first
    /// move: the first player's first move is not timed).
    since: Option<u64>,
}

impl Clock {
    pub(super) fn new(setting: ClockSetting, players: usize) -> Clock {
        Clock {
            setting,
            left: vec![setting.base.as_millis() as u64; players],
            since: None,
        }
    }

    /// Each player's time left at `now`, with `turn` to move.
    pub(super) fn left_at(&self, turn: usize, now: u64) -> Vec<u64> {
        let mut left = self.left.clone();
        if let (Some(since), Some(t)) = (self.since, left.get_mut(turn)) {
            *t = t.saturating_sub(now.saturating_sub(since));
        }
        left
    }

    /// When `turn`'s time runs out, if their clock runs.
    pub(super) fn deadline(&self, turn: usize) -> Option<u64> {
        Some(self.since? + self.left.get(turn)?)
    }

    /// `mover` moves at `now`: their time is charged and the increment
    /// added, or `false` if it had run out (nothing changes then).
    pub(super) fn moved(&mut self, mover: usize, now: u64) -> bool {
        let left = self.left_at(mover, now);
        let Some(&t) = left.get(mover) else {
            return true;
        };
        if self.since.is_some() && t == 0 {
            return false;
        }
        self.left = left;
        self.left[mover] = t + self.setting.increment.as_millis() as u64;
        self.since = Some(now);
        true
    }
}

/// One game in the server's memory, as its database row holds it too.
pub(super) struct Played {
    pub(super) start: State,
    pub(super) start_fen: String,
    pub(super) states: Vec<State>,
    pub(super) actions: Vec<Action>,
    pub(super) names: Vec<String>,
    /// The moves in the game's notation (SAN; `11-15` under `notation numbered`).
    pub(super) record: Vec<String>,
    /// When each move was played, and the clocks after it.
    pub(super) played: Vec<StoredMove>,
    /// Each player's seat token (none: anyone may move).
    pub(super) seats: Option<Vec<String>>,
    pub(super) clock: Option<Clock>,
    /// The player whose time ran out.
    pub(super) flagged: Option<usize>,
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
    /// A new game from `start`.
    pub(super) fn new(
        game: &Game,
        start: State,
        seats: Option<Vec<String>>,
        clock: Option<ClockSetting>,
    ) -> Played {
        Played {
            start_fen: game.to_fen(&start),
            states: vec![start.clone()],
            start,
            actions: Vec::new(),
            names: Vec::new(),
            record: Vec::new(),
            played: Vec::new(),
            clock: clock.map(|c| Clock::new(c, game.players().len())),
            seats,
            flagged: None,
            created_ms: now_ms(),
            rules_text: None,
            version: now_ms().saturating_mul(1000),
        }
    }

    /// The game as the database keeps it.
    pub(super) fn stored(&self, game: &Game) -> StoredGame {
        StoredGame {
            id: 0,
            game: game.name().to_string(),
            start_fen: self.start_fen.clone(),
            created_ms: self.created_ms,
            seats: self.seats.clone(),
            clock: self.clock.as_ref().map(|c| c.setting),
            flagged: self.flagged,
            moves: self.played.clone(),
            rules_text: self.rules_text.clone(),
        }
    }

    /// A stored game played again from its start.
    pub(super) fn replayed(game: &Game, stored: &StoredGame) -> Result<Played, String> {
        let mut cache = Cache::new();
        let start = game
            .from_fen_checked(&stored.start_fen, &mut cache)
            .map_err(|e| format!("its start does not read: {e}"))?;
        let mut p = Played::new(game, start, stored.seats.clone(), stored.clock);
        p.created_ms = stored.created_ms;
        for (ply, m) in stored.moves.iter().enumerate() {
            let state = p.last().clone();
            let legal = game
                .legal_actions(&state, &mut cache)
                .map_err(|e| e.to_string())?;
            let i = game
                .move_names(&state, &legal)
                .iter()
                .position(|n| *n == m.name)
                .ok_or_else(|| format!("its move {} ({}) is not legal under these rules", ply + 1, m.name))?;
            p.push(game, &state, &legal, i, m.played_ms);
            // The clocks as they were stored (they ran while it was played).
            if let (Some(clock), Some(left)) = (&mut p.clock, &m.clocks) {
                clock.left.clone_from(left);
                clock.since = Some(m.played_ms);
            }
            p.played[ply] = m.clone();
        }
        p.flagged = stored.flagged;
        Ok(p)
    }

    /// The number of moves played.
    pub(super) fn plies(&self) -> usize {
        self.states.len() - 1
    }

    /// The position now.
    pub(super) fn last(&self) -> &State {
        self.states.last().expect("a game has a position")
    }

    /// The position after the first `ply` moves (`None`: the last), with
    /// that ply and the number of moves played; a 400 past the last.
    pub(super) fn at(&self, ply: Option<usize>) -> Result<(&State, usize, usize), ApiError> {
        let last = self.plies();
        let shown = ply.unwrap_or(last);
        let state = self
            .states
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

    /// Plays the `i`th of `legal` at `now`, recording its name, its SAN,
    /// when and the clocks after it (the mover's clock charged).
    pub(super) fn push(&mut self, game: &Game, state: &State, legal: &[Action], i: usize, now: u64) {
        let names = game.move_names(state, legal);
        let next = game.play(state, &legal[i]);
        let san = game.san(state, &legal[i], legal, &mut Cache::new());
        let mover = state.turn().index();
        let clocks = self.clock.as_mut().map(|c| {
            c.moved(mover, now);
            c.left.clone()
        });
        self.record.push(san.unwrap_or_else(|_| names[i].clone()));
        self.names.push(names[i].clone());
        self.actions.push(legal[i].clone());
        self.states.push(next);
        self.version += 1;
        self.played.push(StoredMove {
            name: names[i].clone(),
            played_ms: now,
            clocks,
        });
    }

    /// Takes the last move back (its clocks and a time loss too); false if
    /// there is none.
    pub(super) fn pop(&mut self, now: u64) -> bool {
        if self.states.len() < 2 {
            return false;
        }
        self.flagged = None;
        self.version += 1;
        self.states.pop();
        self.actions.pop();
        self.names.pop();
        self.record.pop();
        self.played.pop();
        let before = self.played.last().and_then(|m| m.clocks.clone());
        let moves = self.played.len();
        if let Some(clock) = &mut self.clock {
            let players = clock.left.len();
            clock.left = before.unwrap_or_else(|| vec![clock.setting.base.as_millis() as u64; players]);
            clock.since = (moves > 0).then_some(now);
        }
        true
    }

    /// Whether the player to move's time has run out at `now` (and the
    /// game is not flagged already).
    pub(super) fn out_of_time(&self, now: u64) -> bool {
        let turn = self.last().turn().index();
        self.flagged.is_none()
            && (self.clock.as_ref()).is_some_and(|c| c.deadline(turn).is_some_and(|d| now >= d))
    }

    /// When the player to move runs out of time, if their clock runs.
    pub(super) fn deadline(&self) -> Option<u64> {
        let turn = self.last().turn().index();
        self.clock.as_ref().and_then(|c| c.deadline(turn))
    }

    /// The JSON of the position after `ply` moves (`None`: the last) for
    /// `viewer`: board, turn, legal moves, record, clocks, result.
    pub(super) fn describe(
        &self,
        game: &Game,
        id: u64,
        ply: Option<usize>,
        viewer: Viewer,
    ) -> Result<Value, ApiError> {
        let (state, shown, last) = self.at(ply)?;
        let mut cache = Cache::new();
        let (legal, ending) = legal_and_ending(game, state, &mut cache)?;
        let player = |p: PlayerId| game.players()[p.index()].clone();
        let result = match (self.flagged, ending) {
            (Some(out), _) if shown == last => Some(time_loss(game, out)),
            (_, Some((e, reason))) => Some(match e {
                Ending::Win(p) => json!({ "winner": player(p), "reason": reason.to_string() }),
                Ending::Draw => json!({ "winner": null, "reason": reason.to_string() }),
            }),
            _ => None,
        };
        let (files, ranks) = game.dimensions();
        let label = |at: Coord| game.square_label(at);
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
                "square": label(at), "file": file, "rank": rank,
                "piece": piece, "marks": marks, "owner": owner, "letter": letter,
                "dark": (file + rank) % 2 == 0,
            }));
        }
        // A past position is shown, not played from; a watcher sees no moves.
        let may_move = match viewer {
            Viewer::Anyone => true,
            Viewer::Seat(i) => i == state.turn().index(),
            Viewer::Watcher => false,
        };
        let names = if result.is_some() || shown != last || !may_move {
            Vec::new()
        } else {
            game.move_names(state, &legal)
        };
        let clicks = if names.is_empty() {
            Vec::new()
        } else {
            game.click_sequences(state, &legal)
        };
        let moves: Vec<Value> = names
            .iter()
            .zip(&legal)
            .zip(&clicks)
            .map(|((name, action), clicks)| {
                let drop = game.dropped_piece(state, action);
                let (from, to) = move_squares(game, state, action);
                json!({
                    "name": name,
                    "from": from.map(label),
                    "to": to.map(label),
                    "drop": drop.map(|(pc, _)| game.pieces().symbol(pc).to_string()),
                    "pass": action.is_pass(),
                    "clicks": clicks.iter().map(|&at| label(at)).collect::<Vec<_>>(),
                })
            })
            .collect();
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
        let now = now_ms();
        let clock = self.clock.as_ref().map(|c| {
            let turn = self.last().turn().index();
            let left = c.left_at(turn, now);
            let running = (c.since.is_some() && result.is_none()).then(|| game.players()[turn].clone());
            json!({
                "left_ms": game.players().iter().cloned().zip(left.into_iter().map(Value::from)).collect::<serde_json::Map<String, Value>>(),
                "running": running,
                "base_ms": c.setting.base.as_millis() as u64,
                "increment_ms": c.setting.increment.as_millis() as u64,
            })
        });
        // The squares the move that led here left and reached.
        let last_move: Vec<String> = match shown.checked_sub(1) {
            Some(before) => {
                let (from, to) = move_squares(game, &self.states[before], &self.actions[before]);
                from.into_iter().chain(to).map(label).collect()
            }
            None => Vec::new(),
        };
        // The royal pieces of the player to move that stand attacked.
        let check: Vec<String> = game
            .attacked_royals(state.position(), state.turn(), &mut cache)
            .map_err(|e| bad(e.to_string()))?
            .into_iter()
            .map(label)
            .collect();
        let you = match viewer {
            Viewer::Seat(i) => json!(game.players()[i]),
            _ => Value::Null,
        };
        Ok(json!({
            "id": id,
            "game": game.name(),
            "players": game.players(),
            "files": files,
            "ranks": ranks,
            "turn": player(state.turn()),
            "fen": game.to_fen(state),
            "board": cells,
            "svg": svg::position_svg(game, state),
            "pockets": pockets,
            "legal": moves,
            "ply": shown,
            "plies": last,
            "version": self.version,
            "history": self.names,
            "record": self.record,
            "result": result,
            "last_move": last_move,
            "check": check,
            "seated": self.seats.is_some(),
            "you": you,
            "clock": clock,
        }))
    }
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
    let reason = format!("{} ran out of time", players[out]);
    if players.len() == 2 {
        json!({ "winner": players[1 - out], "reason": reason })
    } else {
        json!({ "winner": null, "reason": reason })
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

/// A clock setting written `MINUTES+SECONDS` (`5+3`; minutes may be a
/// fraction, `0.5+0`).
pub fn parse_clock(text: &str) -> Result<ClockSetting, String> {
    let wrong = || format!("a clock is written MINUTES+SECONDS (5+3, 0.5+0), not {text:?}");
    let (m, s) = text.trim().split_once('+').ok_or_else(wrong)?;
    let m: f64 = m.trim().parse().map_err(|_| wrong())?;
    let s: f64 = s.trim().parse().map_err(|_| wrong())?;
    if !(m > 0.0 && m <= 10_000.0 && (0.0..=3_600.0).contains(&s)) {
        return Err(format!(
            "a clock's minutes must be above 0 and at most 10000, its seconds from 0 to 3600, not {text:?}"
        ));
    }
    Ok(ClockSetting {
        base: Duration::from_secs_f64(m * 60.0),
        increment: Duration::from_secs_f64(s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_played_again_from_its_record_has_the_same_clocks() {
        let game = crate::game::test_game("rules/chess.alg");
        let mut p = Played::new(&game, game.initial(), None, Some(parse_clock("0.2+0").unwrap()));
        let play = |p: &mut Played, name: &str, now: u64| {
            let state = p.last().clone();
            let legal = game.legal_actions(&state, &mut Cache::new()).unwrap();
            let i = game
                .move_names(&state, &legal)
                .iter()
                .position(|n| n == name)
                .unwrap();
            p.push(&game, &state, &legal, i, now);
        };
        let clocks = |p: &Played| p.clock.as_ref().map(|c| (c.left.clone(), c.since)).unwrap();
        play(&mut p, "e2e4", 1_000);
        play(&mut p, "e7e5", 2_000);
        // Taken back at 12 s and played again at 20 s: the 8 s since the
        // take-back count (of black's 12), not the 19 s since white's move.
        assert!(p.pop(12_000));
        play(&mut p, "e7e6", 20_000);
        assert_eq!(clocks(&p), (vec![12_000, 4_000], Some(20_000)));
        let back = Played::replayed(&game, &p.stored(&game)).unwrap();
        assert_eq!(clocks(&back), clocks(&p));
        assert_eq!(back.deadline(), p.deadline());
        assert_eq!(back.names, ["e2e4", "e7e6"]);
    }

    #[test]
    fn clocks_are_read_and_bad_ones_refused() {
        let c = parse_clock("5+3").unwrap();
        assert_eq!(
            (c.base, c.increment),
            (Duration::from_secs(300), Duration::from_secs(3))
        );
        assert_eq!(parse_clock(" 0.5 + 0 ").unwrap().base, Duration::from_secs(30));
        for bad in [
            "", "5", "5+", "+3", "x+3", "0+3", "-1+0", "5+-1", "5+99999", "NaN+1",
        ] {
            assert!(parse_clock(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_clock_charges_the_mover_adds_the_increment_and_runs_out() {
        let setting = parse_clock("0.1+1").unwrap(); // 6 s, +1 s
        let mut c = Clock::new(setting, 2);
        // The first move is not timed; then black's clock runs.
        assert!(c.moved(0, 1_000));
        assert_eq!(c.left, vec![7_000, 6_000]);
        assert_eq!(c.deadline(1), Some(7_000));
        assert_eq!(c.left_at(1, 3_000), vec![7_000, 4_000]);
        assert!(c.moved(1, 3_000));
        assert_eq!(c.left, vec![7_000, 5_000]);
        // White takes longer than they have: refused, nothing changes.
        assert!(!c.moved(0, 3_000 + 7_000));
        assert_eq!(c.left, vec![7_000, 5_000]);
        assert_eq!(c.left_at(0, 20_000), vec![0, 5_000]);
    }
}
