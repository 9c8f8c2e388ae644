import type { Locator, Page } from 'playwright-core';

/** The app's toasts in the Notifications region: `success` toasts are statuses, `error` ones alerts. */
export function toast(page: Page, kind: 'success' | 'error', title: string): Locator {
  return page
    .getByRole('region', { name: 'Notifications' })
    .locator(`[data-kind="${kind}"]`)
    .filter({ hasText: title });
}

/** Waits for a toast with exactly this title (and this description, when given). */
export async function expectToast(page: Page, title: string, description?: string): Promise<void> {
  const region = page.getByRole('region', { name: 'Notifications' });
  const item = region.locator('[data-kind]').filter({ has: page.getByText(title, { exact: true }) });
  await item.first().waitFor();
  if (description !== undefined) {
    await item
      .filter({ has: page.getByText(description, { exact: true }) })
      .first()
      .waitFor();
  }
}
