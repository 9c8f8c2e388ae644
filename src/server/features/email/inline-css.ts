import juice from 'juice';

/**
 * Inlines <style> rules into style attributes. Only `juice(html)`: never juiceResources or
 * juiceFile, which fetch URLs and read files (a server-side request forgery door). <link>
 * stylesheets are left as they are; @media, @font-face and keyframes stay in a <style> block for
 * the clients that support them.
 */
export function inlineCss(html: string): string {
  return juice(html, {
    preserveMediaQueries: true,
    preserveFontFaces: true,
    preserveKeyFrames: true,
    preservePseudos: true,
    preserveImportant: true,
    applyWidthAttributes: true,
    applyHeightAttributes: true,
    resolveCSSVariables: true,
  });
}
