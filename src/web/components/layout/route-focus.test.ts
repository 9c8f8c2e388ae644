import { describe, expect, it } from 'vitest';
import { movesFocus, type ShownPage } from './route-focus.ts';

const history: ShownPage = { pathname: '/app/history', routeId: 'history' };
const email = (id: string): ShownPage => ({ pathname: `/app/email/${id}`, routeId: 'email' });
const acted = { acted: true, focusLost: false, focusInField: false };

describe('movesFocus', () => {
  it('moves the focus to the new page on a navigation the user made', () => {
    expect(movesFocus(history, email('a'), acted)).toBe(true);
    expect(movesFocus(email('a'), history, { ...acted, focusLost: true })).toBe(true);
  });

  it('leaves the first page and the redirects before the user did anything alone', () => {
    expect(movesFocus(null, history, acted)).toBe(false);
    expect(movesFocus(history, email('a'), { ...acted, acted: false })).toBe(false);
  });

  it('leaves a change of query or hash alone (same path)', () => {
    expect(movesFocus(history, { ...history }, { ...acted, focusLost: true })).toBe(false);
  });

  it('on the same screen with other data, moves it only when the focus was lost', () => {
    expect(movesFocus(email('a'), email('b'), acted)).toBe(false);
    expect(movesFocus(email('a'), email('b'), { ...acted, focusLost: true })).toBe(true);
  });

  it('leaves a field the new page focused itself alone', () => {
    expect(movesFocus(history, email('a'), { ...acted, focusInField: true })).toBe(false);
  });
});
