import type { InjectOptions } from 'fastify';
import type { RouteDef } from '../../../api/route.js';
import type { Prng } from '../../tools/fuzz.js';
import { batch } from './events.js';
import { CSV, type Fuzz, headersFor, type Key } from './world.js';

/**
 * A fuzz case — one request and what its answer must be — and the valid
 * request of every route, which the doors (headers, query, paths, methods,
 * bodies, uploads) start from and change one thing of.
 */

export interface Case {
  door: string;
  what: string;
  req: InjectOptions & { method: string; url: string; headers: Record<string, string> };
  /** Allowed statuses (any below 500 when absent). */
  status?: readonly number[];
  code?: string;
  message?: RegExp;
  /** Per record location of an events body: accepted, or rejected for a reason. */
  records?: Map<string, true | RegExp>;
  /** A valid X-Request-Id sent, to be echoed. */
  requestId?: string;
  /** The answer need not be in the API's error format (MCP answers JSON-RPC errors). */
  foreignErrors?: boolean;
  /** Sent with a read key: whatever the answer, nothing may change. */
  readOnly?: boolean;
}

export const isStream = (def: RouteDef) => def.url.endsWith('/graph/stream');
export const isEvents = (def: RouteDef) => def.url.endsWith('/events');
export const isUpload = (def: RouteDef) => def.bodyKind === 'raw';

/** Real ids for a route's parameters; a DELETE gets an unknown last id, so nothing the fuzz needs is ever deleted. */
export const fill = (f: Fuzz, def: RouteDef, rng: Prng): { url: string; params: [string, string][] } => {
  const names = [...def.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
  const { ids } = f;
  const values: Record<string, string> = {
    tenantId: f.w.tenantId,
    projectId: def.url.includes('/dataset') ? ids.C : def.url.endsWith('/events') ? ids[rng.pick(['A', 'B'] as const)] : ids.A,
    investigationId: ids.inv,
    notebookId: ids.nb,
    blockId: ids.block,
    dashboardId: ids.dash,
    sourceId: ids.source,
    datasetId: ids.dataset,
    userId: ids.spareUser,
    keyId: ids.spareKey,
    id: ids.globalKey,
    cluster: 'local',
    topic: 'fuzz',
  };
  if (def.method === 'DELETE' && names.length) values[names[names.length - 1]!] = crypto.randomUUID();
  const params = names.map((n) => [n, values[n]!] as [string, string]);
  let url = def.url;
  for (const [n, v] of params) url = url.replace(`:${n}`, v);
  return { url, params };
};

export const keyFor = (def: RouteDef): Key => (def.access === 'public' ? 'none' : def.access === 'global' ? 'global' : def.access === 'any-key' ? 'admin' : def.access.tenant === 'read' ? 'reader' : 'admin');

/** A valid body for each JSON route (the spare user and its key stand in wherever a user is named). */
const bodyFor = (f: Fuzz, def: RouteDef, rng: Prng): unknown => {
  const u = def.url;
  const { ids } = f;
  if (u === '/api/tenant') return { name: `t ${rng.word(6)}`, description: 'fuzz' };
  if (u === '/api/tenant/:tenantId') return { name: `tenant ${rng.word(4)}` };
  if (u === '/api/tenant/:tenantId/user') return { userId: ids.spareUser, permissions: ['read'] };
  if (u === '/api/user') return { email: `u-${rng.word(10)}@example.com`, name: 'u' };
  if (u === '/api/user/:userId') return { name: `user ${rng.word(4)}` };
  if (u.endsWith('/apikey')) return { userId: ids.spareUser, name: 'k', permissions: ['read'] };
  if (u === '/admin/global-api-keys') return { name: 'g' };
  if (u === '/api/:tenantId/project') return { name: `p ${rng.word(5)}` };
  if (u === '/api/:tenantId/project/:projectId') return { name: 'A', description: rng.word(8) };
  if (u.endsWith('/investigation')) return { name: 'i', scope: { activities: ['b'], from: '2024-01-01T00:00:00Z' } };
  if (u.endsWith('/investigation/:investigationId')) return { name: 'i' };
  if (u.endsWith('/notebook') || u.endsWith('/notebook/:notebookId')) return { name: 'n' };
  if (u.endsWith('/block')) return { spec: { type: rng.pick(['variants', 'kpi']) } };
  if (u.endsWith('/block/:blockId')) return { name: 'b', position: 0 };
  if (u.endsWith('/dashboard')) return { name: 'd', blockIds: [ids.block] };
  if (u.endsWith('/dashboard/:dashboardId')) return { name: 'd' };
  if (u.endsWith('/source')) return { cluster: 'local', topic: `fuzz-${rng.word(3)}` };
  if (u.endsWith('/source/:sourceId')) return { name: 'src' };
  if (u === '/admin/kafka-clusters/:cluster') return { brokers: ['127.0.0.1:9'] };
  return undefined;
};

/** What a valid request of a route is answered (the statuses its own limits allow too). */
const successOf = (def: RouteDef): number[] => {
  // A DELETE names an unknown last id (see fill).
  if (def.method === 'DELETE') return [404];
  if (isStream(def)) return [400];
  if (def.url === '/metrics') return [404];
  if (def.url === '/api/:tenantId/project' && def.method === 'POST') return [201, 422];
  if (def.url.endsWith('/source') && def.method === 'POST') return [201, 422];
  if (def.url === '/api/user' && def.method === 'POST') return [201, 409];
  // The fuzz world's only cluster is the configuration's: not the API's to change.
  if (def.url === '/admin/kafka-clusters/:cluster' && def.method === 'PUT') return [409];
  return [def.status ?? 200];
};

/** A valid request of a route: the right key, real ids, a valid body (a stream is always refused: bogus=1). */
export const baseRequest = (f: Fuzz, def: RouteDef, rng: Prng): Case => {
  const { url } = fill(f, def, rng);
  const headers = headersFor(f, keyFor(def));
  if (def.access === 'any-key') Object.assign(headers, { 'x-tenant-id': f.w.tenantId, 'x-project-id': f.ids.A });
  let payload: string | Buffer | undefined;
  if (isEvents(def)) {
    payload = JSON.stringify(batch(f.sent, rng, rng.between(1, 4)));
    headers['content-type'] = 'application/json';
  } else if (isUpload(def)) {
    payload = CSV;
    headers['content-type'] = 'application/octet-stream';
  } else if (def.body) {
    const body = bodyFor(f, def, rng);
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
  }
  return {
    door: 'base',
    what: `${def.method} ${def.url}`,
    req: { method: def.method, url: isStream(def) ? `${url}?bogus=1` : url, headers, ...(payload !== undefined ? { payload } : {}) },
    status: successOf(def),
  };
};

export const pickRoute = (f: Fuzz, rng: Prng, filter: (d: RouteDef) => boolean = () => true) => rng.pick(f.routes.filter(filter));
