import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';

/**
 * MCP's ingest_events holds a batch to the server's PCG_LIMIT_EVENTS_PER_REQUEST, as `POST …/events` does (it was
 * a literal 10,000 in the tool's schema): the tool's schema says the server's cap, and past it nothing is applied.
 */
describe('MCP: ingest_events and PCG_LIMIT_EVENTS_PER_REQUEST', () => {
  let t: TestApp;
  let w: World;
  let base: string;
  beforeAll(async () => {
    t = testApp({ limitEventsPerRequest: 4 });
    w = await makeTenant(t.app, 'cap');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  const rpc = async (body: unknown) => {
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.admin}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    return (await r.json()) as any;
  };
  const events = (n: number) => Array.from({ length: n }, (_, i) => ({ caseId: `c${i}`, activity: 'a', timestamp: 1000 + i }));

  it('states the cap in the tool, refuses a batch past it, applies one within it', async () => {
    const listed = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const tool = listed.result.tools.find((x: any) => x.name === 'ingest_events');
    expect([tool.inputSchema.properties.events.maxItems, tool.inputSchema.properties.events.description]).toEqual([4, 'wire events (at most 4 per call)']);
    const over = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ingest_events', arguments: { projectId: w.projectId, events: events(5) } } });
    expect(over.result?.isError ?? over.error !== undefined).toBe(true);
    expect(t.context.states.store(w.projectId).eventCount()).toBe(0);
    const within = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ingest_events', arguments: { projectId: w.projectId, events: events(4) } } });
    expect(within.result.structuredContent).toMatchObject({ accepted: 4, rejected: 0 });
  });
});
