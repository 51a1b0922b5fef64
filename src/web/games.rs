//! The games in the server's memory, one copy of each, ever; the rules
//! they are played under; and how fast one client may make new ones.
//!
//! A game is loaded from the database when asked for and kept in a table
//! by id. The table is bounded (by count, and by the bytes of the
//! playground's rule sets its games use); past a bound it lets go of the
//! games that nothing holds (no request under way, no event stream, no
//! clock waiting to be judged), least recently used first. A game that
//! something holds is never let go of, so no request can play on a copy
//! that another request has loaded again: there is one copy, and one
//! history of moves in the database.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::played::Played;
use crate::decl::Spec;
use crate::game::Game;

/// The rules games are played under: the server's rule file, or a
/// playground text.
pub(super) struct RuleSet {
    pub(super) game: Arc<Game>,
    /// Its rules as written (for `explain`).
    pub(super) spec: Arc<Spec>,
    /// The rule text, when not the server's file (a playground game).
    pub(super) text: Option<String>,
    /// The memory it took to build (a playground text's; 0 for the
    /// server's own, which is never let go of).
    pub(super) bytes: usize,
    /// What checking its text said (its warnings: a text with an error
    /// is no rule set).
    pub(super) diagnostics: Vec<serde_json::Value>,
}

impl RuleSet {
    /// The server's own rule file.
    pub(super) fn served(game: Arc<Game>, spec: Arc<Spec>) -> RuleSet {
        RuleSet {
            game,
            spec,
            text: None,
            bytes: 0,
            diagnostics: Vec::new(),
        }
    }
}

/// The playground's rule sets in memory, by text: a text played twice is
/// built once while a game of it is in memory.
#[derive(Default)]
pub(super) struct RuleSets {
    by_text: Mutex<HashMap<String, Weak<RuleSet>>>,
}

impl RuleSets {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Weak<RuleSet>>> {
        self.by_text.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The rule set of `text`, if one is in memory.
    pub(super) fn get(&self, text: &str) -> Option<Arc<RuleSet>> {
        self.lock().get(text).and_then(Weak::upgrade)
    }

    /// Keeps `rules` (of a playground text) as the rule set of its text,
    /// unless one is there already (that one is given back).
    pub(super) fn keep(&self, rules: RuleSet) -> Arc<RuleSet> {
        let mut by_text = self.lock();
        let text = rules.text.clone().unwrap_or_default();
        if let Some(there) = by_text.get(&text).and_then(Weak::upgrade) {
            return there;
        }
        // The texts of rule sets no longer in memory go.
        if by_text.len() >= 64 {
            by_text.retain(|_, w| w.strong_count() > 0);
        }
        let rules = Arc::new(rules);
        by_text.insert(text, Arc::downgrade(&rules));
        rules
    }
}

/// A game in memory with the rules it is played under, and the event
/// streams waiting for its next change.
pub(super) struct Slot {
    played: Mutex<Played>,
    /// Counts the game's changes; event streams wait on it.
    pub(super) changes: watch::Sender<u64>,
    pub(super) rules: Arc<RuleSet>,
    /// Whether a change of its followers is waiting to be told.
    followers_pending: AtomicBool,
}

/// How long a change of a game's followers waits before it is told (the
/// changes meanwhile told with it): streams opened and closed in a burst
/// make one message to each page, not one each.
const FOLLOWERS_TOLD_AFTER: Duration = Duration::from_millis(200);

impl Slot {
    pub(super) fn new(played: Played, rules: Arc<RuleSet>) -> Slot {
        Slot {
            played: Mutex::new(played),
            changes: watch::Sender::new(0),
            rules,
            followers_pending: AtomicBool::new(false),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Played> {
        // A panic in a handler leaves the game as its last whole change.
        self.played.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game's rules.
    pub(super) fn game(&self) -> &Arc<Game> {
        &self.rules.game
    }

    /// Tells every event stream of the game that it changed.
    pub(super) fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    /// Tells every event stream of the game, shortly, that its followers
    /// changed (once for all the changes of [`FOLLOWERS_TOLD_AFTER`]).
    pub(super) fn followers_changed(self: &Arc<Self>) {
        if self.followers_pending.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.followers_pending.store(false, Ordering::Release);
            self.changed();
            return;
        };
        let slot = self.clone();
        runtime.spawn(async move {
            tokio::time::sleep(FOLLOWERS_TOLD_AFTER).await;
            slot.followers_pending.store(false, Ordering::Release);
            slot.changed();
        });
    }
}

/// A game of the table and when it was last asked for.
struct Held {
    slot: Arc<Slot>,
    used: u64,
}

/// The table's contents.
#[derive(Default)]
struct Table {
    slots: HashMap<u64, Held>,
    /// Counts lookups: what "recently used" compares.
    tick: u64,
    /// Per playground rule set in the table (by address): how many games use it.
    rule_sets: HashMap<usize, usize>,
    /// The bytes of those rule sets together.
    bytes: usize,
}

impl Table {
    fn add(&mut self, id: u64, slot: Arc<Slot>) {
        self.tick += 1;
        if slot.rules.text.is_some() {
            let users = self
                .rule_sets
                .entry(Arc::as_ptr(&slot.rules) as usize)
                .or_insert(0);
            *users += 1;
            if *users == 1 {
                self.bytes += slot.rules.bytes;
            }
        }
        self.slots.insert(
            id,
            Held {
                slot,
                used: self.tick,
            },
        );
    }

    fn remove(&mut self, id: u64) {
        let Some(held) = self.slots.remove(&id) else {
            return;
        };
        let rules = &held.slot.rules;
        if rules.text.is_some() {
            let key = Arc::as_ptr(rules) as usize;
            if let Some(users) = self.rule_sets.get_mut(&key) {
                *users -= 1;
                if *users == 0 {
                    self.rule_sets.remove(&key);
                    self.bytes = self.bytes.saturating_sub(rules.bytes);
                }
            }
        }
    }
}

/// The games in memory, by id.
pub(super) struct Games {
    table: Mutex<Table>,
    /// The most games kept.
    max_games: usize,
    /// The most bytes of playground rule sets their games keep.
    max_bytes: usize,
}

impl Games {
    pub(super) fn new(max_games: usize, max_bytes: usize) -> Games {
        Games {
            table: Mutex::new(Table::default()),
            max_games: max_games.max(1),
            max_bytes,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Game `id` if it is in memory (it counts as used now).
    pub(super) fn get(&self, id: u64) -> Option<Arc<Slot>> {
        let mut table = self.lock();
        table.tick += 1;
        let tick = table.tick;
        let held = table.slots.get_mut(&id)?;
        held.used = tick;
        Some(held.slot.clone())
    }

    /// Keeps `slot` in memory as game `id`, unless another request put it
    /// there first (that one is kept and given back: one copy, ever); then
    /// lets go of what the bounds ask for.
    pub(super) fn keep(&self, id: u64, slot: Arc<Slot>) -> Arc<Slot> {
        let mut table = self.lock();
        if let Some(there) = table.slots.get(&id) {
            return there.slot.clone();
        }
        table.add(id, slot.clone());
        self.let_go(&mut table);
        slot
    }

    /// How many games are in memory, and the bytes of the playground rule
    /// sets they use.
    pub(super) fn size(&self) -> (usize, usize) {
        let table = self.lock();
        (table.slots.len(), table.bytes)
    }

    /// Lets go of games nothing holds, least recently used first, while
    /// the table is past a bound: past its count, down to a little under it
    /// (so the next ones made do not each pay for a search); past its
    /// bytes, only playground games (only those free any).
    fn let_go(&self, table: &mut Table) {
        let over_count = table.slots.len() > self.max_games;
        let over_bytes = table.bytes > self.max_bytes;
        if !over_count && !over_bytes {
            return;
        }
        // Only the table holds it: no request, stream or clock task does,
        // and none can take it without this lock.
        let mut free: Vec<(u64, u64, bool)> = (table.slots.iter())
            .filter(|(_, h)| Arc::strong_count(&h.slot) == 1)
            .map(|(&id, h)| (h.used, id, h.slot.rules.text.is_some()))
            .collect();
        free.sort_unstable();
        let count_target = self.max_games - self.max_games / 64;
        for (_, id, playground) in free {
            let over_count = table.slots.len() > count_target && over_count;
            let over_bytes = table.bytes > self.max_bytes;
            if !over_count && !over_bytes {
                break;
            }
            if over_count || playground {
                table.remove(id);
            }
        }
    }
}

/// How fast each client address may do a thing: a bucket of `burst`
/// tokens per address, refilled at `per_minute` a minute. An IPv6 client
/// is its /64 (one machine has many addresses in it).
pub(super) struct Rate {
    per_minute: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Rate {
    /// `per_minute` a minute (0: no limit), a burst of as many.
    pub(super) fn per_minute(per_minute: u32) -> Rate {
        Rate {
            per_minute: f64::from(per_minute),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `who` (no address: a request without a socket,
    /// from a test); how long until one is there if none is.
    pub(super) fn take(&self, who: Option<IpAddr>) -> Result<(), Duration> {
        let (Some(who), true) = (who, self.per_minute > 0.0) else {
            return Ok(());
        };
        let who = match who {
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let mut bytes = a.octets();
                    bytes[8..].fill(0);
                    IpAddr::from(bytes)
                }
            },
            v4 => v4,
        };
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let burst = self.per_minute;
        let per_second = self.per_minute / 60.0;
        if buckets.len() > 100_000 {
            // Full buckets are as good as none.
            buckets.retain(|_, (tokens, since)| *tokens + since.elapsed().as_secs_f64() * per_second < burst);
        }
        let (tokens, since) = buckets.entry(who).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*since).as_secs_f64() * per_second).min(burst);
        *since = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / per_second))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::test_game;

    fn tictactoe() -> (Arc<Game>, Arc<Spec>) {
        let source = crate::bundled::read("rules/tictactoe.alg").unwrap();
        let spec = Spec::load(&source).unwrap().0;
        (Arc::new(test_game("rules/tictactoe.alg")), Arc::new(spec))
    }

    fn slot(game: &Arc<Game>, rules: &Arc<RuleSet>) -> Arc<Slot> {
        let p = Played::new(game.clone(), game.initial(), None, None);
        Arc::new(Slot::new(p, rules.clone()))
    }

    #[test]
    fn only_games_nothing_holds_are_let_go_least_recently_used_first() {
        let (game, spec) = tictactoe();
        let rules = Arc::new(RuleSet::served(game.clone(), spec));
        let games = Games::new(64, usize::MAX);
        let held = games.keep(1, slot(&game, &rules));
        for id in 2..=64 {
            games.keep(id, slot(&game, &rules));
        }
        assert!(games.get(2).is_some()); // 2 is used now
        games.keep(65, slot(&game, &rules));
        // Past 64: down to 63, the oldest unheld going first (3), not 1
        // (held) nor 2 (used).
        assert_eq!(games.size().0, 63);
        assert!(games.get(1).is_some_and(|s| Arc::ptr_eq(&s, &held)));
        assert!(games.get(2).is_some());
        assert!(games.get(3).is_none());
        // A second copy is never kept: the first is given back.
        let again = games.keep(1, slot(&game, &rules));
        assert!(Arc::ptr_eq(&again, &held));
    }

    #[test]
    fn playground_rule_sets_are_bounded_by_their_bytes() {
        let (game, spec) = tictactoe();
        let games = Games::new(1000, 250);
        let sets = RuleSets::default();
        let mut kept = Vec::new();
        for k in 0..5 {
            let rules = sets.keep(RuleSet {
                game: game.clone(),
                spec: spec.clone(),
                text: Some(format!("text {k}")),
                bytes: 100,
                diagnostics: Vec::new(),
            });
            // Two games of each text: its bytes count once.
            games.keep(2 * k, slot(&game, &rules));
            games.keep(2 * k + 1, slot(&game, &rules));
            kept.push(Arc::downgrade(&rules));
        }
        let (count, bytes) = games.size();
        assert!(bytes <= 250, "{bytes}");
        assert_eq!((count, bytes), (4, 200));
        // The rule sets let go of are gone from memory; the newest stay,
        // held by their two games each.
        assert_eq!(
            kept.iter().map(|w| w.strong_count()).collect::<Vec<_>>(),
            [0, 0, 0, 2, 2]
        );
        assert!(sets.get("text 4").is_some() && sets.get("text 0").is_none());
    }

    #[test]
    fn a_client_past_its_rate_waits_and_others_do_not() {
        let rate = Rate::per_minute(3);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        for _ in 0..3 {
            assert!(rate.take(Some(a)).is_ok());
        }
        let wait = rate.take(Some(a)).unwrap_err();
        assert!(
            wait > Duration::from_secs(15) && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        assert!(rate.take(Some(b)).is_ok());
        assert!(rate.take(None).is_ok());
        // One machine's IPv6 addresses share a bucket.
        let rate = Rate::per_minute(1);
        assert!(rate.take(Some("2001:db8::1".parse().unwrap())).is_ok());
        assert!(rate.take(Some("2001:db8::2".parse().unwrap())).is_err());
        assert!(rate.take(Some("2001:db8:0:1::1".parse().unwrap())).is_ok());
        assert!(Rate::per_minute(0).take(Some(a)).is_ok());
    }
}
