//! `players white black`: the players, in turn order; `player white
//! "Sente"`: a player's display name and colour; `edge red top bottom`:
//! edges boards draw in a player's colour; `labels files ...`: what boards
//! write beside the files and ranks.

use super::{Collect, Declare, Pass};
use crate::source::Span;
use crate::syntax::ast::{EdgeDecl, LabelsDecl, PlayerDecl, PlayersDecl};

impl Declare for PlayersDecl {
    fn pass(&self) -> Pass {
        Pass::Names
    }

    fn declare(&self, cx: &mut Collect<'_>) {
        let span = self.players.first().map_or(Span::default(), |p| p.span);
        if cx.once("players", span) {
            cx.spec.players = self.players.iter().map(|p| p.text.clone()).collect();
        }
    }
}

impl Declare for PlayerDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let Some(p) = cx.player(&self.player) else { return };
        if !cx.display_name(&self.name, "a player's name") {
            return;
        }
        let n = cx.spec.players.len();
        cx.spec.player_names.resize(n, None);
        cx.spec.player_colours.resize(n, None);
        cx.spec.player_names[p.index()] = Some(self.name.text.clone());
        cx.spec.player_colours[p.index()] = self.colour.as_ref().map(|c| c.text.clone());
    }
}

impl Declare for EdgeDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let Some(p) = cx.player(&self.player) else { return };
        for side in &self.sides {
            cx.spec.edges.push((p, side.clone()));
        }
    }
}

impl Declare for LabelsDecl {
    fn declare(&self, cx: &mut Collect<'_>) {
        let along = |o: &crate::core::Offset| if self.ranks { o.y } else { o.x };
        let (low, high) = (cx.spec.board.iter()).fold((i32::MAX, i32::MIN), |(l, h), (o, _)| {
            (l.min(along(o)), h.max(along(o)))
        });
        let board = if low > high { 0 } else { (high - low + 1) as usize };
        let axis = if self.ranks { "ranks" } else { "files" };
        if board != 0 && self.labels.len() != board {
            cx.error(crate::ir::ExpandError::LabelCount {
                span: self.span,
                axis: axis.to_string(),
                given: self.labels.len(),
                board,
            });
            return;
        }
        if self.ranks {
            cx.spec.rank_labels = self.labels.clone();
        } else {
            cx.spec.file_labels = self.labels.clone();
        }
    }
}
