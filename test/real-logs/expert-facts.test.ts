import { describe, expect, it } from 'vitest';
import { realLogs } from '../tools/pm4py.js';
import { checkLog, EXPERT_FACTS, formatFailure } from './expert-facts.js';

/**
 * The expert facts (expert-facts.ts) on the shared real logs: one test per
 * log, building its document once and checking every fact, so a failure lists
 * everything the document gets wrong about that log at once (each with the
 * fact's source and what the document said).
 */
describe.skipIf(!realLogs)('expert facts on real logs', () => {
  it.each(EXPERT_FACTS)('$file', async (spec) => {
    const failures = await checkLog(spec, realLogs!);
    expect(failures.map(formatFailure), `${failures.length} of ${spec.facts.length} expert facts fail on ${spec.file}`).toEqual([]);
  }, 600_000);
});
