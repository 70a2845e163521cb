import { describe, expect, it } from 'vitest';
import { Rng } from '../../connectors/simulator/random.js';
import { buildDocument } from '../../engine/document/index.js';
import type { WireEvent } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';

/**
 * Roles on a simulated repair log with a stated truth (issue 31), shaped as work queues make resource columns:
 * three interchangeable solvers pull repairs from one queue (weights 38/32/30%, the busiest crossing 30% by the luck
 * of who was free), and a batch account closes 70% of the cases (the rest closed by hand by the desk clerks, who
 * also register). Truth: the solvers are one role, not "the busiest alone" beside "the other two"; the batch account
 * is a role of its own. Once with names, once with opaque codes.
 */
const NAMES = { register: 'Register', repair: 'Repair', close: 'Close', solvers: ['Solver1', 'Solver2', 'Solver3'], batch: 'batch', clerks: ['Ann', 'Bob', 'Cid', 'Dee', 'Eve'] };
const CODES = { register: 'A1', repair: 'A2', close: 'A3', solvers: ['R17', 'R04', 'R22'], batch: 'R09', clerks: ['R31', 'R12', 'R40', 'R05', 'R28'] };

function repairLog(hidden: boolean): WireEvent[] {
  const n = hidden ? CODES : NAMES;
  const rng = new Rng(5);
  const events: WireEvent[] = [];
  const t0 = Date.UTC(2025, 0, 6, 8);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)]!;
  for (let c = 0; c < 800; c++) {
    const caseId = `case-${c}`;
    let t = t0 + c * 600_000;
    const add = (activity: string, resource: string) => {
      t += (0.5 + rng.next()) * 3_600_000;
      events.push({ caseId, activity, timestamp: t, eventId: `${caseId}-${events.length}`, resource });
    };
    add(n.register, pick(n.clerks));
    const u = rng.next();
    add(n.repair, n.solvers[u < 0.38 ? 0 : u < 0.7 ? 1 : 2]!);
    add(n.close, rng.next() < 0.7 ? n.batch : pick(n.clerks));
  }
  return events;
}

describe.each([false, true])('roles of interchangeable solvers and a batch account (names hidden: %s)', (hidden) => {
  const n = hidden ? CODES : NAMES;
  const store = freshStore();
  store.apply({ records: repairLog(hidden) });
  const doc = buildDocument(store.snapshot());

  it('keeps the three solvers one role and the batch account a role of its own', () => {
    const repairRoles = doc.nodes.find((x) => x.label === n.repair)!.roles;
    expect(repairRoles).toHaveLength(1);
    const solvers = doc.roles.find((r) => r.id === repairRoles[0])!;
    expect(solvers.name).toBe(`${n.repair} (3 resources)`);
    expect(doc.roles.map((r) => String(r.name)).filter((x) => x.includes('alone'))).toEqual([`${n.close} (${n.batch} alone, doing only this step)`]);
  });

  it('audits: the specialists recomputed from the events are the ones stated, and a wrong one is seen', () => {
    expect(auditDocument(doc, store.traces()).filter((l) => l.startsWith('/roles'))).toEqual([]);
    const wrong = structuredClone(doc);
    const solvers = wrong.roles.find((r) => String(r.name).startsWith(`${n.repair} (`))!;
    solvers.name = `${n.repair} (${n.solvers[0]} alone, doing only this step)`;
    expect(auditDocument(wrong, store.traces()).filter((l) => l.startsWith('/roles'))).toHaveLength(1);
  });
});
