import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { writeSimulation } from '../../connectors/simulator/index.js';
import { Rng } from '../../connectors/simulator/random.js';
import { Children, keptKeys, readState, storedOffset, withoutVersion } from './crash-helpers.js';

/**
 * `pcg import FILE --project-dir DIR` SIGKILLed at seeded random moments, then
 * run again on the same file and project until it completes: importLog
 * positions every batch at the count of the file's items (records and
 * rejections) up to its end, under the file's source id, and the batch, its
 * dead letters and that position commit in one transaction. So a killed run
 * leaves exactly the batches up to the stored position (never part of one),
 * the next run skips them (`already_imported`) and applies the rest, and the
 * project ends with the document a clean import of the file gives: every
 * event and dead letter once, the same number of data versions.
 *
 * Each round is a fresh project: one or two killed runs (from the spawn, so
 * while it starts, opens the store or applies its first batch; or once it is
 * seen applying, so mid-file), then a run to completion.
 */
const BATCH = 100;
const sys = new Children();
afterAll(() => sys.close());

interface Case {
  format: 'ndjson' | 'csv';
  model: string;
  cases: number;
  seed: number;
  rounds: number;
  late?: number;
  duplicates?: number;
}

/** What a clean import of the file leaves, and how long its phases took. */
interface Clean {
  summary: Record<string, any>;
  document: Record<string, any>;
  dead: number;
  startupMs: number;
  applyMs: number;
}

const importArgs = (file: string, dir: string) => ['import', file, '--project-dir', dir, '--batch-size', String(BATCH)];
const stateOf = (dir: string) => join(dir, 'state.sqlite');
const deadLetters = (dir: string) => readState(stateOf(dir), (db) => (db.prepare('SELECT count(*) AS n FROM dead_letter').get() as { n: number }).n) ?? 0;

/** The document `pcg graph --project-dir DIR` prints, built here from the same store. */
function documentOf(dir: string): Record<string, any> {
  const store = ProjectStore.open(stateOf(dir));
  try {
    return buildDocument(store.snapshot()) as unknown as Record<string, any>;
  } finally {
    store.close();
  }
}

/**
 * Per item of the file (record or rejection, in file order) the key its event is kept under, or
 * null for an item that becomes a dead letter: what the batches up to a stored offset must have left.
 */
function itemKeys(file: string, c: Case, source: string): (string | null)[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  if (c.format === 'ndjson') {
    return lines.map((l) => {
      try {
        const e = JSON.parse(l);
        return typeof e.activity === 'string' && typeof e.eventId === 'string' ? `i:${e.eventId}` : null;
      } catch {
        return null;
      }
    });
  }
  // CSV: each row is an event named by its ordinal under the file's id prefix (connectors/files/batcher.ts ordinalId).
  return lines.slice(1).map((_, i) => `i:${source.slice(0, 12)}:${String(i + 1).padStart(10, '0')}`);
}

/** The simulated file, with a few broken NDJSON lines (not JSON, no activity) that must become dead letters once each. */
async function makeFile(dir: string, c: Case): Promise<string> {
  const file = join(dir, `log.${c.format}`);
  await writeSimulation({ model: c.model, cases: c.cases, seed: c.seed, lateShare: c.late, duplicateShare: c.duplicates }, c.format, file);
  if (c.format === 'ndjson') {
    const rng = new Rng(c.seed, 1);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    for (const bad of ['{"caseId": "broken", "activity": ', '{"caseId":"no-activity","timestamp":"2025-01-07T00:00:00Z","eventId":"bad-1"}', 'not json at all']) {
      lines.splice(rng.int(1, lines.length - 1), 0, bad);
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
  }
  return file;
}

/** The clean import: its summary and document, and when (from the spawn) it first stored a position and when it exited. */
async function cleanImport(file: string): Promise<Clean> {
  const dir = sys.tempDir('pcg-import-clean-');
  const started = Date.now();
  const run = sys.pcg(importArgs(file, dir));
  let first = 0;
  while (run.alive()) {
    if (!first && storedOffset(stateOf(dir)) > 0) first = Date.now();
    await sleep(5);
  }
  expect(await run.exit, run.err()).toBe(0);
  const ended = Date.now();
  first ||= ended;
  return { summary: JSON.parse(run.out()), document: documentOf(dir), dead: deadLetters(dir), startupMs: first - started, applyMs: Math.max(50, ended - first) };
}

interface Kill {
  round: number;
  run: number;
  phase: 'start-up' | 'applying';
  delay: number;
  /** Applying: the stored position at which it was killed. */
  target?: number;
  before: number;
  after: number;
  /** The run finished before the kill came. */
  completed: boolean;
}

async function crashRounds(c: Case, seed: number) {
  const rng = new Rng(seed);
  const dir = sys.tempDir('pcg-import-crash-');
  const file = await makeFile(dir, c);
  const clean = await cleanImport(file);
  const s = clean.summary;
  const total = s.accepted + s.duplicates + s.rejected;
  const keys = itemKeys(file, c, s.source);
  expect(keys.length).toBe(total);
  expect(s.rejected).toBe(keys.filter((k) => k === null).length);
  expect(clean.dead).toBe(s.rejected);
  expect(s.events).toBe(new Set(keys.filter((k) => k !== null)).size);

  // The clean project is the document `pcg graph FILE` prints too (read in batches of 5000, hence another version).
  const g = sys.pcg(['graph', file]);
  expect(await g.exit, g.err()).toBe(0);
  const printed = JSON.parse(g.out());
  expect(withoutVersion(clean.document)).toEqual(withoutVersion(printed));
  expect(clean.document.source.events).toBe(s.events);

  const kills: Kill[] = [];
  for (let round = 0; round < c.rounds; round++) {
    const project = join(dir, `round-${round}`);
    const state = stateOf(project);
    // One killed run, or two (the second resumes what the first left, and is killed too).
    const runs = rng.chance(0.35) ? 2 : 1;
    for (let k = 0; k < runs; k++) {
      const phase = rng.chance(0.3) ? 'start-up' : 'applying';
      // Applying: killed once the stored position passes a seeded point of the file (a point rather than a time:
      // how long applying takes swings with the machine's load, and a time would often land after the last batch).
      const delay = phase === 'start-up' ? Math.round(rng.uniform(0, clean.startupMs)) : 0;
      const target = Math.round(rng.uniform(BATCH, Math.max(BATCH, total - 2 * BATCH)));
      const before = storedOffset(state);
      const run = sys.pcg(importArgs(file, project));
      if (phase === 'applying') {
        while (run.alive() && storedOffset(state) < Math.max(target, before + 1)) await sleep(2);
      }
      const killAt = Date.now() + delay;
      while (run.alive() && Date.now() < killAt) await sleep(Math.min(5, Math.max(0, killAt - Date.now())));
      const completed = !run.alive();
      await run.kill();
      if (completed) expect(await run.exit, run.err()).toBe(0);
      const after = storedOffset(state);
      kills.push({ round, run: k, phase, delay, ...(phase === 'applying' ? { target } : {}), before, after, completed });
      const story = JSON.stringify(kills.at(-1));

      // What the kill left: the batches up to the stored position, whole, and nothing else.
      expect(after, story).toBeGreaterThanOrEqual(before);
      if (after >= 0) expect(after % BATCH === 0 || after === total, story).toBe(true);
      const applied = keys.slice(0, Math.max(0, after));
      const expected = new Set(applied.filter((x): x is string => x !== null));
      const kept = keptKeys(state);
      expect(kept.rows, `${story}: an event kept twice`).toBe(kept.keys.size);
      expect([...kept.keys].sort(), story).toEqual([...expected].sort());
      expect(deadLetters(project), story).toBe(applied.filter((x) => x === null).length);
    }

    // Run again to completion: it skips exactly what was stored, applies the rest.
    const stored = Math.max(0, storedOffset(state));
    const last = sys.pcg(importArgs(file, project));
    expect(await last.exit, last.err()).toBe(0);
    const summary = JSON.parse(last.out());
    expect(summary.source).toBe(s.source);
    expect(summary.already_imported).toBe(stored);
    expect(summary.accepted + summary.duplicates + summary.rejected + summary.already_imported).toBe(total);
    expect({ cases: summary.cases, events: summary.events }).toEqual({ cases: s.cases, events: s.events });
    expect(storedOffset(state)).toBe(total);
    expect(deadLetters(project)).toBe(s.rejected);
    const kept = keptKeys(state);
    expect(kept.rows).toBe(s.events);
    expect(kept.keys.size).toBe(s.events);

    // The clean import's document, data version included: every batch was applied exactly once.
    const document = documentOf(project);
    expect(document.source.log_digest).toBe(clean.document.source.log_digest);
    expect(document.source.events).toBe(clean.document.source.events);
    expect(document.source.cases).toBe(clean.document.source.cases);
    expect(document).toEqual(clean.document);
  }

  // Once more on a finished project: everything already imported, nothing changes.
  const project = join(dir, `round-${c.rounds - 1}`);
  const again = sys.pcg(importArgs(file, project));
  expect(await again.exit, again.err()).toBe(0);
  expect(JSON.parse(again.out())).toMatchObject({ accepted: 0, duplicates: 0, rejected: 0, already_imported: total, cases: s.cases, events: s.events });
  expect(documentOf(project)).toEqual(clean.document);
  return { kills, total };
}

describe('pcg import SIGKILLed at seeded random moments, then run again', () => {
  it('NDJSON with duplicates, late events and broken lines: 6 rounds, every event and dead letter once', async () => {
    const { kills, total } = await crashRounds({ format: 'ndjson', model: 'order-to-cash', cases: 900, seed: 14_001, rounds: 6, late: 0.05, duplicates: 0.05 }, 14_101);
    const story = JSON.stringify(kills);
    expect(new Set(kills.map((k) => k.round)).size).toBe(6);
    // The kills came mid-file: part of it stored, part not.
    expect(kills.filter((k) => k.after > 0 && k.after < total).length, story).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('CSV: 5 rounds, every row once', async () => {
    const { kills, total } = await crashRounds({ format: 'csv', model: 'claims', cases: 900, seed: 14_002, rounds: 5 }, 14_102);
    const story = JSON.stringify(kills);
    expect(new Set(kills.map((k) => k.round)).size).toBe(5);
    expect(kills.filter((k) => k.after > 0 && k.after < total).length, story).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
