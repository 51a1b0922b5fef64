// The layout of a rule file: an item ends at a line break after which a
// line starts at its first column with something other than a comment.
// A line that starts with a space or a tab, a blank line, or a comment at
// the start of a line continues the item (as `grammar/chessalg.pest`'s
// WHITESPACE says). The end of the file ends the last item.

#include "tree_sitter/parser.h"

enum TokenType { ITEM_END };

void *tree_sitter_chessalg_external_scanner_create(void) { return NULL; }
void tree_sitter_chessalg_external_scanner_destroy(void *payload) { (void)payload; }
unsigned tree_sitter_chessalg_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload;
  (void)buffer;
  return 0;
}
void tree_sitter_chessalg_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  (void)payload;
  (void)buffer;
  (void)length;
}

bool tree_sitter_chessalg_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  (void)payload;
  if (!valid_symbols[ITEM_END]) return false;
  // Spaces and tabs before the line break.
  while (lexer->lookahead == ' ' || lexer->lookahead == '\t' || lexer->lookahead == '\r') {
    lexer->advance(lexer, true);
  }
  if (lexer->eof(lexer)) {
    lexer->result_symbol = ITEM_END;
    return true;
  }
  if (lexer->lookahead != '\n') return false;
  lexer->advance(lexer, true);
  lexer->mark_end(lexer);
  for (;;) {
    if (lexer->eof(lexer)) {
      lexer->result_symbol = ITEM_END;
      return true;
    }
    int c = lexer->lookahead;
    if (c == ' ' || c == '\t') return false;
    if (c == '\r' || c == '\n') {
      // A blank line: whether the item goes on depends on the line after.
      lexer->advance(lexer, true);
      continue;
    }
    if (c == '/') {
      // A comment at the start of a line continues the item, unless only
      // blank lines and comments follow it up to the next item.
      return false;
    }
    lexer->result_symbol = ITEM_END;
    return true;
  }
}
