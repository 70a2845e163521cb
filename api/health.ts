import { z } from 'zod';
import { isSqliteError } from './error-tables.js';

const checkStatus = z.enum(['ok', 'unavailable']);

export const healthSchema = z
  .object({
    status: checkStatus.describe('ok when every check is ok (200); unavailable otherwise (503)'),
    checks: z.record(z.string(), z.object({ status: checkStatus, message: z.string().optional() })),
  })
  .meta({ id: 'Health' });
export type HealthReport = z.infer<typeof healthSchema>;

/** A check answers true (ok), or a message saying why it is not; throwing counts as not ok. */
export type Check = () => true | string;

/**
 * What `GET /health/ready` reports: named checks run at each request (the
 * catalog answers a query, the source thread runs, the server is not shutting
 * down). Each is cheap: readiness probes come every few seconds.
 */
export class Health {
  private readonly checks = new Map<string, Check>();

  add(name: string, check: Check): this {
    this.checks.set(name, check);
    return this;
  }

  ready(): HealthReport {
    const checks: HealthReport['checks'] = {};
    for (const [name, check] of this.checks) {
      let result: true | string;
      try {
        result = check();
      } catch (error) {
        // Internal detail (SQL, paths) stays in the log, not in a public answer.
        result = isSqliteError(error) ? 'the database does not answer' : 'the check failed';
      }
      checks[name] = result === true ? { status: 'ok' } : { status: 'unavailable', message: result };
    }
    return { status: Object.values(checks).every((c) => c.status === 'ok') ? 'ok' : 'unavailable', checks };
  }

  live(): HealthReport {
    return { status: 'ok', checks: { process: { status: 'ok' } } };
  }
}
