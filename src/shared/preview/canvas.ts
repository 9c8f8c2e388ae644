/**
 * The background a mail client paints behind an email, per preview mode
 * (docs/decisions/0047-forced-dark-approximation.md). Kept apart from the transforms so the
 * frame can use them without loading the transforms.
 */

/** Light: emails are designed on white. */
export const LIGHT_CANVAS = '#ffffff';
/** Dark, the email's own styles: Apple Mail's dark background. */
export const DARK_CANVAS = '#1c1c1e';
/** Dark, forced: the canvas and default text of the Gmail app's dark theme, near enough. */
export const FORCED_DARK_CANVAS = '#121212';
export const FORCED_DARK_TEXT = '#e8eaed';
