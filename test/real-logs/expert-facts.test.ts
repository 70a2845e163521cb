import { describe, expect, it } from 'vitest';
import { realLogs } from '../tools/pm4py.js';
import { checkLog, EXPERT_FACTS, formatFailure, specName } from './expert-facts.js';
import { largeTier, LARGE_LOGS } from './manifest.js';

/**
 * The expert facts (expert-facts.ts) on the shared real logs: one test per
 * log, building its document once and checking every fact, so a failure lists
 * everything the document gets wrong about that log at once (each with the
 * fact's source and what the document said).
 */
describe.skipIf(!realLogs)('expert facts on real logs', () => {
  // A log of the large tier (manifest.ts) only with PCG_REAL_LOGS_LARGE.
  const specs = EXPERT_FACTS.filter((spec) => largeTier || !LARGE_LOGS.includes(spec.file));
  it.each(specs.map((spec) => ({ name: specName(spec), spec })))('$name', async ({ spec }) => {
    const failures = await checkLog(spec, realLogs!);
    expect(failures.map(formatFailure), `${failures.length} of ${spec.facts.length} expert facts fail on ${spec.file}`).toEqual([]);
  }, 600_000);
});
