import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';

/** A route's `lazy`: loads the page's module on first visit and uses its named export. */
export function page<M extends Record<string, unknown>>(
  load: () => Promise<M>,
  name: keyof M & string,
): RouteObject['lazy'] {
  return async () => ({ Component: (await load())[name] as ComponentType });
}
