import { setTimeout as sleep } from 'node:timers/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { dataDirOf, readConfig } from '../../api/config.js';
import { ensureDemo, runLiveFeed } from '../../api/demo.js';
import { call, testApp } from './helpers.js';

describe('configuration', () => {
  it('reads the environment once, flags first, with the documented defaults', () => {
    const d = readConfig({});
    expect(d).toMatchObject({ host: '127.0.0.1', port: 8080, logLevel: 'info' });
    expect(d.dataDir).toMatch(/\/data$/);
    expect(d.globalApiKey).toBeUndefined();
    expect(Object.isFrozen(d)).toBe(true);
    const env = { PCG_DATA_DIR: '/tmp/x', PCG_HOST: '0.0.0.0', PCG_PORT: '9000', PCG_GLOBAL_API_KEY: 'k'.repeat(20), PCG_LOG_LEVEL: 'warn' };
    expect(readConfig(env)).toMatchObject({ dataDir: '/tmp/x', host: '0.0.0.0', port: 9000, globalApiKey: 'k'.repeat(20), logLevel: 'warn' });
    expect(readConfig(env, { port: '9100', host: undefined })).toMatchObject({ port: 9100, host: '0.0.0.0' });
    expect(() => readConfig({ PCG_PORT: 'eighty' })).toThrow(/PCG_PORT/);
    expect(() => readConfig({ PCG_GLOBAL_API_KEY: 'short' })).toThrow(/PCG_GLOBAL_API_KEY/);
  });

  it('reads the data directory one way for every command: --data-dir, else PCG_DATA_DIR, else ./data, resolved', () => {
    expect(dataDirOf('/srv/flag', { PCG_DATA_DIR: '/srv/env' })).toBe('/srv/flag');
    expect(dataDirOf(undefined, { PCG_DATA_DIR: '/srv/env' })).toBe('/srv/env');
    expect(dataDirOf(undefined, { PCG_DATA_DIR: '' })).toBe(resolve('./data'));
    expect(dataDirOf(undefined, {})).toBe(resolve('./data'));
    expect(readConfig({}, {}).dataDir).toBe(dataDirOf(undefined, {}));
  });

  it('pcg serve --help lists the flags; a bad flag value is a usage error', async () => {
    let out = '';
    let err = '';
    const io = { out: (s: string) => void (out += s), err: (s: string) => void (err += s) };
    expect(await main(['serve', '--help'], io)).toBe(0);
    for (const flag of ['--data-dir', '--host', '--port', '--global-api-key', '--log-level', '--demo']) expect(out).toContain(flag);
    expect(await main(['serve', '--port', 'x'], io)).toBe(2);
    expect(err).toContain('pcg serve: PCG_PORT: expected a whole number from 0 to 65535\n');
  });
});

describe('demo', () => {
  it('creates the demo tenant once and feeds its project from the live simulator', async () => {
    const t = testApp();
    try {
      const first = ensureDemo(t.context);
      const second = ensureDemo(t.context);
      expect(second).toMatchObject({ tenantId: first.tenantId, userId: first.userId, projectId: first.projectId });
      // The demo key is kept in the data directory and reused: restarts do not mint new valid keys.
      expect(second.key).toBe(first.key);
      const stop = new AbortController();
      const feed = runLiveFeed(t.context, first, stop.signal, 3000);
      let version = 0;
      while (version < 2) {
        await sleep(250);
        version = (await call(t.app, 'GET', `/api/${first.tenantId}/project/${first.projectId}`, first.key)).body.dataVersion;
      }
      stop.abort();
      await feed;
      expect(version).toBeGreaterThanOrEqual(2);
      const g = await call(t.app, 'GET', `/api/${first.tenantId}/project/${first.projectId}/graph`, first.key);
      expect(g.body.source.events).toBeGreaterThan(0);
      // Applied on a work thread, as HTTP ingestion is: the loop's store cached no case, the thread's did.
      expect(t.context.states.folds.size).toBe(0);
      while (!(t.context.threadStats!().cachedFolds > 0)) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      await t.close();
    }
  });
});
