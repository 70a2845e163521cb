import { expect } from 'vitest';
import type { RouteDef } from '../../../api/route.js';
import { fuzzSeed } from '../../tools/fuzz.js';
import { call, events, GLOBAL, makeTenant, openCluster, testApp, type TestApp, type World } from '../helpers.js';

/**
 * The world every HTTP fuzz file (test/api/fuzz/*.test.ts) starts from: an app
 * with small limits, a tenant with three projects and one of everything a
 * route can name, a second tenant, a baseline of events in A and B, and the
 * reference model — the events each project must hold and the dead letters it
 * must count — that the answers keep up to date.
 *
 * PCG_FUZZ_SEED=<seed> replays a run; PCG_FUZZ_CASES sets how many requests
 * the whole schedule holds (default 3000; each file runs the doors it owns);
 * PCG_FUZZ_TRACE=1 prints every problem, not only the first 25.
 */

export const SEED = fuzzSeed();
export const CASES = Number(process.env.PCG_FUZZ_CASES ?? 3000);

export const LIMITS = {
  bodyLimitBytes: 32 * 1024,
  uploadLimitBytes: 16 * 1024,
  limitEventsPerRequest: 25,
  limitIdBytes: 64,
  limitActivityBytes: 48,
  limitAttributeValueBytes: 96,
  limitAttributesPerEvent: 6,
  limitProjectsPerTenant: 5,
  limitSourcesPerProject: 3,
  kafkaClusters: openCluster(['127.0.0.1:9']),
} as const;

export const CSV = 'case,activity,time,amount\n1,a,2024-01-01T00:00:00Z,10\n1,b,2024-01-01T01:00:00Z,20\n2,a,2024-01-02T00:00:00Z,30\n2,c,2024-01-02T02:00:00Z,5\n';

export type Key = 'admin' | 'reader' | 'global' | 'other' | 'none';
export type Project = 'A' | 'B';

/** The ids a route's parameters are filled with: A and B take events, C holds the dataset; the spare user and keys stand in wherever one is named. */
export interface Ids {
  A: string;
  B: string;
  C: string;
  inv: string;
  nb: string;
  block: string;
  dash: string;
  source: string;
  dataset: string;
  spareUser: string;
  spareKey: string;
  globalKey: string;
}

export interface Fuzz {
  t: TestApp;
  w: World;
  other: World;
  ids: Ids;
  routes: readonly RouteDef[];
  /** The graph version of A served at the start, for ?version= and If-None-Match. */
  graphVersion: number;
  /** Events each project must hold: the records answered as accepted (or duplicates), in order. */
  kept: Record<Project, unknown[]>;
  /** Dead letters each project's HTTP ingestion must hold. */
  refused: Record<Project, number>;
  /** Events sent before, re-sent now and then (duplicates, and new bodies under a known id). */
  sent: Record<string, unknown>[];
  /** Everything a refused request must leave as it was: catalog rows (not last-used times or served graph versions) and project states. */
  fingerprint(): string;
}

/** A fresh app and the world the fuzz needs in it. */
export async function setUp(): Promise<Fuzz> {
  const t = testApp(LIMITS);
  const w = await makeTenant(t.app, 'fuzz');
  const other = await makeTenant(t.app, 'fuzz-other');
  const base = `/api/${w.tenantId}/project`;
  const B = (await call(t.app, 'POST', base, w.admin, { name: 'B' })).body.id as string;
  const C = (await call(t.app, 'POST', base, w.admin, { name: 'C' })).body.id as string;
  const A = w.projectId;
  const spare = await call(t.app, 'POST', '/api/user', GLOBAL, { email: 'spare@example.com' });
  await call(t.app, 'POST', `/api/tenant/${w.tenantId}/user`, GLOBAL, { userId: spare.body.id, permissions: ['read'] });
  const spareKey = await call(t.app, 'POST', `/api/tenant/${w.tenantId}/apikey`, GLOBAL, { userId: spare.body.id, name: 'spare' });
  const globalKey = await call(t.app, 'POST', '/admin/global-api-keys', GLOBAL, { name: 'spare' });
  const inv = await call(t.app, 'POST', `${base}/${A}/investigation`, w.admin, { name: 'i', scope: { activities: ['b'] } });
  const nb = await call(t.app, 'POST', `${base}/${A}/investigation/${inv.body.id}/notebook`, w.admin, { name: 'n' });
  const block = await call(t.app, 'POST', `${base}/${A}/investigation/${inv.body.id}/notebook/${nb.body.id}/block`, w.admin, { spec: { type: 'variants' } });
  const dash = await call(t.app, 'POST', `${base}/${A}/dashboard`, w.admin, { name: 'd', blockIds: [block.body.id] });
  const source = await call(t.app, 'POST', `${base}/${A}/source`, w.admin, { cluster: 'local', topic: 'fuzz' });
  const dataset = await call(t.app, 'POST', `${base}/${C}/dataset?name=seed.csv`, w.admin, CSV, { 'content-type': 'application/octet-stream' });
  for (const r of [spare, spareKey, globalKey, inv, nb, block, dash, source, dataset]) expect(r.status, r.text).toBeLessThan(300);
  const ids: Ids = {
    A,
    B,
    C,
    inv: inv.body.id,
    nb: nb.body.id,
    block: block.body.id,
    dash: dash.body.id,
    source: source.body.id,
    dataset: dataset.body.id,
    spareUser: spare.body.id,
    spareKey: spareKey.body.id,
    globalKey: globalKey.body.id,
  };
  // A baseline in A and B, and a served graph version of A for ?version=.
  const a = events(8);
  const b = events(6, Date.UTC(2024, 2, 1)).map((e: any) => ({ ...e, eventId: `b-${e.eventId}` }));
  expect((await call(t.app, 'POST', `${base}/${A}/events`, w.admin, a)).body).toMatchObject({ accepted: a.length, rejected: 0 });
  expect((await call(t.app, 'POST', `${base}/${B}/events`, w.admin, b)).body).toMatchObject({ accepted: b.length, rejected: 0 });
  const g = await call(t.app, 'GET', `${base}/${A}/graph`, w.reader);
  expect(g.status).toBe(200);

  const db = t.context.catalog.db;
  const tables = ['tenant', 'user', 'membership', 'project', 'dataset', 'investigation', 'notebook', 'block', 'dashboard', 'source', 'kafka_cluster'].map((name) =>
    db.prepare(`SELECT count(*) AS n, coalesce(max(updated_at), '') AS u FROM "${name}"`),
  );
  const keys = ['api_key', 'global_key'].map((name) => db.prepare(`SELECT count(*) AS n, count(revoked_at) AS r FROM ${name}`));
  const grants = ['kafka_grant', 'kafka_topic'].map((name) => db.prepare(`SELECT count(*) AS n FROM ${name}`));
  const fingerprint = () => {
    const parts: unknown[] = [...tables.map((q) => q.get()), ...keys.map((q) => q.get()), ...grants.map((q) => q.get())];
    for (const p of [A, B, C]) {
      const s = t.context.states.store(p);
      parts.push([s.dataVersion, s.eventCount(), s.getMeta('rejected') ?? '0', s.deadLetterCount('direct'), s.getMeta('log_digest') ?? '']);
    }
    return JSON.stringify(parts);
  };
  return {
    t,
    w,
    other,
    ids,
    routes: t.routes,
    graphVersion: Number(JSON.parse(String(g.headers.etag))),
    kept: { A: [...a], B: [...b] },
    refused: { A: 0, B: 0 },
    sent: [],
    fingerprint,
  };
}

export const keyOf = (f: Fuzz, key: Key): string | undefined => ({ admin: f.w.admin, reader: f.w.reader, global: GLOBAL, other: f.other.admin, none: undefined })[key];

export const headersFor = (f: Fuzz, key: Key, extra: Record<string, string> = {}): Record<string, string> => {
  const k = keyOf(f, key);
  return { ...(k ? { authorization: `Bearer ${k}` } : {}), ...extra };
};

export const eventsUrl = (f: Fuzz, p: Project) => `/api/${f.w.tenantId}/project/${f.ids[p]}/events`;
