// A tree-sitter grammar for chessalg rule files (`.alg`), for highlighting
// in Neovim, Helix and other tree-sitter editors. It follows the layout of
// `grammar/chessalg.pest`: an item (definition or declaration) starts at
// the beginning of a line, and a line that starts with a space or a tab
// (or a blank line, or a comment at the start of a line) continues it
// (`src/scanner.c` tells the two apart). Expressions are read as a flat
// run of operands and operators, with brackets, guards and calls nested:
// enough to colour them; the meaning is `chessalg check`'s.

const PIECE = /[^\x00-\x7F\s°ᴬ-ᵪᶛ-ᶿʰ-ʸˡ-ˣⁱⁿ⁰¹²³⁴⁵⁶⁷⁸⁹⁻]/;

module.exports = grammar({
  name: 'chessalg',

  externals: $ => [$._item_end],

  extras: $ => [/[ \t\r\n]/, $.comment],

  word: $ => $.identifier,

  rules: {
    source_file: $ => repeat(seq($._item, $._item_end)),

    _item: $ => choice($.definition, $.moves_declaration, $.board_declaration,
      $.game_declaration, $.import_declaration, $.outcome_declaration, $.player_declaration,
      $.edge_declaration, $.labels_declaration, $.declaration),

    comment: _ => token(seq('//', /[^\n]*/)),

    definition: $ => seq(
      field('name', $.identifier),
      optional($.parameters),
      '=',
      field('body', $._expression),
    ),
    parameters: $ => seq('(', optional(seq($.identifier, repeat(seq(',', $.identifier)))), ')'),

    moves_declaration: $ => seq('moves', field('player', $.identifier), '=', field('body', $._expression)),

    board_declaration: $ => seq('board', repeat($.board_row)),
    board_row: _ => token(prec(-1, /[^ \t\r\n][^\r\n]*/)),

    game_declaration: $ => seq('game', $.game_name),
    game_name: _ => /[^\r\n]+/,

    import_declaration: $ => seq(choice('import', 'weights'), $.string),
    string: _ => /"[^"\n]*"/,

    outcome_declaration: $ => seq('outcome', repeat1(choice($._operand, $.operator, '=', 'when')),
      optional($.string)),

    // `player white "Sente" colour #222`: a player's name and colour.
    player_declaration: $ => seq('player', field('player', $.identifier), $.string,
      optional(seq('colour', $.colour))),
    colour: _ => /#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})/,
    // `edge red top bottom`, `labels files 9 8 7 ...`: how boards are drawn.
    edge_declaration: $ => seq('edge', field('player', $.identifier), repeat1($.identifier)),
    labels_declaration: $ => seq('labels', choice('files', 'ranks'), repeat1(choice($.identifier, $.number))),

    declaration: $ => seq(
      field('keyword', choice('piece', 'players', 'mark', 'box', 'region', 'legality', 'search',
        'turns', 'notation', 'san', 'quiet', 'fen')),
      repeat(choice($.identifier, $.piece, $.marks, $.number, $.region_part, $.square_name,
        $.fen_char, $.string, '-', '+', '_')),
    ),
    region_part: _ => /[a-z][0-9]+-[a-z][0-9]+/,
    square_name: _ => /[a-z]?[0-9]+[<>]/,
    fen_char: _ => /[~!*'^=]/,

    _expression: $ => repeat1(choice($._operand, $.operator)),

    _operand: $ => choice($.group, $.guard, $.call, $.repetition, $.identifier, $.piece, $.marks,
      $.place, $.number, $.power, $.poi, $.square, $.off_board),

    group: $ => seq('(', optional($._expression), ')'),
    guard: $ => seq(choice('?{', '!{'), optional($._expression), '}'),
    call: $ => seq(field('function', $.identifier), token.immediate('('),
      optional(seq($._expression, repeat(seq(',', $._expression)))), ')'),
    repetition: _ => token(seq('{', /[^}\n]*/, '}')),

    operator: _ => choice('->', '|', '/', '+', '*', '?', ':', '^', '<', '>', '-'),
    poi: _ => '%',
    square: _ => '.',
    off_board: _ => '#',
    place: _ => token(seq('@', /[A-Za-z0-9_]+/)),
    power: _ => token(seq(optional('⁻'), /[⁰¹²³⁴⁵⁶⁷⁸⁹]+/)),
    marks: _ => token(prec(1, /[°ᴬ-ᵪᶛ-ᶿʰ-ʸˡ-ˣⁱⁿ]+/)),
    number: _ => /-?[0-9]+(\.[0-9]+)?/,
    piece: _ => PIECE,
    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*/,
  },
});
