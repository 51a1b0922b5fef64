//! The names the language gives without a definition: its built-in moves,
//! functions and fragments, each with what it does. The expander gives each
//! its meaning; tools (the language server's hover and completion, the
//! manual's test that the reference names them all) read this one list.

/// A name the language gives without a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Builtin {
    /// The name as a rule file writes it.
    pub name: &'static str,
    /// What it does, with an example of its use.
    pub about: &'static str,
}

/// Every built-in, in the order a reference lists them.
pub const BUILTINS: [Builtin; 7] = [
    Builtin {
        name: "flipped",
        about: "`flipped(M)`: M turned half way round with the colours swapped (the other side's view)",
    },
    Builtin {
        name: "colour_swapped",
        about: "`colour_swapped(X)`: X with every piece replaced by its partner",
    },
    Builtin {
        name: super::expander::PIECES,
        about: "`pieces()`: any declared piece; `pieces(PLAYER)`: any piece of that player",
    },
    Builtin {
        name: super::expander::FEWER,
        about: "`fewer(X, n)`: holds, changing nothing, while the board has fewer than n pieces that X matches (`fewer(♖, 2)`)",
    },
    Builtin {
        name: "attacked",
        about: "`attacked`: holds when an opponent has a move that changes the piece of interest's square",
    },
    Builtin {
        name: "no_reply",
        about: "`no_reply`: holds when the next player would have no legal move",
    },
    Builtin {
        name: "nil",
        about: "`nil`: the position unchanged",
    },
];

#[cfg(test)]
mod tests {
    use super::super::expander::{BUILTIN_MOVES, FEWER, FUNCTIONS, PIECES};
    use super::BUILTINS;

    #[test]
    fn every_name_the_expander_gives_is_listed() {
        let listed = |name: &str| BUILTINS.iter().any(|b| b.name == name);
        for name in FUNCTIONS
            .iter()
            .chain(&BUILTIN_MOVES)
            .chain(&[PIECES, FEWER, "nil"])
        {
            assert!(listed(name), "{name} is not in the list of built-ins");
        }
        assert_eq!(BUILTINS.len(), FUNCTIONS.len() + BUILTIN_MOVES.len() + 3);
    }
}
