//! Positions and the backtracking search over them.
