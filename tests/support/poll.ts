export interface PollOptions {
  /** Gives up after this long (default 20 s: room for a busy machine, never a reason to wait). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /** Names the condition in the timeout error, e.g. `1,000 sent mails`. */
  what?: string;
  /** Appended to the timeout error (e.g. a child process's output): called only on failure. */
  details?: () => string | Promise<string>;
}

/**
 * Checks `check` until it returns a truthy value and returns that value; fails after
 * `timeoutMs`. The one way tests wait for something that happens in its own time (mail
 * delivered, a process started): never a fixed sleep. In browser tests, prefer Playwright's own
 * waits (`locator.waitFor`) and `expect.poll` for values read from a page.
 */
export async function poll<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  { timeoutMs = 20_000, intervalMs = 50, what = 'condition', details }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      const more = details ? `\n${await details()}` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${more}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
