import { z } from 'zod';
import { FileImportError } from './errors.js';
import { FORMAT_NAMES } from './formats.js';
import { LIFECYCLE_MODES, type ImportOptions } from './types.js';

const column = z.string().min(1);

/** Import options as the library takes them; the CLI and the API pass what users typed through here. */
export const importOptionsSchema = z.strictObject({
  format: z.enum(FORMAT_NAMES).optional(),
  lifecycle: z.enum(LIFECYCLE_MODES).optional(),
  classifier: z.string().min(1).optional(),
  caseColumn: column.optional(),
  activityColumn: column.optional(),
  timestampColumn: column.optional(),
  resourceColumn: column.optional(),
  startTimestampColumn: column.optional(),
  delimiter: z
    .string()
    .transform((d) => (d === '\\t' || d.toLowerCase() === 'tab' ? '\t' : d))
    .refine((d) => d.length > 0 && !/["\r\n]/.test(d), 'a delimiter is one or more characters other than quotes and newlines')
    .optional(),
  timezone: z.string().min(1).optional(),
  caseNotion: z.string().min(1).optional(),
  batchSize: z.number().int().positive().max(1_000_000).optional(),
});

export function checkOptions(options: unknown): ImportOptions {
  const parsed = importOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ');
    throw new FileImportError('invalid_option', reason);
  }
  const o: ImportOptions = {};
  for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  return o;
}
