//! `piece ♙ ♟ fen P p value 1 royal san -`: what a piece is beyond its
//! symbol (the symbols themselves are declared in the IR layer).

use super::{Collect, Declare};
use crate::core::{PieceId, PlayerId};
use crate::ir::ExpandError;
use crate::syntax::ast::{PieceDecl, PieceDrawing};

/// What a rule file says about one piece beyond its symbol.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieceInfo {
    /// The player who owns it (index into [`super::GameSpec::players`]).
    pub owner: Option<PlayerId>,
    /// Its FEN letter.
    pub fen: Option<char>,
    /// Whether FEN writes `+` before the letter (`+P`: a promoted piece, as
    /// FENs of drop games write it); a promotion to it is named with `+` (`b2b3+`).
    pub fen_promoted: bool,
    /// Its value for the AI.
    pub value: Option<f64>,
    /// Whether no move may leave it where an opponent could take it.
    pub royal: bool,
    /// Whether SAN writes its moves without a letter (`san -`; captures are
    /// then named by the file the piece left).
    pub san_unlettered: bool,
    /// How boards draw it (`draw pentagon`; none: as its symbol allows).
    pub drawing: Option<PieceDrawing>,
    /// The characters the traditional set writes on it (`draw pentagon "歩"`).
    pub characters: Option<String>,
}

impl Declare for PieceDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let ids: Vec<PieceId> = self
            .symbols
            .iter()
            .filter_map(|(c, _)| cx.pieces().lookup(*c))
            .collect();
        if let Some((letters, span)) = &self.fen
            && letters.len() != self.symbols.len()
        {
            cx.error(ExpandError::FenLetters {
                span: *span,
                symbols: self.symbols.len(),
                letters: letters.len(),
            });
        }
        if self.characters.len() > 1 && self.characters.len() != self.symbols.len() {
            cx.error(ExpandError::DrawCharacters {
                span: self.characters[self.characters.len() - 1].1,
                symbols: self.symbols.len(),
                given: self.characters.len(),
            });
        }
        let paired = self.symbols.len() == 2 && cx.spec.players.len() >= 2;
        for (i, id) in ids.iter().enumerate() {
            let info = &mut cx.spec.pieces[id.index()];
            info.royal = self.royal;
            info.san_unlettered = !self.san_letter;
            info.value = self.value;
            info.drawing = self.drawing;
            info.characters = self
                .characters
                .get(i)
                .or(self.characters.first())
                .map(|(text, _)| text.clone());
            let letter = self.fen.as_ref().and_then(|(letters, _)| letters.get(i));
            info.fen = letter.and_then(|l| l.chars().last());
            info.fen_promoted = letter.is_some_and(|l| l.starts_with('+'));
            if paired {
                info.owner = Some(PlayerId::new(i));
            }
        }
    }
}
