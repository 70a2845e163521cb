import { z } from 'zod';

/**
 * Test-only fault points: `PCG_TEST_FAULT=<point>:<n>` kills the process with SIGKILL the n-th time it passes
 * `point`, so a crash test lands at an exact moment rather than at a random one (test/kafka/changelog.test.ts).
 * Read once; unset in production, where a fault point costs one comparison.
 */
const faultSchema = z
  .string()
  .regex(/^([a-z-]+):(\d+)$/, 'PCG_TEST_FAULT: <point>:<n>')
  .transform((s) => {
    const [point, n] = s.split(':');
    return { point: point!, at: Number(n) };
  })
  .optional();

const FAULT = faultSchema.parse(process.env.PCG_TEST_FAULT || undefined);
let passed = 0;

/** The points a test may name. */
export type FaultPoint = 'changelog-write';

export function faultPoint(point: FaultPoint): void {
  if (FAULT?.point !== point) return;
  passed += 1;
  // The whole process, from whichever thread: as a power cut or the OOM killer would.
  if (passed === FAULT.at) process.kill(process.pid, 'SIGKILL');
}
