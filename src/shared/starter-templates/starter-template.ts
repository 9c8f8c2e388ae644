import type { SourceFormat, TemplateSyntax } from '../contract/email.ts';

/** A starting point for the composer: a source, its merge-tag syntax and sample data to fill it. */
export interface StarterTemplate {
  /** Unique across the list, e.g. "receipt-mjml". */
  id: string;
  /** What the menu shows, in Title Case. */
  name: string;
  format: SourceFormat;
  syntax: TemplateSyntax;
  subject: string;
  source: string;
  data: Record<string, unknown>;
}
