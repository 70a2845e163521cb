import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeSimulation, type LogFormat } from '../../../connectors/simulator/index.js';
import { GLOBAL } from './options.js';
import type { Traffic, Who } from './traffic.js';

/**
 * The tenants, made through the API with the global key before the load
 * starts (each with its own user and key, so that limits and rate limits are
 * per tenant as in production), and the small logs the well-behaved ones
 * upload, simulated once up front so that no generation runs during the load.
 */
export interface Tenant {
  name: string;
  id: string;
  userId: string;
  key: string;
  projects: Record<string, string>;
}

export interface Upload {
  name: string;
  bytes: Buffer;
}

/** The simulator's models, one a well-behaved tenant. */
export const MODELS = ['order-to-cash', 'claims', 'helpdesk'];
const NAMES = ['acme', 'globex', 'initech'];

const admin: Who = { name: 'setup', good: false };

async function must(traffic: Traffic, method: string, path: string, key: string, body?: unknown): Promise<any> {
  const a = await traffic.call(admin, path, method, path, { key, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!a || a.status >= 300) throw new Error(`${method} ${path}: ${a?.status} ${a?.text}`);
  return a.text ? JSON.parse(a.text) : undefined;
}

async function tenant(traffic: Traffic, name: string, permissions: string[], projects: string[]): Promise<Tenant> {
  const t = await must(traffic, 'POST', '/api/tenant', GLOBAL, { name });
  const user = await must(traffic, 'POST', '/api/user', GLOBAL, { email: `${name}@example.com` });
  await must(traffic, 'POST', `/api/tenant/${t.id}/user`, GLOBAL, { userId: user.id, permissions });
  const { key } = await must(traffic, 'POST', `/api/tenant/${t.id}/apikey`, GLOBAL, { userId: user.id, name: `${name}-main` });
  const ids: Record<string, string> = {};
  for (const p of projects) ids[p] = (await must(traffic, 'POST', `/api/${t.id}/project`, key, { name: p })).id;
  return { name, id: t.id, userId: user.id, key, projects: ids };
}

/** Three well-behaved tenants (a `stream` and a `files` project each) and, if asked, the pathological one (a `huge` project, admin rights for key churn). */
export async function makeTenants(traffic: Traffic, pathological: boolean): Promise<{ good: Tenant[]; chaos: Tenant | undefined }> {
  const good = await Promise.all(MODELS.map((_, i) => tenant(traffic, NAMES[i]!, ['read', 'write'], ['stream', 'files'])));
  const chaos = pathological ? await tenant(traffic, 'chaos', ['read', 'write', 'admin'], ['huge']) : undefined;
  return { good, chaos };
}

const formats: { format: LogFormat; gz: boolean; ext: string }[] = [
  { format: 'csv', gz: false, ext: 'csv' },
  { format: 'ndjson', gz: false, ext: 'ndjson' },
  { format: 'xes', gz: false, ext: 'xes' },
  { format: 'ndjson', gz: true, ext: 'ndjson.gz' },
];

/** Small logs to upload: per tenant, six of 60-150 cases in the four formats, written under `dir`. */
export async function makeUploads(good: Tenant[], dir: string): Promise<Map<string, Upload[]>> {
  const uploads = new Map<string, Upload[]>();
  for (const [i, t] of good.entries()) {
    const pool: Upload[] = [];
    for (let j = 0; j < 6; j++) {
      const f = formats[j % formats.length]!;
      const path = join(dir, `${t.name}-${j}.${f.format}`);
      await writeSimulation({ model: MODELS[i]!, cases: 60 + 18 * j, seed: 1000 * i + j }, f.format, path);
      const raw = readFileSync(path);
      pool.push({ name: `${t.name}-${j}.${f.ext}`, bytes: f.gz ? gzipSync(raw) : raw });
    }
    uploads.set(t.name, pool);
  }
  return uploads;
}
