import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileImportError, importLog, type ImportSummary } from '../../connectors/files/index.js';
import { writeSimulation } from '../../connectors/simulator/index.js';
import { eventLimits, tallyToJson, type ProjectStore } from '../../engine/index.js';
import { scratch } from './helpers.js';

/** Everything a store holds that an import decides: counters, digest, versions, meta, dead letters. */
function stateOf(store: ProjectStore) {
  const snap = store.snapshot();
  return {
    tally: tallyToJson(snap.tally),
    logDigest: snap.logDigest,
    dataVersion: snap.dataVersion,
    periodStart: snap.periodStart,
    periodEnd: snap.periodEnd,
    rejected: snap.rejected,
    meta: snap.meta,
    events: store.eventCount(),
    deadLetters: store.deadLetters({ limit: 1000 }).map(({ location, reason, payload, source }) => ({ location, reason, payload, source })),
  };
}

describe('reading a log on a reader thread', () => {
  it.each(['ndjson', 'xes', 'csv'] as const)('a %s import gives the state, summary and dead letters the caller-thread import gives', async (format) => {
    const s = scratch();
    const path = join(s.dir, `log.${format}`);
    await writeSimulation({ model: 'order-to-cash', cases: 300, seed: 7, duplicateShare: 0.02, lateShare: 0.05 }, format, path);
    if (format === 'ndjson') appendFileSync(path, '{"caseId": "x", "activity": "A"}\nnot json\n{"caseId":"y","activity":"B","timestamp":"2025-01-06T10:00:00Z","attributes":{"n":"' + 'z'.repeat(300) + '"}}\n');
    // Small limits, so that the thread must check with the target's limits, not its own defaults.
    const limits = eventLimits({ attributeValueBytes: 200 });
    const results: { summary: ImportSummary; state: ReturnType<typeof stateOf> }[] = [];
    for (const thread of [false, true]) {
      const store = s.store(`${format}-${thread}.sqlite`, { limits });
      const summary = await importLog(store, path, { batchSize: 97 }, { thread });
      results.push({ summary, state: stateOf(store) });
    }
    const [caller, threaded] = results as [(typeof results)[0], (typeof results)[0]];
    expect(threaded.summary).toEqual(caller.summary);
    expect(threaded.state).toEqual(caller.state);
    expect(caller.summary.accepted).toBeGreaterThan(2000);
    if (format === 'ndjson') {
      expect(caller.summary.rejected).toBe(3);
      expect(caller.state.deadLetters.map((d) => d.reason).join('\n')).toMatch(/PCG_LIMIT_ATTRIBUTE_VALUE_BYTES/);
    }
  });

  it('resumes on a thread what a stopped import left: every event counted once', async () => {
    const s = scratch();
    const path = join(s.dir, 'resume.ndjson');
    await writeSimulation({ model: 'order-to-cash', cases: 400, seed: 3 }, 'ndjson', path);
    const whole = s.store('whole.sqlite');
    await importLog(whole, path, { batchSize: 50 }, { thread: false });

    const resumed = s.store('resumed.sqlite');
    const stop = new AbortController();
    let batches = 0;
    const stopping = {
      apply: ((batch, position) => {
        const result = resumed.apply(batch, position);
        if (++batches === 7) stop.abort();
        return result;
      }) as ProjectStore['apply'],
      setMeta: (key: string, value: string) => resumed.setMeta(key, value),
      totals: () => resumed.totals(),
      limits: resumed.limits,
    };
    await expect(importLog(stopping, path, { batchSize: 50 }, { thread: true, signal: stop.signal })).rejects.toThrow();
    expect(resumed.eventCount()).toBe(350);
    const rest = await importLog(resumed, path, { batchSize: 50 }, { thread: true });
    expect(rest.already_imported).toBe(350);
    expect(stateOf(resumed).tally).toEqual(stateOf(whole).tally);
    expect(resumed.snapshot().logDigest).toBe(whole.snapshot().logDigest);
  });

  it('a file the thread cannot read fails with the error code the caller thread gives', async () => {
    const s = scratch();
    const store = s.store('errors.sqlite');
    const missing = importLog(store, join(s.dir, 'nothing-here.xes'), {}, { thread: true });
    await expect(missing).rejects.toBeInstanceOf(FileImportError);
    await expect(missing).rejects.toMatchObject({ code: 'file_not_found' });
    const binary = s.file('image.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3, 0]));
    await expect(importLog(store, binary, {}, { thread: true })).rejects.toMatchObject({ code: 'binary_file' });
    expect(store.eventCount()).toBe(0);
  });
});
