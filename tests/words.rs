//! A game's own words, said in its rule file: what results call an ending
//! (`outcome ... = loss "checkmate"`), the players' display names and
//! colours (`player`), the marks boards show (`mark ... shown`), the edges
//! boards colour (`edge`), and PGN's `SetUp` only for another start.

mod common;

use chessalg::core::PlayerId;
use chessalg::decl::Spec;
use chessalg::engine::Cache;
use chessalg::game::{Ending, Game, PgnTags, State};
use chessalg::report::{self, Style};
use chessalg::source::Source;
use chessalg::web::svg::{PieceSet, position_svg};

use common::{game, play};

fn ended(game: &Game, state: &State) -> chessalg::game::Ended {
    let mut cache = Cache::new();
    let legal = game.legal_actions(state, &mut cache).unwrap();
    game.ended(state, &legal, &mut cache)
        .unwrap()
        .expect("the game is over")
}

fn text_game(text: &str) -> Game {
    let (spec, _) = Spec::load(&Source::new("words.alg", text)).unwrap();
    Game::new(&spec).unwrap()
}

fn errors_of(text: &str) -> String {
    match Spec::load(&Source::new("words.alg", text)) {
        Ok(_) => panic!("{text} loads"),
        Err(problems) => report::render(&problems, Style::PLAIN),
    }
}

#[test]
fn fools_mate_is_checkmate_by_name() {
    let chess = game("rules/chess.alg");
    let (state, _, _) = play(&chess, chess.initial(), &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let e = ended(&chess, &state);
    assert_eq!(e.ending, Ending::Win(PlayerId::new(1)));
    assert_eq!(e.called(), "checkmate");
    assert_eq!(e.reason.to_string(), "no legal move, with a royal piece attacked");
    assert_eq!(e.detail, None);
}

#[test]
fn stalemate_and_imported_names() {
    // Imported outcome lines keep their names.
    let hill = game("rules/kingofthehill.alg");
    let state = hill.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(ended(&hill, &state).called(), "stalemate");
}

#[test]
fn an_ending_without_a_name_is_said_by_its_rule() {
    let g = text_game(
        "game T\nplayers a b\npiece X O\nboard\n    XO\nmoves a = . -> X\nmoves b = . -> O\noutcome no_moves = draw\n",
    );
    let e = ended(&g, &g.initial());
    assert_eq!((e.called(), e.name), ("no legal move".to_string(), None));
}

#[test]
fn a_count_carries_each_players_count() {
    let g = text_game(
        "game Count\nplayers black white\npiece ● ○\nboard\n    ●●○\n    ○●●\n\
         moves black = . -> ●\nmoves white = . -> ○\n\
         outcome no_moves = majority ● ○ \"disc count\"\n",
    );
    let e = ended(&g, &g.initial());
    assert_eq!(e.called(), "disc count");
    assert_eq!(e.ending, Ending::Win(PlayerId::new(0)));
    assert_eq!(e.detail.as_deref(), Some("4-2"));
}

#[test]
fn othello_and_janggi_name_their_counts() {
    for (path, name) in [
        ("rules/othello.alg", "disc count"),
        ("rules/janggi.alg", "counting"),
    ] {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(&format!("\"{name}\"")), "{path}");
    }
    let hex = std::fs::read_to_string("rules/hex.alg").unwrap();
    assert!(hex.contains("= win red \"connection\""));
}

#[test]
fn players_are_shown_by_their_traditional_names() {
    for (path, first, second) in [
        ("rules/shogi.alg", "Sente", "Gote"),
        ("rules/minishogi.alg", "Sente", "Gote"),
        ("rules/xiangqi.alg", "Red", "Black"),
        ("rules/janggi.alg", "Cho", "Han"),
        ("rules/chess.alg", "white", "black"),
    ] {
        let g = game(path);
        assert_eq!(g.display_names(), [first, second], "{path}");
        // The ids stay as `players` names them.
        assert_eq!(g.players(), ["white", "black"], "{path}");
    }
    assert_eq!(
        game("rules/xiangqi.alg").player_colour(PlayerId::new(0)),
        Some("#c8102e")
    );
    assert_eq!(game("rules/chess.alg").player_colour(PlayerId::new(0)), None);
}

#[test]
fn pgn_names_the_players_and_sets_up_only_another_start() {
    let shogi = game("rules/shogi.alg");
    let mut cache = Cache::new();
    let tags = PgnTags {
        players: shogi.display_names(),
        ..PgnTags::default()
    };
    let (_, _, actions) = play(&shogi, shogi.initial(), &["c3c4"]);
    let pgn = shogi
        .pgn(&shogi.initial(), &actions, None, &tags, &mut cache)
        .unwrap();
    assert!(pgn.contains("[White \"Sente\"]\n[Black \"Gote\"]\n"), "{pgn}");
    assert!(pgn.contains("[Variant \"Shogi\"]"), "{pgn}");
    assert!(!pgn.contains("SetUp") && !pgn.contains("[FEN"), "{pgn}");
    // It reads back from the rule file's start.
    let back = shogi.read_pgn(&pgn, &mut cache).unwrap();
    assert_eq!(back.start, shogi.initial());
    // Another start is written.
    let (later, _, _) = play(&shogi, shogi.initial(), &["c3c4"]);
    let pgn = shogi.pgn(&later, &[], None, &tags, &mut cache).unwrap();
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
}

#[test]
fn boards_draw_only_the_marks_the_file_shows() {
    let chess = game("rules/chess.alg");
    let svg = position_svg(&chess, &chess.initial(), PieceSet::Standalone);
    assert!(!svg.contains('°') && !svg.contains("class=\"marks\""), "{svg}");
    let (state, _, _) = play(&chess, chess.initial(), &["e2e4"]);
    let svg = position_svg(&chess, &state, PieceSet::Standalone);
    assert!(!svg.contains('ᵉ'));
    // A mark the file shows is drawn.
    let g = text_game(
        "game M\nplayers a b\npiece X O\nmark ˣ shown\nmark °\nboard\n    Xˣ.\n    O°.\nmoves a = nil\nmoves b = nil\n",
    );
    let svg = position_svg(&g, &g.initial(), PieceSet::Standalone);
    assert!(svg.contains(">ˣ<") && !svg.contains('°'), "{svg}");
}

#[test]
fn hex_colours_each_players_edges() {
    let hex = game("rules/hex.alg");
    let svg = position_svg(&hex, &hex.initial(), PieceSet::Standalone);
    for (side, colour) in [
        ("top", "#d0312d"),
        ("bottom", "#d0312d"),
        ("left", "#2a5fc8"),
        ("right", "#2a5fc8"),
    ] {
        let drawn = svg
            .lines()
            .filter(|l| l.contains(&format!("edge-{side}\"")) && l.contains(colour))
            .count();
        assert_eq!(drawn, 9, "{side}");
    }
    let chess = game("rules/chess.alg");
    assert!(!position_svg(&chess, &chess.initial(), PieceSet::Standalone).contains("class=\"edge"));
}

#[test]
fn shogi_boards_write_shogis_coordinates() {
    let shogi = game("rules/shogi.alg");
    let svg = position_svg(&shogi, &shogi.initial(), PieceSet::Standalone);
    let labels = |class: &str| -> Vec<String> {
        svg.lines()
            .filter(|l| l.contains(class))
            .map(|l| l[l.find('>').unwrap() + 1..l.rfind('<').unwrap()].to_string())
            .collect()
    };
    assert_eq!(
        labels("file-label"),
        ["9", "8", "7", "6", "5", "4", "3", "2", "1"]
    );
    assert_eq!(
        labels("rank-label"),
        ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
    );
    assert!(!svg.contains(">a1<"));
    // Chess writes its files' letters along the bottom and its ranks'
    // numbers up the left.
    let chess = game("rules/chess.alg");
    let svg = position_svg(&chess, &chess.initial(), PieceSet::Standalone);
    assert!(!svg.contains(">a1<"));
    assert!(svg.contains(
        r##"class="coord file-label" x="47" y="382" font-size="9" text-anchor="end" fill="#0008">a<"##
    ));
    assert!(svg.contains(r##"class="coord rank-label" x="3" y="347" font-size="9" fill="#0008">1<"##));
}

#[test]
fn misused_words_are_reported_where_written() {
    let base = "game T\nplayers a b\npiece X O\nboard\n    X.\nmoves a = nil\nmoves b = nil\n";
    let out = errors_of(&format!("{base}player c \"Sea\"\n"));
    assert!(
        out.contains("`c` is not a player") && out.contains("chessalg::expand::unknown_player"),
        "{out}"
    );
    let out = errors_of(&format!("{base}outcome no_moves = draw \"\"\n"));
    assert!(
        out.contains("an outcome's name is empty") && out.contains("bad_name"),
        "{out}"
    );
    let out = errors_of(&format!("{base}player a \" A\"\n"));
    assert!(
        out.contains("a player's name begins or ends with a space"),
        "{out}"
    );
    let out = errors_of(&format!("{base}edge c top\n"));
    assert!(out.contains("`c` is not a player"), "{out}");
    let out = errors_of(&format!("{base}edge a middle\n"));
    assert!(out.contains("`top`, `bottom`, `left` or `right`"), "{out}");
    let out = errors_of(&format!("{base}labels ranks 1 2\n"));
    assert!(out.contains("2 label(s) for the board's 1 ranks"), "{out}");
    let out = errors_of(&format!("{base}player a \"A\" colour red\n"));
    assert!(out.contains("colour #rrggbb"), "{out}");
}

#[test]
fn the_new_words_print_in_the_parse_tree() {
    let file = chessalg::syntax::parse_file(
        "player white \"Sente\" colour #222\nedge red top bottom\nlabels files 9 8 7\nmark ˣ fen ! shown\n\
         outcome no_moves checked = loss \"checkmate\"\noutcome passes 2 = points black 1.5 \"counting\"\n",
    )
    .unwrap();
    insta::assert_snapshot!(chessalg::syntax::print::file(&file));
}
