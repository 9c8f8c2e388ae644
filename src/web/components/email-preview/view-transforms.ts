import { forceDark } from '../../../shared/preview/forced-dark.ts';
import { blockImages } from '../../../shared/preview/images-off.ts';

/**
 * The transforms of the Forced dark and Images off views, in their own chunk: most pages show
 * Light and never load them (the public page's JavaScript budget counts).
 */
export const viewTransforms = { forceDark, blockImages };
export type ViewTransforms = typeof viewTransforms;
