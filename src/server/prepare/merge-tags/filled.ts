/** A source with its merge tags filled. */
export interface Filled {
  output: string;
  /** Names of the tags the data did not fill, as written, each once, in order of first use. */
  unfilled: string[];
}

export interface FillOptions {
  /** HTML-escape the values (the default, for HTML and MJML); off for plain text such as the subject. */
  escape?: boolean;
}
