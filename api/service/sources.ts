import { compileMapping, groupIdOf, sourceInputSchema, type SourceInput } from '../../connectors/kafka/index.js';
import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { Catalog, SourceRecord } from '../catalog/index.js';
import { limitName, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import { byCreation, CREATED, mapPage, pageOfList, type Page, type PageQuery } from '../paging.js';
import { sourceStatus, type SourceStatus } from '../source-status.js';
import type { ProjectGrant } from './access.js';

/** A source as every face answers it: its declaration, with the cluster it reads and the group pcg derives; never its secrets. */
export interface SourceView {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  cluster: string | null;
  brokers: string[];
  topic: string;
  groupId: string;
  groupSuffix: string | null;
  format: NonNullable<SourceInput['format']>;
  mapping: NonNullable<SourceInput['mapping']>;
  start: NonNullable<SourceInput['start']>;
  sasl: { mechanism: string; username: string } | null;
  tls: { cert: string; hasKey: boolean } | null;
  changelog: boolean;
  paused: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What may change on a source: its runner restarts from the stored offsets. */
export interface SourceChange {
  name?: string | undefined;
  format?: SourceInput['format'] | undefined;
  mapping?: SourceInput['mapping'] | undefined;
}

export interface DeadLetterView {
  /** The cursor: `<partition>:<row>`. */
  id: string;
  partition: number;
  location: string;
  reason: string;
  payload: string;
  /** The message bytes kept, base64. */
  raw: string;
  receivedAt: string;
}

/**
 * The Kafka sources of a project (`…/source` over HTTP): subscribe, read with
 * their status, change, pause, resume, unsubscribe; dead letters listed and
 * replayed. The catalog holds the declarations; the supervisor (a thread of
 * `pcg serve`, or `pcg worker`) runs them, and `changed` tells it at once (it
 * reads the catalog within a second anyway).
 */
export class SourceSubscriptions {
  constructor(
    private readonly catalog: Pick<Catalog, 'sources' | 'clusters'>,
    private readonly states: Pick<ProjectRegistry, 'partsOf' | 'announce' | 'state'>,
    private readonly config: Pick<Config, 'limitSourcesPerProject'>,
    private readonly changed: () => void = () => undefined,
  ) {}

  /** A new source of the project, within PCG_LIMIT_SOURCES_PER_PROJECT (422); 409 when another tenant holds the topic. */
  subscribe(grant: ProjectGrant, input: SourceInput): SourceView {
    const max = this.config.limitSourcesPerProject;
    if (this.catalog.sources.countOf(grant.projectId) >= max) {
      throw new ApiError('limit_exceeded', `limit ${limitName('limitSourcesPerProject')}: a project may have at most ${max} sources (limit: sources per project)`);
    }
    const created = this.catalog.sources.create(grant.tenantId, grant.projectId, input);
    if ('refused' in created) throw new ApiError(created.refused === 'topic' ? 'conflict' : 'validation_failed', `body.${created.field}: ${created.message}`);
    this.changed();
    return this.view(created);
  }

  /** One page of the project's sources with their status, in creation order. */
  list(grant: ProjectGrant, query: PageQuery): Page<SourceView & { status: SourceStatus }> {
    return mapPage(pageOfList(this.catalog.sources.list(grant.tenantId, grant.projectId), query, CREATED, byCreation), (r) => this.withStatus(r));
  }

  /** One source with its status, or 404. */
  get(grant: ProjectGrant, sourceId: string): SourceView & { status: SourceStatus } {
    return this.withStatus(this.record(grant, sourceId));
  }

  /** The source's name, format or mapping changed (a format and a mapping that fit each other, 400 otherwise). */
  update(grant: ProjectGrant, sourceId: string, change: SourceChange): SourceView {
    const r = this.record(grant, sourceId);
    // The declaration as it would be: a format and a mapping that fit each other.
    const input = sourceInputSchema.safeParse({ cluster: 'kept', topic: r.input.topic, format: change.format ?? r.input.format, mapping: change.mapping ?? r.input.mapping, name: change.name ?? r.name });
    if (!input.success) throw new ApiError('validation_failed', input.error.issues.map((i) => `body.${i.path.join('.')}: ${i.message}`).join('; '));
    const updated = this.catalog.sources.update(grant.tenantId, grant.projectId, sourceId, change);
    this.changed();
    return this.view(updated ?? notFound());
  }

  /** Paused: the consumer leaves the group, the state keeps its offsets; resumed from them. */
  setPaused(grant: ProjectGrant, sourceId: string, paused: boolean): SourceView {
    this.record(grant, sourceId);
    const r = this.catalog.sources.setPaused(grant.tenantId, grant.projectId, sourceId, paused);
    this.changed();
    return this.view(r ?? notFound());
  }

  /** The source gone: consuming stops; the events it brought stay in the project. */
  unsubscribe(grant: ProjectGrant, sourceId: string): void {
    this.record(grant, sourceId);
    this.catalog.sources.delete(grant.tenantId, grant.projectId, sourceId);
    this.changed();
  }

  /** The source's dead letters from `after` (`<partition>:<row>`) on, at most `limit`, partition by partition. */
  deadLetters(grant: ProjectGrant, sourceId: string, after: string | undefined, limit: number): { items: DeadLetterView[]; next: string | null } {
    const r = this.record(grant, sourceId);
    const [afterPartition, afterId] = (after ?? '-1:0').split(':').map(Number) as [number, number];
    const items: DeadLetterView[] = [];
    for (const { partition, store } of this.states.partsOf(grant.projectId, r.id)) {
      if (partition < afterPartition || items.length >= limit) continue;
      const from = partition === afterPartition ? afterId : 0;
      for (const l of store.deadLetters({ source: r.id, after: from, limit: limit - items.length })) {
        items.push({
          id: `${partition}:${l.id}`,
          partition,
          location: l.location,
          reason: l.reason,
          payload: l.payload,
          raw: l.raw ? Buffer.from(l.raw).toString('base64') : '',
          receivedAt: new Date(l.receivedAt).toISOString(),
        });
      }
    }
    return { items, next: items.length === limit ? items[items.length - 1]!.id : null };
  }

  /** The dead letters re-mapped with the source's current mapping; those that now pass are applied, exactly once. */
  replay(grant: ProjectGrant, sourceId: string): { replayed: number; failing: number; dataVersion: number } {
    const r = this.record(grant, sourceId);
    const map = compileMapping(r.input.format, r.input.mapping);
    let replayed = 0;
    let failing = 0;
    for (const { store } of this.states.partsOf(grant.projectId, r.id)) {
      const result = store.replayDeadLetters(r.id, (letter) => (letter.raw ? map(Buffer.from(letter.raw)) : { reason: letter.reason }));
      replayed += result.replayed;
      failing += result.failing;
    }
    if (replayed > 0) this.states.announce(grant.projectId);
    return { replayed, failing, dataVersion: this.states.state(grant.projectId).dataVersion };
  }

  /** The source as answered. */
  view(r: SourceRecord): SourceView {
    const { input } = r;
    const { clusters } = this.catalog;
    const name = input.cluster ?? clusters.byBrokers(r.tenantId, input.brokers ?? []) ?? null;
    const cluster = name === null ? undefined : clusters.get(name);
    return {
      id: r.id,
      tenantId: r.tenantId,
      projectId: r.projectId,
      name: r.name,
      cluster: name,
      brokers: cluster?.brokers ?? input.brokers ?? [],
      topic: input.topic,
      groupId: groupIdOf(cluster?.groupPrefix ?? 'pcg', r.tenantId, r.id, input.groupSuffix),
      groupSuffix: input.groupSuffix ?? null,
      format: input.format ?? 'pcg',
      mapping: input.mapping ?? {},
      start: input.start ?? 'earliest',
      sasl: input.sasl ? { mechanism: input.sasl.mechanism, username: input.sasl.username } : null,
      tls: input.tls && typeof input.tls === 'object' && typeof input.tls.cert === 'string' ? { cert: input.tls.cert, hasKey: r.hasSecrets && input.tls.key !== undefined } : null,
      changelog: input.changelog ?? false,
      paused: r.paused,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private withStatus(r: SourceRecord): SourceView & { status: SourceStatus } {
    return { ...this.view(r), status: sourceStatus({ catalog: this.catalog, states: this.states }, r) };
  }

  private record(grant: ProjectGrant, sourceId: string): SourceRecord {
    return this.catalog.sources.get(grant.tenantId, grant.projectId, sourceId) ?? notFound();
  }
}

function notFound(): never {
  throw new ApiError('not_found', 'source not found');
}
