import { describe, expect, it } from 'vitest';
import { noteText, notesConcerning, partialConcerns, type UseDetail } from './compat-notes.ts';

const on = (value: string, property = 'x'): UseDetail => ({ el: { name: 'div' }, property, value });

describe('notes on partial support', () => {
  it('keep a note that names nothing for every use', () => {
    const note = 'Partial. Not supported with non Google accounts.';
    expect(notesConcerning([note], on('relative'))).toEqual([note]);
    expect(partialConcerns([], on('relative'))).toBe(true);
  });
  it('read the values a note names', () => {
    const position = 'Partial. Supports `relative`, `absolute` but not `sticky` and `fixed`.';
    expect(partialConcerns([position], on('relative', 'position'))).toBe(false);
    expect(partialConcerns([position], on('sticky', 'position'))).toBe(true);
    const transition = [
      'Partial. Longhand properties are not supported.',
      'Buggy. The `all` keyword is not supported.',
    ];
    expect(partialConcerns(transition, on('color 0.2s ease', 'transition'))).toBe(false);
    expect(notesConcerning(transition, on('all 0.2s', 'transition'))).toEqual([transition[1]]);
    const spacing = [
      'Partial. Big negative values are rendered differently from CSS standards.',
      'Buggy. Values set in `em` are smaller than the expected render in CSS.',
    ];
    expect(partialConcerns(spacing, on('2px'))).toBe(false);
    expect(partialConcerns(spacing, on('0.1em'))).toBe(true);
    expect(partialConcerns(spacing, on('-3px'))).toBe(true);
    expect(partialConcerns(['Partial. Percentages values are not supported.'], on('10px'))).toBe(false);
    expect(partialConcerns(['`all` value does not work'], on('none'))).toBe(false);
    expect(partialConcerns(['`all` value does not work'], on('all'))).toBe(true);
  });
  it('read the element a note names', () => {
    const body = 'Partial. Only supported on the `<body>` element.';
    expect(partialConcerns([body], { el: { name: 'body' } })).toBe(false);
    expect(partialConcerns([body], { el: { name: 'td' } })).toBe(true);
  });
  it('take a use it cannot tell about as concerned', () => {
    const position = 'Partial. Supports `relative`, `absolute` but not `sticky` and `fixed`.';
    expect(partialConcerns([position], { el: null })).toBe(true);
    expect(partialConcerns(['Partial. Only supported on type selectors.'], { el: null })).toBe(true);
  });
  it('are quoted without "Partial." and with single spaces and a full stop', () => {
    expect(noteText('Partial. Supports `relative` but not  `absolute`.')).toBe(
      'Supports relative but not absolute.',
    );
    expect(noteText('Partial: Converts file to jpg.')).toBe('Converts file to jpg.');
    expect(noteText('Partially supported. Only works with non Google accounts.')).toBe(
      'Only works with non Google accounts.',
    );
    expect(noteText('Works with `-webkit` prefix')).toBe('Works with -webkit prefix.');
    expect(noteText('See [#192](https://example.com/192)')).toBe('See #192.');
  });
});
