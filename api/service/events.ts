import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { Config } from '../config.js';
import { readIngestBody, tooManyEvents } from '../ingest-body.js';
import type { Ingest } from '../ingestion.js';
import type { TenantUsage } from '../usage.js';
import type { ProjectGrant } from './access.js';

/** A batch as a face hands it: a request body as it came (JSON or NDJSON bytes), or records already parsed (MCP's tool). */
export type EventInput = { body: Uint8Array | string; ndjson: boolean } | { records: unknown[] };

/** What one batch did, as every face answers it. */
export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: number;
  rejections: { location: string; reason: string }[];
  dataVersion: number;
}

/**
 * Events written to a project (`POST …/events`, MCP's `ingest_events`): one
 * cap, PCG_LIMIT_EVENTS_PER_REQUEST (413 past it, in the same words on every
 * face), the tenant's quotas, and one way in, the ingestion of api/ingestion.ts
 * (the fair queue and a work thread in `pcg serve`), or the registry in process
 * where there is none (`pcg mcp --data-dir`).
 */
export class EventIngestion {
  constructor(
    private readonly states: Pick<ProjectRegistry, 'ingest'>,
    private readonly config: Pick<Config, 'limitEventsPerRequest'>,
    private readonly ingestion?: Ingest,
    private readonly usage?: Pick<TenantUsage, 'check'>,
  ) {}

  /** The batch applied to the granted project (the grant's `write`); `signal` takes it out of the queue while it waits. */
  async ingest(grant: ProjectGrant, input: EventInput, signal?: AbortSignal): Promise<IngestAnswer> {
    const max = this.config.limitEventsPerRequest;
    // Parsed records are counted here; a body is counted where it is parsed (a work thread), against the same cap.
    if ('records' in input && input.records.length > max) throw tooManyEvents(input.records.length, max);
    const { tenantId, projectId } = grant;
    let applied;
    if (this.ingestion) applied = await this.ingestion(tenantId, projectId, input, signal);
    else {
      const batch = 'records' in input ? { records: input.records, rejected: [] } : readIngestBody(input.body, input.ndjson, max);
      await this.usage?.check(tenantId, batch.records.length);
      applied = this.states.ingest(projectId, batch);
    }
    const { accepted, duplicates, rejected, rejections, dataVersion } = applied;
    return { accepted, duplicates, rejected, rejections, dataVersion };
  }
}
