import Handlebars from 'handlebars';

/** Where a token stands: lines from 1, columns from 0 (jison's `yylloc`). */
export interface TokenPlace {
  first_line: number;
  first_column: number;
  last_line: number;
  last_column: number;
}

/** One token of Handlebars' own lexer: its terminal's name (`OPEN_BLOCK`, `ID`, `EOF`…), text and place. */
export interface HandlebarsToken {
  kind: string;
  text: string;
  at: TokenPlace;
}

/** The jison lexer and parser Handlebars parses with (`Handlebars.Parser`, untyped). */
interface JisonParser {
  lexer: {
    setInput(input: string, yy: object): void;
    lex(): number | string;
    yytext: string;
    yylloc: TokenPlace;
  };
  terminals_: Record<number, string>;
}
const jison = (Handlebars as unknown as { Parser: JisonParser }).Parser;

/**
 * The tokens Handlebars' parser would read from `source`, through its own lexer (linear, no
 * recursion), up to and including `EOF`; a lexical error (a comment never closed, a character the
 * lexer cannot read) ends them with one token of kind `LEX_ERROR`. The lexer is shared: read the
 * tokens to the end before lexing anything else.
 */
export function* handlebarsTokens(source: string): Generator<HandlebarsToken> {
  const lexer = jison.lexer;
  lexer.setInput(source, {
    parser: {
      parseError: (message: string) => {
        throw new Error(message);
      },
    },
  });
  for (;;) {
    let kind: string;
    try {
      const token = lexer.lex();
      kind = typeof token === 'number' ? (jison.terminals_[token] ?? '') : token;
    } catch {
      yield { kind: 'LEX_ERROR', text: '', at: { ...lexer.yylloc } };
      return;
    }
    yield { kind, text: lexer.yytext, at: { ...lexer.yylloc } };
    if (kind === 'EOF') return;
  }
}
