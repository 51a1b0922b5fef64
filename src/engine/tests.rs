//! Unit tests of the engine's search modes (filled in below).
