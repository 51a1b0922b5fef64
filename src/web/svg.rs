//! A position as an SVG picture: the board of the rule file (its squares,
//! holes left out, light and dark), coordinates, the declared symbols (marks
//! small in a corner) and what the boxes hold, beside the board. It is the
//! one drawing of a position: `show --svg` writes it, and the web page shows
//! it as its board, finding squares and pocket pieces by their `data-`
//! attributes (`data-square`, `data-pocket`).

use std::fmt::Write as _;

use crate::core::Content;
use crate::game::{Game, State};

/// The side of a square, in SVG units.
const CELL: i32 = 48;

/// The height of a row of pocket pieces above or below the board.
const POCKET_ROW: i32 = 34;

/// The width of one pocket piece with its count.
const POCKET_ITEM: i32 = 62;

/// One kind of piece in a box: drawn beside the board.
struct PocketItem {
    piece: String,
    box_name: String,
    count: u16,
    /// The second player's pieces sit above the board, the others below.
    above: bool,
}

/// The position of `state` as an SVG document.
pub fn position_svg(game: &Game, state: &State) -> String {
    let (files, ranks) = game.dimensions();
    let origin = game.square_at(0, 0);
    let items: Vec<PocketItem> = (0..game.pieces().box_count() * game.pieces().len())
        .filter_map(|slot| {
            let count = state.position().tally(slot);
            (count > 0).then(|| {
                let (bx, pc) = game.pieces().slot_of(slot);
                PocketItem {
                    piece: game.pieces().symbol(pc).to_string(),
                    box_name: game.pieces().box_name(bx).to_string(),
                    count,
                    above: game.piece_info(pc).owner.map(|o| o.index()) == Some(1),
                }
            })
        })
        .collect();
    // Games with boxes keep room for both rows, so the board never jumps.
    let pocket_rows = game.pieces().box_count() > 0;
    let top = if pocket_rows { POCKET_ROW } else { 0 };
    let w = (files as i32 * CELL + 2).max(if pocket_rows { 4 * POCKET_ITEM } else { 0 });
    let h = ranks as i32 * CELL + 2 + 2 * top;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, sans-serif" class="position">"#
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#f6f4ef"/>"##
    );
    for (at, content) in state.position().squares() {
        let (file, rank) = (at.x - origin.x, at.y - origin.y);
        let (x, y) = (1 + file * CELL, 1 + top + (ranks as i32 - 1 - rank) * CELL);
        let dark = (file + rank) % 2 == 0;
        let fill = if dark { "#b58863" } else { "#f0d9b5" };
        let label = escape(&game.square_label(at));
        let _ = writeln!(
            out,
            r#"<g class="cell{}" data-square="{label}">"#,
            if dark { " dark" } else { "" }
        );
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}"/>"#
        );
        let _ = writeln!(
            out,
            r##"<text class="coord" x="{}" y="{}" font-size="9" fill="#0006">{label}</text>"##,
            x + 2,
            y + CELL - 3,
        );
        if let Content::Piece(pc, marks) = content {
            let owner = game.piece_info(pc).owner.map_or(0, |o| o.index());
            let _ = writeln!(
                out,
                r#"<text class="piece p{owner}" x="{}" y="{}" font-size="32" text-anchor="middle">{}</text>"#,
                x + CELL / 2,
                y + CELL / 2 + 11,
                escape(&game.pieces().symbol(pc).to_string())
            );
            let marks = game.pieces().mark_symbols(marks);
            if !marks.is_empty() {
                let _ = writeln!(
                    out,
                    r##"<text class="marks" x="{}" y="{}" font-size="10" text-anchor="end" fill="#0008">{}</text>"##,
                    x + CELL - 3,
                    y + 11,
                    escape(&marks)
                );
            }
        }
        // The page lights this for a square a chosen piece may go to.
        let _ = writeln!(
            out,
            r##"<circle class="hint" cx="{}" cy="{}" r="{}" fill="#147a3c" fill-opacity="0"/>"##,
            x + CELL / 2,
            y + CELL / 2,
            CELL / 7
        );
        out.push_str("</g>\n");
    }
    for above in [true, false] {
        let y = if above { 0 } else { top + ranks as i32 * CELL + 2 };
        for (i, item) in items.iter().filter(|p| p.above == above).enumerate() {
            let x = 1 + i as i32 * POCKET_ITEM;
            let _ = writeln!(
                out,
                r#"<g class="pocket" data-pocket="{}" data-box="{}">"#,
                escape(&item.piece),
                escape(&item.box_name)
            );
            let _ = writeln!(
                out,
                r##"<rect x="{x}" y="{}" width="{}" height="{}" rx="4" fill="#e8e2d4" stroke="#bbb"/>"##,
                y + 2,
                POCKET_ITEM - 4,
                POCKET_ROW - 4
            );
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="24">{}</text><text x="{}" y="{}" font-size="13">×{}</text>"#,
                x + 4,
                y + POCKET_ROW - 9,
                escape(&item.piece),
                x + 34,
                y + POCKET_ROW - 11,
                item.count
            );
            out.push_str("</g>\n");
        }
    }
    out.push_str("</svg>\n");
    out
}

/// Text as SVG writes it (in text and in attributes).
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::test_game as load;

    #[test]
    fn a_start_position_is_drawn_square_by_square() {
        let game = load("rules/chess.alg");
        let svg = position_svg(&game, &game.initial());
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<rect x=").count(), 64 + 1);
        assert_eq!(svg.matches(r#"data-square="#).count(), 64);
        assert_eq!(svg.matches(r#"font-size="32""#).count(), 32);
        assert!(svg.contains(">♔<") && svg.contains(r#"data-square="e4""#));
        assert!(!svg.contains("data-pocket"));
    }

    #[test]
    fn pieces_in_hand_are_drawn_beside_the_board_by_owner() {
        let game = load("rules/crazyhouse.alg");
        let state = game.from_fen("4k3/8/8/8/8/8/8/4K3[NNq] w - - 0 1").unwrap();
        let svg = position_svg(&game, &state);
        assert!(svg.contains(r#"data-pocket="♘""#) && svg.contains("×2"));
        assert!(svg.contains(r#"data-pocket="♛""#) && svg.contains("×1"));
        // Black's queen above the board (y 0), white's knights below it.
        let black = svg.find(r#"data-pocket="♛""#).unwrap();
        assert!(svg[black..].contains(r#"y="2""#));
    }
}
