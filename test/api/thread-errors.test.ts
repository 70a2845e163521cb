import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError, toApiError } from '../../api/errors.js';
import { retractOnThread } from '../../api/retract-thread.js';
import { fromWire, OverQuota, toWire, unwrap } from '../../api/thread-errors.js';
import { EngineError } from '../../engine/index.js';

/**
 * Errors keep their meaning across a thread boundary (api/thread-errors.ts): the class the error boundary maps
 * comes back on the request loop, from a work thread and from the retraction thread alike.
 */
describe('the wire form of errors between threads', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('gives back the class and code of each known error, and a plain fault for the rest', () => {
    const api = fromWire(toWire(new ApiError('rate_limited', 'wait', { 'retry-after': '1' })));
    expect(api).toBeInstanceOf(ApiError);
    expect([(api as ApiError).code, (api as ApiError).headers]).toEqual(['rate_limited', { 'retry-after': '1' }]);
    const engine = fromWire(toWire(new EngineError('state_busy', 'busy')));
    expect(engine).toBeInstanceOf(EngineError);
    expect(toApiError(engine).code).toBe('unavailable');
    const busy = fromWire(toWire(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })));
    expect(toApiError(busy).code).toBe('unavailable');
    const over = fromWire(toWire(new OverQuota(7)));
    expect(over).toBeInstanceOf(OverQuota);
    expect((over as OverQuota).events).toBe(7);
    const bug = fromWire(toWire(new TypeError('a bug')));
    expect([bug.name, bug.message, toApiError(bug).code]).toEqual(['TypeError', 'a bug', 'internal_error']);
    expect(() => unwrap({ error: toWire(new Error('a bug')) })).toThrow('a bug');
    expect(unwrap({ ok: 3 })).toBe(3);
  });

  it("keeps the class of a retraction thread's error: a state file of a newer pcg is an EngineError there too", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-wire-'));
    dirs.push(dir);
    const file = join(dir, 'state.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE t (x); PRAGMA user_version = 9999');
    db.close();
    const error = await retractOnThread(file, 'dataset:x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('schema_too_new');
  });
});
