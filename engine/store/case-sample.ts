import { cmp } from '../event.js';

/** Case ids kept as a sample of what the log calls its cases (meta `case_id_sample`). */
export const CASE_ID_SAMPLE = 20;

/**
 * The CASE_ID_SAMPLE smallest case ids (in code-unit order) of the current
 * sample and the batch's cases, or undefined when the sample is unchanged.
 * The smallest ids, not the first seen, so any arrival order of the same log
 * gives the same sample (the document must not depend on arrival order).
 */
export function mergeCaseSample(current: readonly string[], batch: Iterable<string>): string[] | undefined {
  const largest = current.length >= CASE_ID_SAMPLE ? current[current.length - 1]! : undefined;
  const have = new Set(current);
  const fresh: string[] = [];
  for (const id of batch) if (!have.has(id) && (largest === undefined || cmp(id, largest) < 0)) fresh.push(id);
  if (!fresh.length) return undefined;
  return [...current, ...new Set(fresh)].sort(cmp).slice(0, CASE_ID_SAMPLE);
}
