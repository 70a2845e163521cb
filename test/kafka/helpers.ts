import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore, type WireEvent } from '../../engine/index.js';
import { simulate } from '../../connectors/simulator/index.js';
import { Rng } from '../../connectors/simulator/random.js';
import type { ProducedMessage } from './broker.js';

/** A simulated log as the wire events a producer would send. */
export function simulatedLog(cases: number, seed: number, model = 'order-to-cash'): WireEvent[] {
  return [...simulate({ model, cases, seed, openShare: 0 })];
}

/**
 * The log as Kafka messages keyed by case id, in a seeded random order with
 * `duplicates` of the events sent twice: what an at-least-once producer of an
 * unordered source would write.
 */
export function messagesOf(events: readonly WireEvent[], seed: number, duplicates = 0.05): ProducedMessage[] {
  const random = new Rng(seed);
  const out: ProducedMessage[] = [];
  for (const e of events) {
    const m = { key: String(e.caseId), value: JSON.stringify(e) };
    out.push(m);
    if (random.next() < duplicates) out.push(m);
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The document `pcg graph` builds from the same events in one store (the reference a stream must reproduce). */
export function referenceDocument(events: readonly WireEvent[], meta: Record<string, string> = {}): Record<string, any> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-ref-'));
  const store = ProjectStore.open(join(dir, 'state.sqlite'));
  try {
    for (const [k, v] of Object.entries(meta)) store.setMeta(k, v);
    for (let i = 0; i < events.length; i += 10_000) store.apply({ records: events.slice(i, i + 10_000) });
    return buildDocument(store.snapshot()) as unknown as Record<string, any>;
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every counted and read field of two documents agrees; only the data version (how many batches it took) may differ. */
export function expectSameDocument(actual: Record<string, any>, expected: Record<string, any>): void {
  const strip = (d: Record<string, any>) => ({ ...d, source: { ...d.source, data_version: '' } });
  expect(actual.source.log_digest).toBe(expected.source.log_digest);
  expect(actual.source.events).toBe(expected.source.events);
  expect(actual.source.cases).toBe(expected.source.cases);
  expect(strip(actual)).toEqual(strip(expected));
}

/** Polls `check` every 100 ms until it returns a value, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 60_000, what = 'the condition'): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
