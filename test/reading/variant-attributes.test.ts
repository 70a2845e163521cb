import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * An attribute a tool writes from the whole path (issue 31: "if variant:count >= 5 then pack_order" on a 17-case
 * order log). The stated truth: at the one decision point nothing recorded decides; the tool stamped every event
 * with how many cases share its case's path, which settles that one point (too few to be caught as naming the
 * path by the counts) and so must be left out by its name. 'channel', an ordinary attribute, is the control: it
 * does decide, and its rule stays.
 */
function log(stamp: string): WireEvent[] {
  const rng = new Rng(12);
  const paths: string[][] = [];
  const channels: string[] = [];
  for (let c = 0; c < 200; c++) {
    const online = rng.next() < 0.5;
    channels.push(online ? 'web' : 'shop');
    // Nine in ten go the way their channel says, so the channel explains much and not all.
    const pack = rng.next() < 0.9 ? online : !online;
    paths.push(['Create Order', 'Check Stock', pack ? 'Pack Order' : 'Order Goods', 'Close Order']);
  }
  const shared = new Map<string, number>();
  for (const p of paths) shared.set(p.join(), (shared.get(p.join()) ?? 0) + 1);
  return paths.flatMap((p, c) =>
    p.map((a, i) => ({
      caseId: `o${c}`,
      eventId: `o${c}-${i}`,
      activity: a,
      timestamp: new Date(Date.UTC(2024, 0, 1) + c * 86_400_000 + i * 3_600_000 * (1 + (c % 5))).toISOString(),
      attributes: { [stamp]: shared.get(p.join())!, channel: channels[c]! },
    })),
  );
}

describe('an attribute written from the whole path', () => {
  it.each(['variant:count', 'Variant'])('mines no rule on %s, and keeps the ordinary attribute', (stamp) => {
    const store = freshStore();
    store.apply({ records: log(stamp) });
    const doc = buildDocument(store.snapshot());
    const d = doc.decisions.find((x) => x.at === 'Check Stock')!;
    expect(d.rules.map((r) => JSON.stringify(r.when)).filter((w) => w.includes(stamp))).toEqual([]);
    expect(d.rules.some((r) => JSON.stringify(r.when).includes('channel'))).toBe(true);
  });
});
