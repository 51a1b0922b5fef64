//! `chessalg moves`: the legal moves of a position, one name a line (none
//! once the game is over).

use chessalg::engine::Cache;

use super::{Failure, GameArgs, play_error, setup};

/// Runs `chessalg moves`.
pub fn run(args: &GameArgs) -> Result<(), Failure> {
    let (game, state) = setup(args)?;
    let mut cache = Cache::new();
    // A game that is over (as perft counts it: a winning pattern, an
    // automatic outcome) has no moves to list.
    if game.ends_tree(&state, &mut cache).map_err(play_error)? {
        return Ok(());
    }
    let actions = game.legal_actions(&state, &mut cache).map_err(play_error)?;
    let mut names = game.move_names(&state, &actions);
    names.sort_by_key(|n| natural_key(n));
    for n in names {
        println!("{n}");
    }
    Ok(())
}

/// A name as runs of letters and numbers, numbers by value: `9-13` sorts
/// before `10-14`, `a2a3` before `a10a11`.
fn natural_key(name: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut rest = name;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits > 0 {
            key.push((String::new(), rest[..digits].parse().unwrap_or(u64::MAX)));
            rest = &rest[digits..];
        } else {
            let text = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
            key.push((rest[..text].to_string(), 0));
            rest = &rest[text..];
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::natural_key;

    #[test]
    fn numbers_sort_by_value() {
        let mut names = vec!["10-14", "9-13", "a10a11", "a2a3", "e2e4"];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(names, ["9-13", "10-14", "a2a3", "a10a11", "e2e4"]);
    }
}
