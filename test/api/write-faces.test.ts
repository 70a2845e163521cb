import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auth, type Principal } from '../../api/auth.js';
import { ApiError, apiErrorCodes } from '../../api/errors.js';
import { LocalBackend } from '../../api/mcp/local.js';
import { RateLimiter } from '../../api/rate-limit.js';
import { CaseReads, Graphs } from '../../engine/projects/index.js';
import { call, events, makeTenant, testApp, type TestApp, type World } from './helpers.js';

/**
 * A write use case through every face (api/service/events.ts): `POST …/events`
 * over HTTP (app.inject), MCP's `ingest_events` in `pcg serve` (the fair queue
 * and a work thread) and in process (`pcg mcp --data-dir`, no work threads)
 * answer the same counts and refuse with the same status, code and message,
 * PCG_LIMIT_EVENTS_PER_REQUEST included.
 */
const CAP = 4;
let t: TestApp;
let w: World;
let scoped: string;
let second: string;
const MISSING = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  t = testApp({ limitEventsPerRequest: CAP });
  w = await makeTenant(t.app, 'write-faces');
  second = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'second' })).body.id;
  scoped = (await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: w.adminUserId, name: 'scoped', permissions: ['read', 'write'], projectIds: [w.projectId] })).body.key;
});
afterAll(() => t.close());

type Outcome = { status: number; code?: string; message?: string; answer?: unknown };

const backend = (key: string, inProcess: boolean) => {
  const auth = new Auth(t.context.catalog, new RateLimiter(0, 0));
  const principal = (): Principal => auth.authenticate({ headers: { authorization: `Bearer ${key}` } } as never, { tenant: 'read' });
  const { ingest: _ingest, ...parts } = t.context;
  const base = { ...parts, graphs: new Graphs(t.context.states, t.context.catalog.graphVersions), cases: new CaseReads(t.context.states) };
  return new LocalBackend(inProcess ? base : { ...base, ingest: t.context.ingest }, principal);
};

/** The HTTP answer: its status and error, or the counts. */
async function overHttp(key: string, projectId: string, batch: unknown[]): Promise<Outcome> {
  const r = await call(t.app, 'POST', `/api/${w.tenantId}/project/${projectId}/events`, key, batch);
  return r.status === 200 ? { status: 200, answer: r.body } : { status: r.status, code: r.body.error, message: r.body.message };
}

/** MCP's backend: its answer less the project id it adds, or its ApiError as the status HTTP would answer. */
async function overMcp(key: string, projectId: string, batch: unknown[], inProcess: boolean): Promise<Outcome> {
  try {
    const { projectId: _id, ...answer } = await backend(key, inProcess).ingest(projectId, batch);
    return { status: 200, answer };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: apiErrorCodes[error.code], code: error.code, message: error.message };
  }
}

const faces: { name: string; run: (key: string, projectId: string, batch: unknown[]) => Promise<Outcome> }[] = [
  { name: 'HTTP', run: overHttp },
  { name: 'MCP in pcg serve', run: (k, p, b) => overMcp(k, p, b, false) },
  { name: 'MCP in process', run: (k, p, b) => overMcp(k, p, b, true) },
];

const refusals: { name: string; key: () => string; project: () => string; batch: unknown[]; expected: Outcome }[] = [
  {
    name: 'past PCG_LIMIT_EVENTS_PER_REQUEST',
    key: () => w.admin,
    project: () => w.projectId,
    batch: events(3),
    expected: { status: 413, code: 'payload_too_large', message: `limit PCG_LIMIT_EVENTS_PER_REQUEST: a request may carry at most ${CAP} events (this one has 8)` },
  },
  { name: 'a missing project', key: () => w.admin, project: () => MISSING, batch: events(1), expected: { status: 404, code: 'not_found', message: 'project not found' } },
  { name: 'a key without write', key: () => w.reader, project: () => w.projectId, batch: events(1), expected: { status: 403, code: 'forbidden', message: "this key lacks the 'write' permission" } },
  { name: 'a scoped key outside its project', key: () => scoped, project: () => second, batch: events(1), expected: { status: 403, code: 'forbidden', message: 'this key has no access to that project' } },
];

describe('one write use case, every face', () => {
  for (const r of refusals) {
    it(`${r.name}: the same status, code and message on every face, nothing applied`, async () => {
      for (const face of faces) expect([face.name, await face.run(r.key(), r.project(), r.batch)]).toEqual([face.name, r.expected]);
      expect(t.context.states.store(w.projectId).eventCount()).toBe(0);
    });
  }

  it('a batch within the cap: the same counts and rejections on every face, each on a fresh project', async () => {
    const batch = [...events(1), { caseId: 'x', activity: '', timestamp: 'not a time' }];
    const answers: unknown[] = [];
    for (const face of faces) {
      const fresh = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: `fresh ${face.name}` })).body.id as string;
      answers.push(await face.run(w.admin, fresh, batch));
    }
    expect((answers[0] as Outcome).answer).toMatchObject({ accepted: 3, rejected: 1 });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });
});
