; Highlighting for chessalg rule files.
(comment) @comment

(definition name: (identifier) @function)
(parameters (identifier) @variable.parameter)
(call function: (identifier) @function.call)
(moves_declaration player: (identifier) @type)
(player_declaration player: (identifier) @type)
(edge_declaration player: (identifier) @type)
(colour) @constant

[
  "moves" "board" "game" "import" "weights" "outcome" "when"
  "piece" "players" "mark" "box" "region" "legality" "search"
  "turns" "notation" "quiet" "fen" "player" "colour" "edge" "labels" "files" "ranks"
] @keyword

(board_row) @string.special
(game_name) @string
(string) @string
(region_part) @string.special
(square_name) @string.special

(piece) @constant
(marks) @attribute
(place) @label
(number) @number
(power) @number
(repetition) @number
(operator) @operator
"=" @operator
(poi) @variable.builtin
(square) @constant.builtin
(off_board) @constant.builtin

(guard ["?{" "!{" "}"] @punctuation.special)
["(" ")" ","] @punctuation.bracket

(identifier) @variable
