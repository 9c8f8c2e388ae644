import type { Page } from 'playwright-core';

/**
 * The tabs of each tab list that are cut off by its edge with no sign there is more: a tab past
 * an edge needs the list's visible "more" hint on that side (src/web/components/ui/tabs.tsx).
 */
export async function tabsCutOffWithoutSign(page: Page): Promise<string[]> {
  return page.locator('[role="tablist"]').evaluateAll((lists) =>
    lists.flatMap((list) => {
      const box = list.getBoundingClientRect();
      const hint = (side: string) => {
        const el = list.parentElement?.querySelector<HTMLElement>(`[data-scroll-hint="${side}"]`);
        if (!el) return false;
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 && getComputedStyle(el).visibility !== 'hidden' && getComputedStyle(el).opacity !== '0'
        );
      };
      return Array.from(list.querySelectorAll('[role="tab"]')).flatMap((tab) => {
        const r = tab.getBoundingClientRect();
        const name = tab.textContent ?? '';
        if (r.left < box.left - 0.5 && !hint('start')) return [`${name} (cut at the start)`];
        if (r.right > box.right + 0.5 && !hint('end')) return [`${name} (cut at the end)`];
        return [];
      });
    }),
  );
}
