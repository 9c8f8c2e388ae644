import { z } from 'zod';

/** The one error shape every failing API call answers with (docs/architecture.md §6). */
export const errorResponse = z.object({
  error: z.string(),
  code: z.string().optional(),
  /** Where in the source the problem is (MJML and merge tags), for the editor to mark. */
  problems: z.array(z.object({ line: z.number().int(), message: z.string() })).optional(),
});
export type ErrorResponse = z.infer<typeof errorResponse>;
