import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';

/**
 * Issue 32, L2: a JSON-RPC batch at /mcp costs one rate-limit token per
 * message, all at once or none (a batch the key's bucket cannot pay is 429
 * with Retry-After, and costs nothing but the request's own token), and holds
 * at most PCG_MCP_MAX_BATCH messages (413). A real listening app; no refill
 * (PCG_RATE_LIMIT_PER_SECOND=0), so the tokens are counted exactly.
 */
describe('MCP: JSON-RPC batches and the rate limit', () => {
  let t: TestApp;
  let w: World;
  let base: string;
  beforeAll(async () => {
    t = testApp({ rateLimitBurst: 10, rateLimitPerSecond: 0, mcpMaxBatch: 8 });
    w = await makeTenant(t.app, 'batch');
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  const calls = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }));
  const post = (body: unknown) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.reader}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
  const errorOf = async (r: Response) => {
    const body = (await r.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId', 'timestamp']);
    expect(body.requestId).toBe(r.headers.get('x-request-id'));
    return body;
  };

  it('charges a token per call, refuses a batch the bucket cannot pay whole, and one over PCG_MCP_MAX_BATCH', async () => {
    // 10 tokens: a batch of 5 takes 5.
    const five = await post(calls(5));
    expect(five.status).toBe(200);
    const answers = (await five.json()) as { id: number; result: { isError?: boolean } }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(answers.every((a) => a.result && !a.result.isError)).toBe(true);

    // 9 messages: over the batch limit (the request's own token is taken: 4 left).
    const nine = await post(calls(9));
    expect(nine.status).toBe(413);
    const tooBig = await errorOf(nine);
    expect(tooBig.error).toBe('payload_too_large');
    expect(tooBig.message).toBe('limit PCG_MCP_MAX_BATCH: a JSON-RPC batch may carry at most 8 messages (this one has 9)');

    // 6 calls with 3 tokens left after the request's own: refused whole, nothing more taken.
    const six = await post(calls(6));
    expect(six.status).toBe(429);
    expect(six.headers.get('retry-after')).toBe('60');
    const limited = await errorOf(six);
    expect(limited.error).toBe('rate_limited');
    expect(limited.message).toBe("a batch of 6 calls costs 6 requests of this key's rate limit; retry later");

    // 3 calls: the request's token and two more, the last ones.
    const three = await post(calls(3));
    expect(three.status).toBe(200);
    expect(((await three.json()) as unknown[]).length).toBe(3);
    const single = await post(calls(1)[0]);
    expect(single.status).toBe(429);
    expect((await errorOf(single)).error).toBe('rate_limited');
  });
});
