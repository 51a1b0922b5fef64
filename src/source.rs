//! Source files and byte spans into them.

use miette::{NamedSource, SourceSpan};

/// A byte range in one source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// Whether `other` lies within this span.
    pub fn contains(self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl From<Span> for SourceSpan {
    fn from(s: Span) -> SourceSpan {
        SourceSpan::new(s.start.into(), s.end.saturating_sub(s.start))
    }
}

/// A named source text: a rule file, or an expression given on the command line.
#[derive(Clone, Debug)]
pub struct Source {
    /// The name shown in diagnostics (a path, or `<expr>`).
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl Source {
    /// A source called `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    /// The text as miette wants it for rendering labels.
    pub fn named(&self) -> NamedSource<String> {
        NamedSource::new(self.name.clone(), self.text.clone())
    }
}
