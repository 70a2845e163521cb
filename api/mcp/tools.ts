import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { blockSpecSchema, type BlockSpec } from '../../engine/projects/index.js';
import { toApiError } from '../errors.js';
import type { PcgBackend } from './backend.js';
import { DEFAULT_MAX_CHARS, fitItems, fitValue, graphUri, offsetOf, SECTIONS, size, type GraphViewRequest } from './views.js';
import { lowerGuid as lower } from '../service/access.js';

export interface McpServerOptions {
  /** Cap on one answer's JSON text (default 40,000 characters). */
  maxChars?: number;
  /** Told of failures that are not the caller's (5xx), for the log. */
  onError?: (error: unknown) => void;
  /** Events one ingest_events call may carry, as the server's PCG_LIMIT_EVENTS_PER_REQUEST (default 100,000). */
  maxEvents?: number;
}

const VERSION = '0.1.0';

const INSTRUCTIONS = `pcg turns a process's events into a process context graph: one JSON document with the activities (nodes), hand-offs (edges), variants, decision points with rules, sequence rules, policies and outcomes, each claim with its evidence.
Start with list_projects, then get_graph (a summary by default; view=<section> pages through one list; view=full for the whole document when it fits). diff_graphs compares two kept versions (graph_versions lists them). list_cases shows the cases of a variant or an outcome with their events. live_state says where the open cases are now and how long they have waited. explain_decision reads one decision point. run_block runs an analysis block (kpi, variants, conformance, filter, graph). ingest_events needs a key with write permission.
Lists are paginated: pass an answer's nextCursor as cursor. Answers are capped in size; a note says when something was cut.`;


const projectId = z.string().min(1).max(200).describe('a project id, as list_projects gives it');
const cursor = z.string().max(20).optional().describe('the nextCursor of the previous answer; omitted: the first page');
const limit = (def: number, max: number, what = 'items per page') => z.number().int().min(1).max(max).default(def).describe(`${what} (default ${def}, at most ${max})`);
const version = z.number().int().min(0).optional().describe('a data version whose document was served before (graph_versions); omitted: the newest');

/**
 * The MCP server of pcg: every tool and resource over one backend, so the
 * stdio server over a data directory, the stdio proxy of a running service and
 * the service's own `/mcp` endpoint answer alike. Answers are JSON (as text for
 * the model, and as structured content), kept under `maxChars`.
 */
export function buildMcpServer(backend: PcgBackend, options: McpServerOptions = {}): McpServer {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const maxEvents = options.maxEvents ?? 100_000;
  const server = new McpServer({ name: 'pcg', version: VERSION }, { instructions: INSTRUCTIONS });

  const answer = (value: Record<string, unknown>): CallToolResult => {
    const fitted = fitValue(value, maxChars);
    return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
  };
  const refusal = (error: unknown): CallToolResult => {
    const api = toApiError(error);
    if (api.status >= 500) options.onError?.(error);
    return { isError: true, content: [{ type: 'text', text: `${api.code}: ${api.message}` }] };
  };
  const run =
    <A>(fn: (args: A) => Promise<Record<string, unknown>>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        return answer(await fn(args));
      } catch (error) {
        return refusal(error);
      }
    };
  const page = <T>(all: readonly T[], cursorText: string | undefined, n: number, make: (items: T[], nextCursor: string | null) => Record<string, unknown>) => {
    const offset = offsetOf(cursorText);
    return fitItems(all.slice(offset, offset + n), maxChars, (items) => make(items, offset + items.length < all.length ? String(offset + items.length) : null));
  };
  const read = { readOnlyHint: true, openWorldHint: false } as const;

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: "The projects of this key's tenant it may see (a project-scoped key sees only its projects), with each one's data version and graph resource URI; also the key's tenant and permissions.",
      inputSchema: { cursor, limit: limit(50, 200) },
      annotations: read,
    },
    run(async (args: { cursor?: string | undefined; limit: number }) => {
      const who = await backend.whoami();
      const projects = await backend.listProjects();
      return page(projects, args.cursor, args.limit, (items, nextCursor) => ({
        tenantId: who.tenantId,
        permissions: who.permissions,
        projectScope: who.projectIds,
        total: projects.length,
        projects: items.map((p) => ({ ...p, resource: graphUri(p.tenantId, p.id) })),
        nextCursor,
      }));
    }),
  );

  server.registerTool(
    'get_graph',
    {
      title: 'Get the process context graph',
      description:
        "A project's process context graph, newest or by version. view=summary (default): counts, main path, top variants, outcomes and decisions. view=nodes|edges|variants|decisions|rules|policies|outcomes: one section, paginated (rules are the sequence rules). view=full: the whole document when it fits the answer cap (else the summary and a note).",
      inputSchema: {
        projectId,
        view: z.enum(['summary', 'full', ...SECTIONS]).default('summary').describe('summary (default), full, or one section'),
        version,
        cursor,
        limit: limit(25, 500, 'section items per page'),
      },
      annotations: read,
    },
    run(async (args: { projectId: string; view: 'summary' | 'full' | (typeof SECTIONS)[number]; version?: number | undefined; cursor?: string | undefined; limit: number }) => {
      const ask = (request: GraphViewRequest) => backend.graphView(args.projectId, [args.version], request);
      if (args.view === 'summary') {
        const g = await ask({ kind: 'summary' });
        return { projectId: g.projectId, dataVersion: g.dataVersions[0], view: args.view, ...g.result };
      }
      if (args.view === 'full') {
        const g = await ask({ kind: 'full', maxChars });
        const base = { projectId: g.projectId, dataVersion: g.dataVersions[0], view: args.view };
        const whole = { ...base, document: g.result.document };
        if (g.result.document !== undefined && size(whole) <= maxChars) return whole;
        const { tenantId } = await backend.whoami();
        return {
          ...base,
          view: 'summary',
          ...(g.result.summary as Record<string, unknown>),
          note: `the whole document is ${g.result.chars as number} characters, over this server's cap of ${maxChars}: read the resource ${graphUri(tenantId, g.projectId)} for it whole, or page through one section at a time (view=nodes, edges, ...)`,
        };
      }
      // Only the asked page leaves the thread that parsed the document; it is then cut to the cap here.
      const offset = offsetOf(args.cursor);
      const g = await ask({ kind: 'section', section: args.view, offset, limit: args.limit });
      const { total, items } = g.result as { total: number; items: unknown[] };
      const base = { projectId: g.projectId, dataVersion: g.dataVersions[0], view: args.view };
      return fitItems(items, maxChars, (its) => ({ ...base, total, items: its, nextCursor: offset + its.length < total ? String(offset + its.length) : null }));
    }),
  );

  server.registerTool(
    'graph_versions',
    {
      title: 'List kept graph versions',
      description: 'The data versions of a project whose documents were served and are kept (the newest 500), newest first: what get_graph version= and diff_graphs accept.',
      inputSchema: { projectId, cursor, limit: limit(50, 500) },
      annotations: read,
    },
    run(async (args: { projectId: string; cursor?: string | undefined; limit: number }) => {
      const versions = [...(await backend.versions(args.projectId))].reverse();
      return page(versions, args.cursor, args.limit, (items, nextCursor) => ({ projectId: lower(args.projectId), total: versions.length, versions: items, nextCursor }));
    }),
  );

  server.registerTool(
    'diff_graphs',
    {
      title: 'What changed between two versions',
      description:
        'Compares two documents of a project by item id: nodes, edges, variants, sequence rules and policies added, removed and changed (with the changed fields), with counts per kind, and the change in cases and events. from must be a kept version; to defaults to the newest.',
      inputSchema: {
        projectId,
        from: z.number().int().min(0).describe('the older data version (kept: see graph_versions)'),
        to: version.describe('the newer data version; omitted: the newest document'),
        limit: limit(20, 200, 'items shown per list (counts are always complete)'),
      },
      annotations: read,
    },
    run(async (args: { projectId: string; from: number; to?: number | undefined; limit: number }) => {
      const d = await backend.graphView(args.projectId, [args.from, args.to], { kind: 'diff', limit: args.limit });
      return { projectId: d.projectId, from: d.dataVersions[0], to: d.dataVersions[1], ...d.result };
    }),
  );

  server.registerTool(
    'list_cases',
    {
      title: 'List the cases of a variant or an outcome',
      description:
        "The cases of one variant (its id, or an activity path for variants under 1% that the document leaves out) or of one outcome (its id or end activity: the cases whose last event is that activity), with their events, paginated, from the project's current state; total counts every match.",
      inputSchema: {
        projectId,
        variant: z.string().max(200).optional().describe('a variant id of the newest document (v-…)'),
        path: z.array(z.string()).min(1).max(1000).optional().describe('an activity sequence, instead of a variant id'),
        outcome: z.string().max(500).optional().describe('an outcome id of the newest document (success-…) or an end activity'),
        cursor,
        limit: limit(10, 100, 'cases per page'),
        maxEvents: limit(50, 1000, 'events shown per case'),
      },
      annotations: read,
    },
    run(async (args: { projectId: string; variant?: string | undefined; path?: string[] | undefined; outcome?: string | undefined; cursor?: string | undefined; limit: number; maxEvents: number }) => {
      return { ...(await backend.cases(args.projectId, args)) };
    }),
  );

  server.registerTool(
    'live_state',
    {
      title: 'Where the open cases are now',
      description:
        "Per activity, the open cases whose last event it is (the document's outcome rule applied case by case to the project's current state: the totals of its open outcomes), how long they have waited (median, longest, hours up to asOf) against the step's usual wait (its median wait to the next step), and how many wait longer than that. Not part of the document.",
      inputSchema: { projectId, limit: limit(50, 2000, 'activities listed, most open cases first (openCases counts them all)') },
      annotations: read,
    },
    run(async (args: { projectId: string; limit: number }) => {
      const live = await backend.live(args.projectId);
      const shown = live.activities.slice(0, args.limit);
      return { ...live, activities: shown, ...(shown.length < live.activities.length ? { note: `${live.activities.length - shown.length} more activities with open cases left out (limit)` } : {}) };
    }),
  );

  server.registerTool(
    'explain_decision',
    {
      title: 'Explain a decision point',
      description:
        'One decision point of the document read out: where it is, its branches with their shares and hand-off waits, the rules that explain the choice with their evidence (or that none does, against the baseline of always guessing the commonest branch), and the open question about it.',
      inputSchema: {
        projectId,
        decision: z.string().min(1).max(500).describe('a decision id (decision-…) or the activity it sits at'),
        version,
      },
      annotations: read,
    },
    run(async (args: { projectId: string; decision: string; version?: number | undefined }) => {
      const g = await backend.graphView(args.projectId, [args.version], { kind: 'decision', decision: args.decision });
      return { projectId: g.projectId, dataVersion: g.dataVersions[0], ...g.result };
    }),
  );

  server.registerTool(
    'run_block',
    {
      title: 'Run an analysis block',
      description:
        "Runs one notebook block over the project's current state without storing it: kpi (cases, events, throughput hours), variants (the commonest activity sequences, limit), conformance (fitness against allowed directly-follows pairs, with the commonest deviations), filter (how many cases and events a scope keeps), graph (the document, answered as its summary).",
      inputSchema: { projectId, block: blockSpecSchema },
      annotations: read,
    },
    run(async (args: { projectId: string; block: BlockSpec }) => {
      // A graph block is answered as its document's summary (the backend sees to it).
      const r = await backend.runBlock(args.projectId, args.block);
      return { projectId: r.projectId, dataVersion: r.dataVersion, type: r.type, result: r.result };
    }),
  );

  server.registerTool(
    'ingest_events',
    {
      title: 'Ingest events',
      description:
        'Adds events to a project through the same path as the HTTP API (needs a key with write permission). Each event is a wire event: {caseId, activity, timestamp (ISO 8601 or epoch ms), eventId?, resource?, attributes?, objects?}. Invalid events are rejected one by one with their reason, the rest accepted; an event already ingested counts as a duplicate.',
      inputSchema: {
        projectId,
        events: z
          .array(z.record(z.string(), z.unknown()))
          .min(1)
          .max(maxEvents)
          .describe(`wire events (at most ${maxEvents.toLocaleString('en')} per call)`),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    run(async (args: { projectId: string; events: Record<string, unknown>[] }) => {
      const r = await backend.ingest(args.projectId, args.events);
      return { ...r, rejections: r.rejections.slice(0, 20) };
    }),
  );

  const resourceError = (error: unknown): McpError => {
    const api = toApiError(error);
    if (api.status >= 500) options.onError?.(error);
    return new McpError(api.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest, `${api.code}: ${api.message}`);
  };
  server.registerResource(
    'graph',
    new ResourceTemplate('pcg://{tenantId}/{projectId}/graph', {
      list: async () => {
        try {
          const projects = await backend.listProjects();
          return {
            resources: projects.map((p) => ({
              uri: graphUri(p.tenantId, p.id),
              name: `${p.name}: process context graph`,
              description: `the newest process context graph document of project ${p.name} (data version ${p.dataVersion})`,
              mimeType: 'application/json',
            })),
          };
        } catch (error) {
          throw resourceError(error);
        }
      },
    }),
    { title: 'Process context graph', description: "A project's newest process context graph document, whole (JSON).", mimeType: 'application/json' },
    async (uri, variables) => {
      try {
        const who = await backend.whoami();
        if (lower(String(variables.tenantId)) !== who.tenantId) throw new McpError(ErrorCode.InvalidRequest, 'forbidden: this key has no access to that tenant');
        const g = await backend.graph(String(variables.projectId));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: g.json }] };
      } catch (error) {
        throw error instanceof McpError ? error : resourceError(error);
      }
    },
  );
  return server;
}
