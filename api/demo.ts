import type { AppContext } from './context.js';
import { liveFeed, modelNames } from '../connectors/simulator/index.js';

export const DEMO_TENANT = 'Demo tenant';
export const DEMO_EMAIL = 'demo@pcg.local';
export const DEMO_PROJECT = 'Demo: live order-to-cash';

export interface Demo {
  tenantId: string;
  userId: string;
  projectId: string;
  /** A tenant admin key made for this start: shown once. */
  key: string;
}

/** The demo tenant, user, membership and project: created on first start, found again after. */
export function ensureDemo(ctx: AppContext): Demo {
  const { identity, projects, keys } = ctx.catalog;
  const tenant = identity.tenants().find((t) => t.name === DEMO_TENANT) ?? identity.createTenant({ name: DEMO_TENANT, description: 'created by pcg serve --demo' });
  const user = identity.userByEmail(DEMO_EMAIL) ?? identity.createUser({ email: DEMO_EMAIL, name: 'Demo user' })!;
  if (!identity.membership(tenant.id, user.id)) identity.putMembership(tenant.id, user.id, ['read', 'write', 'admin']);
  const project =
    projects.list(tenant.id).find((p) => p.name === DEMO_PROJECT) ??
    projects.create(tenant.id, { name: DEMO_PROJECT, description: 'fed by the simulator while the server runs' });
  const { key } = keys.createTenantKey({ tenantId: tenant.id, userId: user.id, name: `demo ${new Date().toISOString()}`, permissions: ['read', 'write', 'admin'] });
  return { tenantId: tenant.id, userId: user.id, projectId: project.id, key };
}

/**
 * Feeds the demo project from the simulator's live feed until `signal`
 * aborts, through the one ingest path HTTP ingestion uses.
 */
export async function runLiveFeed(ctx: AppContext, projectId: string, signal: AbortSignal, casesPerMinute = 30): Promise<void> {
  const names = modelNames();
  const model = names.includes('order-to-cash') ? 'order-to-cash' : names[0]!;
  const store = ctx.states.store(projectId);
  store.setMeta('case_notion', 'order');
  try {
    for await (const records of liveFeed({ model, seed: Date.now() % 1_000_000, casesPerMinute, signal })) {
      if (signal.aborted) break;
      if (!records.length) continue;
      ctx.states.ingest(projectId, { records });
    }
  } catch (error) {
    if (!signal.aborted) ctx.logger.error({ err: error }, 'demo live feed stopped');
  }
}
