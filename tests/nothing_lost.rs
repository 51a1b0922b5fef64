//! Nothing is lost to `kill -9`: `play` keeps its game in a PGN written
//! whole after every move (with `--pgn` or, without it, in the data
//! directory), `--resume` goes on with it, and `train --out` leaves earlier
//! weights alone until it has new ones.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

mod common;

use chessalg::core::Rng;
use chessalg::engine::Cache;
use chessalg::game::Game;

/// A fresh directory for one run's files.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nothing-lost-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The SAN of each move a PGN file records (none if it is missing or empty).
fn recorded(game: &Game, path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    if text.is_empty() {
        return Vec::new();
    }
    let mut cache = Cache::new();
    let read = game
        .read_pgn(&text, &mut cache)
        .unwrap_or_else(|e| panic!("{}: a kept PGN does not read back: {e}\n{text}", path.display()));
    let mut state = read.start.clone();
    let mut sans = Vec::new();
    for action in &read.actions {
        let legal = game.legal_actions(&state, &mut cache).unwrap();
        sans.push(game.san(&state, action, &legal, &mut cache).unwrap());
        state = game.play(&state, action);
    }
    sans
}

/// Starts `chessalg play` between two random players; its printed moves
/// (and its stderr's lines) arrive on the channels.
fn start_play(args: &[&str], data: &Path) -> (Child, mpsc::Receiver<String>, mpsc::Receiver<String>) {
    let mut child = common::command()
        .env("CHESSALG_DATA_DIR", data)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chessalg");
    let (moves_tx, moves) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // `12. white plays Nf3`, `12... black plays e5`
            if let Some((_, san)) = line.split_once(" plays ") {
                let san = san.split_whitespace().next().unwrap_or_default().to_string();
                if moves_tx.send(san).is_err() {
                    break;
                }
            }
        }
    });
    let (err_tx, errs) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = err_tx.send(line);
        }
    });
    (child, moves, errs)
}

/// Kills `play` at `moments` after it starts, `runs` times, and checks that
/// the game kept holds every move printed, or all but the last.
fn kill_and_compare(name: &str, with_pgn: bool, runs: u64, moments: &mut Rng) {
    let game = common::chess();
    let mut killed_mid_game = 0;
    for run in 0..runs {
        let dir = fresh_dir(&format!("{name}-{run}"));
        let pgn = dir.join("game.pgn");
        let seed = (run + 1).to_string();
        let mut args = vec![
            "play",
            "rules/chess.alg",
            "--white",
            "random",
            "--black",
            "random",
            "--line",
            "--quiet",
            "--seed",
            &seed,
        ];
        let pgn_text = pgn.display().to_string();
        if with_pgn {
            args.extend(["--pgn", &pgn_text]);
        }
        let (mut child, moves, errs) = start_play(&args, &dir.join("data"));
        std::thread::sleep(Duration::from_millis(5 + moments.below(400) as u64));
        child.kill().expect("SIGKILL");
        child.wait().unwrap();
        // What it printed before it died.
        std::thread::sleep(Duration::from_millis(50));
        let printed: Vec<String> = moves.try_iter().collect();
        let kept = if with_pgn {
            pgn.clone()
        } else {
            let said: Vec<String> = errs.try_iter().collect();
            let games = dir.join("data/games");
            // A write cut short by the kill may leave its temporary file
            // (`.NAME.XXXXXX.tmp`, removed by the next run a minute on).
            let files: Vec<PathBuf> = std::fs::read_dir(&games)
                .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect::<Vec<_>>())
                .unwrap_or_default()
                .into_iter()
                .filter(|p: &PathBuf| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
                .collect();
            assert!(files.len() <= 1, "one game, one file: {files:?}");
            match files.first() {
                Some(f) => {
                    if !said.is_empty() {
                        assert!(said[0].contains(&f.display().to_string()), "{said:?}");
                    }
                    f.clone()
                }
                None => {
                    assert!(printed.is_empty(), "moves were played but no game was kept");
                    continue;
                }
            }
        };
        let saved = recorded(&game, &kept);
        let n = saved.len();
        assert!(
            n == printed.len() || n + 1 == printed.len(),
            "run {run}: {} moves printed, {n} kept",
            printed.len()
        );
        assert_eq!(
            saved[..],
            printed[..n],
            "run {run}: the kept moves are the ones played"
        );
        if n > 0 && n < 300 {
            killed_mid_game += 1;
        }
    }
    assert!(
        killed_mid_game >= runs / 2,
        "most kills should land mid-game: {killed_mid_game} of {runs}"
    );
}

#[test]
fn a_game_killed_at_any_moment_is_kept_to_its_last_move() {
    let mut moments = Rng::new(0x9E37_79B9_7F4A_7C15);
    kill_and_compare("pgn", true, 25, &mut moments);
    kill_and_compare("kept", false, 25, &mut moments);
}

#[test]
fn ctrl_c_in_line_mode_ends_with_the_game_kept() {
    let game = common::chess();
    let mut moments = Rng::new(0xC7A1_C0DE);
    for run in 0..10 {
        let dir = fresh_dir(&format!("interrupt-{run}"));
        let pgn = dir.join("game.pgn");
        let (mut child, moves, errs) = start_play(
            &[
                "play",
                "rules/chess.alg",
                "--white",
                "random",
                "--black",
                "random",
                "--line",
                "--quiet",
                "--max-plies",
                "100000",
                "--pgn",
                pgn.to_str().unwrap(),
            ],
            &dir.join("data"),
        );
        // Ctrl-C is handled once the game has begun (the line saying where it is kept).
        let first = errs.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(first.contains("game.pgn"), "{first}");
        std::thread::sleep(Duration::from_millis(moments.below(300) as u64));
        let sent = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "Ctrl-C ends with 130");
        std::thread::sleep(Duration::from_millis(50));
        let printed: Vec<String> = moves.try_iter().collect();
        let saved = recorded(&game, &pgn);
        let n = saved.len();
        assert!(
            n == printed.len() || n + 1 == printed.len(),
            "run {run}: {} moves printed, {n} kept",
            printed.len()
        );
        assert_eq!(saved[..], printed[..n]);
    }
}

#[test]
fn a_killed_game_is_resumed_where_it_stopped() {
    let dir = fresh_dir("resume");
    let data = dir.join("data");
    let (mut child, moves, _) = start_play(
        &[
            "play",
            "rules/chess.alg",
            "--white",
            "random",
            "--black",
            "random",
            "--line",
            "--quiet",
            "--max-plies",
            "100000",
        ],
        &data,
    );
    // Killed once a few moves are in.
    let first: Vec<String> = moves.iter().take(12).collect();
    child.kill().unwrap();
    child.wait().unwrap();
    let game = common::chess();
    let kept = std::fs::read_dir(data.join("games"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .unwrap();
    let before = recorded(&game, &kept);
    assert!(before.len() >= 11 && before[..11] == first[..11], "{before:?}");
    // `--resume` without a file finds the last unfinished game: its rule
    // file and players come from the record.
    let out = common::command()
        .env("CHESSALG_DATA_DIR", &data)
        .args(["play", "--resume", "--line", "--quiet", "--max-plies", "40"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("resumed after {} moves", before.len())),
        "{err}"
    );
    let after = recorded(&game, &kept);
    assert_eq!(after.len(), 40, "played on to the ply limit in the same file");
    assert_eq!(after[..before.len()], before[..]);
    // Nothing is left to resume once the game has a result... or when it is
    // someone else's file that is not a game.
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[Event \"x\"]\n\n1. e4 e5 1-0\n").unwrap();
    let out = common::run(&["play", "--resume", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        common::text(&out.stderr).lines().count(),
        1,
        "{}",
        common::text(&out.stderr)
    );
}

#[test]
fn training_killed_leaves_the_earlier_weights_whole() {
    let dir = fresh_dir("train");
    let weights = dir.join("w.json");
    let w = weights.to_str().unwrap();
    let out = common::run(&["train", "rules/connect4.alg", "--games", "50", "--out", w], b"");
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let before = std::fs::read(&weights).unwrap();
    let mut moments = Rng::new(7);
    for _ in 0..6 {
        let mut child = common::command()
            .args(["train", "rules/connect4.alg", "--games", "100000", "--out", w])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + moments.below(500) as u64));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            std::fs::read(&weights).unwrap(),
            before,
            "the weights are untouched"
        );
    }
    // Nothing beside the weights but, maybe, a temporary file a kill cut short.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.starts_with('.') && n.ends_with(".tmp")))
        .collect();
    assert_eq!(left, ["w.json"]);
}
