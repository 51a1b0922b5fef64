//! A position as an SVG picture: the board of the rule file (its squares,
//! holes left out, light and dark), coordinates, the declared symbols (marks
//! small in a corner) and what the boxes hold, beside the board. It is the
//! one drawing of a position: `show --svg` writes it, and the web page shows
//! it as its board, finding squares and pocket pieces by their `data-`
//! attributes (`data-square`, `data-pocket`).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::core::{Content, Coord, Marks, PieceId, PlayerId};
use crate::game::{Game, State};
use crate::syntax::ast::{BoardDrawing, PieceDrawing};

/// The side of a square, in SVG units.
const CELL: i32 = 48;

/// The height of a row of pocket pieces above or below the board.
const POCKET_ROW: i32 = 34;

/// The width of one pocket piece with its count.
const POCKET_ITEM: i32 = 62;

/// The colour of a board drawn as lines.
const LINES_BOARD: &str = "#eccb8c";

/// What a board drawn as lines marks of the rule file's regions: a river
/// above each region of whole rows that starts at the bottom row (and at
/// the same height from the top: the other player's side under
/// `flipped`), and the diagonals of each square region of odd side that
/// is not whole rows (and of its image turned half round).
struct LinesMarks {
    /// The ranks (from 0) whose lines up to the next rank are a river.
    rivers: Vec<i32>,
    /// Square regions drawn crossed, as (file, rank) corners.
    crossed: Vec<((i32, i32), (i32, i32))>,
}

impl LinesMarks {
    fn of(game: &Game, files: i32, ranks: i32) -> LinesMarks {
        let (mut rivers, mut crossed) = (Vec::new(), Vec::new());
        for &((a, b), (c, d)) in game.region_rectangles() {
            let (f1, f2) = (a.min(c) as i32, a.max(c) as i32);
            let (r1, r2) = (b.min(d) as i32, b.max(d) as i32);
            if f1 == 0 && f2 == files - 1 {
                if r1 == 0 && r2 < ranks - 1 {
                    rivers.push(r2);
                    rivers.push(ranks - 2 - r2);
                }
            } else if f2 - f1 == r2 - r1 && (f2 - f1) % 2 == 0 && f2 > f1 {
                crossed.push(((f1, r1), (f2, r2)));
                let turned = ((files - 1 - f2, ranks - 1 - r2), (files - 1 - f1, ranks - 1 - r1));
                if turned != ((f1, r1), (f2, r2)) {
                    crossed.push(turned);
                }
            }
        }
        LinesMarks { rivers, crossed }
    }
}

/// Where the squares of a board go in the picture.
struct Layout {
    drawing: BoardDrawing,
    ranks: i32,
    top: i32,
    /// The board's size in SVG units.
    width: i32,
    height: i32,
    /// A hexagon's radius (centre to corner).
    hex_radius: f32,
}

impl Layout {
    fn new(drawing: BoardDrawing, files: i32, ranks: i32, top: i32) -> Layout {
        // Pointy-topped hexagons as wide as a square; rows 3/4 of their height apart.
        let hex_radius = CELL as f32 / 3f32.sqrt();
        let (width, height) = match drawing {
            BoardDrawing::Hexagons => (
                files * CELL + (ranks - 1).max(0) * CELL / 2,
                (2.0 * hex_radius + (ranks - 1).max(0) as f32 * 1.5 * hex_radius).ceil() as i32,
            ),
            _ => (files * CELL, ranks * CELL),
        };
        Layout {
            drawing,
            ranks,
            top,
            width,
            height,
            hex_radius,
        }
    }

    /// The centre of the square `file` squares right and `rank` up from
    /// the bottom-left corner.
    fn centre(&self, file: i32, rank: i32) -> (i32, i32) {
        let down = self.ranks - 1 - rank;
        match self.drawing {
            BoardDrawing::Hexagons => {
                // Each row half a cell left of the row below it: the top
                // row not moved, the bottom one furthest right.
                let x = 1 + CELL / 2 + file * CELL + down * CELL / 2;
                let y = 1 + self.top + (self.hex_radius + down as f32 * 1.5 * self.hex_radius).round() as i32;
                (x, y)
            }
            _ => (1 + file * CELL + CELL / 2, 1 + self.top + down * CELL + CELL / 2),
        }
    }
}

/// One kind of piece in a box: drawn beside the board.
struct PocketItem {
    id: PieceId,
    piece: String,
    box_name: String,
    count: u16,
    /// The second player's pieces sit above the board, the others below.
    above: bool,
}

/// A square as drawn: where it is on the board and in the picture, and
/// its name.
struct DrawnSquare {
    /// Files right of the bottom-left corner.
    file: i32,
    /// Ranks up from the bottom-left corner.
    rank: i32,
    /// Its centre in the picture.
    centre: (i32, i32),
    /// Its name, escaped for SVG.
    label: String,
}

/// Where the coordinates go when every square's name is letters then
/// digits (`a1`): the files' letters on the lowest square of each file,
/// the ranks' digits on the leftmost square of each rank.
struct EdgeCoordinates {
    /// Whether they go on the edges at all (not on hexagons, nor where a
    /// square's name is not a file and a rank: then each square has its
    /// name on it).
    edges: bool,
    /// The lowest rank of each file that has a square.
    lowest_in_file: HashMap<i32, i32>,
    /// The leftmost file of each rank that has a square.
    leftmost_in_rank: HashMap<i32, i32>,
}

impl EdgeCoordinates {
    /// The edges of the board whose squares are `squares` (as (file,
    /// rank) from the bottom-left corner), their names split as `names`.
    fn of(
        drawing: BoardDrawing,
        squares: &[(i32, i32)],
        names: &[Option<(String, String)>],
    ) -> EdgeCoordinates {
        let edges = drawing != BoardDrawing::Hexagons && names.iter().all(Option::is_some);
        let mut lowest_in_file = HashMap::new();
        let mut leftmost_in_rank = HashMap::new();
        for &(file, rank) in squares {
            let low = lowest_in_file.entry(file).or_insert(rank);
            *low = (*low).min(rank);
            let left = leftmost_in_rank.entry(rank).or_insert(file);
            *left = (*left).min(file);
        }
        EdgeCoordinates {
            edges,
            lowest_in_file,
            leftmost_in_rank,
        }
    }
}

/// The position of `state` as an SVG document, its pieces drawn in `set`.
pub fn position_svg(game: &Game, state: &State, set: PieceSet) -> String {
    let style = PieceStyle::of(game, set);
    let (files, ranks) = game.dimensions();
    let origin = game.square_at(0, 0);
    let items = pocket_items(game, state);
    // Games with boxes keep room for both rows, so the board never jumps.
    let pocket_rows = game.pieces().box_count() > 0;
    let top = if pocket_rows { POCKET_ROW } else { 0 };
    let drawing = game.board_drawing();
    let layout = Layout::new(drawing, files as i32, ranks as i32, top);
    let w = (layout.width + 2).max(if pocket_rows { 4 * POCKET_ITEM } else { 0 });
    let h = layout.height + 2 + 2 * top;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, sans-serif" class="position board-{}">"#,
        drawing.name()
    );
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#f6f4ef"/>"##
    );
    let squares: Vec<_> = state.position().squares().collect();
    if drawing == BoardDrawing::Lines {
        draw_lines_board(&mut out, game, &layout, &squares);
    }
    // Coordinates: where every square's name is letters then digits
    // (`a1`), the files' letters on the lowest square of each file and the
    // ranks' digits on the leftmost square of each rank, as chess boards
    // print them; else (and on hexagons) each square's name on it.
    let names: Vec<Option<(String, String)>> = squares
        .iter()
        .map(|&(at, _)| file_and_rank(&game.square_label(at)))
        .collect();
    let places: Vec<(i32, i32)> = (squares.iter())
        .map(|&(at, _)| (at.x - origin.x, at.y - origin.y))
        .collect();
    let coordinates = EdgeCoordinates::of(drawing, &places, &names);
    for ((at, content), name) in squares.into_iter().zip(names) {
        let (file, rank) = (at.x - origin.x, at.y - origin.y);
        let square = DrawnSquare {
            file,
            rank,
            centre: layout.centre(file, rank),
            label: escape(&game.square_label(at)),
        };
        let dark = (file + rank) % 2 == 0;
        let _ = writeln!(
            out,
            r#"<g class="cell{}" data-square="{}">"#,
            if dark { " dark" } else { "" },
            square.label
        );
        draw_square_shape(&mut out, &layout, &square, dark);
        let spec = game.spec();
        if spec.file_labels.is_empty() && spec.rank_labels.is_empty() {
            draw_square_names(&mut out, &layout, &square, &coordinates, name);
        } else {
            draw_declared_labels(&mut out, game, &square);
        }
        if let Content::Piece(pc, marks) = content {
            draw_piece_on_square(&mut out, game, &layout, &square, (pc, marks), style);
        }
        // The page lights this for a square a chosen piece may go to.
        let (cx, cy) = square.centre;
        let _ = writeln!(
            out,
            r##"<circle class="hint" cx="{cx}" cy="{cy}" r="{}" fill="#147a3c" fill-opacity="0"/>"##,
            CELL / 7
        );
        out.push_str("</g>\n");
    }
    draw_edges(&mut out, game, &layout, files as i32, ranks as i32);
    draw_pockets(&mut out, game, &items, top + ranks as i32 * CELL + 2, style);
    out.push_str("</svg>\n");
    out
}

/// What the boxes of `state` hold, one item per kind of piece in a box.
fn pocket_items(game: &Game, state: &State) -> Vec<PocketItem> {
    (0..game.pieces().box_count() * game.pieces().len())
        .filter_map(|slot| {
            let count = state.position().tally(slot);
            (count > 0).then(|| {
                let (bx, pc) = game.pieces().slot_of(slot);
                PocketItem {
                    id: pc,
                    piece: game.pieces().symbol(pc).to_string(),
                    box_name: game.pieces().box_name(bx).to_string(),
                    count,
                    above: game.piece_info(pc).owner.map(|o| o.index()) == Some(1),
                }
            })
        })
        .collect()
}

/// A board drawn as lines, under its pieces: the board, a line through
/// the centres of each row and column of `squares` (broken at rivers),
/// and the diagonals of the crossed regions (xiangqi's palaces).
fn draw_lines_board(out: &mut String, game: &Game, layout: &Layout, squares: &[(Coord, Content)]) {
    let (files, ranks) = game.dimensions();
    let origin = game.square_at(0, 0);
    let _ = writeln!(
        out,
        r##"<rect x="1" y="{}" width="{}" height="{}" fill="{LINES_BOARD}"/>"##,
        1 + layout.top,
        layout.width,
        layout.height
    );
    let centre = |at: Coord| layout.centre(at.x - origin.x, at.y - origin.y);
    let marks = LinesMarks::of(game, files as i32, ranks as i32);
    for &(a, _) in squares {
        for (dx, dy) in [(1, 0), (0, 1)] {
            let b = Coord::new(a.x + dx, a.y + dy);
            let (file, rank) = (a.x - origin.x, a.y - origin.y);
            let edge = file == 0 || file == files as i32 - 1;
            let across = dy == 1 && !edge && marks.rivers.contains(&rank);
            if !across && squares.iter().any(|&(s, _)| s == b) {
                let ((x1, y1), (x2, y2)) = (centre(a), centre(b));
                let _ = writeln!(
                    out,
                    r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#5a4020" stroke-width="1.2"/>"##
                );
            }
        }
    }
    for &((f1, r1), (f2, r2)) in &marks.crossed {
        for ((a, b), (c, d)) in [((f1, r1), (f2, r2)), ((f1, r2), (f2, r1))] {
            let ((x1, y1), (x2, y2)) = (layout.centre(a, b), layout.centre(c, d));
            let _ = writeln!(
                out,
                r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#5a4020" stroke-width="1.2"/>"##
            );
        }
    }
}

/// The shape of `square` that is clicked and lit: a light or dark
/// square, one of a uniform board, an invisible one on a board drawn as
/// lines, or a hexagon.
fn draw_square_shape(out: &mut String, layout: &Layout, square: &DrawnSquare, dark: bool) {
    let (cx, cy) = square.centre;
    let half = CELL / 2;
    match layout.drawing {
        BoardDrawing::Squares | BoardDrawing::Uniform => {
            let fill = match (layout.drawing, dark) {
                (BoardDrawing::Uniform, _) => r##"fill="#eccb8c" stroke="#6b4a1e" stroke-width="1""##,
                (_, true) => r##"fill="#b58863""##,
                (_, false) => r##"fill="#f0d9b5""##,
            };
            let _ = writeln!(
                out,
                r#"<rect class="shape" x="{}" y="{}" width="{CELL}" height="{CELL}" {fill}/>"#,
                cx - half,
                cy - half
            );
        }
        BoardDrawing::Lines => {
            // Clicked and lit like a square, drawn as nothing.
            let _ = writeln!(
                out,
                r##"<rect class="shape" x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{LINES_BOARD}" fill-opacity="0"/>"##,
                cx - half,
                cy - half
            );
        }
        BoardDrawing::Hexagons => {
            let r = layout.hex_radius;
            let points: Vec<String> = (0..6)
                .map(|k| {
                    let a = std::f32::consts::PI / 3.0 * k as f32 - std::f32::consts::PI / 2.0;
                    format!("{:.1},{:.1}", cx as f32 + r * a.cos(), cy as f32 + r * a.sin())
                })
                .collect();
            let _ = writeln!(
                out,
                r##"<polygon class="shape" points="{}" fill="#e9dcc0" stroke="#7a6440" stroke-width="1"/>"##,
                points.join(" ")
            );
        }
    }
}

/// The coordinates on `square` of a board whose rule file labels no
/// files or ranks: its file's letters and rank's digits (split as
/// `name`) where it is on an edge, else its whole name.
fn draw_square_names(
    out: &mut String,
    layout: &Layout,
    square: &DrawnSquare,
    coordinates: &EdgeCoordinates,
    name: Option<(String, String)>,
) {
    let DrawnSquare {
        file,
        rank,
        centre: (cx, cy),
        ref label,
    } = *square;
    let half = CELL / 2;
    match name.filter(|_| coordinates.edges) {
        Some((file_name, rank_name)) => {
            if coordinates.lowest_in_file.get(&file) == Some(&rank) {
                let _ = writeln!(
                    out,
                    r##"<text class="coord file-label" x="{}" y="{}" font-size="9" text-anchor="end" fill="#0008">{}</text>"##,
                    cx + half - 2,
                    cy + half - 3,
                    escape(&file_name)
                );
            }
            if coordinates.leftmost_in_rank.get(&rank) == Some(&file) {
                let _ = writeln!(
                    out,
                    r##"<text class="coord rank-label" x="{}" y="{}" font-size="9" fill="#0008">{}</text>"##,
                    cx - half + 2,
                    cy - half + 10,
                    escape(&rank_name)
                );
            }
        }
        None => {
            let (lx, ly) = match layout.drawing {
                BoardDrawing::Hexagons => (cx - 7, cy + 17),
                _ => (cx - half + 2, cy + half - 3),
            };
            let _ = writeln!(
                out,
                r##"<text class="coord" x="{lx}" y="{ly}" font-size="9" fill="#0006">{label}</text>"##
            );
        }
    }
}

/// The rule file's labels (`labels files ...`) on `square`: the files'
/// along the top row, the ranks' down the right column.
fn draw_declared_labels(out: &mut String, game: &Game, square: &DrawnSquare) {
    let spec = game.spec();
    let (files, ranks) = game.dimensions();
    let (file, rank) = (square.file, square.rank);
    let (cx, cy) = square.centre;
    let half = CELL / 2;
    if rank == ranks as i32 - 1
        && let Some(l) = spec.file_labels.get(file as usize)
    {
        let _ = writeln!(
            out,
            r##"<text class="coord file-label" x="{cx}" y="{}" font-size="9" text-anchor="middle" fill="#0008">{}</text>"##,
            cy - half + 9,
            escape(l)
        );
    }
    if file == files as i32 - 1
        && let Some(l) = spec.rank_labels.get(rank as usize)
    {
        let _ = writeln!(
            out,
            r##"<text class="coord rank-label" x="{}" y="{}" font-size="9" text-anchor="end" fill="#0008">{}</text>"##,
            cx + half - 2,
            cy + 3,
            escape(l)
        );
    }
}

/// Piece `pc` on `square`, with the marks it carries that the rule file
/// shows (`mark ... shown`; the others are the rules' bookkeeping) small
/// in a corner.
fn draw_piece_on_square(
    out: &mut String,
    game: &Game,
    layout: &Layout,
    square: &DrawnSquare,
    (pc, marks): (PieceId, Marks),
    style: PieceStyle,
) {
    let (cx, cy) = square.centre;
    let half = CELL / 2;
    let size = if layout.drawing == BoardDrawing::Hexagons {
        CELL * 5 / 6
    } else {
        CELL
    };
    out.push_str(&piece_svg(game, pc, cx, cy, size, style));
    let marks = game.pieces().mark_symbols(marks.meet(game.spec().shown_marks));
    if !marks.is_empty() {
        let _ = writeln!(
            out,
            r##"<text class="marks" x="{}" y="{}" font-size="10" text-anchor="end" fill="#0008">{}</text>"##,
            cx + half - 3,
            cy - half + 11,
            escape(&marks)
        );
    }
}

/// What the boxes hold, beside the board: the second player's pieces in
/// a row above it, the others in a row at `below` (under it), each with
/// its count.
fn draw_pockets(out: &mut String, game: &Game, items: &[PocketItem], below: i32, style: PieceStyle) {
    for above in [true, false] {
        let y = if above { 0 } else { below };
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
            out.push_str(&piece_svg(
                game,
                item.id,
                x + 16,
                y + POCKET_ROW / 2,
                POCKET_ROW - 4,
                style,
            ));
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" font-size="13">×{}</text>"#,
                x + 34,
                y + POCKET_ROW - 11,
                item.count
            );
            out.push_str("</g>\n");
        }
    }
}

/// The colours of players the rule file gives none (`player ... colour`).
const PLAYER_COLOURS: [&str; 4] = ["#c8102e", "#1f5fbf", "#2e8b3c", "#d4a017"];

/// The (file, rank) of the cells along an edge, and the corners (from a
/// cell's centre) of the line drawn on each.
type EdgeCells = (Vec<(i32, i32)>, Vec<(f32, f32)>);

/// The board's edges the rule file colours (`edge red top bottom`): a
/// thick line in the player's colour along the outer side of every square
/// on that edge (for hexagons, the sides that face out).
fn draw_edges(out: &mut String, game: &Game, layout: &Layout, files: i32, ranks: i32) {
    let edges = &game.spec().edges;
    if edges.is_empty() || files == 0 || ranks == 0 {
        return;
    }
    let h = CELL as f32 / 2.0;
    let r = layout.hex_radius;
    let w = r * 3f32.sqrt() / 2.0;
    for (player, side) in edges {
        let colour = game
            .player_colour(*player)
            .unwrap_or(PLAYER_COLOURS[player.index() % PLAYER_COLOURS.len()]);
        // The cells along the side, and each cell's outer sides as corners
        // from its centre.
        let (cells, corners): EdgeCells = match (side.as_str(), layout.drawing) {
            ("top", BoardDrawing::Hexagons) => (
                (0..files).map(|f| (f, ranks - 1)).collect(),
                vec![(-w, -r / 2.0), (0.0, -r), (w, -r / 2.0)],
            ),
            ("bottom", BoardDrawing::Hexagons) => (
                (0..files).map(|f| (f, 0)).collect(),
                vec![(-w, r / 2.0), (0.0, r), (w, r / 2.0)],
            ),
            ("left", BoardDrawing::Hexagons) => (
                (0..ranks).map(|k| (0, k)).collect(),
                vec![(-w, -r / 2.0), (-w, r / 2.0), (0.0, r)],
            ),
            ("right", BoardDrawing::Hexagons) => (
                (0..ranks).map(|k| (files - 1, k)).collect(),
                vec![(0.0, -r), (w, -r / 2.0), (w, r / 2.0)],
            ),
            ("top", _) => (
                (0..files).map(|f| (f, ranks - 1)).collect(),
                vec![(-h, -h), (h, -h)],
            ),
            ("bottom", _) => ((0..files).map(|f| (f, 0)).collect(), vec![(-h, h), (h, h)]),
            ("left", _) => ((0..ranks).map(|k| (0, k)).collect(), vec![(-h, -h), (-h, h)]),
            _ => (
                (0..ranks).map(|k| (files - 1, k)).collect(),
                vec![(h, -h), (h, h)],
            ),
        };
        for (f, k) in cells {
            let (cx, cy) = layout.centre(f, k);
            let points: Vec<String> = (corners.iter())
                .map(|(dx, dy)| format!("{:.1},{:.1}", cx as f32 + dx, cy as f32 + dy))
                .collect();
            let _ = writeln!(
                out,
                r#"<polyline class="edge edge-{side}" points="{}" fill="none" stroke="{colour}" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>"#,
                points.join(" ")
            );
        }
    }
}
/// Whether every character of `text` is one that common fonts draw (the
/// DejaVu and Liberation fonts of a fresh Debian, and the system fonts of
/// other desktops): Latin, arrows, geometric shapes, chess and draughts
/// symbols. A piece whose symbol has another is drawn as a lettered token.
pub fn in_common_fonts(text: &str) -> bool {
    text.chars().all(|c| {
        matches!(c as u32,
            0x20..=0x7e | 0xa0..=0x24f | 0x2190..=0x21ff | 0x25a0..=0x25ff | 0x2654..=0x265f | 0x26c0..=0x26c3)
    })
}

/// A square's name split into its file's letters and its rank's digits
/// (`b10`: `b`, `10`), if it is written so.
fn file_and_rank(name: &str) -> Option<(String, String)> {
    let digits = name.find(|c: char| c.is_ascii_digit())?;
    let (file, rank) = name.split_at(digits);
    (!file.is_empty() && file.chars().all(char::is_alphabetic) && rank.chars().all(|c| c.is_ascii_digit()))
        .then(|| (file.to_string(), rank.to_string()))
}

/// Which drawings of the pieces an SVG carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceSet {
    /// One drawing each that needs nothing but the file: symbols in the
    /// viewer's fonts, letters on shapes (`show --svg`, `/api/games/{id}/svg`).
    Standalone,
    /// The page's: besides the letters and symbols, a piece's traditional
    /// drawing where it has one (a picture of a chess piece from
    /// `/page/pieces/`, the characters its rule file gives), the two in
    /// elements classed `traditional` and `international` so that the page
    /// shows the set its viewer chose.
    Page,
}

/// How a board of `game` draws its pieces: the set, and whether the
/// traditional set writes characters (only where every piece drawn as a
/// pentagon or a disc has them, so that no board mixes the two sets).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PieceStyle {
    set: PieceSet,
    characters: bool,
}

impl PieceStyle {
    /// The style of `set` for `game`'s pieces.
    pub(crate) fn of(game: &Game, set: PieceSet) -> PieceStyle {
        let mut shaped = (0..game.pieces().len())
            .map(|i| game.piece_info(PieceId::new(i as u16)))
            .filter(|info| matches!(info.drawing, Some(PieceDrawing::Pentagon | PieceDrawing::Disc)));
        let characters = set == PieceSet::Page && shaped.all(|info| info.characters.is_some());
        PieceStyle { set, characters }
    }
}

/// Piece `pc` drawn alone, as a picker shows it: an SVG of one square.
pub(crate) fn lone_piece_svg(game: &Game, pc: PieceId, set: PieceSet) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CELL} {CELL}" font-family="DejaVu Sans, sans-serif" class="position">{}</svg>"#,
        piece_svg(game, pc, CELL / 2, CELL / 2, CELL, PieceStyle::of(game, set))
    )
}

/// The colour of player `owner`'s letters and rings on discs: the one its
/// rule file gives the player (`player ... colour`), else red for the first
/// player and black for the others.
fn disc_colour(game: &Game, owner: usize) -> &str {
    match game.player_colour(PlayerId::new(owner)) {
        Some(colour) => colour,
        None if owner == 0 => "#b8281e",
        None => "#1c1c1c",
    }
}

/// The colour of player `owner`'s stones: the one its rule file gives the
/// player, else as its symbol is drawn (`●` black, `○` white), else white
/// for the first player and black for the others.
fn stone_colour(game: &Game, owner: usize, symbol: char) -> &str {
    match game.player_colour(PlayerId::new(owner)) {
        Some(colour) => colour,
        None if matches!(symbol, '●' | '⚫' | '⬤') => "#1c1c1c",
        None if matches!(symbol, '○' | '⚪' | '◯') || owner == 0 => "#f4f4f4",
        None => "#1c1c1c",
    }
}

/// The picture of a piece whose symbol is one of Unicode's chess pieces:
/// the page's file of the piece (`wN` for `/page/pieces/wN.svg`), the turn
/// its symbol gives it, and the second picture of a compound symbol drawn
/// in front of the first (Unicode's three compounds of U+1FA4E..).
#[derive(Debug, PartialEq)]
struct Picture {
    file: String,
    turn: u16,
    front: Option<String>,
}

/// The picture of `symbol`, if it is a white or black chess piece of
/// Unicode (U+2654..U+265F, and U+1FA06..U+1FA53 turned, rotated and
/// compound; neutral pieces and equihoppers have none).
fn picture_of(symbol: char) -> Option<Picture> {
    const KINDS: [char; 6] = ['K', 'Q', 'R', 'B', 'N', 'P'];
    let simple = |colour: char, kind: usize, turn: u16| Picture {
        file: format!("{colour}{}", KINDS[kind]),
        turn,
        front: None,
    };
    let c = symbol as u32;
    // Runs of six (white, then black) starting at `base`, turned by `turn`.
    let sixes: [(u32, u16); 4] = [(0x2654, 0), (0x1FA09, 90), (0x1FA1E, 180), (0x1FA33, 270)];
    for (base, turn) in sixes {
        if (base..base + 12).contains(&c) {
            let i = (c - base) as usize;
            return Some(simple(if i < 6 { 'w' } else { 'b' }, i % 6, turn));
        }
    }
    // The symbols turned by an odd multiple of 45 degrees (one kind, the
    // fifth of a run of six): white, black, neutral.
    let eighths: [(u32, u16); 4] = [(0x1FA06, 45), (0x1FA1B, 135), (0x1FA30, 225), (0x1FA45, 315)];
    for (base, turn) in eighths {
        if c == base || c == base + 1 {
            return Some(simple(if c == base { 'w' } else { 'b' }, 4, turn));
        }
    }
    if (0x1FA4E..=0x1FA53).contains(&c) {
        let i = (c - 0x1FA4E) as usize;
        let colour = if i < 3 { 'w' } else { 'b' };
        return Some(Picture {
            file: format!("{colour}{}", ['Q', 'R', 'B'][i % 3]),
            turn: 0,
            front: Some(format!("{colour}N")),
        });
    }
    None
}

/// A picture of the page's set drawn in a square of side `size` centred on
/// `(cx, cy)`: a compound symbol as its first picture with the second,
/// smaller, in front at the lower right.
fn picture_svg(picture: &Picture, cx: i32, cy: i32, size: i32) -> String {
    let f = size as f32;
    let image = |file: &str, scale: f32, dx: f32, dy: f32| {
        let side = f * scale;
        format!(
            r#"<image href="/page/pieces/{file}.svg" x="{:.1}" y="{:.1}" width="{side:.1}" height="{side:.1}"/>"#,
            cx as f32 + dx * f - side / 2.0,
            cy as f32 + dy * f - side / 2.0,
        )
    };
    let inner = match &picture.front {
        None => image(&picture.file, 1.0, 0.0, 0.0),
        Some(front) => format!(
            "{}{}",
            image(&picture.file, 0.86, -0.09, -0.06),
            image(front, 0.6, 0.2, 0.2)
        ),
    };
    // The class on the outer group lets the page turn it upright on a
    // turned board; the inner one keeps the symbol's own turn.
    if picture.turn == 0 {
        format!(r#"<g class="traditional picture">{inner}</g>"#)
    } else {
        format!(
            r#"<g class="traditional picture"><g transform="rotate({} {cx} {cy})">{inner}</g></g>"#,
            picture.turn
        )
    }
}

/// `text` written on a piece at font size `size`, shrunk to fit when it
/// has several characters.
fn fitted(text: &str, size: f32) -> f32 {
    size / (text.chars().count().max(1) as f32).sqrt()
}

/// Piece `pc` drawn centred on `(cx, cy)` in a square of side `size`: its
/// symbol where its drawing is a glyph (or none is declared and common
/// fonts have it), else a shape with its FEN letter: a shogi pentagon
/// pointing at the opponent, a xiangqi disc, or a token in its owner's
/// colour. For the page, a piece with a traditional drawing (a picture,
/// characters) carries it too.
pub(crate) fn piece_svg(game: &Game, pc: PieceId, cx: i32, cy: i32, size: i32, style: PieceStyle) -> String {
    let info = game.piece_info(pc);
    let owner = info.owner.map_or(0, |o| o.index());
    let symbol_char = game.pieces().symbol(pc);
    let symbol = symbol_char.to_string();
    let drawing = info.drawing.unwrap_or(if in_common_fonts(&symbol) {
        PieceDrawing::Glyph
    } else {
        PieceDrawing::Disc
    });
    let letter = match info.fen {
        Some(l) => l.to_ascii_uppercase().to_string(),
        None => symbol
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(1)
            .collect(),
    };
    let letter = if letter.is_empty() {
        "?".to_string()
    } else {
        letter
    };
    let characters = info
        .characters
        .as_deref()
        .filter(|_| style.characters)
        .map(escape);
    let f = size as f32;
    let at = |dx: f32, dy: f32| format!("{:.1},{:.1}", cx as f32 + dx * f, cy as f32 + dy * f);
    // The text on a shape: the letter, and for the page the characters
    // beside it, the set shown chosen by class.
    let written = |y: f32, size: f32, colour: &str| {
        let text = |class: &str, t: &str| {
            format!(
                "<text{class} x=\"{cx}\" y=\"{y:.1}\" font-size=\"{:.1}\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"{colour}\">{t}</text>",
                fitted(t, size)
            )
        };
        match &characters {
            Some(chars) => format!(
                "{}{}",
                text(" class=\"international\"", &letter),
                text(" class=\"traditional\"", chars)
            ),
            None => text("", &letter),
        }
    };
    let symbol = escape(&symbol);
    match drawing {
        PieceDrawing::Glyph => {
            let glyph = |attributes: &str| {
                format!(
                    "<text{attributes} x=\"{cx}\" y=\"{}\" font-size=\"{}\" text-anchor=\"middle\">{symbol}</text>",
                    cy + size * 11 / 48,
                    size * 2 / 3
                )
            };
            let picture = picture_of(symbol_char).filter(|_| style.set == PieceSet::Page);
            match (&characters, picture) {
                (Some(chars), _) => format!(
                    "<g class=\"piece p{owner}\" data-piece=\"{symbol}\">{}<text class=\"traditional\" x=\"{cx}\" y=\"{}\" font-size=\"{:.1}\" text-anchor=\"middle\">{chars}</text></g>\n",
                    glyph(" class=\"international\""),
                    cy + size * 11 / 48,
                    fitted(chars, f * 0.6)
                ),
                (None, Some(picture)) => format!(
                    "<g class=\"piece p{owner}\" data-piece=\"{symbol}\">{}{}</g>\n",
                    picture_svg(&picture, cx, cy, size),
                    glyph(" class=\"international\"")
                ),
                (None, None) => format!(
                    "{}\n",
                    glyph(&format!(" class=\"piece p{owner}\" data-piece=\"{symbol}\""))
                ),
            }
        }
        PieceDrawing::Pentagon => {
            // Pointing up for the first player, down for the others.
            let points = [
                at(0.0, -0.42),
                at(0.3, -0.26),
                at(0.37, 0.40),
                at(-0.37, 0.40),
                at(-0.3, -0.26),
            ];
            let turn = if owner == 0 {
                String::new()
            } else {
                format!(" transform=\"rotate(180 {cx} {cy})\"")
            };
            let ink = if info.fen_promoted { "#c0281c" } else { "#1c1c1c" };
            format!(
                "<g class=\"piece p{owner}\" data-piece=\"{symbol}\"{turn}><polygon points=\"{}\" fill=\"#f4dca8\" stroke=\"#6b4a1e\" stroke-width=\"1.5\"/>{}</g>\n",
                points.join(" "),
                written(cy as f32 + 0.17 * f, 0.42 * f, ink)
            )
        }
        PieceDrawing::Disc => {
            // Declared discs are xiangqi's (ivory, letters in the owner's
            // colour); a symbol common fonts lack is a token of the owner's.
            let (fill, colour, edge) = match (info.drawing, owner) {
                (Some(_), _) => ("#fbf3df", disc_colour(game, owner), disc_colour(game, owner)),
                (None, 0) => ("#ffffff", "#1c1c1c", "#1c1c1c"),
                (None, _) => ("#1c1c1c", "#ffffff", "#1c1c1c"),
            };
            let picture =
                picture_of(symbol_char).filter(|_| style.set == PieceSet::Page && characters.is_none());
            let disc = format!(
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"{edge}\" stroke-width=\"2\"/><circle cx=\"{cx}\" cy=\"{cy}\" r=\"{:.1}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1\"/>{}",
                0.42 * f,
                0.34 * f,
                written(cy as f32 + 0.15 * f, 0.42 * f, colour)
            );
            match picture {
                // A chess piece common fonts lack: its picture, or the
                // token for the letters' set.
                Some(picture) => format!(
                    "<g class=\"piece p{owner}\" data-piece=\"{symbol}\">{}<g class=\"international\">{disc}</g></g>\n",
                    picture_svg(&picture, cx, cy, size)
                ),
                None => format!("<g class=\"piece p{owner}\" data-piece=\"{symbol}\">{disc}</g>\n"),
            }
        }
        PieceDrawing::Stone => {
            // A lit stone: the owner's colour, lighter at the upper left.
            let colour = stone_colour(game, owner, symbol_char);
            format!(
                "<g class=\"piece p{owner}\" data-piece=\"{symbol}\"><circle cx=\"{cx}\" cy=\"{cy}\" r=\"{:.1}\" fill=\"{colour}\" stroke=\"#0009\" stroke-width=\"1.2\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"#fff\" fill-opacity=\".28\"/></g>\n",
                0.4 * f,
                cx as f32 - 0.13 * f,
                cy as f32 - 0.13 * f,
                0.12 * f
            )
        }
    }
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
        let svg = position_svg(&game, &game.initial(), PieceSet::Standalone);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches(r#"<rect class="shape" x="#).count(), 64);
        assert_eq!(svg.matches(r#"data-square="#).count(), 64);
        assert_eq!(svg.matches(r#"font-size="32""#).count(), 32);
        assert!(svg.contains(">♔<") && svg.contains(r#"data-square="e4""#));
        assert!(!svg.contains("data-pocket"));
        // Files along the bottom, ranks up the left, as chess boards print them.
        assert_eq!(svg.matches("coord file-label").count(), 8);
        assert_eq!(svg.matches("coord rank-label").count(), 8);
        assert_eq!(file_and_rank("b10"), Some(("b".into(), "10".into())));
        assert_eq!(file_and_rank("10"), None);
    }

    /// The characters of the text elements of an SVG document.
    fn text_characters(svg: &str) -> String {
        let mut chars = String::new();
        for part in svg.split("<text").skip(1) {
            let inner = part.split_once('>').map_or("", |(_, rest)| rest);
            chars.push_str(inner.split("</text>").next().unwrap_or(""));
        }
        chars
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
    }

    /// The characters DejaVu Sans has (fontconfig's `fc-query`), where it
    /// is installed, as a fresh Debian installs it.
    fn dejavu_characters() -> Option<Vec<(u32, u32)>> {
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
        let out = std::process::Command::new("fc-query")
            .args(["--format=%{charset}", font])
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        let ranges: Vec<(u32, u32)> = (text.split_whitespace())
            .filter_map(|part| {
                let (a, b) = part.split_once('-').unwrap_or((part, part));
                Some((u32::from_str_radix(a, 16).ok()?, u32::from_str_radix(b, 16).ok()?))
            })
            .collect();
        (!ranges.is_empty()).then_some(ranges)
    }

    #[test]
    fn every_piece_of_every_rule_file_is_drawn_with_characters_common_fonts_have() {
        let dejavu = dejavu_characters();
        if dejavu.is_none() {
            eprintln!(
                "fc-query or DejaVu Sans is missing: the characters are checked against the common set only"
            );
        }
        let mut files: Vec<_> = std::fs::read_dir("rules")
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "alg") && !p.ends_with("prelude.alg"))
            .collect();
        files.sort();
        assert!(files.len() > 30);
        let (mut glyphs, mut drawn) = (0, 0);
        for path in files {
            let game = load(path.to_str().unwrap());
            let mut text = text_characters(&position_svg(&game, &game.initial(), PieceSet::Standalone));
            for i in 0..game.pieces().len() {
                let style = PieceStyle::of(&game, PieceSet::Standalone);
                let svg = piece_svg(&game, PieceId::new(i as u16), 24, 24, 48, style);
                if svg.starts_with("<text") {
                    glyphs += 1;
                } else {
                    drawn += 1;
                }
                text.push_str(&text_characters(&svg));
            }
            for c in text.chars() {
                assert!(
                    in_common_fonts(&c.to_string()),
                    "{}: {c:?} is drawn as text",
                    path.display()
                );
                if let Some(ranges) = &dejavu {
                    let covered = ranges.iter().any(|&(a, b)| (a..=b).contains(&(c as u32)));
                    assert!(
                        covered,
                        "{}: DejaVu Sans has no {c:?} (U+{:04X})",
                        path.display(),
                        c as u32
                    );
                }
            }
        }
        // Shogi's, minishogi's and xiangqi's pieces, Seirawan's hawk and
        // elephant and the grasshopper are shapes; the others glyphs.
        assert!(drawn >= 2 * 14 + 2 * 7 + 4, "{drawn} drawn");
        assert!(glyphs > 100, "{glyphs} glyphs");
    }

    #[test]
    fn pieces_are_drawn_as_their_rule_file_says() {
        let shogi = load("rules/shogi.alg");
        let state = shogi.initial();
        let svg = position_svg(&shogi, &state, PieceSet::Standalone);
        // Forty pieces, all pentagons; the second player's turned round.
        assert_eq!(svg.matches("<polygon").count(), 40);
        assert_eq!(svg.matches("rotate(180").count(), 20);
        assert!(!svg.contains(">Ｐ<"));
        let xiangqi = load("rules/xiangqi.alg");
        let svg = position_svg(&xiangqi, &xiangqi.initial(), PieceSet::Standalone);
        assert_eq!(svg.matches(r##"fill="#fbf3df""##).count(), 32);
        // Red's letters in red, the colour its rule file gives the player.
        assert_eq!(svg.matches(r##"fill="#c8102e">"##).count(), 16);
        // Lines through 9 x 10 points: 10 x 8 across, 9 x 9 up less the
        // river's 7 inner crossings, and each palace's two diagonals.
        assert_eq!(svg.matches("<line ").count(), 80 + 81 - 7 + 4);
        let hex = load("rules/hex.alg");
        let shapes = position_svg(&hex, &hex.initial(), PieceSet::Standalone);
        assert_eq!(shapes.matches(r#"<polygon class="shape""#).count(), 81);
        let chess = load("rules/chess.alg");
        assert_eq!(
            position_svg(&chess, &chess.initial(), PieceSet::Standalone)
                .matches("<polygon")
                .count(),
            0
        );
    }

    #[test]
    fn the_page_gets_pictures_of_chess_pieces_and_the_characters_rule_files_give() {
        let chess = load("rules/chess.alg");
        let page = position_svg(&chess, &chess.initial(), PieceSet::Page);
        // Each of the 32 pieces as a picture and as its symbol.
        assert_eq!(page.matches("<image ").count(), 32);
        assert_eq!(page.matches(r#"href="/page/pieces/wK.svg""#).count(), 1);
        assert_eq!(page.matches(r#"href="/page/pieces/bP.svg""#).count(), 8);
        assert_eq!(page.matches(r#"class="international""#).count(), 32);
        assert!(!position_svg(&chess, &chess.initial(), PieceSet::Standalone).contains("<image"));
        // Unicode's turned, rotated and compound pieces.
        assert_eq!(picture_of('♞').unwrap().file, "bN");
        assert_eq!(
            picture_of('\u{1FA1E}').unwrap(),
            Picture {
                file: "wK".into(),
                turn: 180,
                front: None
            }
        );
        assert_eq!(picture_of('\u{1FA13}').unwrap().turn, 90);
        assert_eq!(
            picture_of('\u{1FA46}').unwrap(),
            Picture {
                file: "bN".into(),
                turn: 315,
                front: None
            }
        );
        let archbishop = picture_of('\u{1FA50}').unwrap();
        assert_eq!(
            (archbishop.file.as_str(), archbishop.front.as_deref()),
            ("wB", Some("wN"))
        );
        assert_eq!(picture_of('\u{1FA53}').unwrap().file, "bB");
        assert_eq!(picture_of('\u{1FA00}'), None);
        assert_eq!(picture_of('●'), None);
        let capablanca = load("rules/capablanca.alg");
        let page = position_svg(&capablanca, &capablanca.initial(), PieceSet::Page);
        assert_eq!(page.matches(r#"href="/page/pieces/wN.svg""#).count(), 2 + 2);
        // Shogi's kanji beside its letters; none in the standalone drawing.
        let shogi = load("rules/shogi.alg");
        let page = position_svg(&shogi, &shogi.initial(), PieceSet::Page);
        assert_eq!(page.matches(r#"class="traditional""#).count(), 40);
        assert_eq!(page.matches(">歩</text>").count(), 18);
        assert!(page.contains(">玉</text>") && page.contains(">王</text>"));
        assert!(!position_svg(&shogi, &shogi.initial(), PieceSet::Standalone).contains("歩"));
        let xiangqi = load("rules/xiangqi.alg");
        let page = position_svg(&xiangqi, &xiangqi.initial(), PieceSet::Page);
        assert_eq!(page.matches(">兵</text>").count(), 5);
        assert_eq!(page.matches(">卒</text>").count(), 5);
    }

    #[test]
    fn pieces_in_hand_are_drawn_beside_the_board_by_owner() {
        let game = load("rules/crazyhouse.alg");
        let state = game.from_fen("4k3/8/8/8/8/8/8/4K3[NNq] w - - 0 1").unwrap();
        let svg = position_svg(&game, &state, PieceSet::Standalone);
        assert!(svg.contains(r#"data-pocket="♘""#) && svg.contains("×2"));
        assert!(svg.contains(r#"data-pocket="♛""#) && svg.contains("×1"));
        // Black's queen above the board (y 0), white's knights below it.
        let black = svg.find(r#"data-pocket="♛""#).unwrap();
        assert!(svg[black..].contains(r#"y="2""#));
    }
}
