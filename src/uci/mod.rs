//! The Universal Chess Interface: a rule file's game as an engine that
//! GUIs, match runners and bots drive (`chessalg uci RULES`).
//!
//! One [`Server`] reads commands line by line. A search runs on a thread of
//! its own, so that `isready` and `stop` are answered while it thinks; it
//! prints an `info` line per completed iteration and `bestmove` at the end.
//! Moves are the coordinate names `chessalg moves` prints (`e2e4`, `e7e8q`);
//! a move given in `position` that is not legal, a bad FEN or an unknown
//! command is answered with `info string` and changes nothing after it.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::ai::{Ai, Budget, Choice, Interrupt, Weights, moves_to_mate};
use crate::decl::Spec;
use crate::engine::{Cache, EngineChoice};
use crate::game::{Game, PlayError, State, divide_until};
use crate::report::{self, Style};
use crate::source::Source;

/// The deepest search `go` asks for when it names no depth.
const MAX_DEPTH: u32 = 60;

/// Why a rule file could not be made the engine's game.
#[derive(Debug, Error)]
pub enum UciError {
    /// The file could not be read.
    #[error("cannot read {path}: {error}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not a valid rule file, or declares no playable game.
    #[error("{path} is not a playable game: {why}")]
    Rules {
        /// The file.
        path: String,
        /// Its first problem, in one line.
        why: String,
    },
}

/// The game of the rule file at `path`, built on the engines `engine` allows.
pub fn load(path: &Path, engine: EngineChoice) -> Result<Game, UciError> {
    let name = path.display().to_string();
    let source = crate::bundled::read(&name).map_err(|error| UciError::Read {
        path: name.clone(),
        error,
    })?;
    let one_line = |s: String| {
        s.lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let (spec, _) = Spec::load(&source).map_err(|problems| UciError::Rules {
        path: name.clone(),
        why: one_line(report::render(&problems, Style::PLAIN)),
    })?;
    Game::with_engine(&spec, engine).map_err(|e| UciError::Rules {
        path: name.clone(),
        why: e.to_string(),
    })
}

/// The rule files beside `rules` (its folder's `.alg` files that declare a
/// game), by name (file stem), sorted; for a bundled file (or a folder
/// without games), the bundled games.
pub fn variants_beside(rules: &Path) -> Vec<(String, PathBuf)> {
    let is_game = |source: &Source| Spec::load(source).is_ok_and(|(s, _)| s.game().is_game());
    let dir = rules
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut found: Vec<(String, PathBuf)> = match std::fs::read_dir(dir) {
        Ok(entries) if !rules.starts_with(crate::bundled::DIR) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "alg"))
            .filter(|p| {
                let text = crate::file::read_text(p, crate::file::MAX_RULES_BYTES).unwrap_or_default();
                is_game(&Source::new(p.display().to_string(), text))
            })
            .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p)))
            .collect(),
        _ => Vec::new(),
    };
    if found.is_empty() {
        found = (crate::bundled::files().iter())
            .filter(|(name, text)| is_game(&Source::new(format!("{}/{name}", crate::bundled::DIR), *text)))
            .filter_map(|(name, _)| {
                let stem = name.strip_suffix(".alg")?;
                Some((
                    stem.to_string(),
                    PathBuf::from(format!("{}/{name}", crate::bundled::DIR)),
                ))
            })
            .collect();
    }
    found.sort();
    found
}

/// A search under way: how to stop it, and the thread that gives the AI back.
struct Search {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Ai>,
    /// Whether it is a `go perft` count (which only `stop` cuts short).
    perft: bool,
}

/// What `go` asked for.
#[derive(Debug, Default)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    /// Per side (white, black): time left and increment, in milliseconds.
    time: [Option<u64>; 2],
    inc: [Option<u64>; 2],
    movestogo: Option<u64>,
    infinite: bool,
    perft: Option<u32>,
}

/// A UCI engine playing one game, writing its answers to `W`.
pub struct Server<W: Write + Send + 'static> {
    game: Arc<Game>,
    /// The rule file the game comes from.
    rules: PathBuf,
    /// The rule files `UCI_Variant` may choose.
    variants: Vec<(String, PathBuf)>,
    engine: EngineChoice,
    /// The position `go` searches, and the moves' names that led there.
    state: State,
    /// The AI (none while a search has it).
    ai: Option<Ai>,
    search: Option<Search>,
    hash_mb: usize,
    /// Learned weights the AI scores positions with (`--weights`), while
    /// the game is the one they were learned for.
    weights: Option<Arc<Weights>>,
    /// The weights the game's rule file names (`weights "FILE"`), used
    /// when none were given.
    declared: Option<Arc<Weights>>,
    /// Whether the AI may use `declared` (`--weights none`: it may not).
    use_declared: bool,
    out: Arc<Mutex<W>>,
}

impl<W: Write + Send + 'static> Server<W> {
    /// An engine for the rule file `rules`, offering `variants` to choose from.
    pub fn new(
        rules: &Path,
        variants: Vec<(String, PathBuf)>,
        engine: EngineChoice,
        out: W,
    ) -> Result<Server<W>, UciError> {
        Ok(Server::with_game(
            load(rules, engine)?,
            rules,
            variants,
            engine,
            out,
        ))
    }

    /// The same for `game`, already built from the rule file `rules`.
    pub fn with_game(
        game: impl Into<Arc<Game>>,
        rules: &Path,
        variants: Vec<(String, PathBuf)>,
        engine: EngineChoice,
        out: W,
    ) -> Server<W> {
        let game: Arc<Game> = game.into();
        let state = game.initial();
        let declared = Weights::declared(&game).ok().flatten().map(Arc::new);
        Server {
            game,
            rules: rules.to_path_buf(),
            variants,
            engine,
            state,
            ai: Some(Ai::new(1)),
            search: None,
            hash_mb: 16,
            weights: None,
            declared,
            use_declared: true,
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// The AI scores positions with these learned weights (see [`Weights`]).
    pub fn with_weights(mut self, weights: Option<Arc<Weights>>) -> Server<W> {
        self.weights = weights;
        self.ai = Some(self.new_ai());
        self
    }

    /// The AI plays on the declared piece values only, even where the rule
    /// file names weights (`--weights none`).
    pub fn without_declared_weights(mut self) -> Server<W> {
        self.use_declared = false;
        self.ai = Some(self.new_ai());
        self
    }

    /// Answers each line of `input` until `quit` or its end (a search under
    /// way is stopped and its best move given; a perft count is finished).
    pub fn run(mut self, mut input: impl BufRead) -> std::io::Result<()> {
        let mut line = Vec::new();
        loop {
            match read_line(&mut input, &mut line, MAX_LINE_BYTES)? {
                Line::End => break,
                Line::TooLong => {
                    self.say(&format!(
                        "info string a line longer than {MAX_LINE_BYTES} bytes is not read"
                    ));
                    continue;
                }
                Line::Read => {}
            }
            // Bytes that are not UTF-8 are read as U+FFFD (an unknown command).
            let text = String::from_utf8_lossy(&line).into_owned();
            if !self.handle(text.trim_end_matches('\r')) {
                break;
            }
        }
        self.settle();
        Ok(())
    }

    /// Answers one command; false after `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return true;
        };
        match command {
            "uci" => self.identify(),
            "isready" => self.say("readyok"),
            "debug" | "register" | "ponderhit" => {}
            "ucinewgame" => {
                self.settle();
                self.ai = Some(self.new_ai());
                self.state = self.game.initial();
            }
            "setoption" => {
                self.settle();
                self.set_option(args);
            }
            "position" => {
                self.settle();
                self.position(args);
            }
            "go" => {
                self.settle();
                self.go(args);
            }
            "stop" => self.stop(),
            "quit" => {
                self.settle();
                return false;
            }
            _ => self.say(&format!("info string unknown command: {line}")),
        }
        true
    }

    /// Writes one line.
    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    fn new_ai(&self) -> Ai {
        let declared = self.declared.clone().filter(|_| self.use_declared);
        let weights = self.weights.clone().or(declared);
        let mut ai = Ai::new(1).with_weights(weights);
        ai.set_table_megabytes(self.hash_mb);
        ai
    }

    /// `uci`: who the engine is, its options, `uciok`.
    fn identify(&self) {
        self.say(&format!(
            "id name chessalg {} ({})",
            env!("CARGO_PKG_VERSION"),
            self.game.name()
        ));
        self.say("id author the chessalg developers");
        self.say("option name Hash type spin default 16 min 1 max 4096");
        if !self.variants.is_empty() {
            let current = self.rules.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let names: String = self.variants.iter().map(|(n, _)| format!(" var {n}")).collect();
            self.say(&format!(
                "option name UCI_Variant type combo default {current}{names}"
            ));
        }
        self.say(&format!(
            "option name RulesFile type string default {}",
            self.rules.display()
        ));
        self.say("uciok");
    }

    /// `setoption name N [value V]`.
    fn set_option(&mut self, args: &[&str]) {
        let value_at = args.iter().position(|&w| w == "value");
        let name = args
            .get(1..value_at.unwrap_or(args.len()))
            .unwrap_or(&[])
            .join(" ");
        let value = value_at.map(|i| args[i + 1..].join(" ")).unwrap_or_default();
        if args.first() != Some(&"name") || name.is_empty() {
            self.say("info string setoption needs `name NAME [value VALUE]`");
            return;
        }
        match name.to_ascii_lowercase().as_str() {
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => {
                    self.hash_mb = mb;
                    if let Some(ai) = &mut self.ai {
                        ai.set_table_megabytes(mb);
                    }
                }
                _ => self.say(&format!("info string Hash must be 1 to 4096 (MiB), not {value}")),
            },
            "uci_variant" => match self.variants.iter().find(|(n, _)| *n == value) {
                Some((_, path)) => self.switch_to(&path.clone()),
                None => self.say(&format!("info string no variant named {value}")),
            },
            "rulesfile" => self.switch_to(Path::new(&value)),
            _ => self.say(&format!("info string unknown option: {name}")),
        }
    }

    /// Makes the rule file at `path` the game (from its start); on failure
    /// the game stays as it was.
    fn switch_to(&mut self, path: &Path) {
        // The new game keeps the bounds the engine was started with.
        let limits = *self.game.limits();
        match load(path, self.engine).map(|game| game.with_limits(limits)) {
            Ok(game) => {
                self.state = game.initial();
                if let Some(w) = &self.weights
                    && w.check(&game, "--weights").is_err()
                {
                    self.say(&format!(
                        "info string the weights are for {}: {} plays on its declared values",
                        w.game,
                        game.name()
                    ));
                    self.weights = None;
                }
                self.declared = match Weights::declared(&game) {
                    Ok(w) => w.map(Arc::new),
                    Err(e) => {
                        self.say(&format!(
                            "info string {e}: {} plays on its declared values",
                            game.name()
                        ));
                        None
                    }
                };
                self.game = Arc::new(game);
                self.rules = path.to_path_buf();
                self.ai = Some(self.new_ai());
            }
            Err(e) => self.say(&format!("info string {e}")),
        }
    }

    /// `position startpos|fen FEN [moves M...]`: the position is set up to
    /// the last legal move given (each move checked against the legal moves).
    fn position(&mut self, args: &[&str]) {
        let moves_at = args.iter().position(|&w| w == "moves").unwrap_or(args.len());
        let mut state = match args.first() {
            Some(&"startpos") if moves_at == 1 => self.game.initial(),
            Some(&"fen") if moves_at > 1 => match self.game.from_fen(&args[1..moves_at].join(" ")) {
                Ok(state) => state,
                Err(e) => {
                    self.say(&format!("info string {e}"));
                    return;
                }
            },
            _ => {
                self.say("info string position needs `startpos` or `fen FEN`, then `moves ...`");
                return;
            }
        };
        let mut cache = Cache::new();
        for &name in args.get(moves_at + 1..).unwrap_or(&[]) {
            let legal = match self.game.legal_actions(&state, &mut cache) {
                Ok(legal) => legal,
                Err(e) => {
                    self.say(&format!("info string {e}"));
                    break;
                }
            };
            let names = self.game.move_names(&state, &legal);
            let index = (names.iter().position(|n| n == name))
                .or_else(|| self.game.read_move(&state, &legal, name).ok());
            match index {
                Some(i) => state = self.game.play(&state, &legal[i]),
                None => {
                    self.say(&format!(
                        "info string illegal move {name}: the position stops before it"
                    ));
                    break;
                }
            }
        }
        self.state = state;
    }

    /// `go ...`: a search on its own thread, or `go perft N` at once.
    fn go(&mut self, args: &[&str]) {
        let go = match parse_go(args) {
            Ok(go) => go,
            Err(why) => {
                self.say(&format!("info string {why}"));
                return;
            }
        };
        if let Some(depth) = go.perft {
            self.perft(depth);
            return;
        }
        let side = self.state.turn().index().min(1);
        let time = match (go.movetime, go.time[side]) {
            (Some(ms), _) => Some(Duration::from_millis(ms)),
            (None, Some(left)) => {
                let share = left / go.movestogo.unwrap_or(30).max(1) + go.inc[side].unwrap_or(0) * 3 / 4;
                Some(Duration::from_millis(share.min(left / 2).max(10)))
            }
            (None, None) => None,
        };
        let budget = Budget {
            depth: go.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH),
            time: if go.infinite { None } else { time },
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut ai = self.ai.take().unwrap_or_else(|| self.new_ai());
        ai.set_interrupt(Interrupt {
            stop: Some(stop.clone()),
            nodes: go.nodes,
        });
        let (game, state, out) = (self.game.clone(), self.state.clone(), self.out.clone());
        let flag = stop.clone();
        let infinite = go.infinite;
        let thread = std::thread::spawn(move || {
            let best = think(&game, &state, &mut ai, budget, &out);
            // Under `go infinite` the best move waits for `stop`.
            while infinite && !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(2));
            }
            say(&out, &format!("bestmove {}", best.as_deref().unwrap_or("(none)")));
            ai
        });
        self.search = Some(Search {
            stop,
            thread,
            perft: false,
        });
    }

    /// `go perft N`: Fairy-Stockfish's divide (`move: count`, a blank line,
    /// `Nodes searched: N`), counted on a thread of its own so that
    /// `isready` is answered meanwhile and `stop` ends it (with no count).
    fn perft(&mut self, depth: u32) {
        let stop = Arc::new(AtomicBool::new(false));
        let ai = self.ai.take().unwrap_or_else(|| self.new_ai());
        let (game, state, out, flag) = (
            self.game.clone(),
            self.state.clone(),
            self.out.clone(),
            stop.clone(),
        );
        let thread = std::thread::spawn(move || {
            match divide_until(&game, &state, depth, &mut Cache::new(), None, Some(&flag)) {
                Ok(rows) => {
                    let mut text = String::new();
                    for (name, n) in &rows {
                        text.push_str(&format!("{name}: {n}\n"));
                    }
                    let total: u64 = rows.iter().map(|(_, n)| n).sum();
                    text.push_str(&format!("\nNodes searched: {total}"));
                    say(&out, &text);
                }
                Err(PlayError::Stopped) => say(&out, "info string perft stopped"),
                Err(e) => say(&out, &format!("info string {e}")),
            }
            ai
        });
        self.search = Some(Search {
            stop,
            thread,
            perft: true,
        });
    }

    /// Before the next command: a `go perft` count runs to its end (as
    /// Fairy-Stockfish, whose count holds up the commands after it, answers
    /// `go perft 3` then `quit`); a search is stopped.
    fn settle(&mut self) {
        match &self.search {
            Some(search) if search.perft => {
                let search = self.search.take().expect("matched");
                match search.thread.join() {
                    Ok(ai) => self.ai = Some(ai),
                    Err(_) => self.say("info string the perft count failed"),
                }
            }
            _ => self.stop(),
        }
    }

    /// Stops the search under way (if any); it gives its best move.
    fn stop(&mut self) {
        if let Some(search) = self.search.take() {
            search.stop.store(true, Ordering::Relaxed);
            match search.thread.join() {
                Ok(ai) => self.ai = Some(ai),
                Err(_) => self.say("info string the search failed"),
            }
        }
    }
}

/// The longest command line read (a `position` with thousands of moves
/// fits); a longer one is skipped whole.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line (without its newline) is in the buffer.
    Read,
    /// A line longer than the limit was skipped up to its newline.
    TooLong,
    /// The input ended.
    End,
}

/// Reads the next line of `input` into `line` (its newline left out),
/// holding at most `limit` bytes in memory whatever the input.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, limit: usize) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Read,
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + chunk.len() <= limit {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

/// Writes `line` (and a newline) to `out` and flushes it; a reader that
/// went away is not an error here (the engine ends with its input).
fn say<W: Write>(out: &Mutex<W>, line: &str) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Searches `state` within `budget`, printing an `info` line per completed
/// iteration; the best move's name, none when the game is over.
fn think<W: Write>(
    game: &Game,
    state: &State,
    ai: &mut Ai,
    budget: Budget,
    out: &Mutex<W>,
) -> Option<String> {
    let mut cache = Cache::new();
    let legal = match game.legal_actions(state, &mut cache) {
        Ok(legal) => legal,
        Err(e) => {
            say(out, &format!("info string {e}"));
            return None;
        }
    };
    if legal.is_empty() || !matches!(game.ending(state, &legal, &mut cache), Ok(None)) {
        return None;
    }
    let names = game.move_names(state, &legal);
    let started = Instant::now();
    let mut report = |c: &Choice| {
        let ms = started.elapsed().as_millis().max(1);
        say(
            out,
            &format!(
                "info depth {} score {} nodes {} nps {} time {} pv {}",
                c.depth,
                score_text(c.score),
                c.nodes,
                c.nodes as u128 * 1000 / ms,
                ms,
                names[c.index]
            ),
        );
    };
    match ai.choose_reporting(game, state, &legal, budget, &mut cache, &mut report) {
        Ok(choice) => Some(names[choice.index].clone()),
        Err(e) => {
            say(out, &format!("info string {e}; playing the first legal move"));
            names.first().cloned()
        }
    }
}

/// A score for UCI: `cp N`, or `mate N` (moves, negative when being mated).
fn score_text(score: i32) -> String {
    match moves_to_mate(score) {
        Some(moves) => format!("mate {moves}"),
        None => format!("cp {score}"),
    }
}

/// The arguments of `go`.
fn parse_go(args: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        let mut number = || -> Result<u64, String> {
            let n = words.next().ok_or_else(|| format!("go {word} needs a number"))?;
            n.parse::<u64>()
                .map_err(|_| format!("go {word}: `{n}` is not a number"))
        };
        match word {
            "depth" => go.depth = Some(number()?.min(u32::MAX as u64) as u32),
            "nodes" => go.nodes = Some(number()?),
            "movetime" => go.movetime = Some(number()?),
            "wtime" => go.time[0] = Some(number()?),
            "btime" => go.time[1] = Some(number()?),
            "winc" => go.inc[0] = Some(number()?),
            "binc" => go.inc[1] = Some(number()?),
            "movestogo" => go.movestogo = Some(number()?),
            "perft" => go.perft = Some(number()?.min(u32::MAX as u64) as u32),
            "infinite" | "ponder" => go.infinite = true,
            "mate" | "searchmoves" => return Err(format!("go {word} is not supported")),
            _ => return Err(format!("go: unknown word `{word}`")),
        }
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::{Line, parse_go, read_line, score_text};

    #[test]
    fn a_line_past_the_limit_is_skipped_whole() {
        let text = format!("isready\n{}\nquit\nlast", "x".repeat(100));
        let mut input = std::io::BufReader::with_capacity(8, text.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        loop {
            let got = read_line(&mut input, &mut line, 10).unwrap();
            if got == Line::End {
                break;
            }
            seen.push((got, String::from_utf8_lossy(&line).into_owned()));
        }
        let expected = [
            (Line::Read, "isready"),
            (Line::TooLong, ""),
            (Line::Read, "quit"),
            (Line::Read, "last"),
        ];
        assert_eq!(seen.len(), expected.len());
        for ((got, text), (want, want_text)) in seen.iter().zip(expected) {
            assert_eq!((got, text.as_str()), (&want, want_text));
        }
    }

    #[test]
    fn go_reads_its_limits_and_refuses_what_it_does_not_know() {
        let go = parse_go(&["wtime", "1000", "btime", "2000", "winc", "10", "movestogo", "5"]).unwrap();
        assert_eq!(
            (go.time, go.inc[0], go.movestogo),
            ([Some(1000), Some(2000)], Some(10), Some(5))
        );
        assert_eq!(parse_go(&["perft", "3"]).unwrap().perft, Some(3));
        assert!(parse_go(&["depth"]).is_err());
        assert!(parse_go(&["depth", "x"]).is_err());
        assert!(parse_go(&["sideways"]).is_err());
    }

    #[test]
    fn scores_are_centipawns_or_moves_to_mate() {
        assert_eq!(score_text(35), "cp 35");
        assert_eq!(score_text(1_000_000 - 3), "mate 2");
        assert_eq!(score_text(-(1_000_000 - 2)), "mate -1");
    }
}
