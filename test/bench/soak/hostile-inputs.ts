import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipTo, longLineNdjson, newlines, ocelSqlite, wideOcelJson } from '../../tools/hostile.js';
import { jitter, sleep } from './clock.js';
import type { Tenant } from './tenants.js';
import type { Load, Who } from './traffic.js';

const bad: Who = { name: 'chaos', good: false };

/**
 * The hostile inputs of issue 32's review, sent in turn by the pathological
 * tenant beside its other loops, so that the soak shows them refused or
 * bounded for as long as it runs, with nothing left behind: an OCEL-SQLite
 * file whose `event` table is a recursive view, a wide OCEL 2.0 JSON (its
 * flattened relations past the soak's PCG_LIMIT_OCEL_RELATIONS), a gzip of one
 * 8 MiB NDJSON line, a gzip of 100 MiB of newlines (past the ratio bound), one
 * event of 5,000 objects across 500 types, a JSON-RPC batch of 100 tool calls,
 * and sockets that send their headers too slowly (each must be closed by the
 * server within its header timeout; one left open is reported).
 */
export async function hostileInputs(load: Load, tenant: Tenant, headerTimeoutMs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-soak-hostile-'));
  try {
    const view = join(dir, 'view.sqlite');
    ocelSqlite(view, 'recursive view');
    const longLine = join(dir, 'line.ndjson.gz');
    await gzipTo(longLine, () => longLineNdjson(8 * 2 ** 20));
    const bomb = join(dir, 'bomb.ndjson.gz');
    await gzipTo(bomb, () => newlines(100 * 2 ** 20));
    const files = { view: readFileSync(view), longLine: readFileSync(longLine), bomb: readFileSync(bomb), wide: Buffer.from(wideOcelJson(150, 150)) };
    const objects = Array.from({ length: 5000 }, (_, i) => ({ id: `o${i}`, type: `t${i % 500}` }));
    const manyObjects = JSON.stringify([{ caseId: 'objects', activity: 'wide', timestamp: '2025-01-01T00:00:00Z', objects }]);
    const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_projects', arguments: {} } })));
    const path = `/api/${tenant.id}/project/${tenant.projects.huge}`;
    const upload = (label: string, body: Buffer, expect: number[]) =>
      load.traffic.call(bad, `hostile: ${label}`, 'POST', `${path}/dataset`, { key: tenant.key, type: 'application/octet-stream', body, expect });
    const cases: (() => Promise<unknown>)[] = [
      () => upload('OCEL-SQLite recursive view', files.view, [400]),
      () => upload('wide OCEL JSON', files.wide, [422]),
      () => upload('8 MiB NDJSON line', files.longLine, [413]),
      () => upload('100 MiB of newlines', files.bomb, [413]),
      () => load.traffic.call(bad, 'hostile: 5,000 objects in one event', 'POST', `${path}/events`, { key: tenant.key, body: manyObjects, expect: [200] }),
      () =>
        load.traffic.call(bad, 'hostile: JSON-RPC batch of 100', 'POST', '/mcp', {
          key: tenant.key,
          body: batch,
          headers: { accept: 'application/json, text/event-stream' },
          expect: [413],
        }),
      () => slowHeaders(load, 10, headerTimeoutMs),
    ];
    for (let n = 0; !load.signal.aborted; n++) {
      await cases[n % cases.length]!();
      await sleep(jitter(3000), load.signal);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` sockets that send a request line and one header, then nothing: each must be closed within the header timeout (twice it, for a busy machine). */
async function slowHeaders(load: Load, count: number, timeoutMs: number): Promise<void> {
  const url = new URL(load.traffic.base);
  const closed = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(Number(url.port), url.hostname, () => socket.write('GET /health/live HTTP/1.1\r\nHost: soak\r\n'));
          const give = setTimeout(() => {
            socket.destroy();
            resolve(false);
          }, timeoutMs * 2 + 5000);
          socket.on('error', () => {});
          socket.on('close', () => {
            clearTimeout(give);
            resolve(true);
          });
          socket.resume();
        }),
    ),
  );
  const open = closed.filter((c) => !c).length;
  if (open) load.traffic.unexpected.push(`hostile: ${open} of ${count} slow-header sockets still open after ${timeoutMs * 2 + 5000} ms`);
}
