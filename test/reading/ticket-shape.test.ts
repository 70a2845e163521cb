import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importLog, type ImportOptions } from '../../connectors/files/index.js';
import { buildDocument, type GraphDocument } from '../../engine/document/index.js';
import type { Event } from '../../engine/index.js';
import { auditDocument } from '../document/audit.js';
import { freshStore } from '../engine/helpers.js';
import { ticketLog, UNMATCHED } from './ticket-shape.js';

/**
 * A ticket log whose lifecycle:transition holds the sub-status (test/reading/ticket-shape.ts), read with its names and
 * with opaque codes: by default the activity is status+sub-status, so the waits of the sub-states are where the
 * document puts them; an unmapped status and a '-' performer are data quality, not steps or people; roles come from the
 * organisational attribute on every event, not from the one the third line never fills.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function docOf(text: string, options: ImportOptions = {}, name = 'tickets.xes'): Promise<{ doc: GraphDocument; audit: string[]; traces: Event[][] }> {
  const dir = mkdtempSync(join(tmpdir(), 'pcg-tickets-'));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  const store = freshStore();
  await importLog(store, path, options);
  const doc = buildDocument(store.snapshot());
  const traces = [...store.traces()];
  return { doc, audit: [...auditDocument(doc, traces)], traces };
}

describe.each([false, true])('a ticket log with sub-statuses in lifecycle:transition (names hidden: %s)', (hidden) => {
  const { xes, truth, names } = ticketLog({ hidden });
  const read = docOf(xes);
  const label = (status: string, sub: string) => `${status}+${sub}`;
  const placeholder = `${UNMATCHED}+${UNMATCHED}`;
  const edge = (doc: GraphDocument, from: string, to: string) => {
    const id = (l: string) => doc.nodes.find((n) => n.label === l)?.id;
    return doc.edges.find((e) => e.from === id(from) && e.to === id(to));
  };
  const near = (value: number | undefined, hours: number) => {
    expect(value! / hours).toBeGreaterThan(0.85);
    expect(value! / hours).toBeLessThan(1.15);
  };

  it('makes each activity the status and its sub-status, so each wait is the sub-state it is spent in, and says so', async () => {
    const { doc, audit } = await read;
    const progress = label(names.accepted, names.progress);
    near(edge(doc, label(names.accepted, names.assigned), progress)?.median_wait_hours, truth.assignedHours);
    near(edge(doc, label(names.accepted, names.wait), label(names.completed, names.closed))?.median_wait_hours, truth.waitHours);
    near(edge(doc, progress, label(names.completed, names.closed))?.median_wait_hours, truth.progressToCloseHours);
    const said = doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Activities:')) as string;
    expect(said).toContain("each activity is an event's name and its lifecycle value joined by '+' (lifecycle:transition holds values outside the lifecycle model on 100% of the");
    expect(said).toContain('so each activity is concept:name+lifecycle:transition and a change of either is a step');
    expect(audit).toEqual([]);
  });

  it('reads a CSV lifecycle column of sub-statuses the same way', async () => {
    // The same events as table rows, the sub-status in a column named as pm4py exports it.
    const rows = ['case:concept:name,concept:name,lifecycle:transition,time:timestamp,org:resource'];
    for (const trace of xes.split('<trace>').slice(1)) {
      const id = /value="(ticket-\d+)"/.exec(trace)![1];
      for (const ev of trace.split('<event>').slice(1)) {
        const get = (k: string) => new RegExp(`key="${k}" value="([^"]*)"`).exec(ev)![1];
        rows.push([id, get('concept:name'), get('lifecycle:transition'), get('time:timestamp'), get('org:resource')].join(','));
      }
    }
    const { doc } = await docOf(`${rows.join('\n')}\n`, {}, 'tickets.csv');
    near(edge(doc, label(names.accepted, names.assigned), label(names.accepted, names.progress))?.median_wait_hours, truth.assignedHours);
    expect(String(doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Activities:')))).toContain('so each activity is concept:name+lifecycle:transition');
    const asGiven = await docOf(`${rows.join('\n')}\n`, { lifecycle: 'all' }, 'tickets.csv');
    expect(asGiven.doc.nodes.some((n) => n.label === names.accepted)).toBe(true);
  });

  it('keeps --lifecycle to read the status alone, and then says the sub-status is left out', async () => {
    const { doc } = await docOf(xes, { lifecycle: 'pair' });
    expect(doc.nodes.filter((n) => n.kind === 'activity').map((n) => n.label).sort()).toEqual([names.accepted, names.completed, names.queued, UNMATCHED].sort());
    // The status alone mixes the half-hour close with the ten-day wait: what the default avoids.
    expect(String(doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Activities:')))).toContain('read with --lifecycle pair');
  });

  it('reports the unmapped status and the missing performer as data quality, with exact counts, and rests nothing on them', async () => {
    const { doc } = await read;
    const node = doc.nodes.find((n) => n.label === placeholder)!;
    expect([node.events, node.cases]).toEqual([truth.unmatchedEvents, truth.unmatchedCases]);
    expect(node.stage).toBe('');
    expect(doc.stages.flatMap((s) => s.activities)).not.toContain(placeholder);
    expect(doc.outcomes.map((o) => o.end_activity)).not.toContain(placeholder);
    const text = doc.assumptions.filter((a): a is string => typeof a === 'string');
    expect(text.find((a) => a.startsWith('The backbone'))).not.toContain(UNMATCHED);
    expect(text).toContain(
      `Data quality: '${placeholder}' (${truth.unmatchedEvents} events in ${truth.unmatchedCases} cases) names no step (a placeholder an extraction writes for a state it could not map); it stays a node with exact counts but no stage, backbone step or ending rests on it.`,
    );
    expect(text.find((a) => a.startsWith("Data quality: the resource '-'"))).toMatch(new RegExp(`^Data quality: the resource '-' on ${truth.dashEvents} events`));
  });

  it('is audited: a wrong placeholder count, a placeholder in a stage or a wrong role coverage is found', async () => {
    const { doc, traces } = await read;
    const wrong = structuredClone(doc);
    wrong.assumptions = wrong.assumptions.map((a) =>
      typeof a !== 'string' ? a : a.replace(`(${truth.unmatchedEvents} events in`, `(${truth.unmatchedEvents + 1} events in`).replace(`org:role (on ${truth.roleEvents} events`, `org:role (on ${truth.roleEvents - 1} events`),
    );
    wrong.stages[0]!.activities.push(placeholder);
    const found = [...auditDocument(wrong, traces)];
    expect(found.some((l) => l.startsWith(`/assumptions (placeholder step ${placeholder})/events`))).toBe(true);
    expect(found.some((l) => l.startsWith(`/stages (${placeholder})`))).toBe(true);
    expect(found.some((l) => l.startsWith('/assumptions (roles org:role)/events'))).toBe(true);
  });

  it("calls a per-case product many tickets share a category, not a larger case, and the case a record whose states are logged", async () => {
    const { doc } = await read;
    expect(doc.process.case_represents).toContain(`cases group by 'case:product': ${truth.cases} cases carry ${truth.products} values of it`);
    expect(doc.process.case_represents).toContain('a category of the case unless the cases of one value follow one another or share events');
    expect(doc.process.case_represents).not.toContain('a case may be one of several');
    expect(doc.process.case_represents).toContain('the log records the states of one record per case');
  });

  it('reads roles from the organisational attribute on every event, and says how far the other reaches', async () => {
    const { doc } = await read;
    expect(new Set(doc.roles.map((r) => r.attribute))).toEqual(new Set(['org:group']));
    expect(doc.roles.map((r) => r.name).sort()).toEqual(['G1', 'G2', 'G3', 'G4']);
    const said = doc.assumptions.find((a) => typeof a === 'string' && a.startsWith('Roles come from')) as string;
    expect(said).toContain(`${truth.events} of ${truth.events} events (100%) carry one`);
    expect(said).toContain(`The log also has org:role (on ${truth.roleEvents} events, ${Math.round((1000 * truth.roleEvents) / truth.events) / 10}%)`);
  });
});
