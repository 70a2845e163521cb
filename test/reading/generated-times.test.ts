import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { freshStore } from '../engine/helpers.js';

/**
 * Times a generator wrote (issue 31: a reviewer found every event of an order log at hh:11:19 and five "moderate"
 * timing policies read from them). The stated truth: the steps' hours are drawn at random, the minute and second
 * are one fixed offset, so no wait in the log is a measurement of the work. The same log with its minutes and
 * seconds varied is the control: its timing claims stay.
 */
function orderLog(generated: boolean, shape = { seed: 3, hours: 6, longBefore: '' }): WireEvent[] {
  const rng = new Rng(shape.seed);
  const events: WireEvent[] = [];
  const H = 3_600_000;
  const steps = ['create order', 'add item', 'check stock', 'send invoice', 'pack order', 'dispatch'];
  for (let c = 0; c < 120; c++) {
    let t = Date.UTC(2019, 10, 3) + c * 5 * H;
    steps.forEach((a, i) => {
      // Whole hours drawn at random; a day more before `longBefore`, if any.
      t += (1 + Math.floor(rng.next() * shape.hours) + (a === shape.longBefore ? 24 : 0)) * H;
      const offset = generated ? 11 * 60_000 + 19_000 : Math.floor(rng.next() * H);
      events.push({ caseId: `o${c}`, eventId: `o${c}-${i}`, activity: a, timestamp: new Date(Math.floor(t / H) * H + offset).toISOString() });
    });
  }
  return events;
}

function docOf(generated: boolean): GraphDocument {
  const store = freshStore();
  store.apply({ records: orderLog(generated) });
  return buildDocument(store.snapshot());
}

describe('times a generator wrote', () => {
  it('reads no timing policy, service level or escalation from them, and says why', () => {
    const doc = docOf(true);
    expect(doc.policies.filter((p) => p.kind === 'timing' || p.kind === 'service_level').map((p) => p.id)).toEqual([]);
    expect(doc.escalations).toEqual([]);
    expect(doc.assumptions.some((a) => String(a).startsWith('Times: 100% of the events fall at minute :11 of their hour'))).toBe(true);
  });

  it('keeps them where the minutes vary (the control)', () => {
    const doc = docOf(false);
    expect(doc.policies.filter((p) => p.kind === 'timing').length).toBeGreaterThan(0);
    expect(doc.assumptions.some((a) => String(a).startsWith('Times:'))).toBe(false);
  });
});

/**
 * One placeholder time for every event (issue 31: a ticket log stamped 1980-01-01 01:01:01 throughout was read as
 * day-level, its waits as 0 hours, and a repeat as "entries written at once" while the exceptions counted it as
 * repeated work). The stated truth: the log records the order of the steps only; a fifth of the tickets are
 * resolved twice in a row (work redone).
 */
describe('a log whose every event has one placeholder time', () => {
  it('says the times are not recorded, and reads a repeat alike in the edges and the exceptions', () => {
    const events: WireEvent[] = [];
    const rng = new Rng(4);
    for (let c = 0; c < 40; c++) {
      const steps = ['Assign seriousness', 'Take in charge', 'Resolve ticket', ...(rng.next() < 0.2 ? ['Resolve ticket'] : []), 'Closed'];
      steps.forEach((a, i) => events.push({ caseId: `t${c}`, eventId: `t${c}-${i}`, activity: a, timestamp: '1980-01-01T01:01:01Z' }));
    }
    const repeated = new Set(events.filter((e, i) => i > 0 && events[i - 1]!.caseId === e.caseId && events[i - 1]!.activity === e.activity).map((e) => e.caseId)).size;
    const store = freshStore();
    store.apply({ records: events });
    const doc = buildDocument(store.snapshot());
    const text = doc.assumptions.map((a) => JSON.stringify(a));
    expect(text.some((a) => a.includes('Times: every case begins and ends at one instant (40 cases'))).toBe(true);
    expect(text.some((a) => a.includes('day-level'))).toBe(false);
    const resolve = doc.nodes.find((n) => n.label === 'Resolve ticket')!.id;
    expect(doc.edges.find((e) => e.from === resolve && e.to === resolve)?.kind).toBe('rework');
    expect(doc.exceptions.find((x) => x.name === "'Resolve ticket' repeated")?.cases).toBe(repeated);
  });
});

/**
 * Stages on generated times (issue 31: a reviewer found a simulated log's stages cut at its longest wait, which the
 * generator drew). The stated truth: every wait is drawn in whole hours at one fixed minute, and the generator makes
 * the wait before 'pack order' a day longer than the others: a wait nobody measured, so no phase boundary. With the
 * minutes varied (the control) the log is read as measured and the stages part there.
 */
describe('stages on generated times', () => {
  const stagedLog = (generated: boolean) => orderLog(generated, { seed: 5, hours: 4, longBefore: 'pack order' });
  const stagesOf = (generated: boolean) => {
    const store = freshStore();
    store.apply({ records: stagedLog(generated) });
    return buildDocument(store.snapshot()).stages.map((s) => s.name);
  };

  it('are cut along the order, not at a generated wait, and the method says why', () => {
    const store = freshStore();
    store.apply({ records: stagedLog(true) });
    const doc = buildDocument(store.snapshot());
    expect(doc.stages.map((s) => s.name)).toEqual(['create order to check stock', 'send invoice to dispatch']);
    expect(JSON.stringify(doc)).toContain("the log's times say nothing of waits");
  });

  it('part at the long wait where the times are measured (the control)', () => {
    expect(stagesOf(false)).toEqual(['create order to send invoice', 'pack order to dispatch']);
  });
});
