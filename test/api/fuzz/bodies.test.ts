import { EDGE_TEXT, mutateBytes, nestedJson, type Prng } from '../../tools/fuzz.js';
import { WRONG } from './events.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, isEvents, isUpload, pickRoute } from './requests.js';
import { type Fuzz, LIMITS } from './world.js';

/**
 * The JSON bodies of every route but events and uploads: wrong types, missing
 * and unknown keys, huge strings, over the body limit, deep nesting, edge
 * text, other shapes, cut and broken bytes, prototype keys.
 */

/** JSON bodies of every other route: wrong types, missing and unknown keys, huge strings, deep nesting, edge text, broken bytes. */
const bodyCase = (f: Fuzz, rng: Prng): Case => {
  const def = pickRoute(f, rng, (d) => d.body !== undefined && !isEvents(d) && !isUpload(d));
  const c = baseRequest(f, def, rng);
  c.door = 'body';
  const body = JSON.parse(c.req.payload as string) as Record<string, unknown>;
  const keys = Object.keys(body);
  const kind = rng.weighted([
    ['wrong type', 3],
    ['missing', 1],
    ['unknown key', 2],
    ['long string', 2],
    ['over body limit', 1],
    ['deep', 1],
    ['edge text', 3],
    ['shape', 1],
    ['truncate', 1],
    ['bytes', 2],
    ['proto', 1],
  ] as const);
  const refused = () => {
    c.status = [400];
    c.code = 'validation_failed';
  };
  let text: string | Buffer = '';
  switch (kind) {
    case 'wrong type': {
      const k = rng.pick(keys);
      body[k] = rng.pick(WRONG);
      text = JSON.stringify(body);
      c.what = `${k}=${JSON.stringify(body[k])}`;
      c.status = undefined;
      break;
    }
    case 'missing': {
      const k = rng.pick(keys);
      delete body[k];
      text = JSON.stringify(body);
      c.what = `no ${k}`;
      c.status = undefined;
      break;
    }
    case 'unknown key':
      body[`x_${rng.word(4)}`] = rng.pick(WRONG);
      text = JSON.stringify(body);
      c.what = 'an unknown key';
      refused();
      break;
    case 'long string': {
      const k = rng.pick(keys);
      body[k] = 'L'.repeat(rng.pick([199, 200, 201, 2001, 20_000]));
      text = JSON.stringify(body);
      c.what = `${k} of ${(body[k] as string).length} characters`;
      c.status = undefined;
      break;
    }
    case 'over body limit': {
      const k = rng.pick(keys);
      body[k] = 'L'.repeat(LIMITS.bodyLimitBytes + rng.pick([0, 1, 1000]));
      text = JSON.stringify(body);
      c.what = `body of ${text.length} bytes`;
      c.status = [413];
      c.code = 'payload_too_large';
      c.message = /PCG_BODY_LIMIT_BYTES/;
      break;
    }
    case 'deep': {
      const k = rng.pick(keys);
      const depth = rng.pick([50, 2000, 5000]);
      text = JSON.stringify(body).replace(`"${k}":`, `"${k}":${nestedJson(depth, JSON.stringify(body[k]))},"${k}_":`);
      c.what = `${k} nested ${depth} deep`;
      refused();
      break;
    }
    case 'edge text': {
      const k = rng.pick(keys);
      const v = rng.pick(EDGE_TEXT);
      body[k] = typeof body[k] === 'string' ? v : Array.isArray(body[k]) ? [v] : v;
      text = JSON.stringify(body);
      c.what = `${k}=${JSON.stringify(body[k])}`;
      c.status = undefined;
      break;
    }
    case 'shape': {
      text = rng.pick(['null', '[]', '"x"', '1', 'true', '{}', '[{}]']);
      c.what = `body ${text}`;
      if (text !== '{}') refused();
      else c.status = undefined;
      break;
    }
    case 'truncate': {
      const full = JSON.stringify(body);
      const cut = rng.int(full.length - 1);
      text = full.slice(0, cut);
      c.what = `truncated at ${cut}`;
      refused();
      break;
    }
    case 'bytes': {
      let bytes: Buffer = Buffer.from(JSON.stringify(body));
      const ops = [];
      for (let k = rng.between(1, 3); k > 0; k--) {
        const m = mutateBytes(rng, bytes);
        bytes = m.bytes;
        ops.push(m.op);
      }
      text = bytes;
      c.what = ops.join(', ');
      c.status = undefined;
      break;
    }
    case 'proto':
      text = JSON.stringify(body).replace('{', rng.pick(['{"__proto__":{"admin":true},', '{"constructor":{"prototype":{"admin":true}},']));
      c.what = 'prototype keys';
      refused();
      break;
  }
  c.req.payload = text;
  c.what = `${def.method} ${def.url}: ${c.what}`;
  return c;
};

fuzzDoors('JSON bodies', { body: bodyCase });
