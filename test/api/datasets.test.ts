import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { DatasetImports, type DatasetBody } from '../../api/datasets.js';
import { importLog } from '../../connectors/files/index.js';
import { simulate, writeSimulation } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import type { IngestTarget } from '../../engine/projects/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import { gunzipPrefix } from '../files/helpers.js';
import { call, expectError, GLOBAL, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * Datasets as units: checked whole before anything is applied, imported under
 * their own source, resumed after a stop, and taken back when deleted.
 */

const files = mkdtempSync(join(tmpdir(), 'pcg-datasets-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

const octet = { 'content-type': 'application/octet-stream' };

/** The document without its data version (which only grows): what a retraction or a resume must give back. */
function doc(body: { source: Record<string, unknown> }): string {
  return JSON.stringify({ ...body, source: { ...body.source, data_version: undefined } });
}

/** What `pcg graph FILE` prints for a file: the in-memory route, the same bytes as a stored project fed the same batches. */
async function graphOfFile(file: string): Promise<Record<string, unknown>> {
  const memory = new MemoryProject();
  await importLog(memory, file);
  return buildDocument(memory.snapshot()) as unknown as Record<string, unknown>;
}


describe('dataset uploads', () => {
  let t: TestApp;
  let a: World;
  let csvFile: string;
  beforeAll(async () => {
    t = testApp();
    a = await makeTenant(t.app, 'd');
    csvFile = join(files, 'o2c.csv');
    await writeSimulation({ model: 'order-to-cash', cases: 300, seed: 11 }, 'csv', csvFile);
  });
  afterAll(() => t.close());

  it("shows an import's progress while it runs: records applied of those the file holds", async () => {
    const big = join(files, 'progress.csv');
    await writeSimulation({ model: 'order-to-cash', cases: 3000, seed: 12 }, 'csv', big);
    const rows = readFileSync(big, 'utf8').trim().split('\n').length - 1;
    const project = (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name: 'progress' })).body.id;
    const base = `/api/${a.tenantId}/project/${project}/dataset`;
    const upload = call(t.app, 'POST', `${base}?name=big`, a.admin, readFileSync(big), octet);
    const seen: { items: number; total: number }[] = [];
    let done = false;
    void upload.then(() => (done = true));
    while (!done) {
      const list = (await call(t.app, 'GET', base, a.reader)).body.items as { state: string; progress: { items: number; total: number } | null }[];
      for (const d of list) if (d.state === 'importing' && d.progress) seen.push(d.progress);
      await new Promise((r) => setImmediate(r));
    }
    const answer = await upload;
    expect(answer.status).toBe(201);
    expect(answer.body.progress).toBeNull();
    // Seen part-way, against the file's own count of records, never past it.
    expect(seen.some((p) => p.items > 0 && p.items < p.total)).toBe(true);
    for (const p of seen) {
      expect(p.total).toBe(rows);
      expect(p.items).toBeLessThanOrEqual(p.total);
    }
    expect((await call(t.app, 'GET', `${base}/${answer.body.id}`, a.reader)).body.progress).toBeNull();
  });

  const base = (projectId: string) => `/api/${a.tenantId}/project/${projectId}`;
  const newProject = async (name: string): Promise<string> => (await call(t.app, 'POST', `/api/${a.tenantId}/project`, a.admin, { name })).body.id;
  const upload = (projectId: string, body: Buffer | string, query = '') => call(t.app, 'POST', `${base(projectId)}/dataset${query}`, a.admin, body, octet);
  // The current document: while a build of the project runs (reads beside a deletion start them), a GET answers the
  // newest kept one marked stale; read again until the build is done.
  const graph = async (projectId: string) => {
    for (;;) {
      const r = await call(t.app, 'GET', `${base(projectId)}/graph`, a.reader);
      if (r.headers['x-pcg-stale'] !== 'true') return r.body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const version = async (projectId: string): Promise<number> => (await call(t.app, 'GET', base(projectId), a.reader)).body.dataVersion;
  const list = async (projectId: string) => (await call(t.app, 'GET', `${base(projectId)}/dataset`, a.reader)).body.items as { id: string; state: string }[];

  it('refuses a damaged or corrupt file with 400 and applies nothing; partial=keep keeps its complete events', async () => {
    const p = await newProject('damaged');
    const first = await upload(p, 'case,activity,time\nx1,a,2024-01-01T00:00:00Z\nx1,b,2024-01-01T01:00:00Z\n', '?name=first.csv');
    expect(first.status, first.text).toBe(201);
    const v = await version(p);
    const before = doc(await graph(p));

    const whole = readFileSync(csvFile);
    const gz = gzipSync(whole);
    const half = gz.subarray(0, Math.floor(gz.length * 0.55));
    const cut = await upload(p, half, '?name=o2c.csv.gz');
    expectError(cut, 400, 'validation_failed');
    expect(cut.body.message).toBe(
      'the file is damaged at end of file: the compressed file ends early (truncated .gz); nothing was imported (add partial=keep to the query to import its complete events)',
    );
    const xes = join(files, 'claims.xes');
    await writeSimulation({ model: 'claims', cases: 50, seed: 3 }, 'xes', xes);
    const xesText = readFileSync(xes, 'utf8');
    expectError(await upload(p, xesText.slice(0, Math.floor(xesText.length * 0.7))), 400, 'validation_failed');
    const torn = whole.toString('utf8').trimEnd();
    const tornCsv = await upload(p, torn.slice(0, torn.length - 12));
    expectError(tornCsv, 400, 'validation_failed');
    expect(tornCsv.body.message).toMatch(/^the file is damaged at line \d+: the last line is cut off \(no line end\)/);
    const corrupt = Buffer.from(gz);
    for (let i = 300; i < 340; i++) corrupt[i] = corrupt[i]! ^ 0x33;
    const bad = await upload(p, corrupt);
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.message).not.toContain(t.dir);
    // Nothing of any of them: the same version, the same document, no record, no file left.
    expect(await version(p)).toBe(v);
    expect(doc(await graph(p))).toBe(before);
    expect((await list(p)).map((d) => d.id)).toEqual([first.body.id]);
    expect(readdirSync(join(t.dir, 'projects', p, 'datasets'))).toEqual([first.body.id]);

    const kept = await upload(p, half, '?name=o2c.csv.gz&partial=keep');
    expect(kept.status, kept.text).toBe(201);
    expect(kept.body).toMatchObject({ state: 'ready', summary: { damage: { location: 'end of file', reason: 'the compressed file ends early (truncated .gz)' } } });
    // Its complete events: the CSV's lines up to the last whole one, each unchanged.
    const prefix = await gunzipPrefix(half);
    const completeFile = join(files, 'complete.csv');
    writeFileSync(completeFile, prefix.slice(0, prefix.lastIndexOf('\n') + 1));
    const complete = await graphOfFile(completeFile);
    const lines = prefix.slice(0, prefix.lastIndexOf('\n')).split('\n').length - 1;
    expect(kept.body.summary).toMatchObject({ accepted: lines, duplicates: 0, rejected: 2, events: lines, cases: (complete.source as { cases: number }).cases });
    expect((await graph(p)).source.events).toBe(2 + lines);
  });

  it("deleting a dataset takes its events back; the same file again works; each summary is the dataset's own", async () => {
    const p = await newProject('retract');
    // Events sent over HTTP first: no dataset's, so they stay whatever is deleted.
    const http = [...simulate({ model: 'claims', cases: 40, seed: 5 })];
    expect((await call(t.app, 'POST', `${base(p)}/events`, a.admin, http.slice(0, 150))).status).toBe(200);
    const a1 = await upload(p, readFileSync(csvFile), '?name=o2c.csv');
    expect(a1.status, a1.text).toBe(201);
    const csvRows = readFileSync(csvFile, 'utf8').trimEnd().split('\n').length - 1;
    const csvDoc = await graphOfFile(csvFile);
    expect(a1.body.summary).toMatchObject({ accepted: csvRows, duplicates: 0, rejected: 0, events: csvRows, cases: (csvDoc.source as { cases: number }).cases });
    const beforeB = doc(await graph(p));
    const vBefore = await version(p);

    // B: NDJSON sharing 100 events with the HTTP ones, 200 of its own, and a line that is not JSON.
    const lines = [...http.slice(50, 350).map((e) => JSON.stringify(e)), '{oops'];
    const b1 = await upload(p, lines.join('\n') + '\n', '?name=b.ndjson');
    expect(b1.status, b1.text).toBe(201);
    const bCases = new Set(http.slice(50, 350).map((e) => e.caseId)).size;
    expect(b1.body.summary).toMatchObject({ format: 'ndjson', accepted: 200, duplicates: 100, rejected: 1, events: 300, cases: bCases });
    expect(b1.body.summary.rejections).toEqual([{ location: 'line 301', reason: expect.stringMatching(/^not JSON/) }]);
    // A's summary did not move.
    expect((await call(t.app, 'GET', `${base(p)}/dataset/${a1.body.id}`, a.reader)).body.summary).toEqual(a1.body.summary);
    const withB = doc(await graph(p));
    expect(withB).not.toBe(beforeB);

    expect((await call(t.app, 'DELETE', `${base(p)}/dataset/${b1.body.id}`, a.admin)).status).toBe(204);
    expect(await version(p)).toBeGreaterThan(vBefore + 1);
    expect(doc(await graph(p))).toBe(beforeB);
    expect(existsSync(join(t.dir, 'projects', p, 'datasets', b1.body.id))).toBe(false);

    // The same file again: applied from the start, counted once, the same document as the first time.
    const b2 = await upload(p, lines.join('\n') + '\n', '?name=b.ndjson');
    expect(b2.status, b2.text).toBe(201);
    expect({ ...b2.body.summary, source: undefined }).toEqual({ ...b1.body.summary, source: undefined });
    expect(doc(await graph(p))).toBe(withB);

    // The same file twice at once: the second holds the same events; deleting either leaves them.
    const b3 = await upload(p, lines.join('\n') + '\n', '?name=b-again.ndjson');
    expect(b3.body.summary).toMatchObject({ accepted: 0, duplicates: 300, rejected: 1, events: 300 });
    // Nothing counted changed, but its refused line is one more dead letter, which the document states: a new version.
    const twice = doc(await graph(p));
    expect(twice).not.toBe(withB);
    expect((await call(t.app, 'DELETE', `${base(p)}/dataset/${b2.body.id}`, a.admin)).status).toBe(204);
    expect(doc(await graph(p))).toBe(withB);
    expect((await call(t.app, 'DELETE', `${base(p)}/dataset/${b3.body.id}`, a.admin)).status).toBe(204);
    expect(doc(await graph(p))).toBe(beforeB);

    // Deleting A leaves the HTTP events alone: the document of those.
    expect((await call(t.app, 'DELETE', `${base(p)}/dataset/${a1.body.id}`, a.admin)).status).toBe(204);
    const only = await newProject('http only');
    await call(t.app, 'POST', `${base(only)}/events`, a.admin, http.slice(0, 150));
    const g = await graph(p);
    expect(doc(g)).toBe(doc(await graph(only)));
    expectError(await call(t.app, 'DELETE', `${base(p)}/dataset/${a1.body.id}`, a.admin), 404, 'not_found');
  });

  it("takes a deleted dataset back on another thread: meanwhile its project's writes answer 503 with Retry-After, its reads and other projects are served", async () => {
    const p = await newProject('away');
    const other = await newProject('beside');
    // An event of the project's own, sent again during the deletion: refused while it runs, a duplicate after.
    const own = [{ caseId: 'x', activity: 'a', timestamp: '2024-01-01T00:00:00Z', eventId: 'own-1' }];
    await call(t.app, 'POST', `${base(p)}/events`, a.admin, own);
    await call(t.app, 'POST', `${base(other)}/events`, a.admin, own);
    const before = doc(await graph(p));
    const d = await upload(p, readFileSync(csvFile), '?name=o2c.csv');
    expect(d.status, d.text).toBe(201);
    let done = false;
    const deleting = call(t.app, 'DELETE', `${base(p)}/dataset/${d.body.id}`, a.admin).finally(() => (done = true));
    // An upload to the project meanwhile waits for the deletion, then imports.
    const small = 'case,activity,time\ns1,a,2024-02-01T00:00:00Z\ns1,b,2024-02-01T01:00:00Z\n';
    const uploadedMeanwhile = upload(p, small, '?name=small.csv');
    const writes: { status: number; code?: string; retryAfter?: unknown; duplicates?: number }[] = [];
    const reads: number[] = [];
    while (!done) {
      const [w, g, o] = await Promise.all([
        call(t.app, 'POST', `${base(p)}/events`, a.admin, own),
        call(t.app, 'GET', `${base(p)}/graph`, a.reader),
        call(t.app, 'GET', `${base(other)}/graph`, a.reader),
      ]);
      writes.push(w.status === 200 ? { status: 200, duplicates: w.body.duplicates } : { status: w.status, code: w.body.error, retryAfter: w.headers['retry-after'] });
      reads.push(g.status, o.status);
    }
    expect((await deleting).status).toBe(204);
    // A thread takes a few hundred milliseconds to start: the writes met it, refused and retriable (or a duplicate once it was done).
    expect(writes.some((w) => w.status === 503)).toBe(true);
    for (const w of writes) expect([{ status: 503, code: 'unavailable', retryAfter: '2' }, { status: 200, duplicates: 1 }]).toContainEqual(w);
    expect(reads.every((s) => s === 200)).toBe(true);
    // Its events are back out, and the upload that waited is in: the document of the project's own event and that file.
    expect((await uploadedMeanwhile).status).toBe(201);
    const twin = await newProject('away twin');
    await call(t.app, 'POST', `${base(twin)}/events`, a.admin, own);
    expect((await upload(twin, small, '?name=small.csv')).status).toBe(201);
    expect(doc(await graph(p))).toBe(doc(await graph(twin)));
    expect(doc(await graph(p))).not.toBe(before);
  });
});

describe('datasets a stopped server left', () => {
  it('resume from their position (counted once), roll back without their file, finish a deletion; a running import cannot be deleted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-resume-'));
    const config = readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0 });
    try {
      const big = join(files, 'big.csv');
      await writeSimulation({ model: 'order-to-cash', cases: 2500, seed: 21 }, 'csv', big);
      const small = join(files, 'small.csv');
      await writeSimulation({ model: 'helpdesk', cases: 40, seed: 2 }, 'csv', small);
      const medium = join(files, 'medium.csv');
      await writeSimulation({ model: 'claims', cases: 900, seed: 8 }, 'csv', medium);

      const first: PcgApp = createApp({ config });
      const w = await makeTenant(first.app, 'r');
      const url = `/api/${w.tenantId}/project/${w.projectId}`;
      const empty = (await call(first.app, 'GET', `${url}/graph`, w.reader)).body;
      // A dataset whose deletion was under way, and two imports cut short after one batch, one of which then loses its file.
      const gone = await call(first.app, 'POST', `${url}/dataset?name=gone.csv`, w.admin, readFileSync(small), octet);
      first.context.catalog.datasets.update(w.tenantId, w.projectId, gone.body.id, { body: { ...first.context.catalog.datasets.get(w.tenantId, w.projectId, gone.body.id)!.body, state: 'deleting' } });
      // Only its files and records are used here: no upload is checked through it.
      const jobs = new DatasetImports(first.context, { check: () => Promise.reject(new Error('not checked here')), close: async () => {} });
      const cutShort = async (file: string) => {
        const staged = jobs.stagingFile(w.projectId);
        copyFileSync(file, staged);
        const record = jobs.create(w.tenantId, w.projectId, 'cut', staged, { options: {}, bytes: 0 });
        const stop = new AbortController();
        const target = first.context.states.target(w.projectId);
        let n = 0;
        const stopping: IngestTarget = { ...target, apply: (b, p) => (++n === 1 && stop.abort(), target.apply(b, p)) };
        await expect(importLog(stopping, jobs.fileOf(w.projectId, record.id), {}, { source: (record.body as unknown as DatasetBody).source, signal: stop.signal })).rejects.toThrow();
        return record;
      };
      const resumed = await cutShort(big);
      const lost = await cutShort(medium);
      rmSync(jobs.fileOf(w.projectId, lost.id));
      writeFileSync(join(jobs.dirOf(w.projectId), '.upload-left-behind'), 'x');
      expect((await call(first.app, 'GET', `${url}/dataset/${resumed.id}`, w.reader)).body).toMatchObject({ state: 'importing', summary: {} });
      await first.app.close();

      const second = createApp({ config });
      try {
        // Resumed once the deletion and the rollback before it are done (on another thread): while it runs, it cannot be deleted.
        for (let i = 0; i < 600 && (await call(second.app, 'GET', `${url}/dataset/${resumed.id}`, w.reader)).body.progress === null; i++) await new Promise((r) => setTimeout(r, 10));
        expectError(await call(second.app, 'DELETE', `${url}/dataset/${resumed.id}`, w.admin), 409, 'conflict');
        let items: { id: string; state: string; summary: Record<string, unknown> }[] = [];
        for (let i = 0; i < 600; i++) {
          items = (await call(second.app, 'GET', `${url}/dataset`, w.reader)).body.items;
          if (items.every((d) => d.state === 'ready') && items.length === 1) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(items.map((d) => [d.id, d.state])).toEqual([[resumed.id, 'ready']]);
        const rows = readFileSync(big, 'utf8').trimEnd().split('\n').length - 1;
        expect(items[0]!.summary).toMatchObject({ accepted: rows, duplicates: 0, rejected: 0, events: rows });
        // Every event once: the document of the file alone (the rolled-back and deleted datasets left nothing).
        const served = (await call(second.app, 'GET', `${url}/graph`, w.reader)).body;
        expect(doc(served)).toBe(doc((await graphOfFile(big)) as { source: Record<string, unknown> }));
        expect(readdirSync(jobs.dirOf(w.projectId))).toEqual([resumed.id]);
        // And deleting it now leaves the empty project's document.
        expect((await call(second.app, 'DELETE', `${url}/dataset/${resumed.id}`, w.admin)).status).toBe(204);
        const after = (await call(second.app, 'GET', `${url}/graph`, w.reader)).body;
        expect(doc(after)).toBe(doc(empty));
      } finally {
        await second.app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
