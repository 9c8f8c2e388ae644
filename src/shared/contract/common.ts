import { z } from 'zod';

/** The one error shape every failing API call answers with (docs/architecture.md §6). */
export const errorResponse = z.object({
  error: z.string(),
  code: z.string().optional(),
});
export type ErrorResponse = z.infer<typeof errorResponse>;
