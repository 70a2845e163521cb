import { afterAll, describe, expect, it } from 'vitest';
import { inlinePreparer, PreparerThread, type ChunkMessage } from '../../connectors/kafka/index.js';
import { eventLimits } from '../../engine/index.js';

/**
 * The chunk preparer's thread gives exactly what preparing on the runner's own
 * thread gives: the same events, bodies, duplicates and rejections, with each
 * refused message's own bytes (and not the buffer the chunk travelled in).
 */
describe('preparing Kafka chunks on a thread', () => {
  const thread = new PreparerThread();
  afterAll(() => thread.close());

  const wire = (i: number, extra: Record<string, unknown> = {}) =>
    Buffer.from(JSON.stringify({ caseId: `c${i % 7}`, activity: ['A', 'B', 'C'][i % 3], timestamp: 1_700_000_000_000 + i * 1000, eventId: `e${i}`, ...extra }));
  const messages: ChunkMessage[] = [];
  for (let i = 0; i < 400; i++) messages.push({ offset: String(1000 + i), value: wire(i) });
  // A duplicate, a tombstone, bytes that are not UTF-8, not JSON, a missing case id, a value over the limit.
  messages.push({ offset: '1400', value: wire(3) });
  messages.push({ offset: '1401', value: null });
  messages.push({ offset: '1402', value: Buffer.from([0xff, 0xfe, 0x00, 0x41]) });
  messages.push({ offset: '1403', value: Buffer.from('{"caseId": "c1", "activity": ') });
  messages.push({ offset: '1404', value: Buffer.from(JSON.stringify({ activity: 'A', timestamp: 1 })) });
  messages.push({ offset: '1405', value: wire(999, { attributes: { note: 'x'.repeat(300) } }) });
  const limits = eventLimits({ attributeValueBytes: 100 });

  it.each([
    ['pcg preset', { format: 'pcg' as const, mapping: {} }],
    ['json with pointers', { format: 'json' as const, mapping: { caseId: '/caseId', activity: '/activity', timestamp: '/timestamp', eventId: '/eventId', attributes: ['/attributes/note'] } }],
  ])('%s: the same prepared batch on the thread as inline', async (_name, reading) => {
    const inline = await inlinePreparer().prepare(reading, limits, 'orders', 3, messages);
    const threaded = await thread.prepare(reading, limits, 'orders', 3, messages);
    expect(threaded.events).toEqual(inline.events);
    expect(threaded.bodies).toEqual(inline.bodies);
    expect(threaded.duplicates).toBe(1);
    expect(inline.events).toHaveLength(400);
    const plain = (b: typeof inline) => b.rejected.map((r) => ({ ...r, raw: r.raw ? [...r.raw] : undefined }));
    expect(plain(threaded)).toEqual(plain(inline));
    expect(threaded.rejected.map((r) => r.location)).toEqual(['orders/3@1401', 'orders/3@1402', 'orders/3@1403', 'orders/3@1404', 'orders/3@1405']);
    // Each refused message keeps exactly its own bytes.
    expect(threaded.rejected[1]!.raw!.byteLength).toBe(4);
    expect(threaded.rejected[4]!.reason).toMatch(/PCG_LIMIT_ATTRIBUTE_VALUE_BYTES/);
  });

  it('keeps the order of chunks asked at once', async () => {
    const chunks = [0, 1, 2, 3].map((k) => messages.slice(k * 100, k * 100 + 100));
    const results = await Promise.all(chunks.map((c) => thread.prepare({ format: 'pcg', mapping: {} }, limits, 't', 0, c)));
    expect(results.map((r) => r.events[0]!.key)).toEqual(['i:e0', 'i:e100', 'i:e200', 'i:e300']);
  });
});
