import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, events, GLOBAL, makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';

/**
 * The MCP server driven by the SDK's own client, over streamable HTTP against a
 * listening app (createApp + listen, as `pcg serve`), and over stdio by
 * spawning `pcg mcp` on the same data directory (--data-dir) and against the
 * listening app (--url). No mocks: real catalog, stores, keys and documents.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

let t: TestApp;
let w: World;
let other: World;
let base: string;
let p2: string;
let scoped: string;
const clients: Client[] = [];

async function overHttp(key: string): Promise<Client> {
  const client = new Client({ name: 'pcg-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

async function overStdio(args: string[], key: string): Promise<Client> {
  const client = new Client({ name: 'pcg-test', version: '1.0.0' });
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['api/bin.mjs', 'mcp', ...args], cwd: root, env: { ...env, PCG_MCP_KEY: key }, stderr: 'pipe' }));
  clients.push(client);
  return client;
}

interface ToolAnswer {
  isError: boolean;
  text: string;
  data: any;
}
async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text: string }[])[0]?.text ?? '';
  return { isError: r.isError === true, text, data: r.structuredContent };
}
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await tool(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
}

const graphPath = () => `/api/${w.tenantId}/project/${w.projectId}/graph`;
const later = (cases: number, prefix: string, day: number) =>
  events(cases, Date.UTC(2024, 1, day)).map((e: any) => ({ ...e, caseId: `${prefix}${e.caseId}`, eventId: `${prefix}${e.eventId}` }));

beforeAll(async () => {
  t = testApp();
  w = await makeTenant(t.app, 'mcp');
  other = await makeTenant(t.app, 'mcp-other');
  p2 = (await call(t.app, 'POST', `/api/${w.tenantId}/project`, w.admin, { name: 'second' })).body.id;
  expect((await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/events`, w.admin, events(30))).status).toBe(200);
  const key = await call(t.app, 'POST', `/api/${w.tenantId}/apikey`, w.admin, { userId: w.readerUserId, name: 'scoped reader', permissions: ['read'], projectIds: [w.projectId] });
  expect(key.status).toBe(201);
  scoped = key.body.key;
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await t?.close();
});

describe('MCP over streamable HTTP at /mcp', () => {
  it('refuses a request without a valid tenant key with the API error format; GET is 405', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
    const cases: [Record<string, string>, number, string][] = [
      [{}, 401, 'invalid_token'],
      [{ authorization: 'Bearer not-a-key' }, 401, 'invalid_token'],
      [{ authorization: `Bearer ${GLOBAL}` }, 403, 'forbidden'],
    ];
    for (const [headers, status, code] of cases) {
      const r = await post(headers);
      expect(r.status).toBe(status);
      const body = (await r.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'timestamp']);
      expect(body.error).toBe(code);
      expect(body.requestId).toBe(r.headers.get('x-request-id'));
    }
    const ok200 = await post({ authorization: `Bearer ${w.reader}` });
    expect(ok200.status).toBe(200);
    expect(((await ok200.json()) as any).result.serverInfo.name).toBe('pcg');
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${w.reader}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it("lists the key's projects: the whole tenant, or a scoped key's own", async () => {
    const all = await ok(await overHttp(w.reader), 'list_projects');
    expect(all.tenantId).toBe(w.tenantId);
    expect(all.total).toBe(2);
    expect(all.projects.map((p: any) => p.id).sort()).toEqual([w.projectId, p2].sort());
    expect(all.projects.find((p: any) => p.id === w.projectId).resource).toBe(`pcg://${w.tenantId}/${w.projectId}/graph`);
    const httpList = await call(t.app, 'GET', `/api/${w.tenantId}/project`, w.reader);
    expect(all.projects.map((p: any) => [p.id, p.dataVersion])).toEqual(httpList.body.items.map((p: any) => [p.id, p.dataVersion]));
    const mine = await ok(await overHttp(scoped), 'list_projects');
    expect(mine.projectScope).toEqual([w.projectId]);
    expect(mine.projects.map((p: any) => p.id)).toEqual([w.projectId]);
    const paged = await ok(await overHttp(w.reader), 'list_projects', { limit: 1 });
    expect(paged.projects).toHaveLength(1);
    expect(paged.nextCursor).toBe('1');
  });

  it("answers the graph summary with the HTTP document's counts, sections a page at a time, and the whole document", async () => {
    const c = await overHttp(w.reader);
    const doc = (await call(t.app, 'GET', graphPath(), w.reader)).body;
    const s = await ok(c, 'get_graph', { projectId: w.projectId });
    expect(s.view).toBe('summary');
    expect(String(s.dataVersion)).toBe(doc.source.data_version);
    expect(s.counts).toMatchObject({
      nodes: doc.nodes.length,
      edges: doc.edges.length,
      variants: doc.variants.length,
      decisions: doc.decisions.length,
      sequence_rules: doc.sequence_rules.length,
      policies: doc.policies.length,
      outcomes: doc.outcomes.length,
    });
    expect(s.source.cases).toBe(30);
    // 20 cases a→b→c against 10 a→c: a gap within sampling noise (10 < 2·√30), so the document names no main path.
    expect(doc.variants.map((v: any) => [v.class, v.cases])).toEqual([
      ['allowed', 20],
      ['allowed', 10],
    ]);
    expect(s.main_path).toBeNull();
    expect(s.top_variants.map((v: any) => v.id)).toEqual(doc.variants.map((v: any) => v.id));
    expect(s.top_decisions[0].id).toBe(doc.decisions[0].id);

    const first = await ok(c, 'get_graph', { projectId: w.projectId, view: 'edges', limit: 2 });
    expect(first.total).toBe(doc.edges.length);
    expect(first.items).toEqual(doc.edges.slice(0, 2));
    expect(first.nextCursor).toBe('2');
    const rest = await ok(c, 'get_graph', { projectId: w.projectId, view: 'edges', cursor: first.nextCursor, limit: 100 });
    expect(rest.items).toEqual(doc.edges.slice(2));
    expect(rest.nextCursor).toBeNull();
    expect((await ok(c, 'get_graph', { projectId: w.projectId, view: 'rules', limit: 100 })).items).toEqual(doc.sequence_rules);
    expect((await ok(c, 'get_graph', { projectId: w.projectId, view: 'full' })).document).toEqual(doc);
    const byVersion = await ok(c, 'get_graph', { projectId: w.projectId, version: Number(doc.source.data_version), view: 'outcomes' });
    expect(byVersion.items).toEqual(doc.outcomes);
    const missing = await tool(c, 'get_graph', { projectId: w.projectId, version: 99_999 });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^not_found: /);
  });

  it('caps an answer: a section page too large is cut with a note and a cursor to go on', async () => {
    const { LocalBackend } = await import('../../api/mcp/local.js');
    const { buildMcpServer } = await import('../../api/mcp/tools.js');
    const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
    const { Auth } = await import('../../api/auth.js');
    const { RateLimiter } = await import('../../api/rate-limit.js');
    const { CaseReads, Graphs } = await import('../../engine/projects/index.js');
    const auth = new Auth(t.context.catalog, new RateLimiter(0, 0));
    const principal = auth.authenticate({ headers: { authorization: `Bearer ${w.reader}` } } as any, { tenant: 'read' });
    const graphs = new Graphs(t.context.states, t.context.catalog.graphVersions);
    const server = buildMcpServer(new LocalBackend({ ...t.context, graphs, cases: new CaseReads(t.context.states) }, () => principal, 2000), { maxChars: 2000 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = new Client({ name: 'cap', version: '1' });
    await c.connect(b);
    clients.push(c);
    const r = await tool(c, 'get_graph', { projectId: w.projectId, view: 'edges', limit: 100 });
    expect(r.text.length).toBeLessThanOrEqual(2000);
    expect(r.data.items.length).toBeGreaterThanOrEqual(1);
    expect(r.data.items.length).toBeLessThan(r.data.total);
    expect(r.data.note).toMatch(/cut to \d+ of the \d+ items/);
    expect(r.data.nextCursor).toBe(String(r.data.items.length));
    const full = await tool(c, 'get_graph', { projectId: w.projectId, view: 'full' });
    expect(full.data.view).toBe('summary');
    expect(full.data.note).toContain(`pcg://${w.tenantId}/${w.projectId}/graph`);
  });

  it('refuses a key without access to the project', async () => {
    const doc = await tool(await overHttp(scoped), 'get_graph', { projectId: p2 });
    expect(doc.isError).toBe(true);
    expect(doc.text).toBe('forbidden: this key has no access to that project');
    const foreign = await overHttp(other.admin);
    for (const name of ['get_graph', 'list_cases', 'explain_decision']) {
      const r = await tool(foreign, name, { projectId: w.projectId, decision: 'a', outcome: 'c' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^not_found: project .* not found in this key's tenant/);
    }
    expect((await ok(foreign, 'list_projects')).projects.map((p: any) => p.id)).toEqual([other.projectId]);
    await expect(foreign.readResource({ uri: `pcg://${w.tenantId}/${w.projectId}/graph` })).rejects.toThrow(/forbidden/);
  });

  it('refuses ingestion with a read key; a write key ingests and the next graph has a higher data version', async () => {
    const before = await ok(await overHttp(w.reader), 'get_graph', { projectId: w.projectId });
    const refused = await tool(await overHttp(w.reader), 'ingest_events', { projectId: w.projectId, events: later(3, 'r', 1) });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe("forbidden: this key lacks the 'write' permission");
    const writer = await overHttp(w.admin);
    const r = await ok(writer, 'ingest_events', { projectId: w.projectId, events: [...later(6, 'h', 1), { caseId: 'x', activity: 'a' }] });
    expect(r).toMatchObject({ accepted: 16, duplicates: 0, rejected: 1 });
    expect(r.rejections[0].reason).toMatch(/timestamp/);
    const after = await ok(writer, 'get_graph', { projectId: w.projectId });
    expect(after.dataVersion).toBeGreaterThan(before.dataVersion);
    expect(after.source.cases).toBe(36);
    const again = await ok(writer, 'ingest_events', { projectId: w.projectId, events: later(6, 'h', 1) });
    expect(again).toMatchObject({ accepted: 0, duplicates: 16 });

    const versions = await ok(writer, 'graph_versions', { projectId: w.projectId });
    expect(versions.versions[0].dataVersion).toBe(after.dataVersion);
    const diff = await ok(writer, 'diff_graphs', { projectId: w.projectId, from: before.dataVersion });
    expect(diff).toMatchObject({ from: before.dataVersion, to: after.dataVersion, source: { cases: { from: 30, to: 36 } } });
    expect(Object.keys(diff.counts)).toEqual(['nodes', 'edges', 'variants', 'rules', 'policies']);
    expect(diff.counts.nodes).toMatchObject({ added: 0, removed: 0, before: before.counts.nodes, after: after.counts.nodes });
    expect(diff.counts.nodes.changed).toBeGreaterThan(0);
    const nodeA = diff.changes.nodes.changed.find((x: any) => x.id === 'a');
    expect(nodeA.fields.cases).toEqual({ from: 30, to: 36 });
    expect(diff.counts.variants.changed).toBe(2);
  });

  it("lists a variant's and an outcome's cases with their events, explains a decision and runs a block, from the document's numbers", async () => {
    const c = await overHttp(w.reader);
    const doc = (await call(t.app, 'GET', graphPath(), w.reader)).body;
    // The commonest listed path (main where it leads beyond noise; tied paths have no main).
    const main = doc.variants[0];
    const page1 = await ok(c, 'list_cases', { projectId: w.projectId, variant: main.id, limit: 3 });
    expect(page1.total).toBe(main.cases);
    expect(page1.cases).toHaveLength(3);
    for (const k of page1.cases) expect(k.events.map((e: any) => e.activity)).toEqual(main.path);
    expect(page1.nextCursor).toBe('3');
    const seen = new Set(page1.cases.map((k: any) => k.caseId));
    let cursor = page1.nextCursor;
    while (cursor) {
      const next = await ok(c, 'list_cases', { projectId: w.projectId, variant: main.id, cursor, limit: 10 });
      for (const k of next.cases) seen.add(k.caseId);
      cursor = next.nextCursor;
    }
    expect(seen.size).toBe(main.cases);
    const byPath = await ok(c, 'list_cases', { projectId: w.projectId, path: ['a', 'c'], limit: 1, maxEvents: 1 });
    expect(byPath.total).toBe(doc.variants.find((v: any) => v.path.join() === 'a,c').cases);
    expect(byPath.cases[0]).toMatchObject({ eventCount: 2, events: [{ activity: 'a' }] });
    const outcome = doc.outcomes[0];
    const ended = await ok(c, 'list_cases', { projectId: w.projectId, outcome: outcome.id });
    expect(ended.total).toBe(outcome.cases);
    expect((await tool(c, 'list_cases', { projectId: w.projectId })).text).toMatch(/^validation_failed: give exactly one/);

    const d = doc.decisions[0];
    const e = await ok(c, 'explain_decision', { projectId: w.projectId, decision: d.at });
    expect(e.decision).toEqual(d);
    // The hand-offs out of the decision's activity: found through its node (edges join node ids, decisions name activities).
    const atNode = doc.nodes.find((n: any) => n.kind === 'activity' && n.label === d.at);
    expect(e.edges_out.map((x: any) => x.to).sort()).toEqual(doc.edges.filter((x: any) => x.from === atNode.id).map((x: any) => x.to).sort());
    expect(e.edges_out.length).toBeGreaterThan(1);
    // Every branch of the decision is one of those hand-offs, named as the decision names it.
    for (const b of d.branches) expect(e.edges_out.map((x: any) => x.to_activity)).toContain(b.to);
    expect(e.reading[0]).toContain(`At '${d.at}'`);
    expect((await tool(c, 'explain_decision', { projectId: w.projectId, decision: 'nowhere' })).text).toMatch(/^not_found: no decision 'nowhere'/);

    const kpi = await ok(c, 'run_block', { projectId: w.projectId, block: { type: 'kpi' } });
    expect(kpi.result).toMatchObject({ cases: doc.source.cases, events: doc.source.events });
    const top = await ok(c, 'run_block', { projectId: w.projectId, block: { type: 'variants', limit: 1 } });
    expect(top.result.variants[0]).toMatchObject({ activities: main.path, cases: main.cases });
    const g = await ok(c, 'run_block', { projectId: w.projectId, block: { type: 'graph' } });
    expect(g.result.summary.counts.edges).toBe(doc.edges.length);
    expect((await tool(c, 'run_block', { projectId: w.projectId, block: { type: 'nope' } })).isError).toBe(true);
  });

  it("offers each project's newest document as a resource", async () => {
    const c = await overHttp(w.reader);
    const list = await c.listResources();
    expect(list.resources.map((r) => r.uri).sort()).toEqual([w.projectId, p2].map((p) => `pcg://${w.tenantId}/${p}/graph`).sort());
    const http = await call(t.app, 'GET', graphPath(), w.reader);
    const read = await c.readResource({ uri: `pcg://${w.tenantId}/${w.projectId}/graph` });
    expect((read.contents[0] as { text: string }).text).toBe(http.text);
    const tools = (await c.listTools()).tools.map((x) => x.name).sort();
    expect(tools).toEqual(['diff_graphs', 'explain_decision', 'get_graph', 'graph_versions', 'ingest_events', 'list_cases', 'list_projects', 'live_state', 'run_block']);
  });
});

/** The same questions to two servers, answered alike. */
async function sameAnswers(a: Client, b: Client): Promise<void> {
  const doc = (await call(t.app, 'GET', graphPath(), w.reader)).body;
  const questions: [string, Record<string, unknown>][] = [
    ['list_projects', {}],
    ['get_graph', { projectId: w.projectId }],
    ['get_graph', { projectId: w.projectId, view: 'variants', limit: 1 }],
    ['list_cases', { projectId: w.projectId, variant: doc.variants[0].id, limit: 2 }],
    ['explain_decision', { projectId: w.projectId, decision: doc.decisions[0].id }],
    ['run_block', { projectId: w.projectId, block: { type: 'kpi' } }],
    ['live_state', { projectId: w.projectId }],
    ['get_graph', { projectId: p2.toUpperCase() }],
  ];
  for (const [name, args] of questions) expect(await tool(b, name, args), name).toEqual(await tool(a, name, args));
}

describe('MCP over stdio (pcg mcp)', () => {
  it('over the data directory (--data-dir) answers as /mcp does, and ingests with a write key', async () => {
    const local = await overStdio(['--data-dir', t.dir], w.admin);
    await sameAnswers(await overHttp(w.admin), local);
    const before = await ok(local, 'get_graph', { projectId: w.projectId });
    const r = await ok(local, 'ingest_events', { projectId: w.projectId, events: later(3, 's', 5) });
    expect(r.accepted).toBe(8);
    const after = await ok(await overHttp(w.reader), 'get_graph', { projectId: w.projectId });
    expect(after.dataVersion).toBeGreaterThan(before.dataVersion);
    expect(after.source.cases).toBe(before.source.cases + 3);
  });

  it('over the data directory refuses a read key ingesting and a scoped key outside its project', async () => {
    const reader = await overStdio(['--data-dir', t.dir], w.reader);
    const r = await tool(reader, 'ingest_events', { projectId: w.projectId, events: later(1, 'z', 7) });
    expect(r).toMatchObject({ isError: true, text: "forbidden: this key lacks the 'write' permission" });
    const narrow = await overStdio(['--data-dir', t.dir], scoped);
    expect((await tool(narrow, 'get_graph', { projectId: p2 })).text).toBe('forbidden: this key has no access to that project');
    expect((await ok(narrow, 'list_projects')).projects.map((p: any) => p.id)).toEqual([w.projectId]);
  });

  it('proxying the service (--url) answers as /mcp does, refusals included', async () => {
    const remote = await overStdio(['--url', base], w.admin);
    await sameAnswers(await overHttp(w.admin), remote);
    const reader = await overStdio(['--url', base], w.reader);
    expect((await tool(reader, 'ingest_events', { projectId: w.projectId, events: later(1, 'y', 8) })).text).toBe("forbidden: this key lacks the 'write' permission");
    const narrow = await overStdio(['--url', base], scoped);
    expect((await tool(narrow, 'get_graph', { projectId: p2 })).text).toBe('forbidden: this key has no access to that project');
    const before = await ok(remote, 'get_graph', { projectId: w.projectId });
    expect((await ok(remote, 'ingest_events', { projectId: w.projectId, events: later(2, 'u', 9) })).accepted).toBeGreaterThan(0);
    expect((await ok(remote, 'get_graph', { projectId: w.projectId })).dataVersion).toBeGreaterThan(before.dataVersion);
    const read = await remote.readResource({ uri: `pcg://${w.tenantId}/${w.projectId}/graph` });
    expect((read.contents[0] as { text: string }).text).toBe((await call(t.app, 'GET', graphPath(), w.reader)).text);
  });

  it('exits 1 with the reason when the key is not usable, and 2 on bad options', async () => {
    // Spawned without blocking: the --url case asks this very process's server.
    const run = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['api/bin.mjs', 'mcp', ...args], { cwd: root, env: { ...process.env, PCG_MCP_KEY: '' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b) => (stdout += b));
        child.stderr.on('data', (b) => (stderr += b));
        child.stdin.end();
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const bad = await run(['--data-dir', t.dir, '--key', 'not-a-key']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('invalid_token');
    expect(bad.stdout).toBe('');
    const global = await run(['--data-dir', t.dir, '--key', GLOBAL]);
    expect(global.status).toBe(1);
    expect(global.stderr).toContain('forbidden');
    const remoteBad = await run(['--url', base, '--key', 'not-a-key']);
    expect(remoteBad.status).toBe(1);
    expect(remoteBad.stderr).toContain('invalid_token');
    expect((await run(['--data-dir', t.dir])).status).toBe(2);
    expect((await run(['--key', 'k', '--data-dir', t.dir, '--url', base])).status).toBe(2);
  });
});
