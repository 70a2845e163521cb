import type { Logger } from 'pino';
import { MAX_RAW_BYTES, type ApplyResult } from '../engine/index.js';
import { PROJECT_DELETED, type ProjectRegistry } from '../engine/projects/index.js';
import type { Catalog } from './catalog/index.js';
import { limitName, type Config } from './config.js';
import { ApiError } from './errors.js';
import type { StoredUse, UseMeter } from './usage-thread.js';

/** A refusal stands on a measurement at most this old; a project written since its measurement is measured again after it. */
export const REFRESH_MS = 30_000;

interface Measured {
  use: StoredUse;
  /** When its measurement started (clock ms). */
  at: number;
  /** Written since (by this process): its use is the measurement plus what the writes told. */
  changed: boolean;
}

const none = (): StoredUse => ({ events: 0, deadLetters: 0, deadLetterBytes: 0 });

/**
 * What each tenant keeps, against its quotas (PCG_QUOTA_*): without them one
 * tenant's dead letters (86 KB each, up to 100,000 per project) filled the
 * disk every tenant writes to. Counting rows reads whole tables, so the
 * request loop never counts: a project is measured on a thread
 * (api/usage-thread.ts) the first time its tenant's quota is asked, kept here,
 * and then moved by every batch this process applies (the registry's apply
 * observer: accepted events, dead letters and their stored bytes, read from
 * the rows just written). Writes the observer does not see (a `pcg worker`,
 * a retention pass, a deleted dataset) show at the next measurement: a write
 * is refused only on a measurement at most REFRESH_MS old, taken again first
 * if need be, and a project written since its measurement is measured again
 * in the background once that is older than REFRESH_MS.
 *
 * Catalog records (investigations, notebooks, blocks, dashboards) are counted
 * by the catalog's indexes when one is made: at most the quota's number of
 * index entries.
 */
export class TenantUsage {
  private readonly projects = new Map<string, Measured>();
  private readonly measuring = new Map<string, Promise<void>>();

  constructor(
    private readonly parts: { catalog: Catalog; states: ProjectRegistry; config: Config; logger: Logger },
    private readonly meter: UseMeter,
    private readonly clock: () => number = Date.now,
  ) {
    parts.states.changes.on(PROJECT_DELETED, (projectId: string) => this.projects.delete(projectId));
  }

  /** The registry's apply observer: what a batch added to a measured project. */
  readonly observe = (projectId: string, store: 'project' | 'partition', result: ApplyResult): void => {
    const m = this.projects.get(projectId);
    if (!m || !result.applied) return;
    m.use.events += result.accepted;
    if (result.rejected > 0) {
      m.use.deadLetters += result.rejected;
      m.use.deadLetterBytes += this.letterBytes(projectId, store, result.rejected, m.use);
    }
    m.changed = true;
  };

  /** A tenant's use now (its projects not measured yet are measured first, off the loop). */
  async of(tenantId: string): Promise<StoredUse> {
    const ids = this.parts.catalog.projects.idsOfTenant(tenantId);
    await Promise.all(ids.filter((id) => !this.projects.has(id)).map((id) => this.measure(id)));
    return this.sum(ids);
  }

  /**
   * Refuses (422 limit_exceeded, naming the quota and the use) a write of `events` events to a tenant whose
   * projects keep the quota's events, dead letters or dead-letter bytes already.
   */
  async check(tenantId: string, events = 0): Promise<void> {
    const { quotaEvents, quotaDeadLetters, quotaDeadLetterBytes } = this.parts.config;
    if (quotaEvents === 0 && quotaDeadLetters === 0 && quotaDeadLetterBytes === 0) return;
    const ids = this.parts.catalog.projects.idsOfTenant(tenantId);
    let refusal = this.refusal(await this.of(tenantId), events);
    const old = this.clock() - REFRESH_MS;
    if (refusal) {
      const stale = ids.filter((id) => (this.projects.get(id)?.at ?? 0) < old);
      if (stale.length) {
        await Promise.all(stale.map((id) => this.measure(id)));
        refusal = this.refusal(this.sum(ids), events);
      }
    }
    if (refusal) throw refusal;
    for (const id of ids) {
      const m = this.projects.get(id);
      if (m?.changed && m.at < old) void this.measure(id);
    }
  }

  /**
   * The events a tenant's quota leaves room for (Infinity without one), after refusing as `check` does a tenant
   * already at a quota: for a body whose events are counted on a work thread (api/ingestion.ts), which refuses
   * more than this and asks `check` again with its count.
   */
  async room(tenantId: string): Promise<number> {
    await this.check(tenantId, 0);
    const quota = this.parts.config.quotaEvents;
    if (quota === 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, quota - (await this.of(tenantId)).events);
  }

  /** Refuses (422) `adding` more catalog records to a tenant that keeps PCG_QUOTA_RECORDS_PER_TENANT of them. */
  checkRecords(tenantId: string, adding = 1): void {
    const quota = this.parts.config.quotaRecords;
    if (quota === 0) return;
    const { investigations, notebooks, blocks, dashboards } = this.parts.catalog;
    const kept = [investigations, notebooks, blocks, dashboards].reduce((n, table) => n + table.countOfTenant(tenantId), 0);
    if (kept + adding > quota) {
      throw new ApiError(
        'limit_exceeded',
        `limit ${limitName('quotaRecords')}: a tenant may keep at most ${quota} investigations, notebooks, blocks and dashboards together; it keeps ${kept}`,
      );
    }
  }

  private refusal(use: StoredUse, events: number): ApiError | undefined {
    const { quotaEvents, quotaDeadLetters, quotaDeadLetterBytes } = this.parts.config;
    if (quotaEvents > 0 && use.events + events > quotaEvents) {
      return new ApiError(
        'limit_exceeded',
        `limit ${limitName('quotaEvents')}: a tenant's projects may keep at most ${quotaEvents} events; they keep ${use.events}${events ? ` and this request brings ${events}` : ''}`,
      );
    }
    const drop = `delete datasets that brought them, or let retention remove them (${limitName('deadLetterDays')})`;
    if (quotaDeadLetters > 0 && use.deadLetters >= quotaDeadLetters) {
      return new ApiError('limit_exceeded', `limit ${limitName('quotaDeadLetters')}: a tenant's projects may keep at most ${quotaDeadLetters} dead letters; they keep ${use.deadLetters}: ${drop}`);
    }
    if (quotaDeadLetterBytes > 0 && use.deadLetterBytes >= quotaDeadLetterBytes) {
      return new ApiError(
        'limit_exceeded',
        `limit ${limitName('quotaDeadLetterBytes')}: a tenant's dead letters may take at most ${quotaDeadLetterBytes} bytes; they take ${use.deadLetterBytes}: ${drop}`,
      );
    }
    return undefined;
  }

  private sum(ids: readonly string[]): StoredUse {
    const total = none();
    for (const id of ids) {
      const m = this.projects.get(id);
      if (!m) continue;
      total.events += m.use.events;
      total.deadLetters += m.use.deadLetters;
      total.deadLetterBytes += m.use.deadLetterBytes;
    }
    return total;
  }

  /** Measures a project's files on the thread; one measurement at a time per project. */
  private measure(projectId: string): Promise<void> {
    const running = this.measuring.get(projectId);
    if (running) return running;
    const at = this.clock();
    // Writes applied while the thread reads may be counted or not: the next measurement settles them.
    const done = this.meter(this.parts.states.filesOf(projectId))
      .then(
        (use) => void this.projects.set(projectId, { use, at, changed: false }),
        (error: unknown) => {
          // Unmeasured, it counts nothing until the next try: a failing count must not refuse every write.
          this.parts.logger.warn({ err: error, projectId }, "measuring a project's stored use failed");
        },
      )
      .finally(() => this.measuring.delete(projectId));
    this.measuring.set(projectId, done);
    return done;
  }

  /** Bytes of the dead letters a batch just added: read from its rows when this thread wrote them, else estimated. */
  private letterBytes(projectId: string, store: 'project' | 'partition', rejected: number, use: StoredUse): number {
    if (store === 'project') {
      try {
        return this.parts.states.store(projectId).newestDeadLetterBytes(rejected);
      } catch {
        // Fall through to the estimate.
      }
    }
    // The source thread wrote them: at the project's mean so far, or the most one keeps of a refused record.
    const known = use.deadLetters - rejected;
    return rejected * (known > 0 ? Math.ceil(use.deadLetterBytes / known) : MAX_RAW_BYTES);
  }
}
