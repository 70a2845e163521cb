import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { describeSource, importLog, openLog, type ImportOptions } from '../../connectors/files/index.js';
import { readLogInMemory } from '../../connectors/files/memory.js';
import { THREAD_MIN_BYTES, worthAThread } from '../../connectors/files/reader-thread.js';
import { XesSegmenter } from '../../connectors/files/xes-segments.js';
import { writeSimulation } from '../../connectors/simulator/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { DEFAULT_EVENT_LIMITS, ProjectStore } from '../../engine/index.js';
import { MemoryProject } from '../../engine/store/memory-project.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'pcg-xes-parts-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const doc = (snapshot: Parameters<typeof buildDocument>[0]) => JSON.stringify(buildDocument(snapshot));

/** The document of reading the file whole on one thread (the reference). */
async function whole(file: string, options: ImportOptions = {}): Promise<string> {
  const project = new MemoryProject();
  await importLog(project, file, options, { thread: false });
  return doc(project.snapshot());
}

/** The document of reading it in parts of about `runBytes`, and how many events each thread read; undefined when it is read whole instead. */
async function inParts(file: string, options: ImportOptions = {}, runBytes = 256): Promise<{ text: string; events: number[] } | undefined> {
  const source = await openLog(file, options);
  const read = await source.readInParts!(DEFAULT_EVENT_LIMITS, { runBytes }).catch(() => undefined);
  if (!read) return undefined;
  const project = new MemoryProject();
  describeSource(project, source, options);
  return { text: doc(project.snapshotWith(read.parts, read.dataVersion)), events: read.parts.map((p) => p.events) };
}

const event = (activity: string, time: string, extra = '') => `<event><string key="concept:name" value="${activity}"/><date key="time:timestamp" value="${time}"/>${extra}</event>`;
const trace = (name: string | undefined, k: number, extra = '') =>
  `<trace>${name === undefined ? '' : `<string key="concept:name" value="${name}"/>`}<string key="amount" value="${k % 3}"/>${extra}` +
  ['register', k % 2 ? 'check' : 'inspect', 'decide', k % 5 ? 'approve' : 'reject']
    .map((a, i) => event(a, `2025-01-${String(1 + (k % 20)).padStart(2, '0')}T${String(8 + i).padStart(2, '0')}:00:00.000+01:00`, `<string key="lifecycle:transition" value="${i % 2 ? 'start' : 'complete'}"/><string key="org:resource" value="r${(k + i) % 4}"/>`))
    .join('') +
  `</trace>`;
const HEADER = `<?xml version="1.0" encoding="UTF-8"?>
<log xes.version="1.0" xmlns="http://www.xes-standard.org/">
  <global scope="event"><string key="lifecycle:transition" value="complete"/></global>
  <classifier name="Activity" keys="concept:name lifecycle:transition"/>
`;
const log = (traces: string[], tail = '</log>\n') => `${HEADER}${traces.join('\n')}\n${tail}`;

function file(text: string): string {
  const path = join(tempDir(), 'log.xes');
  writeFileSync(path, text);
  return path;
}

const traces = (n: number, name = (k: number) => `case ${k}`) => Array.from({ length: n }, (_, k) => trace(name(k), k));

describe('a XES log read in parts on two threads (pcg graph FILE)', () => {
  it('gives the whole reading’s document byte for byte, both threads reading, whatever the options', async () => {
    const path = file(log(traces(60)));
    for (const options of [{}, { lifecycle: 'complete' as const }, { lifecycle: 'label' as const }, { classifier: 'Activity' }, { batchSize: 7 }]) {
      const parts = await inParts(path, options);
      expect(parts !== undefined, JSON.stringify(options)).toBe(true);
      expect(parts!.text === (await whole(path, options)), JSON.stringify(options)).toBe(true);
      // Every event read once, by one thread or the other; the thread got the first runs.
      expect(parts!.events[0]! + parts!.events[1]!).toBe(options.lifecycle === 'complete' ? 120 : 240);
      expect(parts!.events[1]!).toBeGreaterThan(0);
    }
  });

  it('numbers traces and events as the whole file does: unnamed traces, rejections and the data version agree', async () => {
    // Traces without a name are `trace N` by their place in the file; events without a time are rejected with theirs.
    const list = traces(40, (k) => `z${k}`).map((t, k) => (k % 7 === 3 ? trace(undefined, k) : k % 11 === 5 ? t.replace('</trace>', '<event><string key="concept:name" value="lost"/></event></trace>') : t));
    const path = file(log(list));
    const parts = await inParts(path, { batchSize: 9 });
    const reference = await whole(path, { batchSize: 9 });
    expect(parts?.text).toBe(reference);
    const source = JSON.parse(reference).source;
    expect(Number(source.data_version)).toBe(Math.ceil((160 + 4) / 9));
    // The unnamed traces are cases `trace N` (N their place in the file; the log digest covers case and event ids).
    const project = new MemoryProject();
    await importLog(project, path, { batchSize: 9 }, { thread: false });
    expect(JSON.parse(project.snapshot().meta.case_id_sample!)).toContain('trace 11');
  });

  it('latin-1 and a byte order mark read as the whole file reads them', async () => {
    const named = traces(30, (k) => `caso ${k} ñandú`);
    const latin = join(tempDir(), 'latin.xes');
    writeFileSync(latin, Buffer.from(log(named).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1'));
    const bom = join(tempDir(), 'bom.xes');
    writeFileSync(bom, `\uFEFF${log(named)}`);
    // Read whole, the names come out as written (then the parts must agree with that reading).
    const project = new MemoryProject();
    await importLog(project, latin, {}, { thread: false });
    expect(project.snapshot().meta.case_id_sample).toContain('caso 0 ñandú');
    for (const path of [latin, bom]) {
      const parts = await inParts(path);
      expect(parts !== undefined && parts.text === (await whole(path))).toBe(true);
    }
  });

  it('a cut .gz is read whole (the damage is the whole reading’s to report)', async () => {
    const path = join(tempDir(), 'log.xes.gz');
    const packed = gzipSync(log(traces(40)));
    writeFileSync(path, packed.subarray(0, packed.length - 200));
    expect((await inParts(path)) === undefined).toBe(true);
  });

  it('one case named by two traces in one run is one case, as read whole', async () => {
    const list = traces(20);
    list[9] = trace('case 8', 9);
    const path = file(log(list));
    const parts = await inParts(path, {}, 64 << 10);
    expect(parts?.text).toBe(await whole(path));
  });

  it('is read whole where parts could differ: a case in two runs, a tag in a comment, a late header, broken or cut XML, an unknown classifier', async () => {
    const apart = traces(30);
    apart[25] = trace('case 2', 25);
    const comment = traces(30);
    comment[12] = comment[12]!.replace('</trace>', '<!-- <event> once --></trace>');
    const late = [...traces(15), '<global scope="event"><string key="org:resource" value="nobody"/></global>', ...traces(15).map((t) => t.replaceAll('case ', 'later '))];
    const broken = traces(30);
    broken[20] = broken[20]!.replace('</event>', '</evnt>');
    const cut = log(traces(30)).slice(0, -900);
    for (const [what, text, options] of [
      ['a case in two runs', log(apart), {}],
      ['a tag in a comment', log(comment), {}],
      ['a late header', log(late), {}],
      ['broken XML', log(broken), {}],
      ['cut XML', cut, {}],
      ['an unknown classifier', log(traces(30)), { classifier: 'none' }],
    ] as const) {
      const path = file(text);
      expect((await inParts(path, options)) === undefined, what).toBe(true);
    }
  });

  it('readLogInMemory: a large XES file goes in parts and equals the stored route; a small one is read whole, as is a large one that cannot go in parts', async () => {
    const dir = tempDir();
    const big = join(dir, 'big.xes');
    await writeSimulation({ model: 'claims', cases: 9000, seed: 11 }, 'xes', big);
    expect(statSync(big).size).toBeGreaterThanOrEqual(THREAD_MIN_BYTES);
    expect(worthAThread(big)).toBe(true);
    const store = ProjectStore.open(join(dir, 'state.sqlite'));
    await importLog(store, big);
    const stored = doc(store.snapshot());
    store.close();
    let told = 0;
    const reading = await readLogInMemory(big, {}, { onItems: (n) => (told = n) });
    expect(reading.read).toBe('parts');
    expect(doc(reading.snapshot)).toBe(stored);
    expect(told).toBe(JSON.parse(stored).source.events);
    expect((await inParts(big, {}, 1 << 20))?.text).toBe(stored);
    // The same log with a tag in a comment halfway: its counts disagree, so it is read whole, to the same document.
    const text = readFileSync(big, 'utf8');
    const at = text.indexOf('</trace>', text.length >> 1);
    const fooled = join(dir, 'fooled.xes');
    writeFileSync(fooled, `${text.slice(0, at)}<!-- <event> -->${text.slice(at)}`);
    const fooledReading = await readLogInMemory(fooled);
    expect(fooledReading.read).toBe('whole');
    expect(doc(fooledReading.snapshot)).toBe(await whole(fooled));
    const small = file(log(traces(10)));
    const smallReading = await readLogInMemory(small);
    expect(smallReading.read).toBe('whole');
    expect(doc(smallReading.snapshot)).toBe(await whole(small));
  }, 120_000);
});

describe('XesSegmenter', () => {
  it('cuts after a trace end, counts tags by name only, and keeps the header apart', () => {
    const text = log(traces(6));
    const s = new XesSegmenter(300);
    const cuts = [...s.push(Buffer.from(text.slice(0, 1000))), ...s.push(Buffer.from(text.slice(1000))), ...s.end()];
    expect(s.header!.toString()).toBe(HEADER);
    expect(cuts.map((c) => c.bytes.toString()).join('')).toBe(text.slice(HEADER.length));
    expect(cuts.slice(0, -1).every((c) => c.bytes.toString().endsWith('</trace>') && !c.last)).toBe(true);
    expect(cuts.at(-1)!.last).toBe(true);
    expect(cuts.reduce((n, c) => n + c.traces, 0)).toBe(6);
    expect(cuts.reduce((n, c) => n + c.events, 0)).toBe(24);
    const named = new XesSegmenter(1 << 20);
    const counted = [...named.push(Buffer.from('<log><traces/><trace><events/><event/><event\n></event></trace></log>')), ...named.end()];
    expect(counted).toHaveLength(1);
    expect(counted[0]).toMatchObject({ traces: 1, events: 2 });
  });
});
