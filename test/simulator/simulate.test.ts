import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkEvent, type WireEvent } from '../../engine/index.js';
import { DEFAULT_START, follows, groundTruth, modelNames, simulate } from '../../connectors/simulator/index.js';
import { casesOf, millis, steps } from './stats.js';

const HOUR = 3_600_000;
const digest = (events: Iterable<WireEvent>): string => {
  const h = createHash('sha256');
  for (const e of events) h.update(`${JSON.stringify(e)}\n`);
  return h.digest('hex');
};

describe('simulate', () => {
  it('lists the built-in models', () => {
    expect(modelNames()).toEqual(expect.arrayContaining(['order-to-cash', 'claims', 'helpdesk', 'patient-care', 'freight']));
  });

  it('is deterministic: same seed, same log; another seed, another log', () => {
    for (const model of modelNames()) {
      const options = { model, cases: 300, seed: 11, lateShare: 0.05, duplicateShare: 0.05 };
      expect(digest(simulate(options))).toBe(digest(simulate(options)));
      expect(digest(simulate({ ...options, seed: 12 }))).not.toBe(digest(simulate(options)));
    }
  });

  it('gives the same bytes on every machine (pinned digest; update it only when a model changes on purpose)', () => {
    const events = [...simulate({ model: 'claims', cases: 50, seed: 1 })];
    expect(events[0]).toEqual({
      caseId: 'CL-000001',
      activity: 'Register Claim',
      timestamp: events[0]!.timestamp,
      eventId: 'CL-000001-001',
      resource: events[0]!.resource,
      attributes: { claimType: expect.any(String), claimAmount: expect.any(Number), policyYears: expect.any(Number), goldCustomer: expect.any(Boolean) },
    });
    expect(digest(events)).toBe(PINNED_CLAIMS_50_SEED_1);
  });

  it('validates its options', () => {
    expect(() => simulate({ model: 'nope', cases: 1, seed: 1 })).toThrow(/unknown simulator model/);
    expect(() => simulate({ model: 'claims', cases: -1, seed: 1 })).toThrow(/cases/);
    expect(() => simulate({ model: 'claims', cases: 1, seed: 1.5 })).toThrow(/seed/);
    expect(() => simulate({ model: 'claims', cases: 1, seed: 1, lateShare: 1 })).toThrow(/lateShare/);
    expect([...simulate({ model: 'claims', cases: 0, seed: 1 })]).toEqual([]);
  });

  it('starts the first case at the given start', () => {
    const start = Date.UTC(2030, 4, 1, 9);
    const [first] = simulate({ model: 'helpdesk', cases: 10, seed: 1, start });
    expect(first!.timestamp).toBe('2030-05-01T09:00:00.000Z');
  });

  for (const model of modelNames()) {
    describe(model, () => {
      const truth = groundTruth(model);
      const cases = 3000;
      const events = [...simulate({ model, cases, seed: 5, openShare: 0 })];
      const byCase = casesOf(events);
      const ends = new Set([...truth.endActivities.success, ...truth.endActivities.failure]);

      it('yields valid wire events in time order with unique ids', () => {
        const ids = new Set(events.map((e) => e.eventId));
        expect(ids.size).toBe(events.length);
        expect(events.findIndex((e, i) => i > 0 && millis(e) < millis(events[i - 1]!))).toBe(-1);
        expect(events.filter((e) => !checkEvent(e).ok)).toEqual([]);
        expect(millis(events[0]!)).toBe(DEFAULT_START);
        expect(events.every((e) => typeof e.resource === 'string')).toBe(true);
      });

      it('has N cases, each from the start activity to an end activity, case attributes on the first event', () => {
        expect(byCase.size).toBe(cases);
        const caseAttributes = truth.attributes.filter((a) => a.level === 'case').map((a) => a.name);
        for (const trace of byCase.values()) {
          expect(trace[0]!.activity).toBe(truth.startActivity);
          expect(ends.has(trace[trace.length - 1]!.activity)).toBe(true);
          expect(Object.keys(trace[0]!.attributes ?? {}).sort()).toEqual([...caseAttributes].sort());
        }
        const known = new Set(truth.activities.map((a) => a.name));
        expect(events.every((e) => known.has(e.activity))).toBe(true);
        const staged = truth.stages.flatMap((s) => s.activities);
        expect(staged.sort()).toEqual([...known].sort());
      });

      it('follows its decision rules at the stated rate, and its random choices at the stated shares', () => {
        for (const d of truth.decisions) {
          let n = 0;
          let obeyed = 0;
          const taken: Record<string, number> = {};
          for (const [a, b, trace] of steps(byCase)) {
            if (a.activity !== d.at || !d.branches.includes(b.activity)) continue;
            n++;
            taken[b.activity] = (taken[b.activity] ?? 0) + 1;
            if (d.rule && (follows(d.rule, trace[0]!.attributes!) ? d.rule.then : d.rule.otherwise) === b.activity) obeyed++;
          }
          expect(n).toBeGreaterThan(cases * 0.5);
          if (d.rule) expect(Math.abs(obeyed / n - d.rule.rate)).toBeLessThan(0.02);
          else for (const [branch, p] of Object.entries(d.shares!)) expect(Math.abs((taken[branch] ?? 0) / n - p)).toBeLessThan(0.03);
        }
      });

      it('keeps separation of duties, rework loops, escalations, exceptions and parallel interleaving as stated', () => {
        for (const s of truth.separation) {
          let both = 0;
          let same = 0;
          for (const trace of byCase.values()) {
            const first = new Set(trace.filter((e) => e.activity === s.activities[0]).map((e) => e.resource));
            const second = trace.filter((e) => e.activity === s.activities[1]).map((e) => e.resource);
            if (first.size && second.length) both++;
            same += second.filter((r) => first.has(r)).length;
          }
          expect(same).toBe(0);
          expect(both).toBeGreaterThan(cases * 0.1);
        }
        for (const r of truth.rework) {
          const looping = [...byCase.values()].filter((t) => t.some((e, i) => e.activity === r.from && t[i + 1]?.activity === r.to)).length;
          expect(looping).toBeGreaterThan(cases * 0.02);
        }
        for (const x of truth.escalations) {
          let n = 0;
          let afterWait = 0;
          const before = new Set<string>();
          for (const [a, b] of steps(byCase)) {
            if (b.activity !== x.activity) continue;
            n++;
            before.add(a.activity);
            if (millis(b) - millis(a) >= x.afterHours * HOUR) afterWait++;
          }
          expect([...before]).toEqual([x.from]);
          expect(n).toBeGreaterThan(cases * 0.02);
          expect(afterWait / n).toBeGreaterThan(0.8);
        }
        for (const x of truth.exceptions) {
          const share = [...byCase.values()].filter((t) => t.some((e) => e.activity === x.activities[0])).length / cases;
          expect(share).toBeGreaterThan(x.probability * 0.5);
          expect(share).toBeLessThan(x.probability * 1.6);
        }
        for (const p of truth.parallel) {
          const [left, right] = p.branches as [string[], string[]];
          const orders = new Set<string>();
          for (const trace of byCase.values()) {
            const names = trace.map((e) => e.activity);
            const l = names.indexOf(left[0]!);
            const r = names.indexOf(right[0]!);
            if (l >= 0 && r >= 0) orders.add(l < r ? 'left first' : 'right first');
          }
          expect([...orders].sort()).toEqual(['left first', 'right first']);
        }
      });

      it('meets the stated service level', () => {
        const sl = truth.serviceLevel;
        const durations = [...byCase.values()].map((t) => (millis(t[t.length - 1]!) - millis(t[0]!)) / HOUR);
        const within = durations.filter((d) => d <= sl.hours).length / durations.length;
        expect(Math.abs(within - sl.share)).toBeLessThan(0.03);
      });

      it('names resources by role, as the roles say', () => {
        const roleOf = new Map(truth.activities.map((a) => [a.name, a.role]));
        const resourcesOf = new Map(truth.roles.map((r) => [r.role, new Set(r.resources)]));
        expect(events.filter((e) => !resourcesOf.get(roleOf.get(e.activity)!)!.has(e.resource!))).toEqual([]);
      });
    });
  }

  it('emits the asked-for shares of late and duplicate events, and leaves the asked-for share open', () => {
    const truth = groundTruth('order-to-cash');
    const ends = new Set([...truth.endActivities.success, ...truth.endActivities.failure]);
    const events = [...simulate({ model: 'order-to-cash', cases: 10_000, seed: 9, lateShare: 0.03, duplicateShare: 0.02, openShare: 0.1 })];
    const first = new Map<string, WireEvent>();
    let duplicates = 0;
    let late = 0;
    let latest = -Infinity;
    for (const e of events) {
      const seen = first.get(e.eventId!);
      if (seen) {
        duplicates++;
        expect(e).toEqual(seen);
        continue;
      }
      first.set(e.eventId!, e);
      if (millis(e) < latest) late++;
      latest = Math.max(latest, millis(e));
    }
    expect(Math.abs(duplicates / first.size - 0.02)).toBeLessThan(0.004);
    expect(Math.abs(late / first.size - 0.03)).toBeLessThan(0.005);
    const byCase = casesOf(events);
    expect(byCase.size).toBe(10_000);
    const open = [...byCase.values()].filter((t) => !ends.has(t[t.length - 1]!.activity));
    expect(Math.abs(open.length / byCase.size - 0.1)).toBeLessThan(0.02);
    // Open cases are cut at the window's end: they are the recent ones.
    const recent = open.filter((t) => latest - millis(t[0]!) < 30 * 24 * HOUR).length;
    expect(recent / open.length).toBeGreaterThan(0.95);
    // A late event really arrives after a later event of its own case.
    const seenTimes = new Map<string, number>();
    let lateInCase = 0;
    for (const e of first.values()) {
      if ((seenTimes.get(e.caseId) ?? -Infinity) > millis(e)) lateInCase++;
      seenTimes.set(e.caseId, Math.max(seenTimes.get(e.caseId) ?? -Infinity, millis(e)));
    }
    expect(lateInCase / late).toBeGreaterThan(0.8);
  });
});

const PINNED_CLAIMS_50_SEED_1 = 'db53d480750d7d4b1d044aa7ede7664ee3d678f40b82d0cfa7b2e3275e96c3cb';
