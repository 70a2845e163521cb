import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Prng } from '../../tools/fuzz.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, isEvents, isUpload, keyFor, pickRoute } from './requests.js';
import { type Fuzz, keyOf } from './world.js';

/**
 * The header door: a valid request of any route with one header changed —
 * Authorization in every wrong form, a key without the access, Content-Type
 * and Content-Encoding, X-Request-Id (echoed when valid), one huge header or
 * 300 of them, If-None-Match on the graph, the ping's tenant and project
 * headers.
 */

/** Authorization, content type and coding, request ids, big and many headers, conditional requests. */
const headerCase = (f: Fuzz, rng: Prng): Case => {
  const def = pickRoute(f, rng);
  const c = baseRequest(f, def, rng);
  c.door = 'header';
  const h = c.req.headers;
  const hasBody = c.req.payload !== undefined;
  const kind = rng.weighted([
    ['auth', 4],
    ['wrong key', 3],
    ['content-type', hasBody ? 4 : 0],
    ['content-encoding', hasBody ? 3 : 0],
    ['request id', 2],
    ['huge header', 1],
    ['many headers', 1],
    ['if-none-match', def.url.endsWith('/graph') ? 2 : 0],
    ['ping headers', def.access === 'any-key' ? 4 : 0],
  ] as const);
  const needsKey = def.access !== 'public';
  switch (kind) {
    case 'auth': {
      const key = keyOf(f, keyFor(def)) ?? f.w.admin;
      const value = rng.pick([
        null,
        `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
        `Token ${key}`,
        'Bearer',
        'Bearer ',
        `Bearer ${key} extra`,
        `Bearer ${key}x`,
        `Bearer ${'k'.repeat(20_000)}`,
        `Bearer ${key.slice(0, -1)}`,
        `Bearer ü${key}`,
        `bearer ${key}`,
        `BEARER\t${key}`,
        `Bearer ${key}  `,
        key,
        '',
      ]);
      if (value === null) delete h.authorization;
      else h.authorization = value;
      c.what = `Authorization ${value === null ? '(none)' : JSON.stringify(value.slice(0, 40))}`;
      const valid = value !== null && /^Bearer[ \t]+\S+[ \t]*$/i.test(value) && value.trim().split(/[ \t]+/)[1] === key;
      if (needsKey && !valid) {
        c.status = [401];
        c.code = 'invalid_token';
      }
      break;
    }
    case 'wrong key': {
      if (!needsKey) break;
      const key = rng.pick(['reader', 'global', 'other', 'admin'] as const);
      h.authorization = `Bearer ${keyOf(f, key)}`;
      c.what = `${key} key`;
      if (def.access === 'global') {
        if (key !== 'global') {
          c.status = [401];
          c.code = 'invalid_token';
        }
      } else if (def.access === 'any-key') {
        if (key === 'global' || key === 'other') {
          c.status = [403];
          c.code = 'forbidden';
        }
      } else if (key === 'global' || key === 'other' || (key === 'reader' && typeof def.access === 'object' && def.access.tenant !== 'read')) {
        c.status = [403];
        c.code = 'forbidden';
      }
      break;
    }
    case 'content-type': {
      const json = !isUpload(def);
      const value = rng.pick([
        null,
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/x-ndjson',
        'application/octet-stream',
        'application/json+x',
        ';;;',
        'image/png',
      ]);
      if (value === null) delete h['content-type'];
      else h['content-type'] = value;
      c.what = `Content-Type ${String(value)}`;
      const jsonLike = value !== null && /^application\/json(;|$)/.test(value);
      const ndjson = value === 'application/x-ndjson';
      const fine = json ? jsonLike || (ndjson && isEvents(def)) : value === 'application/octet-stream';
      if (!fine) {
        c.status = [415];
        c.code = 'unsupported_media_type';
      } else if (ndjson && isEvents(def)) {
        // The JSON array on one line is one record, an array: refused as a dead letter.
        c.status = [200];
      }
      break;
    }
    case 'content-encoding': {
      const coding = rng.pick(['gzip', 'gzip', 'deflate', 'br', 'x-custom', 'identity', 'gzip, identity']);
      const body = Buffer.from(c.req.payload as string | Buffer);
      const encoded = rng.chance(0.7) && coding.startsWith('gzip') ? gzipSync(body) : coding === 'deflate' && rng.chance(0.7) ? deflateSync(body) : coding === 'br' && rng.chance(0.7) ? brotliCompressSync(body) : body;
      h['content-encoding'] = coding;
      c.req.payload = encoded;
      c.what = `Content-Encoding ${coding}${encoded === body ? ' (body not encoded)' : ''}`;
      if (coding !== 'identity' && !isUpload(def)) {
        c.status = [415];
        c.code = 'unsupported_media_type';
      } else if (isUpload(def) && coding !== 'identity') {
        // The upload is the file as sent: a compressed one is read as the file it is (gzip by its magic number).
        c.status = [201, 400];
      }
      break;
    }
    case 'request id': {
      const good = rng.chance(0.5);
      const value = good ? `fuzz-${rng.word(rng.between(1, 40))}.${rng.int(1000)}:${rng.word(3)}` : rng.pick(['has space', 'x'.repeat(129), '', '<script>', 'ünï', 'a\tb', '../..']);
      h['x-request-id'] = value;
      if (good) c.requestId = value;
      c.what = `X-Request-Id ${JSON.stringify(value.slice(0, 40))}`;
      break;
    }
    case 'huge header':
      h[`x-fuzz-${rng.word(3)}`] = 'v'.repeat(rng.pick([1000, 20_000, 100_000]));
      c.what = 'a huge header';
      break;
    case 'many headers':
      for (let i = 0; i < 300; i++) h[`x-many-${i}`] = rng.word(4);
      c.what = '300 headers';
      break;
    case 'if-none-match': {
      const value = rng.pick(['*', '"0"', 'W/"1"', 'garbage', '', `"${f.graphVersion}"`, '"a", "b", *']);
      h['if-none-match'] = value;
      c.what = `If-None-Match ${value}`;
      c.status = [200, 304];
      break;
    }
    case 'ping headers': {
      const field = rng.pick(['x-tenant-id', 'x-project-id']);
      const value = rng.pick([null, '', 'not-a-guid', f.w.tenantId.toUpperCase(), f.ids.A.toUpperCase(), crypto.randomUUID(), f.other.tenantId, `${f.w.tenantId}, ${f.w.tenantId}`, ' ']);
      if (value === null) delete h[field];
      else h[field] = value;
      c.what = `${field} ${JSON.stringify(value)}`;
      const expected = field === 'x-tenant-id' ? f.w.tenantId : f.ids.A;
      if (value === null || value === '') {
        c.status = [400];
        c.code = 'missing_headers';
      } else if (value.toLowerCase() === expected) c.status = [200];
      else if (!/^[0-9a-f-]{36}$/i.test(value)) {
        c.status = [400];
        c.code = value.trim() ? 'validation_failed' : undefined!;
        if (!value.trim()) delete c.code;
      } else {
        c.status = [403];
        c.code = 'forbidden';
      }
      break;
    }
  }
  return c;
};

fuzzDoors('headers', { header: headerCase });
