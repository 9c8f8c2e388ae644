import { describe, expect, it } from 'vitest';
import { jsonCostProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from './json-body.ts';

const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

describe('the JSON scan before parsing', () => {
  it('takes nesting up to the limit and refuses one level more', () => {
    expect(jsonCostProblem(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonCostProblem(nested(MAX_JSON_DEPTH + 1))).toBe(
      'The request body nests too deeply: the limit is 64 levels of objects and arrays.',
    );
  });

  it('counts values up to the limit, in arrays and objects', () => {
    const array = (n: number) => `{"a":[${Array(n).fill('0').join(',')}]}`;
    // The object and the array count as values too.
    expect(jsonCostProblem(array(MAX_JSON_VALUES - 1))).toBeNull();
    expect(jsonCostProblem(array(MAX_JSON_VALUES + 2))).toBe(
      'The request body holds too many values: the limit is 40,000.',
    );
    const object = `{${Array.from({ length: MAX_JSON_VALUES + 2 }, (_, i) => `"k${i}":1`).join(',')}}`;
    expect(jsonCostProblem(object)).toMatch(/too many values/);
  });

  it('skips strings, whatever brackets, commas, quotes and backslashes they hold', () => {
    const html = `<p title="a[b{c">${'x, y, [z] {w} \\ "q" \\\\'.repeat(20_000)}</p>`;
    const body = JSON.stringify({ html, to: 'a@example.com', subject: 'ends in a backslash \\' });
    expect(jsonCostProblem(body)).toBeNull();
    // An escaped quote does not end the string; an escaped backslash before a quote does.
    expect(jsonCostProblem(`{"a":"\\"${'['.repeat(100)}","b":1}`)).toBeNull();
    expect(jsonCostProblem(`{"a":"\\\\"${'['.repeat(100)}`)).toMatch(/nests too deeply/);
  });

  it('leaves malformed JSON to the parser', () => {
    expect(jsonCostProblem('{"a": "never closed')).toBeNull();
    expect(jsonCostProblem('}}}]]]')).toBeNull();
  });
});
