//! Positions in a text as the protocol counts them: lines from 0 and, within
//! a line, UTF-16 code units (the encoding every client understands; rule
//! files are full of symbols outside ASCII).

use lsp_types::{Position, Range};

use crate::source::Span;

/// Where each line of a text starts, to turn byte offsets into positions
/// and back.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// The index of `text`.
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and back to a
    /// character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let character = self.text[self.starts[line]..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    /// The range of `span`.
    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of `position` (a position past a line's end is its
    /// end; past the last line, the text's end).
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    /// The whole text's range.
    pub fn whole(&self) -> Range {
        Range::new(Position::new(0, 0), self.position(self.text.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_and_come_back() {
        let text = "a = ♔ + u.\nmoves white = %♔: a\n";
        let index = LineIndex::new(text);
        let at = text.find("a\n").unwrap();
        assert_eq!(index.position(at), Position::new(1, 18));
        assert_eq!(index.offset(Position::new(1, 18)), at);
        let plus = text.find('+').unwrap();
        assert_eq!(index.position(plus), Position::new(0, 6));
        assert_eq!(index.offset(Position::new(0, 6)), plus);
        assert_eq!(index.offset(Position::new(0, 99)), text.find('\n').unwrap());
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
    }
}
