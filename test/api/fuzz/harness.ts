import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorCodes } from '../../../api/errors.js';
import { readNdjson } from '../../../engine/ndjson.js';
import { referenceDocument } from '../../kafka/helpers.js';
import { Prng } from '../../tools/fuzz.js';
import { call, events } from '../helpers.js';
import type { Case } from './requests.js';
import { CASES, eventsUrl, type Fuzz, SEED, setUp } from './world.js';

/**
 * What every HTTP fuzz file runs its door through. Whatever comes in: never a
 * 5xx; every refusal in the error format (error, message, timestamp,
 * requestId = X-Request-Id) with the status its code stands for, and the
 * specific 4xx where the mutation decides it (malformed JSON 400, a wrong
 * content type or coding 415, over a limit 413 naming the limit); a refused
 * request changes nothing (catalog, project states, dead letters); what was
 * accepted is exactly what the documents count afterwards.
 *
 * The seed is printed with every failure: PCG_FUZZ_SEED=<seed> replays the run
 * (PCG_FUZZ_CASES sets how many requests, default 3000; PCG_FUZZ_TRACE=1 prints
 * every problem, not only the first 25).
 */

/** Longest wait for one answer (most take a few milliseconds). */
const ANSWER_MS = 15_000;

export type Door = 'ingest' | 'header' | 'query' | 'path' | 'method' | 'body' | 'upload' | 'mcp' | 'base';

/**
 * How often each door comes up. Every file draws the whole schedule from the
 * seed — case i's numbers come from root.fork(i), the first of them picks its
 * door — and runs the cases of the doors it owns: each door gets the cases,
 * and case i the input, it had when one file ran them all.
 */
const DOORS: readonly (readonly [Door, number])[] = [
  ['ingest', 24],
  ['header', 15],
  ['query', 14],
  ['path', 13],
  ['method', 5],
  ['body', 12],
  ['upload', 4],
  ['mcp', 3],
  ['base', 3],
];

/** Makes one case of a door from its stream of numbers. */
export type DoorCase = (f: Fuzz, rng: Prng) => Case;

interface Failure {
  index: number;
  door: string;
  what: string;
  problem: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ERROR_KEYS = 'error,message,requestId,timestamp';

/** What is wrong with an error answer's format (empty when it is right). */
export function errorFormatProblems(status: number, headers: Record<string, unknown>, text: string, dir: string): string[] {
  const out: string[] = [];
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return [`error body is not JSON: ${text.slice(0, 200)}`];
  }
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) out.push(`error content-type ${String(headers['content-type'])}`);
  if (body === null || typeof body !== 'object') return [...out, `error body is ${text.slice(0, 100)}`];
  const keys = Object.keys(body).sort().join();
  if (keys !== ERROR_KEYS) out.push(`error body has keys ${keys}`);
  const code = body.error as keyof typeof apiErrorCodes;
  if (!(code in apiErrorCodes)) out.push(`unknown error code ${String(body.error)}`);
  else if (apiErrorCodes[code] !== status && !(status === 431 && code === 'payload_too_large')) out.push(`code ${code} answered with ${status}`);
  if (typeof body.message !== 'string' || !body.message) out.push('empty message');
  else if (body.message.includes(dir) || /\/tmp\/|node_modules|SQLITE|\n\s+at /.test(body.message)) out.push(`message leaks internals: ${body.message.slice(0, 200)}`);
  if (!ISO.test(String(body.timestamp))) out.push(`timestamp ${String(body.timestamp)}`);
  if (body.requestId !== headers['x-request-id']) out.push(`requestId ${String(body.requestId)} != X-Request-Id ${String(headers['x-request-id'])}`);
  return out;
}

/** The records an answered events request carried, with their locations, as the server reads them. */
const recordsOf = (c: Case): { records: unknown[]; locations: string[]; lines: number } => {
  const text = Buffer.from(c.req.payload as string | Buffer).toString('utf8');
  if (/ndjson/i.test(c.req.headers['content-type'] ?? '')) {
    const part = readNdjson(text);
    return { records: part.records, locations: part.locations, lines: part.rejected.length };
  }
  const body = JSON.parse(text.replace(/^\ufeff/, ''));
  const records = Array.isArray(body) ? body : [body];
  return { records, locations: records.map((_, i) => `record ${i + 1}`), lines: 0 };
};

/** Upload files staged in C's datasets folder and not yet removed. */
const stagedLeft = (f: Fuzz) => {
  const dir = join(f.t.context.states.dirOf(f.ids.C), 'datasets');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith('.upload-')) : [];
};

/** Sends one case; what is wrong with its answer, and the model brought up to date with what it accepted. */
async function run(f: Fuzz, c: Case): Promise<string[]> {
  const problems: string[] = [];
  const before = f.fingerprint();
  const stagedBefore = c.req.url.includes('/dataset') ? stagedLeft(f) : [];
  let r;
  let timer: NodeJS.Timeout | undefined;
  try {
    // A request left unanswered is a failure of its own (and must not stall the run).
    r = await Promise.race([
      f.t.app.inject(c.req),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ANSWER_MS} ms`)), ANSWER_MS))),
    ]);
  } catch (error) {
    return [`inject: ${String(error)}`];
  } finally {
    clearTimeout(timer);
  }
  const status = r.statusCode;
  const text = r.body;
  if (status >= 500) problems.push(`${status}: ${text.slice(0, 300)}`);
  if (c.status && !c.status.includes(status)) problems.push(`status ${status}, expected ${c.status.join(' or ')}: ${text.slice(0, 300)}`);
  const requestId = r.headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestId) problems.push('no X-Request-Id');
  if (c.requestId && requestId !== c.requestId) problems.push(`X-Request-Id ${String(requestId)}, sent ${c.requestId}`);
  const apiError = status >= 400 && c.req.method !== 'HEAD' && !(c.foreignErrors && !/"requestId"/.test(text));
  if (apiError) problems.push(...errorFormatProblems(status, r.headers, text, f.t.dir));
  if (status >= 400 && (c.code || c.message)) {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = {};
    }
    if (c.code && body.error !== c.code) problems.push(`error ${String(body.error)}, expected ${c.code}`);
    if (c.message && !c.message.test(String(body.message))) problems.push(`message ${JSON.stringify(body.message)} does not match ${c.message}`);
  }
  if (c.req.method === 'HEAD' && text.length) problems.push('HEAD answered with a body');
  if ((status >= 400 || c.readOnly) && f.fingerprint() !== before) problems.push(`a refused request changed the state:\n  before ${before}\n  after  ${f.fingerprint()}`);
  const staged = (c.req.url.includes('/dataset') ? stagedLeft(f) : []).filter((f) => !stagedBefore.includes(f));
  if (staged.length) problems.push(`an upload (answered ${status}) left staged files: ${staged.join(', ')}`);

  // An answered events request: what it says it took is what the project must hold.
  const m = /^\/api\/[^/]+\/project\/([^/?]+)\/events/.exec(c.req.url);
  const project = m ? (['A', 'B'] as const).find((p) => f.ids[p] === m[1]!.toLowerCase()) : undefined;
  if (project && status === 200 && c.req.method === 'POST') {
    const answer = JSON.parse(text);
    const { records, locations, lines } = recordsOf(c);
    if (answer.accepted + answer.duplicates + answer.rejected !== records.length + lines) {
      problems.push(`answer ${JSON.stringify(answer).slice(0, 200)} does not add up to ${records.length} records and ${lines} broken lines`);
    }
    if (answer.rejected > answer.rejections.length) problems.push(`more rejections (${answer.rejected}) than listed: the fuzz cannot tell which records were kept`);
    const reasons = new Map<string, string>(answer.rejections.map((x: { location: string; reason: string }) => [x.location, x.reason]));
    records.forEach((record, i) => {
      if (!reasons.has(locations[i]!)) f.kept[project].push(record);
    });
    f.refused[project] += answer.rejected;
    for (const [location, fate] of c.records ?? []) {
      const reason = reasons.get(location);
      if (fate === true && reason !== undefined) problems.push(`${location} refused (${reason}), expected accepted`);
      if (fate instanceof RegExp && (reason === undefined || !fate.test(reason))) problems.push(`${location} ${reason === undefined ? 'accepted' : `refused for ${reason}`}, expected refused for ${fate}`);
    }
  }
  return problems;
}

/** The events each project was answered as holding are what its document counts, and its dead letters are one per refused record. */
export async function countsExactly(f: Fuzz): Promise<void> {
  const { t, w, ids } = f;
  expect((await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
  // A valid ingest after the fuzz still works.
  const late = events(5, Date.UTC(2025, 0, 1)).map((e: any) => ({ ...e, caseId: `late-${e.caseId}`, eventId: `late-${e.eventId}` }));
  const r = await call(t.app, 'POST', eventsUrl(f, 'A'), w.admin, late);
  expect(r.body, `seed ${SEED}`).toMatchObject({ accepted: late.length, rejected: 0 });
  f.kept.A.push(...late);
  for (const p of ['A', 'B'] as const) {
    const g = await call(t.app, 'GET', `/api/${w.tenantId}/project/${ids[p]}/graph`, w.reader);
    expect(g.status, `seed ${SEED} project ${p}: ${g.text.slice(0, 300)}`).toBe(200);
    const reference = referenceDocument(f.kept[p] as never);
    const counted = (d: any) => ({
      log_digest: d.source.log_digest,
      events: d.source.events,
      cases: d.source.cases,
      period: [d.source.period_start, d.source.period_end],
      nodes: d.nodes,
      edges: d.edges,
      variants: d.variants,
    });
    expect(counted(g.body), `seed ${SEED} project ${p}: the document counts what the answers said was accepted`).toEqual(counted(reference));
    expect(t.context.states.store(ids[p]).deadLetterCount('direct'), `seed ${SEED} project ${p}: one dead letter per refused record`).toBe(f.refused[p]);
  }
}

/**
 * The tests of a fuzz file: on a fresh world, the cases of the schedule whose
 * door `cases` names, each checked as it is answered (with /health/ready every
 * 250 cases of the schedule), then the documents against the model.
 */
export function fuzzDoors(title: string, cases: Partial<Record<Door, DoorCase>>): void {
  const root = new Prng(SEED);
  const owned = Array.from({ length: CASES }, (_, i) => root.fork(i).weighted(DOORS)).filter((door) => cases[door]).length;
  const names = Object.keys(cases).join(', ');

  describe(`HTTP fuzzing: ${title}`, () => {
    let f: Fuzz;
    beforeAll(async () => {
      f = await setUp();
    }, 120_000);
    afterAll(() => f?.t.close());

    it(`answers ${owned} of ${CASES} mutated requests (${names}) without a 5xx, in the error format, changing nothing it refuses (seed ${SEED})`, async () => {
      const failures: Failure[] = [];
      const perDoor = new Map<string, number>();
      for (let i = 0; i < CASES; i++) {
        const rng = root.fork(i);
        const make = cases[rng.weighted(DOORS)];
        if (make) {
          const c = make(f, rng);
          perDoor.set(c.door, (perDoor.get(c.door) ?? 0) + 1);
          const problems = await run(f, c);
          for (const problem of problems) failures.push({ index: i, door: c.door, what: c.what, problem });
        }
        if (i % 250 === 249) {
          const ready = await f.t.app.inject({ method: 'GET', url: '/health/ready' });
          if (ready.statusCode !== 200) failures.push({ index: i, door: 'health', what: 'GET /health/ready', problem: `${ready.statusCode} ${ready.body}` });
        }
      }
      console.log(`HTTP fuzz seed ${SEED} (${title}): ${owned} of ${CASES} requests by door ${JSON.stringify(Object.fromEntries(perDoor))}`);
      if (process.env.PCG_FUZZ_TRACE) for (const x of failures) console.log(`case ${x.index} [${x.door}] ${x.what.slice(0, 150)}: ${x.problem.slice(0, 400)}`);
      const shown = failures.slice(0, 25).map((x) => `seed ${SEED} case ${x.index} [${x.door}] ${x.what.slice(0, 200)}: ${x.problem}`);
      expect(shown, `${failures.length} problems (replay with PCG_FUZZ_SEED=${SEED})`).toEqual([]);
    }, 240_000);

    it(`stays healthy and counts exactly what it accepted (seed ${SEED})`, () => countsExactly(f), 120_000);
  });
}
