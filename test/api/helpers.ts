import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createApp, type AppOptions, type PcgApp } from '../../api/app.js';
import { readConfig, type ConfigInput } from '../../api/config.js';

export const GLOBAL = 'test-global-key-0123456789abcdef';

export interface TestApp extends PcgApp {
  dir: string;
  close(): Promise<void>;
}

/** A fresh app over a fresh temp data directory (`options`: the app's injected parts, a disk's free space, a descriptor limit…). */
export function testApp(overrides: Partial<Record<keyof ConfigInput, unknown>> = {}, options: Omit<AppOptions, 'config'> = {}): TestApp {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-api-'));
  const config = readConfig({}, { dataDir: dir, globalApiKey: GLOBAL, logLevel: 'silent', rateLimitBurst: 0, ...overrides });
  const made = createApp({ ...options, config, runSources: options.runSources ?? false });
  return {
    ...made,
    dir,
    async close() {
      await made.app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Res {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  text: string;
}

export async function call(app: FastifyInstance, method: InjectOptions['method'], url: string, key?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const h: Record<string, string> = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  const opts: InjectOptions = { method, url, headers: h };
  if (body !== undefined) {
    if (typeof body === 'string' || Buffer.isBuffer(body)) opts.payload = body;
    else {
      opts.payload = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
  }
  const r = await app.inject(opts);
  let parsed: unknown;
  try {
    parsed = r.body ? JSON.parse(r.body) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: r.statusCode, body: parsed, headers: r.headers, text: r.body };
}

/** A tenant with an admin, a read-only user and a project, all made through the API. */
export interface World {
  tenantId: string;
  projectId: string;
  adminUserId: string;
  readerUserId: string;
  admin: string;
  reader: string;
  adminKeyId: string;
}

let n = 0;
export async function makeTenant(app: FastifyInstance, label: string): Promise<World> {
  n += 1;
  const tenant = await call(app, 'POST', '/api/tenant', GLOBAL, { name: `tenant ${label}` });
  const tenantId = tenant.body.id as string;
  const adminUser = await call(app, 'POST', '/api/user', GLOBAL, { email: `admin-${label}-${n}@example.com` });
  const readerUser = await call(app, 'POST', '/api/user', GLOBAL, { email: `reader-${label}-${n}@example.com` });
  await call(app, 'POST', `/api/tenant/${tenantId}/user`, GLOBAL, { userId: adminUser.body.id, permissions: ['read', 'write', 'admin'] });
  await call(app, 'POST', `/api/tenant/${tenantId}/user`, GLOBAL, { userId: readerUser.body.id, permissions: ['read'] });
  const admin = await call(app, 'POST', `/api/tenant/${tenantId}/apikey`, GLOBAL, { userId: adminUser.body.id, name: 'admin' });
  const reader = await call(app, 'POST', `/api/tenant/${tenantId}/apikey`, GLOBAL, { userId: readerUser.body.id, name: 'reader' });
  const project = await call(app, 'POST', `/api/${tenantId}/project`, admin.body.key, { name: `project ${label}` });
  return {
    tenantId,
    projectId: project.body.id,
    adminUserId: adminUser.body.id,
    readerUserId: readerUser.body.id,
    admin: admin.body.key,
    reader: reader.body.key,
    adminKeyId: admin.body.id,
  };
}

/**
 * PCG_KAFKA_CLUSTERS with one cluster `local` granted to every tenant: for tests about something else than grants
 * (a real broker's address, or one nothing listens on when no source thread runs).
 */
export function openCluster(brokers: readonly string[] = ['127.0.0.1:9092'], credentials: 'service' | 'tenant' = 'service'): string {
  return JSON.stringify([{ name: 'local', brokers, tenants: '*', credentials }]);
}

/** The global key grants a Kafka cluster (by default the configuration's `local`) to a tenant. */
export async function grantCluster(app: FastifyInstance, tenantId: string, cluster = 'local'): Promise<void> {
  const r = await call(app, 'PUT', `/admin/kafka-clusters/${cluster}/tenants/${tenantId}`, GLOBAL);
  if (r.status !== 200) throw new Error(`granting ${cluster}: ${r.status} ${r.text}`);
}

/** A small log: `cases` cases a→b→c (every third one a→c), one hour apart. */
export function events(cases: number, start = Date.UTC(2024, 0, 1)): object[] {
  const out: object[] = [];
  for (let i = 0; i < cases; i++) {
    const t = start + i * 3_600_000;
    const path = i % 3 === 2 ? ['a', 'c'] : ['a', 'b', 'c'];
    path.forEach((activity, j) =>
      out.push({ caseId: `c${i}`, activity, timestamp: new Date(t + j * 60_000).toISOString(), eventId: `c${i}-${j}`, attributes: { region: i % 2 ? 'north' : 'south' } }),
    );
  }
  return out;
}

export function expectError(r: Res, status: number, code: string): void {
  if (r.status !== status || r.body?.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text}`);
  }
  const keys = Object.keys(r.body).sort();
  if (keys.join() !== 'error,message,requestId,timestamp') throw new Error(`error body has keys ${keys.join()}`);
  if (r.body.requestId !== r.headers['x-request-id']) throw new Error('requestId differs from the x-request-id header');
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(r.body.timestamp)) throw new Error(`timestamp ${r.body.timestamp} is not ISO UTC`);
}

/** A task of the tenant's that holds a work thread until `release` is called (waited for until it runs). */
export async function holdThread(t: TestApp, w: { tenantId: string; projectId: string }) {
  let release!: () => void;
  let holding!: () => void;
  const held = new Promise<void>((r) => (holding = r));
  const blocker = t.context.work(w.tenantId, w.projectId, 'build', () => {
    holding();
    return new Promise<void>((r) => (release = r));
  });
  await held;
  return { release, blocker };
}
