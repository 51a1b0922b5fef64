//! Source files and byte spans into them.

use miette::{MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents};

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
    /// A source called `name` holding `text`, read as text whatever its
    /// form: a UTF-8 byte-order mark at its start is left out, and a line
    /// ending of a carriage return alone (old Mac files) is read as a
    /// newline (a byte for a byte: spans are those of the text without
    /// the mark).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let mut text: String = text.into();
        if let Some(rest) = text.strip_prefix('\u{feff}') {
            text = rest.to_string();
        }
        if text.contains('\r') {
            let mut chars = text.chars().peekable();
            let mut lines = String::with_capacity(text.len());
            while let Some(c) = chars.next() {
                lines.push(if c == '\r' && chars.peek() != Some(&'\n') {
                    '\n'
                } else {
                    c
                });
            }
            text = lines;
        }
        Source {
            name: name.into(),
            text,
        }
    }

    /// The text as miette wants it for rendering labels, its columns counted
    /// in characters.
    pub fn named(&self) -> Named {
        Named(NamedSource::new(self.name.clone(), self.text.clone()))
    }
}

/// A named text for miette whose `FILE:LINE:COLUMN` counts the column in
/// characters, as editors do (miette counts bytes, so a line with `♘` before
/// the place would point past it).
#[derive(Clone, Debug)]
pub struct Named(NamedSource<String>);

impl SourceCode for Named {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self
            .0
            .read_span(span, context_lines_before, context_lines_after)?;
        if contents.column() == 0 {
            return Ok(contents);
        }
        let text = self.0.inner();
        let start = span.offset().min(text.len());
        let line_start = text.as_bytes()[..start]
            .iter()
            .rposition(|b| *b == b'\n' || *b == b'\r')
            .map_or(0, |i| i + 1);
        let Some(before) = text.get(line_start..start) else {
            return Ok(contents);
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.0.name().to_string(),
            contents.data(),
            *contents.span(),
            contents.line(),
            before.chars().count(),
            contents.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let source = Source::new("f.alg", "x = 1\nk = ♘♘ + u.\n");
        let start = source.text.find("u.").unwrap();
        let span = Span::new(start, start + 2);
        let named = source.named();
        let at = named.read_span(&span.into(), 0, 0).unwrap();
        assert_eq!((at.line(), at.column()), (1, 9));
        assert_eq!(at.name(), Some("f.alg"));
        // With context lines, miette's own answer stands.
        let around = named.read_span(&span.into(), 1, 1).unwrap();
        assert_eq!(around.line(), 0);
    }
}
