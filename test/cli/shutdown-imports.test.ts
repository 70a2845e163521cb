import Database from 'better-sqlite3';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Children, GLOBAL, listening, type Run, api, project as makeProject } from './crash-helpers.js';

/**
 * SIGTERM while an upload is checked or imported (issue 32): the server
 * printed "stopped" while the process lived on, reading the upload, until a
 * second signal. Now a stop ends the check's thread or the import where they
 * stand: the upload is answered 503, the process exits 0 at once, a checked
 * upload leaves nothing behind and an import resumes at the next start, every
 * event counted once.
 */
const children = new Children();
afterAll(() => children.close());


const project = (base: string) => makeProject(base, GLOBAL, 'stop');

/** A raw upload with node:http; its answer, or the error when the connection closes without one. */
function upload(base: string, path: string, key: string, body: Buffer): Promise<{ status: number; body: string }> {
  const u = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': body.length },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until `ready` holds, checking every 20 ms; fails with `what` if the serve exits first. */
async function until(run: Run, what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  for (;;) {
    if (await ready()) return;
    if (!run.alive()) throw new Error(`pcg serve exited before ${what}: ${run.out()}${run.err()}`);
    await sleep(20);
  }
}

const staged = (dir: string, projectId: string): string[] => {
  const d = join(dir, 'projects', projectId, 'datasets');
  return existsSync(d) ? readdirSync(d).filter((f) => f.startsWith('.upload-')) : [];
};

describe('SIGTERM while an upload is checked or imported', () => {
  it('during the check: the upload is answered 503, the process exits 0 at once, nothing is left', async () => {
    const dir = children.tempDir('pcg-stop-');
    // 16 GiB of line ends in 16 MB: one gzip member of 64 MiB repeated (gunzip reads members one after another). With
    // the ratio and size bounds lifted, checking it takes minutes: only an abort ends it in time.
    const member = gzipSync(Buffer.alloc(64 * 2 ** 20, 10), { level: 9 });
    const bomb = Buffer.concat([gzipSync('{"caseId":"c1","activity":"a","timestamp":0}\n'), ...Array.from({ length: 256 }, () => member)]);
    const run = children.pcg(['serve', '--data-dir', dir, '--port', '0'], { PCG_DECOMPRESSED_RATIO_LIMIT: '0', PCG_DECOMPRESSED_LIMIT_BYTES: String(2 ** 40) });
    const base = await listening(run);
    const p = await project(base);
    const answer = upload(base, `${p.path}/dataset?name=bomb.ndjson.gz`, p.key, bomb);
    // The body is staged whole: the check has begun (it starts right after, on a thread of its own).
    await until(run, 'the upload was staged', () => staged(dir, p.id).some((f) => statSync(join(dir, 'projects', p.id, 'datasets', f)).size === bomb.length));
    // The loop is free meanwhile: another request is answered while the check runs.
    await api(base, 'GET', '/api/Action/ping', p.key);
    run.child.kill('SIGTERM');
    const code = await run.exit;
    expect(code, run.out() + run.err()).toBe(0);
    expect(run.out()).toMatch(/pcg serve: stopped/);
    const r = await answer;
    expect(r.status, r.body).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'unavailable', message: 'the server is stopping; nothing was imported: upload the file again once it is back' });
    expect(staged(dir, p.id)).toEqual([]);
    const catalog = new Database(join(dir, 'catalog.sqlite'), { readonly: true });
    try {
      expect(catalog.prepare('SELECT count(*) AS n FROM dataset').get()).toEqual({ n: 0 });
    } finally {
      catalog.close();
    }
  }, 120_000);

  it('during the import: 503, exit 0 at once, the dataset stays importing and the next start finishes it, every event once', async () => {
    const dir = children.tempDir('pcg-stop-');
    // 300,000 events, about 30 MB: read on a thread of its own, applied batch by batch for a few seconds.
    const lines = Array.from({ length: 300_000 }, (_, i) => JSON.stringify({ caseId: `case-${i % 30_000}`, activity: `step ${Math.floor(i / 30_000)}`, timestamp: 1_700_000_000_000 + i * 1000 }));
    const run = children.pcg(['serve', '--data-dir', dir, '--port', '0']);
    const base = await listening(run);
    const p = await project(base);
    const answer = upload(base, `${p.path}/dataset?name=big.ndjson`, p.key, Buffer.from(`${lines.join('\n')}\n`));
    let id = '';
    await until(run, 'the import applied a batch', async () => {
      const [d] = (await api(base, 'GET', `${p.path}/dataset`, p.key)).items;
      id = d?.id ?? '';
      if (d?.state === 'ready') throw new Error('the import ended before it could be stopped');
      return (d?.progress?.items ?? 0) > 0;
    });
    run.child.kill('SIGTERM');
    expect(await run.exit, run.out() + run.err()).toBe(0);
    const r = await answer;
    expect(r.status, r.body).toBe(503);
    expect(JSON.parse(r.body).message).toBe('the server is stopping; the import resumes when it starts again');

    const again = children.pcg(['serve', '--data-dir', dir, '--port', '0']);
    const base2 = await listening(again);
    let dataset: any;
    await until(again, 'the import was resumed and finished', async () => {
      dataset = await api(base2, 'GET', `${p.path}/dataset/${id}`, p.key);
      return dataset.state === 'ready';
    });
    expect(dataset.summary).toMatchObject({ accepted: 300_000, duplicates: 0, rejected: 0, events: 300_000, cases: 30_000 });
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 180_000);
});
