/**
 * The keys that open a menu button (WAI-ARIA) and where focus goes when they do: Enter, Space and
 * ArrowDown open it on the first item, ArrowUp on the last; any other key, null. A small module
 * of its own so the theme button can answer these keys before its menu's code has loaded.
 */
export function menuOpenKey(key: string): 'first' | 'last' | null {
  if (key === 'ArrowDown' || key === 'Enter' || key === ' ') return 'first';
  if (key === 'ArrowUp') return 'last';
  return null;
}
