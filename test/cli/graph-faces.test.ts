import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../api/cli/main.js';
import { call, events, makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';
import { freshDir } from '../engine/helpers.js';

/**
 * `pcg graph` has no tenant, key, catalog or kept versions, so it does not go
 * through the served-graph use case (api/service/graphs.ts); it shares what
 * that use case asks for a new data version, the one builder (`buildDocument`
 * over the project's snapshot, engine/document/builder.ts). This holds them
 * to one document: a project's served graph and `pcg graph --project-dir` on
 * its state; a file uploaded as a dataset and `pcg graph FILE` on it (a file
 * names its case column, which the document says, so a file is compared with
 * the same file uploaded, not with its events posted).
 */
let t: TestApp;
let w: World;
const log = events(40);

beforeAll(async () => {
  t = testApp();
  w = await makeTenant(t.app, 'graph-faces');
  expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, log)).status).toBe(200);
});
afterAll(() => t.close());

async function graphCommand(args: string[]): Promise<unknown> {
  const out: string[] = [];
  const err: string[] = [];
  expect(await main(['graph', ...args], { out: (s) => void out.push(s), err: (s) => void err.push(s) })).toBe(0);
  expect(err.join('')).toBe('');
  return JSON.parse(out.join(''));
}

describe('pcg graph and the served graph', () => {
  it('the served document and pcg graph --project-dir on its state are one document', async () => {
    const served = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader)).body;
    expect(served.source).toMatchObject({ cases: 40, events: 107 });
    expect(await graphCommand(['--project-dir', t.context.states.dirOf(w.projectId)])).toEqual(served);
  });

  it('a file uploaded as a dataset is served as the document pcg graph FILE prints', async () => {
    const file = join(freshDir(), 'log.ndjson');
    const text = log.map((e) => JSON.stringify(e)).join('\n');
    writeFileSync(file, text);
    const project = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'uploaded' })).body.id as string;
    const upload = await call(t.app, 'POST', `/api/${w.tenantId}/project/${project}/dataset?name=log.ndjson`, w.admin, Buffer.from(text), { 'content-type': 'application/octet-stream' });
    expect(upload.status).toBe(201);
    const served = (await call(t.app, 'GET', `/api/${w.tenantId}/project/${project}/graph`, w.reader)).body;
    expect(served.source).toMatchObject({ cases: 40, events: 107, case_notion: 'caseId' });
    expect(await graphCommand([file])).toEqual(served);
  });
});
