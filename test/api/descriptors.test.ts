import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { BUILD_THREAD_STORES, DESCRIPTOR_MARGIN, DESCRIPTORS_PER_STORE, DescriptorLimitError, readFileLimit, storeBudget } from '../../api/descriptors.js';
import { ProjectRegistry, StateFiles } from '../../engine/projects/index.js';
import { call, events, GLOBAL, makeTenant, testApp } from './helpers.js';

/**
 * Issue 32, L5: the descriptors an open project store holds, measured, and the
 * cap on open stores checked at start against the process's RLIMIT_NOFILE
 * (injected here): lowered with a warning when it does not fit, refused when
 * not even the minimum does.
 */

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pcg-fd-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const fds = () => readdirSync('/proc/self/fd').length;
const one = (i: number) => ({ records: events(2).map((e: any) => ({ ...e, caseId: `${i}-${e.caseId}`, eventId: `${i}-${e.eventId}` })), rejected: [] });

describe.skipIf(!existsSync('/proc/self/fd'))('descriptors: measured per open store', () => {
  it(`holds ${DESCRIPTORS_PER_STORE} per store: the file, -wal, -shm, and the file once more after another connection of the process closed it`, () => {
    const dir = tempDir();
    const registry = new ProjectRegistry(dir, { maxOpen: 1000 });
    const n = 40;
    const before = fds();
    for (let i = 0; i < n; i++) {
      registry.ingest(`p${i}`, one(i));
      registry.state(`p${i}`).snapshot();
    }
    const opened = fds();
    expect((opened - before) / n).toBe(3);
    // What a build thread does: its own connections to the same files (StateFiles), two descriptors each (-shm is shared).
    const thread = new StateFiles(n);
    for (let i = 0; i < n; i++) thread.snapshot([registry.fileOf(`p${i}`)]);
    expect((fds() - opened) / n).toBe(2);
    // Closed there, one descriptor each stays: SQLite cannot close a file another connection of the process holds
    // locks on (closing would drop them), so it keeps the descriptor until the last connection to the file closes.
    thread.close();
    expect((fds() - before) / n).toBe(DESCRIPTORS_PER_STORE);
    registry.close();
    expect(fds()).toBe(before);
  });

  it('an app serving graphs stays within what the budget counts: its open stores at 4, the build thread\'s, the margin', async () => {
    const before = fds();
    const t = testApp({}, { fileLimit: null });
    try {
      const w = await makeTenant(t.app, 'fd');
      for (let i = 0; i < 40; i++) {
        const id = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: `p${i}` })).body.id;
        expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${id}/events`, w.admin, [...events(3), { bad: 1 }])).status).toBe(200);
        expect((await call(t.app, 'GET', `/api/${w.tenantId}/project/${id}/graph`, w.reader)).status).toBe(200);
      }
      const used = fds() - before;
      expect(used).toBeGreaterThan(t.context.states.openCount * 3);
      expect(used).toBeLessThanOrEqual(t.context.states.openCount * DESCRIPTORS_PER_STORE + BUILD_THREAD_STORES * 3 + DESCRIPTOR_MARGIN);
    } finally {
      await t.close();
    }
  });
});

describe('descriptors: the budget', () => {
  const config = { maxOpenStores: 256, maxConnections: 256, buildThreads: 1, sources: false };

  it('reads the soft and hard limits of /proc/self/limits', () => {
    const text = 'Limit                     Soft Limit           Hard Limit           Units\nMax processes             63475                63475                processes\nMax open files            1024                 524288               files\n';
    expect(readFileLimit(() => text)).toEqual({ soft: 1024, hard: 524288 });
    expect(readFileLimit(() => text.replace('1024 ', 'unlimited'))).toEqual({ soft: Infinity, hard: 524288 });
    expect(readFileLimit(() => 'nothing here')).toBeUndefined();
    expect(
      readFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    if (existsSync('/proc/self/limits')) expect(readFileLimit()!.soft).toBeGreaterThan(0);
  });

  it('keeps the cap when it fits; lowers it to what fits, saying how far to raise the limit; refuses below the minimum', () => {
    const needed = 50 + DESCRIPTOR_MARGIN + 256 + BUILD_THREAD_STORES * 3 + 256 * DESCRIPTORS_PER_STORE;
    expect(storeBudget(config, { soft: 65536, hard: 65536 }, 50)).toEqual({ maxOpenStores: 256, needed });
    expect(storeBudget(config, undefined, 50).maxOpenStores).toBe(256);
    const low = storeBudget(config, { soft: 1024, hard: 4096 }, 50);
    expect(low.maxOpenStores).toBe(Math.floor((1024 - 50 - DESCRIPTOR_MARGIN - 256 - 48) / DESCRIPTORS_PER_STORE));
    expect(low.warning).toBe(
      `the limit on open files (1024) holds ${low.maxOpenStores} open project stores, not 256 (PCG_MAX_OPEN_STORES; ${DESCRIPTORS_PER_STORE} descriptors each, beside 256 connections): using ${low.maxOpenStores}; raise the limit on open files (ulimit -n, systemd LimitNOFILE=) to at least ${needed} (the hard limit, 4096, allows it)`,
    );
    // Stream sources in this process: their thread keeps partition stores up to the same cap.
    expect(storeBudget({ ...config, sources: true }, { soft: 1024, hard: 1024 }, 50).maxOpenStores).toBe(Math.floor((1024 - 50 - DESCRIPTOR_MARGIN - 256 - 48) / (2 * DESCRIPTORS_PER_STORE)));
    expect(() => storeBudget(config, { soft: 400, hard: 400 }, 50)).toThrow(DescriptorLimitError);
    expect(() => storeBudget(config, { soft: 400, hard: 400 }, 50)).toThrow(/at least 8 are needed: raise the limit on open files .* to at least 1442, or lower PCG_MAX_CONNECTIONS$/);
  });

  it('starts the app with the lowered cap and a warning in the log, and its registry holds no more stores than that', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    const t = testApp({ maxConnections: 100 }, { fileLimit: { soft: 400, hard: 400 }, logger });
    try {
      const cap = t.context.states.maxOpen;
      expect(cap).toBeLessThan(256);
      expect(cap).toBeGreaterThanOrEqual(8);
      const warning = lines.map((l) => JSON.parse(l)).find((l) => /PCG_MAX_OPEN_STORES/.test(l.msg));
      expect(warning).toMatchObject({ level: 40, maxOpenStores: cap, configured: 256 });
      expect(warning.msg).toMatch(new RegExp(`^the limit on open files \\(400\\) holds ${cap} open project stores`));
      const w = await makeTenant(t.app, 'cap');
      for (let i = 0; i < cap + 5; i++) {
        const id = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: `p${i}` })).body.id;
        expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${id}/events`, w.admin, events(1))).status).toBe(200);
      }
      expect(t.context.states.openCount).toBeLessThanOrEqual(cap);
    } finally {
      await t.close();
    }
  });

  it('refuses to start when not even the minimum fits, with the message `pcg serve` prints', () => {
    const dir = tempDir();
    const config = readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent' });
    expect(() => createApp({ config, fileLimit: { soft: 300, hard: 1024 } })).toThrow(
      /^the limit on open files \(300\) leaves room for 0 project stores beside 256 connections \(PCG_MAX_CONNECTIONS\) and \d+ descriptors open already; at least 8 are needed: raise the limit on open files \(ulimit -n, systemd LimitNOFILE=\) to at least \d+, or lower PCG_MAX_CONNECTIONS$/,
    );
    // Refused before anything was opened: no catalog was made.
    expect(readdirSync(dir)).toEqual([]);
  });
});
