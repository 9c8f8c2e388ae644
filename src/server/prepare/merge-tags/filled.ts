/** A source with its merge tags filled. */
export interface Filled {
  output: string;
  /** Names of the tags the data did not fill, as written, each once, in order of first use. */
  unfilled: string[];
}

export interface FillOptions {
  /** HTML-escape the values (the default, for HTML and MJML); off for plain text such as the subject. */
  escape?: boolean;
  /**
   * Name the line of a problem in its message: the default for HTML and MJML, whose lines the editor
   * marks. Plain text (the subject, a text part) defaults to none: src/server/prepare/prepare.ts
   * names the part instead, and its "line 1" would point into the HTML source.
   */
  lines?: boolean;
}
