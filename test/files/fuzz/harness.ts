import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLog, fileErrorCodes, importLog, inspectLog, type ImportOptions } from '../../../connectors/files/index.js';
import { ProjectStore } from '../../../engine/index.js';
import { fuzzSeed, Prng } from '../../tools/fuzz.js';
import { mutate } from './damage.js';
import { type Format, FORMATS, seedLogs } from './logs.js';

/**
 * What every file fuzz test runs its formats through: damaged logs (damage.ts)
 * of the seed logs (logs.ts), each checked (checkLog, what an upload runs
 * first), inspected and imported into a fresh store: every one either reads or
 * is refused with a FileImportError carrying a documented code, never anything
 * else; the check, the import and the store agree on what the file held.
 *
 * Case i is format i mod 8 with the numbers of root.fork(i), in whichever file
 * runs that format: PCG_FUZZ_SEED=<seed> replays a run, PCG_FUZZ_FILE_CASES
 * sets how many cases the whole schedule holds (default 1000).
 */

const SEED = fuzzSeed();
const CASES = Number(process.env.PCG_FUZZ_FILE_CASES ?? 1000);

type Outcome = { ok: true; value: any } | { ok: false; code: string; name: string; message: string };

async function outcome(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return { ok: false, code: String(e.code), name: e.name, message: String(e.message).slice(0, 300) };
  }
}

/** A refusal is a FileImportError with a code of the registry; anything else is a crash. */
function refusalProblem(what: string, o: Outcome): string | undefined {
  if (o.ok) return undefined;
  if (o.name !== 'FileImportError' || !(o.code in fileErrorCodes)) return `${what} threw ${o.name} (code ${o.code}): ${o.message}`;
  return undefined;
}

/** The test of a file fuzz file: the cases of the schedule whose format is one of `formats`. */
export function fuzzFormats(title: string, formats: readonly Format[]): void {
  const owned = Array.from({ length: CASES }, (_, i) => FORMATS[i % FORMATS.length]!).filter((f) => formats.includes(f)).length;

  describe(`file import fuzzing: ${title}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-file-fuzz-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    let fileNo = 0;
    const path = (name: string) => join(dir, `${++fileNo}-${name}`);

    it(`reads or refuses with a documented code ${owned} of ${CASES} mutated logs (${formats.join(', ')}) (seed ${SEED})`, async () => {
      const root = new Prng(SEED).fork('files');
      const seeds = seedLogs(path('seed.sqlite'));
      const failures: string[] = [];
      const perFormat = new Map<string, { imported: number; refused: Map<string, number> }>();
      for (let i = 0; i < CASES; i++) {
        const rng = root.fork(i);
        const format = FORMATS[i % FORMATS.length]!;
        if (!formats.includes(format)) continue;
        const { bytes, what } = mutate(rng, format, seeds[format]);
        // Mostly detected from the content; now and then named, as `--format` or the upload's query does.
        const options: ImportOptions = rng.chance(0.25) ? { format } : {};
        if (format === 'csv' && rng.chance(0.2)) Object.assign(options, rng.pick([{ delimiter: ';' }, { caseColumn: 'nope' }, { timezone: 'Mars/Olympus' }, { timezone: 'Europe/Berlin' }]));
        // Now and then imported on a reader thread (what files of 8 MB or more get): the same answers are due.
        const thread = rng.chance(0.03);
        const label = `seed ${SEED} case ${i} [${format}] ${what.join(' ').slice(0, 160)} ${JSON.stringify(options)}${thread ? ' (reader thread)' : ''}`;
        const file = path(`${format}.log`);
        writeFileSync(file, bytes);
        // A fresh store per file, in memory: the same code as on disk, a sixth of the time to open.
        const store = ProjectStore.open(':memory:');
        try {
          const check = await outcome(() => checkLog(file, options));
          const inspect = await outcome(() => inspectLog(file, options));
          const imported = await outcome(() => importLog(store, file, options, { thread }));
          for (const [step, o] of [['checkLog', check], ['inspectLog', inspect], ['importLog', imported]] as const) {
            const p = refusalProblem(step, o);
            if (p) failures.push(`${label}: ${p}`);
          }
          // What an upload checks first, the import finds too: the same refusal, or both read it.
          if (check.ok !== imported.ok) failures.push(`${label}: checkLog ${check.ok ? 'read it' : `refused (${(check as { code: string }).code})`} but importLog ${imported.ok ? 'read it' : `refused (${(imported as { code: string }).code}: ${(imported as { message: string }).message})`}`);
          else if (!check.ok && !imported.ok && check.code !== imported.code) failures.push(`${label}: checkLog refused with ${check.code}, importLog with ${imported.code}`);
          if (imported.ok && check.ok) {
            const s = imported.value;
            const items = check.value.records + check.value.rejected;
            if (s.accepted + s.duplicates + s.rejected !== items) failures.push(`${label}: the import took ${s.accepted}+${s.duplicates}+${s.rejected} of the ${items} items the check read`);
            if (store.eventCount() !== s.events) failures.push(`${label}: the store holds ${store.eventCount()} events, the summary says ${s.events}`);
            if (s.rejected !== store.deadLetters({ limit: 100_000 }).length) failures.push(`${label}: ${s.rejected} rejected but ${store.deadLetters({ limit: 100_000 }).length} dead letters`);
            for (const l of store.deadLetters({ limit: 100_000 })) if (!l.reason || !l.location) failures.push(`${label}: a dead letter without reason or location: ${JSON.stringify(l).slice(0, 200)}`);
          }
          const tally = perFormat.get(format) ?? { imported: 0, refused: new Map<string, number>() };
          if (imported.ok) tally.imported += 1;
          else tally.refused.set(imported.code, (tally.refused.get(imported.code) ?? 0) + 1);
          perFormat.set(format, tally);
        } finally {
          store.close();
          rmSync(file, { force: true });
        }
      }
      const summary = [...perFormat].map(([f, t]) => `${f}: ${t.imported} imported, refused ${JSON.stringify(Object.fromEntries(t.refused))}`);
      console.log(`file fuzz seed ${SEED} (${title}): ${owned} of ${CASES} files\n  ${summary.join('\n  ')}`);
      expect(failures.slice(0, 25), `${failures.length} problems (replay with PCG_FUZZ_SEED=${SEED})`).toEqual([]);
    }, 240_000);
  });
}
