/**
 * Whether classic Outlook for Windows reads the content of a conditional comment
 * (`<!--[if mso | IE]>`, `<!--[if !mso | IE]><!-->`, `<!--[if (gte mso 9)|(IE)]>`), by evaluating
 * its condition as the Word engine does: `mso` is true, at the version the checks score (the
 * latest caniemail tested, Outlook 2019 and Microsoft 365: 16), `vml` is true at version 1, `IE` and
 * every other feature false. `!`, `&`, `|` and parentheses combine them; `lt`, `lte`, `gt`, `gte`
 * compare versions. Every other client ignores conditional comments: it skips a downlevel-hidden
 * one (`<!--[if …]>…<![endif]-->`) and reads a downlevel-revealed one (`<!--[if …]><!-->…`).
 */

const VERSIONS: Record<string, number> = { mso: 16, vml: 1 };

type Token = string;

function tokens(condition: string): Token[] {
  return condition.toLowerCase().match(/[()!&|]|[a-z]+|\d+(?:\.\d+)?/g) ?? [];
}

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

/** The condition's value for classic Outlook; a condition it cannot read is false. */
export function outlookReads(condition: string): boolean {
  const list = tokens(condition);
  let at = 0;
  const peek = () => list[at];
  const next = () => list[at++];

  function either(): boolean {
    let value = both();
    while (peek() === '|') {
      next();
      const right = both();
      value = value || right;
    }
    return value;
  }
  function both(): boolean {
    let value = unary();
    while (peek() === '&') {
      next();
      const right = unary();
      value = value && right;
    }
    return value;
  }
  function unary(): boolean {
    const token = next();
    if (token === '!') return !unary();
    if (token === '(') {
      const value = either();
      if (next() !== ')') throw new SyntaxError('unclosed (');
      return value;
    }
    if (token === undefined) throw new SyntaxError('no feature');
    const compare = COMPARE[token];
    const feature = compare ? next() : token;
    if (feature === undefined || !/^[a-z]+$/.test(feature)) throw new SyntaxError('no feature');
    const version = /^\d/.test(peek() ?? '') ? Number(next()) : undefined;
    const has = VERSIONS[feature];
    if (has === undefined) return false;
    if (version === undefined) return !compare;
    return compare ? compare(has, version) : Math.trunc(has) === Math.trunc(version);
  }

  try {
    const value = either();
    return at === list.length && value;
  } catch {
    return false;
  }
}
