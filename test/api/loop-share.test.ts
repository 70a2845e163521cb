import { describe, expect, it, vi } from 'vitest';
import { LoopShare } from '../../api/loop-share.js';
import { call, makeTenant, testApp } from './helpers.js';

describe('each tenant\'s share of the event loop', () => {
  it('decays a tenant\'s loop time by half each second', () => {
    let now = 0;
    const share = new LoopShare(50, () => now);
    expect(share.usage('a')).toBe(0);
    return (async () => {
      (await share.turn('a'))(80);
      expect(share.usage('a')).toBe(80);
      now = 1_000;
      expect(share.usage('a')).toBeCloseTo(40, 9);
      (await share.turn('a'))(10);
      now = 3_000;
      expect(share.usage('a')).toBeCloseTo(12.5, 9);
      expect(share.deferred).toBe(0);
    })();
  });

  it('lets another tenant\'s handler run between each two of a tenant past its share, and holds nobody alone', async () => {
    const share = new LoopShare(50);
    const order: string[] = [];
    // Tenant a has used 200 ms of the loop: its next handlers take turns.
    (await share.turn('a'))(200);
    const handler = async (tenant: string, label: string) => {
      const done = await share.turn(tenant);
      order.push(label);
      done(1);
    };
    const a = Array.from({ length: 5 }, (_, i) => handler('a', `a${i}`));
    // b's requests arrive while a's wait: each is read from the network between two of a's turns.
    const b = (async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        await handler('b', `b${i}`);
      }
    })();
    await Promise.all([...a, b]);
    expect(order.filter((x) => x.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    // b is never behind more than one of a's handlers.
    const firstB = order.indexOf('b0');
    expect(firstB).toBeLessThanOrEqual(1);
    expect(order.indexOf('b2')).toBeLessThan(order.indexOf('a4'));
    expect(share.deferred).toBe(5);
    // Past its share but alone: each handler is deferred (one turn of the loop, microseconds) and still runs, with no
    // timer to wait for: the loop below ends by itself.
    const alone = new LoopShare(50);
    (await alone.turn('c'))(500);
    for (let i = 0; i < 100; i++) (await alone.turn('c'))(0);
    expect(alone.deferred).toBe(100);
  });

  it('is off at 0', async () => {
    const share = new LoopShare(0);
    (await share.turn('a'))(10_000);
    (await share.turn('a'))(1);
    expect(share.deferred).toBe(0);
  });

  it('counts the handlers that waited in pcg_loop_share_deferred_total', async () => {
    const app = testApp({ loopShareMs: 1, metricsToken: 'metrics-token-0123456789' });
    try {
      const w = await makeTenant(app.app, 'share');
      // Each listing is charged its handler's time; past 1 ms of loop time the next ones wait their turn.
      for (let i = 0; i < 30; i++) expect((await call(app.app, 'GET', `/api/${w.tenantId}/project`, w.admin)).status).toBe(200);
      const text = (await call(app.app, 'GET', '/metrics', 'metrics-token-0123456789')).text;
      const deferred = Number(/^pcg_loop_share_deferred_total (\d+)/m.exec(text)?.[1]);
      expect(deferred).toBeGreaterThan(0);
      expect(deferred).toBeLessThanOrEqual(31);
    } finally {
      await app.close();
    }
  });

  it("charges MCP's tool calls to the tenant's share, as the routes' handlers are", async () => {
    const app = testApp();
    try {
      const w = await makeTenant(app.app, 'mcpshare');
      const charged = vi.spyOn(app.context.loopShare, 'charged');
      const names = ['list_projects', 'graph_versions', 'live_state'];
      for (const [i, name] of names.entries()) {
        const r = await app.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { authorization: `Bearer ${w.reader}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          payload: { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: name === 'list_projects' ? {} : { projectId: w.projectId } } },
        });
        expect(r.statusCode).toBe(200);
        expect(JSON.parse(r.body).result.isError ?? false).toBe(false);
      }
      // One turn per backend call the tools made (list_projects makes two: whoami, listProjects), each in the caller's tenant.
      expect(charged.mock.calls.map(([tenant]) => tenant)).toEqual([w.tenantId, w.tenantId, w.tenantId, w.tenantId]);
    } finally {
      await app.close();
    }
  });
});
