import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WireEvent } from '../../engine/index.js';
import { groundTruth, simulate, type GroundTruth } from '../../connectors/simulator/index.js';
import { casesOf, millis } from './stats.js';

/**
 * The two models built for a shape rather than a rule: patient-care (no
 * variant is typical, the backbone and phases are) and freight (most cases
 * repeat a step as normal work). Their logs must hold what their ground
 * truth states; the generic checks (decisions, exceptions, parallel, service
 * level, roles) run for them in simulate.test.ts.
 */
const HOUR = 3_600_000;
const CASES = 3000;

function logOf(model: string, cases = CASES, seed = 5): { events: WireEvent[]; byCase: Map<string, WireEvent[]> } {
  const events = [...simulate({ model, cases, seed, openShare: 0 })];
  return { events, byCase: casesOf(events) };
}

const shareWith = (byCase: Map<string, WireEvent[]>, activity: string): number => [...byCase.values()].filter((t) => t.some((e) => e.activity === activity)).length / byCase.size;
const count = (trace: WireEvent[], activity: string): number => trace.filter((e) => e.activity === activity).length;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const digest = (events: Iterable<WireEvent>): string => {
  const h = createHash('sha256');
  for (const e of events) h.update(`${JSON.stringify(e)}\n`);
  return h.digest('hex');
};

/** Every case moves through the stages in order; the waits across a stage boundary are much longer than those inside one. */
function expectPhases(truth: GroundTruth, byCase: Map<string, WireEvent[]>): void {
  const stageOf = new Map(truth.activities.map((a) => [a.name, truth.stages.findIndex((s) => s.name === a.stage)]));
  const inside: number[] = [];
  const across: number[] = [];
  let backwards = 0;
  for (const trace of byCase.values()) {
    for (let i = 1; i < trace.length; i++) {
      const [from, to] = [stageOf.get(trace[i - 1]!.activity)!, stageOf.get(trace[i]!.activity)!];
      if (to < from) backwards++;
      (to === from ? inside : across).push((millis(trace[i]!) - millis(trace[i - 1]!)) / HOUR);
    }
  }
  expect(backwards).toBe(0);
  expect(median(across)).toBeGreaterThan(3 * median(inside));
}

describe('patient-care', () => {
  const truth = groundTruth('patient-care');
  const { events, byCase } = logOf('patient-care');

  it('states its backbone, endings, phases and the bound on the commonest variant', () => {
    expect(truth.backbone!.map((b) => b.activity)).toEqual(['Register', 'Triage', 'Diagnosis', 'Discharge']);
    expect(truth.backbone!.every((b) => b.share > 0.9)).toBe(true);
    expect(truth.endActivities).toEqual({ success: ['Discharge'], failure: ['Left Without Being Seen', 'Transfer to Other Hospital'] });
    expect(truth.stages.map((s) => s.name)).toEqual(['Intake', 'Examination', 'Treatment', 'Discharge']);
    expect(truth.stages.find((s) => s.name === 'Intake')!.activities).toEqual(['Register', 'Triage', 'Left Without Being Seen']);
    expect(truth.commonestVariantMaxShare).toBe(0.05);
  });

  it('takes the backbone in nearly every case, at the stated shares', () => {
    for (const b of truth.backbone!) expect(Math.abs(shareWith(byCase, b.activity) - b.share), b.activity).toBeLessThan(0.015);
    for (const trace of byCase.values()) {
      const backbone = trace.map((e) => e.activity).filter((a) => truth.backbone!.some((b) => b.activity === a));
      // In the stated order, each once; a case stops early only at a failure ending.
      expect(truth.backbone!.map((b) => b.activity).slice(0, backbone.length)).toEqual(backbone);
      if (backbone.length < 4) expect(truth.endActivities.failure).toContain(trace[trace.length - 1]!.activity);
    }
  });

  it('has many variants and none above the stated bound, in every log', () => {
    for (const [cases, seed] of [
      [CASES, 5],
      [1500, 11],
      [1000, 2],
    ] as const) {
      const variants = new Map<string, number>();
      for (const trace of logOf('patient-care', cases, seed).byCase.values()) {
        const key = trace.map((e) => e.activity).join('>');
        variants.set(key, (variants.get(key) ?? 0) + 1);
      }
      const [top, n] = [...variants].sort((a, b) => b[1] - a[1])[0]!;
      expect(n / cases, `${cases} cases, seed ${seed}`).toBeLessThan(truth.commonestVariantMaxShare!);
      expect(n / cases).toBeGreaterThan(0.025);
      expect(variants.size).toBeGreaterThan(cases * 0.25);
      // The commonest variant is the patient who leaves: a short path that is no success.
      expect(top).toBe('Register>Triage>Left Without Being Seen');
    }
  });

  it('orders each examination and treatment by its own chance, independently of the others', () => {
    const examined = [...byCase.values()].filter((t) => t.some((e) => e.activity === 'Diagnosis'));
    for (const o of truth.optional!) {
      const p = examined.filter((t) => count(t, o.activity) === 1).length / examined.length;
      expect(Math.abs(p - o.probability), o.activity).toBeLessThan(0.03);
      expect(examined.every((t) => count(t, o.activity) <= 1)).toBe(true);
    }
    // Independence: the share with both of two examinations is the product of their shares.
    const [a, b] = [truth.optional![0]!, truth.optional![1]!];
    const both = examined.filter((t) => count(t, a.activity) && count(t, b.activity)).length / examined.length;
    expect(Math.abs(both - a.probability * b.probability)).toBeLessThan(0.03);
  });

  it('repeats ward rounds in the stated share of cases, within the stated counts', () => {
    const [r] = truth.repeated!;
    expect(r!.activity).toBe('Ward Round');
    const repeating = [...byCase.values()].filter((t) => count(t, r!.activity) >= 2);
    expect(Math.abs(repeating.length / CASES - r!.share)).toBeLessThan(0.025);
    expect(repeating.every((t) => count(t, r!.activity) <= r!.maxTimes)).toBe(true);
  });

  it('moves through its phases in order, with long waits between them', () => {
    expectPhases(truth, byCase);
  });

  it('gives the same bytes for the same seed (pinned digest; update it only when the model changes on purpose)', () => {
    expect(events.length).toBeGreaterThan(CASES * 6);
    expect(digest(simulate({ model: 'patient-care', cases: 50, seed: 1 }))).toBe(PINNED_PATIENT_CARE_50_SEED_1);
  });
});

describe('freight', () => {
  const truth = groundTruth('freight');
  const { byCase } = logOf('freight');
  const [load] = truth.repeated!;

  it('states the step most cases repeat, its share, the endings and the phases', () => {
    expect(truth.repeated).toEqual([{ activity: 'Load Truck', share: 0.9024, minTimes: 2, maxTimes: 5 }]);
    expect(truth.rework).toEqual([]);
    expect(truth.endActivities).toEqual({ success: ['Depart'], failure: ['Cancelled'] });
    expect(truth.stages.map((s) => s.name)).toEqual(['Booking', 'Loading', 'Terminal', 'Departure']);
    expect(truth.stages.find((s) => s.name === 'Loading')!.activities).toEqual(['Pick Up Empty Container', 'Load Truck']);
  });

  it('repeats Load Truck in the stated share of cases, one truckload at a time, back to back', () => {
    const repeating = [...byCase.values()].filter((t) => count(t, load!.activity) >= load!.minTimes);
    expect(Math.abs(repeating.length / CASES - load!.share)).toBeLessThan(0.02);
    for (const trace of byCase.values()) {
      const names = trace.map((e) => e.activity);
      const n = count(trace, load!.activity);
      if (names.includes('Cancelled')) {
        expect(n).toBe(0);
        continue;
      }
      // As many loads as the case's truckloads, in one unbroken run between pick-up and weighing.
      expect(n).toBe(trace[0]!.attributes!.truckloads);
      expect(n).toBeLessThanOrEqual(load!.maxTimes);
      const first = names.indexOf(load!.activity);
      expect(names.slice(first - 1, first + n + 1)).toEqual(['Pick Up Empty Container', ...Array<string>(n).fill(load!.activity), 'Weigh']);
    }
  });

  it('ends in Depart or, for the stated share, Cancelled right after booking', () => {
    const ends = new Map<string, number>();
    for (const t of byCase.values()) ends.set(t[t.length - 1]!.activity, (ends.get(t[t.length - 1]!.activity) ?? 0) + 1);
    expect([...ends.keys()].sort()).toEqual(['Cancelled', 'Depart']);
    expect(Math.abs(ends.get('Cancelled')! / CASES - truth.exceptions[0]!.probability)).toBeLessThan(0.01);
    for (const b of truth.backbone!) expect(Math.abs(shareWith(byCase, b.activity) - b.share), b.activity).toBeLessThan(0.01);
  });

  it('moves through its phases in order, with long waits between them', () => {
    expectPhases(truth, byCase);
  });

  it('gives the same bytes for the same seed (pinned digest; update it only when the model changes on purpose)', () => {
    expect(digest(simulate({ model: 'freight', cases: 50, seed: 1 }))).toBe(PINNED_FREIGHT_50_SEED_1);
  });
});

const PINNED_PATIENT_CARE_50_SEED_1 = 'eebb7bee85cbfe19c3ac2f26573015e804264bc2dc7e22dc5262f1bad5835dcc';
const PINNED_FREIGHT_50_SEED_1 = 'f309c4f41447a2983f8a580047194b4057bc388bcc3b2c921cbb4d2eb7c99ff8';
