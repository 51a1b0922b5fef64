//! A position as an SVG picture: the board of the rule file (its squares,
//! holes left out, light and dark), coordinates, the declared symbols (marks
//! small in a corner) and what the boxes hold, under the board. The same
//! layout the page draws, for files a browser or a README shows.

use std::fmt::Write as _;

use crate::core::Content;
use crate::game::{Game, State};

/// The side of a square, in SVG units.
const CELL: i32 = 48;

/// The position of `state` as an SVG document.
pub fn position_svg(game: &Game, state: &State) -> String {
    let (files, ranks) = game.dimensions();
    let origin = game.square_at(0, 0);
    let pockets: Vec<String> = (0..game.pieces().box_count() * game.pieces().len())
        .filter_map(|slot| {
            let n = state.position().tally(slot);
            (n > 0).then(|| {
                let (bx, pc) = game.pieces().slot_of(slot);
                format!("{} {}×{n}", game.pieces().box_name(bx), game.pieces().symbol(pc))
            })
        })
        .collect();
    let (w, h) = (
        files as i32 * CELL + 2,
        ranks as i32 * CELL + 2 + if pockets.is_empty() { 0 } else { 28 },
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, sans-serif">"#
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#f6f4ef"/>"##
    );
    for (at, content) in state.position().squares() {
        let (file, rank) = (at.x - origin.x, at.y - origin.y);
        let (x, y) = (1 + file * CELL, 1 + (ranks as i32 - 1 - rank) * CELL);
        let fill = if (file + rank) % 2 == 0 {
            "#b58863"
        } else {
            "#f0d9b5"
        };
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}"/>"#
        );
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" font-size="9" fill="#0006">{}</text>"##,
            x + 2,
            y + CELL - 3,
            escape(&game.square_label(at))
        );
        if let Content::Piece(pc, marks) = content {
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="32" text-anchor="middle">{}</text>"#,
                x + CELL / 2,
                y + CELL / 2 + 11,
                escape(&game.pieces().symbol(pc).to_string())
            );
            let marks = game.pieces().mark_symbols(marks);
            if !marks.is_empty() {
                let _ = writeln!(
                    out,
                    r##"<text x="{}" y="{}" font-size="10" text-anchor="end" fill="#0008">{}</text>"##,
                    x + CELL - 3,
                    y + 11,
                    escape(&marks)
                );
            }
        }
    }
    if !pockets.is_empty() {
        let _ = writeln!(
            out,
            r#"<text x="4" y="{}" font-size="16">{}</text>"#,
            ranks as i32 * CELL + 22,
            escape(&pockets.join("   "))
        );
    }
    out.push_str("</svg>\n");
    out
}

/// Text as SVG writes it.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_position_is_drawn_square_by_square() {
        let text = std::fs::read_to_string("rules/chess.alg").unwrap();
        let (spec, _) =
            crate::decl::Spec::load(&crate::source::Source::new("rules/chess.alg", text)).unwrap();
        let game = Game::new(&spec).unwrap();
        let svg = position_svg(&game, &game.initial());
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<rect x=").count(), 64 + 1);
        assert_eq!(svg.matches(r#"font-size="32""#).count(), 32);
        assert!(svg.contains(">♔<") && svg.contains(">e4<"));
    }
}
