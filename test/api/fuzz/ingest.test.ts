import { mutateBytes, nestedJson, type Prng } from '../../tools/fuzz.js';
import { batch, mutateEvent, RAW, serialize } from './events.js';
import { fuzzDoors } from './harness.js';
import type { Case } from './requests.js';
import { eventsUrl, type Fuzz, headersFor, LIMITS } from './world.js';

/**
 * The events door: JSON arrays, single objects and NDJSON bodies of valid
 * events with some records changed (events.ts) or the body's bytes cut,
 * flipped, padded to and over the body limit, over the events-per-request
 * limit, or in shapes that are not a list of events. Where a change decides a
 * record's fate, the answer's rejections must say so; what the answers accept
 * is what the documents count (harness.ts).
 */

/** An events request (JSON array, one object, or NDJSON) with some of its records changed, or its bytes. */
const ingestCase = (f: Fuzz, rng: Prng): Case => {
  RAW.clear();
  const project = rng.pick(['A', 'B'] as const);
  const ndjson = rng.chance(0.35);
  const n = rng.between(1, 12);
  const records: unknown[] = batch(f.sent, rng, n);
  const fates = new Map<string, true | RegExp>();
  const whats: string[] = [];
  const changed = new Map<number, { count: number; fate?: true | RegExp }>();
  const mutations = rng.chance(0.15) ? 0 : rng.between(1, 3);
  for (let m = 0; m < mutations; m++) {
    const i = rng.int(records.length);
    const before = records[i];
    if (typeof before !== 'object' || before === null) continue;
    const e = { ...(before as Record<string, unknown>) };
    const r = mutateEvent(rng, e);
    records[i] = r.replace ?? e;
    whats.push(`#${i + 1} ${r.what}`);
    const seen = changed.get(i);
    // Only a single change to a record decides its fate.
    changed.set(i, seen ? { count: seen.count + 1 } : { count: 1, ...(r.fate ? { fate: r.fate } : {}) });
  }
  for (const [i, { count, fate }] of changed) if (count === 1 && fate) fates.set(ndjson ? `line ${i + 1}` : `record ${i + 1}`, fate);
  const headers = headersFor(f, 'admin', { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' });
  let text = ndjson ? records.map((r) => serialize(r)).join('\n') : rng.chance(0.1) && records.length === 1 ? serialize(records[0]) : serialize(records);
  let payload: string | Buffer = text;
  let status: readonly number[] = [200];
  let code: string | undefined;
  let message: RegExp | undefined;
  const body = rng.weighted([
    ['as is', 10],
    ['truncate', 2],
    ['bytes', 2],
    ['duplicate keys', 1],
    ['bom', 1],
    ['pretty', 1],
    ['proto', 1],
    ['near body limit', 1],
    ['over body limit', 1],
    ['count', 1],
    ['shape', 1],
    ['ndjson lines', ndjson ? 3 : 0],
  ] as const);
  let fatesHold = true;
  switch (body) {
    case 'as is':
      break;
    case 'truncate': {
      if (ndjson) {
        // A line cut short is one rejected line; the rest go on.
        const cut = rng.between(1, Math.max(1, text.length - 1));
        text = text.slice(0, cut);
        payload = text;
        fatesHold = false;
        whats.push(`truncated at ${cut}`);
      } else {
        const cut = rng.int(Math.max(1, text.length - 1));
        payload = text.slice(0, cut);
        status = [400];
        code = 'validation_failed';
        message = cut === 0 ? /empty/ : /not valid JSON/;
        whats.push(`truncated at ${cut}`);
      }
      break;
    }
    case 'bytes': {
      let bytes: Buffer = Buffer.from(text);
      for (let k = rng.between(1, 3); k > 0; k--) {
        const m = mutateBytes(rng, bytes);
        bytes = m.bytes;
        whats.push(m.op);
      }
      payload = bytes;
      status = ndjson ? [200] : [200, 400];
      fatesHold = false;
      break;
    }
    case 'duplicate keys':
      text = text.replace('{"caseId":', '{"caseId":"dup-key","caseId":');
      payload = text;
      whats.push('duplicate keys');
      break;
    case 'bom':
      payload = `\ufeff${text}`;
      if (ndjson) fatesHold = false;
      whats.push('BOM');
      break;
    case 'pretty':
      if (!ndjson) payload = text.startsWith('[') ? serialize(records, 2) : serialize(records[0], 2);
      whats.push('pretty-printed');
      break;
    case 'proto': {
      const key = rng.pick(['"__proto__":{"polluted":1}', '"constructor":{"prototype":{"polluted":1}}']);
      payload = text.replace('{', `{${key},`);
      whats.push(`key ${key}`);
      if (payload === text) break;
      if (!ndjson) {
        status = [400];
        code = 'validation_failed';
      } else fates.set('line 1', /./);
      break;
    }
    case 'near body limit': {
      // Whitespace after the JSON up to the limit: still one body within it.
      const pad = LIMITS.bodyLimitBytes - Buffer.byteLength(text) - rng.int(3);
      if (pad > 0) payload = text + (ndjson ? '\n' : ' ').repeat(pad);
      whats.push(`padded to ${Buffer.byteLength(payload)} bytes`);
      break;
    }
    case 'over body limit': {
      const over = rng.pick([1, 2, 100, 5000, 200_000]);
      const pad = LIMITS.bodyLimitBytes - Buffer.byteLength(text) + over;
      payload = rng.chance(0.5) ? text + ' '.repeat(Math.max(0, pad)) : text.replace('"caseId"', `"huge":"${'h'.repeat(Math.max(0, pad - 9))}","caseId"`);
      if (Buffer.byteLength(payload) > LIMITS.bodyLimitBytes) {
        status = [413];
        code = 'payload_too_large';
        message = /PCG_BODY_LIMIT_BYTES/;
      }
      whats.push(`${Buffer.byteLength(payload)} bytes`);
      break;
    }
    case 'count': {
      const count = LIMITS.limitEventsPerRequest + rng.between(-1, 3);
      const many = batch(f.sent, rng, count);
      text = ndjson ? many.map((r) => JSON.stringify(r)).join('\n') : JSON.stringify(many);
      payload = text;
      fates.clear();
      whats.length = 0;
      whats.push(`${count} events`);
      if (count > LIMITS.limitEventsPerRequest) {
        status = [413];
        code = 'payload_too_large';
        message = /^limit PCG_LIMIT_EVENTS_PER_REQUEST: /;
      }
      break;
    }
    case 'shape': {
      const shape = rng.pick(['null', '1', '"x"', 'true', '[]', '{}', '[null]', '[1,"a",[]]', '[[]]', '{"events":[]}', '']);
      payload = shape;
      fates.clear();
      whats.length = 0;
      whats.push(`body ${shape || '(empty)'}`);
      if (!ndjson) {
        if (['null', '1', '"x"', 'true', ''].includes(shape)) {
          status = [400];
          code = 'validation_failed';
        }
      }
      break;
    }
    case 'ndjson lines': {
      const lines = text.split('\n');
      const op = rng.pick(['crlf', 'blank', 'garbage', 'nul', 'deep', 'array', 'invalid-utf8', 'ws', 'unicode-separator']);
      whats.push(`lines: ${op}`);
      fatesHold = false;
      if (op === 'crlf') payload = lines.join('\r\n');
      else if (op === 'blank') payload = lines.flatMap((l) => [l, '', '   ']).join('\n');
      else if (op === 'garbage') payload = [...lines, rng.pick(['not json', '{', '[1,', '}', 'nul', '{"a":1}{"b":2}'])].join('\n');
      else if (op === 'nul') payload = lines.map((l, i) => (i === 0 ? l.replace(',', ',\u0000') : l)).join('\n');
      else if (op === 'deep') payload = [...lines, nestedJson(rng.pick([100, 3000, 5000]))].join('\n');
      else if (op === 'array') payload = [...lines, '[]', '[{"caseId":"x","activity":"a","timestamp":0}]'].join('\n');
      else if (op === 'invalid-utf8') payload = Buffer.concat([Buffer.from(lines[0]!.slice(0, 5)), Buffer.from([0xff, 0xc3]), Buffer.from(lines.join('\n').slice(5))]);
      else if (op === 'ws') payload = lines.map((l) => ` \t${l}\t `).join('\n');
      else payload = lines.join('\u2028');
      break;
    }
  }
  // A body over the limit is refused before it is read as JSON; JSON with a __proto__ key is refused whole.
  if (Buffer.byteLength(payload) > LIMITS.bodyLimitBytes) {
    status = [413];
    code = 'payload_too_large';
    message = /PCG_BODY_LIMIT_BYTES/;
  } else if (!ndjson && status.includes(200) && /"__proto__"\s*:/.test(payload.toString())) {
    status = [400];
    code = 'validation_failed';
  }
  return {
    door: ndjson ? 'ingest-ndjson' : 'ingest-json',
    what: `${project} ${n} events; ${whats.join('; ') || 'valid'}`,
    req: { method: 'POST', url: eventsUrl(f, project), headers, payload },
    status,
    ...(code ? { code } : {}),
    ...(message ? { message } : {}),
    ...(fatesHold && status.includes(200) && fates.size ? { records: fates } : {}),
  };
};

fuzzDoors('events', { ingest: ingestCase });
