import { describe, expect, it } from 'vitest';
import { toApiError } from '../../api/errors.js';

describe('a busy database over HTTP', () => {
  it('is 503 unavailable with Retry-After, never a 500', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const e = toApiError(busy);
    expect([e.status, e.code, e.headers]).toEqual([503, 'unavailable', { 'retry-after': '1' }]);
  });
});
