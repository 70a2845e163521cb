import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from './context.js';
import { liveFeed, modelNames } from '../connectors/simulator/index.js';

export const DEMO_TENANT = 'Demo tenant';
export const DEMO_EMAIL = 'demo@pcg.local';
export const DEMO_PROJECT = 'Demo: live order-to-cash';
export const DEMO_KEY_NAME = 'demo';
/** The cluster of the default configuration (PCG_KAFKA_CLUSTERS), granted to the demo tenant. */
export const DEMO_CLUSTER = 'local';

/** Where `pcg serve --demo` keeps its tenant key (mode 0600), to print it again at the next start. */
export const demoKeyFile = (dataDir: string): string => join(dataDir, 'demo-api-key');

export interface Demo {
  tenantId: string;
  userId: string;
  projectId: string;
  /** The demo tenant admin key: made on first start, kept in `keyFile`, reused after. */
  key: string;
  keyFile: string;
  /** True when the key was made now (first start, or the stored one was revoked, expired or lost). */
  created: boolean;
}

/**
 * The demo tenant, user, membership, project and admin key: created on first
 * start, found again after. The key lives in <dataDir>/demo-api-key (0600);
 * a new one is made only when that one no longer works, and then the demo
 * user's earlier demo keys (the stored one, and those older versions made at
 * every start) are revoked.
 */
export function ensureDemo(ctx: AppContext): Demo {
  const { identity, projects, keys } = ctx.catalog;
  const tenant = identity.tenants().find((t) => t.name === DEMO_TENANT) ?? identity.createTenant({ name: DEMO_TENANT, description: 'created by pcg serve --demo' });
  const user = identity.userByEmail(DEMO_EMAIL) ?? identity.createUser({ email: DEMO_EMAIL, name: 'Demo user' })!;
  if (!identity.membership(tenant.id, user.id)) identity.putMembership(tenant.id, user.id, ['read', 'write', 'admin']);
  const project =
    projects.list(tenant.id).find((p) => p.name === DEMO_PROJECT) ??
    projects.create(tenant.id, { name: DEMO_PROJECT, description: 'fed by the simulator while the server runs' });
  // The embedded default's own broker, if the configuration declares it: the demo tenant may subscribe its topics.
  if (ctx.catalog.clusters.get(DEMO_CLUSTER)) ctx.catalog.clusters.grant(DEMO_CLUSTER, tenant.id);
  const keyFile = demoKeyFile(ctx.config.dataDir);
  const ids = { tenantId: tenant.id, userId: user.id, projectId: project.id, keyFile };
  const stored = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  const found = stored ? keys.verifyTenant(stored) : undefined;
  if (found && found.tenantId === tenant.id && found.userId === user.id) return { ...ids, key: stored, created: false };
  for (const k of keys.tenantKeys(tenant.id)) {
    const demoKey = k.name === DEMO_KEY_NAME || /^demo \d{4}-\d\d-\d\dT/.test(k.name);
    if (k.userId === user.id && k.revokedAt === null && demoKey) keys.revokeTenantKey(tenant.id, k.id);
  }
  const { key } = keys.createTenantKey({ tenantId: tenant.id, userId: user.id, name: DEMO_KEY_NAME, permissions: ['read', 'write', 'admin'] });
  mkdirSync(ctx.config.dataDir, { recursive: true });
  rmSync(keyFile, { force: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return { ...ids, key, created: true };
}

/**
 * Feeds the demo project from the simulator's live feed until `signal`
 * aborts, through the one ingest path HTTP ingestion uses: on a work thread,
 * in the demo tenant's fair queue (api/ingestion.ts), never on the request loop.
 */
export async function runLiveFeed(ctx: AppContext, demo: { tenantId: string; projectId: string }, signal: AbortSignal, casesPerMinute = 30): Promise<void> {
  const { tenantId, projectId } = demo;
  const names = modelNames();
  const model = names.includes('order-to-cash') ? 'order-to-cash' : names[0]!;
  const store = ctx.states.store(projectId);
  store.setMeta('case_notion', 'order');
  try {
    for await (const records of liveFeed({ model, seed: Date.now() % 1_000_000, casesPerMinute, signal })) {
      if (signal.aborted) break;
      if (!records.length) continue;
      // A dataset of the demo project being taken back on another thread: the same records once it is done.
      await ctx.states.whenWritable(projectId);
      await ctx.ingest(tenantId, projectId, { records }, signal);
    }
  } catch (error) {
    if (!signal.aborted) ctx.logger.error({ err: error }, 'demo live feed stopped');
  }
}
