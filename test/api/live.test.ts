import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, makeTenant, testApp, type TestApp, type World } from './helpers.js';

const H = 3_600_000;
const T0 = Date.UTC(2024, 2, 4);
const at = (hours: number) => new Date(T0 + hours * H).toISOString();

/**
 * A log whose open cases are known. 40 finished cases Receive → Check → Ship → Close Order (Receive waits 2 h,
 * Check 1 h, or 4 h in every fourth case, Ship 2 h); the last event is at 44 h. Then, counted back from 44 h:
 * o1 at Receive since 43 h and o2 since 42.5 h (recent: Receive's 95th-percentile wait is 2 h), o3 at Check since
 * 41.75 h (recent within Check's 4 h, and past its usual 1 h), s1 at Check since 11 h (stalled, not open), and f1
 * stopped at Cancelled (a failure, not open).
 */
function knownLog(): object[] {
  const out: object[] = [];
  const add = (caseId: string, steps: [string, number][]) => steps.forEach(([activity, h], i) => out.push({ caseId, activity, timestamp: at(h), eventId: `${caseId}-${i}` }));
  for (let i = 0; i < 40; i++) {
    const ship = i + 2 + (i % 4 === 0 ? 4 : 1);
    add(`done${i}`, [['Receive', i], ['Check', i + 2], ['Ship', ship], ['Close Order', ship + 2]]);
  }
  add('o1', [['Receive', 43]]);
  add('o2', [['Receive', 42.5]]);
  add('o3', [['Receive', 39], ['Check', 41.75]]);
  add('s1', [['Receive', 10], ['Check', 11]]);
  add('f1', [['Receive', 43], ['Cancelled', 43.5]]);
  return out;
}

describe('GET …/live: where the open cases are', () => {
  let t: TestApp;
  let w: World;
  beforeEach(async () => {
    t = testApp();
    w = await makeTenant(t.app, 'live');
  });
  afterEach(() => t.close());

  it('counts the open cases per last activity exactly, with their waits, as the document counts them', async () => {
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    expect((await call(t.app, 'POST', `${base}/events`, w.admin, knownLog())).status).toBe(200);
    const r = await call(t.app, 'GET', `${base}/live`, w.reader);
    expect(r.status, r.text).toBe(200);
    expect(r.body.asOf).toBe(at(44));
    expect(r.body.cases).toBe(45);
    expect(r.body.openCases).toBe(3);
    const byActivity = Object.fromEntries(r.body.activities.map((a: { activity: string }) => [a.activity, a]));
    expect(r.body.activities.map((a: { activity: string }) => a.activity)).toEqual(['Receive', 'Check']);
    expect(byActivity.Receive).toMatchObject({ openCases: 2, waitedHours: { median: 1, max: 1.5 }, overUsual: 0 });
    expect(byActivity.Check).toMatchObject({ openCases: 1, waitedHours: { median: 2.25, max: 2.25 }, overUsual: 1 });
    // The usual waits are the document's node medians (2 h after Receive, 1 h after Check, read from its sketch).
    const doc = (await call(t.app, 'GET', `${base}/graph`, w.reader)).body;
    const median = (label: string) => doc.nodes.find((n: { label: string }) => n.label === label).median_hours_to_next;
    expect(byActivity.Receive.usualWaitHours).toBe(median('Receive'));
    expect(byActivity.Check.usualWaitHours).toBe(median('Check'));
    expect(Math.abs(median('Receive') - 2)).toBeLessThan(0.05);
    expect(Math.abs(median('Check') - 1)).toBeLessThan(0.05);
    // The document's open outcomes are the same cases, counted from the tally.
    const open = doc.outcomes.filter((o: { kind: string }) => o.kind === 'open').map((o: { end_activity: string; cases: number }) => [o.end_activity, o.cases]);
    expect(Object.fromEntries(open)).toEqual({ Receive: 2, Check: 1 });
    expect(r.body.dataVersion).toBe(Number(doc.source.data_version));

    // A case moves on: o1 reaches Check at 44 h (not past Check's usual wait), so Receive keeps one.
    await call(t.app, 'POST', `${base}/events`, w.admin, [{ caseId: 'o1', activity: 'Check', timestamp: at(44), eventId: 'o1-1' }]);
    const next = (await call(t.app, 'GET', `${base}/live`, w.reader)).body;
    expect(next.activities.map((a: { activity: string; openCases: number }) => [a.activity, a.openCases])).toEqual([['Check', 2], ['Receive', 1]]);
    expect(next.activities[0].waitedHours).toEqual({ median: 0, max: 2.25 });
  });

  it('answers an empty project with no open cases', async () => {
    const r = await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/live`, w.reader);
    expect(r.body).toMatchObject({ asOf: null, cases: 0, openCases: 0, activities: [] });
  });

  it("refuses another tenant's key as the document's route does", async () => {
    const other = await makeTenant(t.app, 'other');
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    await call(t.app, 'POST', `${base}/events`, w.admin, knownLog());
    for (const key of [other.admin, other.reader]) {
      const live = await call(t.app, 'GET', `${base}/live`, key);
      const graph = await call(t.app, 'GET', `${base}/graph`, key);
      expect([live.status, live.body.error]).toEqual([graph.status, graph.body.error]);
      expect(live.status).toBeGreaterThanOrEqual(403);
      // Its own tenant's path with the other project: not found, as for the document.
      const cross = await call(t.app, 'GET', `/api/${other.tenantId}/project/${w.projectId}/live`, key);
      expect([cross.status, cross.body.error]).toEqual([404, 'not_found']);
    }
    expect((await call(t.app, 'GET', `${base}/live`)).status).toBe(401);
  });

  it('the MCP tool live_state answers the same counts', async () => {
    const base = `/api/${w.tenantId}/project/${w.projectId}`;
    await call(t.app, 'POST', `${base}/events`, w.admin, knownLog());
    const http = (await call(t.app, 'GET', `${base}/live`, w.reader)).body;
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'live', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization: `Bearer ${w.reader}` } } }));
    try {
      const r = await client.callTool({ name: 'live_state', arguments: { projectId: w.projectId } });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual(http);
      const one = await client.callTool({ name: 'live_state', arguments: { projectId: w.projectId, limit: 1 } });
      expect((one.structuredContent as { activities: unknown[]; openCases: number; note: string }).activities).toHaveLength(1);
      expect((one.structuredContent as { openCases: number }).openCases).toBe(3);
    } finally {
      await client.close();
    }
  });
});
