//! A UCI engine in another process, asked for its legal moves (`go perft
//! 1`): how `diff` checks a rule file against Fairy-Stockfish or any engine
//! that counts perft over UCI.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Why a UCI engine could not answer.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum EngineClientError {
    /// The program could not be started.
    #[error("cannot start `{command}`: {reason}")]
    #[diagnostic(
        code = "chessalg::inspect::engine_start",
        help(
            "give the engine's program as it is run, e.g. `--uci fairy-stockfish` (`apt-get install fairy-stockfish`)"
        )
    )]
    Start {
        /// The command.
        command: String,
        /// Why.
        reason: String,
    },
    /// The engine does not offer an option's value.
    #[error("`{command}` offers no {option} `{value}`; it offers: {values}")]
    #[diagnostic(code = "chessalg::inspect::engine_option")]
    Refused {
        /// The command.
        command: String,
        /// The option.
        option: String,
        /// The value asked for.
        value: String,
        /// The values it offers.
        values: String,
    },
    /// The engine stopped, or said nothing in time.
    #[error("`{command}` {what}")]
    #[diagnostic(code = "chessalg::inspect::engine_silent")]
    Silent {
        /// The command.
        command: String,
        /// What happened (`gave no answer to ... within 30 s`).
        what: String,
    },
}

/// A running UCI engine.
pub struct EngineClient {
    command: String,
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    timeout: Duration,
}

impl EngineClient {
    /// Starts `command` (the program and its arguments, split at spaces),
    /// says `uci`, sets `options` (`UCI_Variant`, ...) and waits until ready.
    pub fn start(command: &str, options: &[(String, String)]) -> Result<EngineClient, EngineClientError> {
        let mut words = command.split_whitespace();
        let program = words.next().unwrap_or_default();
        let start_error = |reason: String| EngineClientError::Start {
            command: command.to_string(),
            reason,
        };
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| start_error(e.to_string()))?;
        let input = child.stdin.take().ok_or_else(|| start_error("no input".into()))?;
        let output = child
            .stdout
            .take()
            .ok_or_else(|| start_error("no output".into()))?;
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = EngineClient {
            command: command.to_string(),
            child,
            input,
            lines,
            timeout: Duration::from_secs(30),
        };
        engine.say("uci")?;
        let mut said = engine.until(|l| l == "uciok", "uci")?;
        // `UCI_Variant` last: an option before it may add variants to its
        // list (Fairy-Stockfish's `VariantPath` loads a variants.ini), so
        // the list is asked for again before the variant is checked.
        let (variant, others): (Vec<_>, Vec<_>) = options.iter().partition(|(n, _)| n == "UCI_Variant");
        for (name, value) in &others {
            engine.set_option(&said, name, value)?;
        }
        for (name, value) in &variant {
            if !others.is_empty() {
                engine.say("uci")?;
                said = engine.until(|l| l == "uciok", "uci")?;
            }
            engine.set_option(&said, name, value)?;
        }
        engine.say("isready")?;
        engine.until(|l| l == "readyok", "isready")?;
        Ok(engine)
    }

    /// Sets option `name` to `value`, refusing a value that `said` (the
    /// engine's answer to `uci`) does not list for a combo option (an engine
    /// would ignore it silently and play its default).
    fn set_option(&mut self, said: &[String], name: &str, value: &str) -> Result<(), EngineClientError> {
        let declared = said.iter().rev().find_map(|l| {
            let rest = l.trim().strip_prefix("option name ")?;
            let (n, rest) = rest.split_once(" type ")?;
            (n == name && rest.starts_with("combo")).then_some(rest)
        });
        if let Some(rest) = declared {
            let values: Vec<&str> = rest.split(" var ").skip(1).map(str::trim).collect();
            if !values.contains(&value) {
                return Err(EngineClientError::Refused {
                    command: self.command.clone(),
                    option: name.to_string(),
                    value: value.to_string(),
                    values: values.join(" "),
                });
            }
        }
        self.say(&format!("setoption name {name} value {value}"))
    }

    /// The legal moves (UCI names) after `moves` from `fen`.
    pub fn legal_moves(
        &mut self,
        fen: &str,
        moves: &[String],
    ) -> Result<BTreeSet<String>, EngineClientError> {
        let tail = match moves.is_empty() {
            true => String::new(),
            false => format!(" moves {}", moves.join(" ")),
        };
        self.say(&format!("position fen {fen}{tail}"))?;
        self.say("go perft 1")?;
        let mut found = BTreeSet::new();
        let lines = self.until(|l| l.starts_with("Nodes searched"), "go perft 1")?;
        for line in lines {
            // `e2e4: 1`
            if let Some((name, count)) = line.split_once(": ")
                && !name.contains(' ')
                && count.trim().parse::<u64>().is_ok()
            {
                found.insert(name.to_string());
            }
        }
        Ok(found)
    }

    /// The engine's program as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    fn say(&mut self, line: &str) -> Result<(), EngineClientError> {
        writeln!(self.input, "{line}")
            .and_then(|()| self.input.flush())
            .map_err(|e| self.silent(format!("stopped reading its input ({e})")))
    }

    /// The lines up to and including the first that `last` accepts.
    fn until(&mut self, last: impl Fn(&str) -> bool, asked: &str) -> Result<Vec<String>, EngineClientError> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(self.timeout) {
                Ok(line) => {
                    let done = last(line.trim());
                    seen.push(line);
                    if done {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.silent(format!(
                        "gave no answer to `{asked}` within {} s",
                        self.timeout.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.silent(format!("stopped before answering `{asked}`")));
                }
            }
        }
    }

    fn silent(&self, what: String) -> EngineClientError {
        EngineClientError::Silent {
            command: self.command.clone(),
            what,
        }
    }
}

impl Drop for EngineClient {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        std::thread::sleep(Duration::from_millis(20));
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
