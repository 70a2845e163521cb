import { gzipSync } from 'node:zlib';
import { mutateBytes, type Prng } from '../../tools/fuzz.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, isUpload } from './requests.js';
import { CSV, type Fuzz, LIMITS } from './world.js';

/**
 * The dataset upload: CSV, NDJSON and XES files valid, cut, flipped,
 * compressed and broken, with a huge field, near and over the upload limit,
 * empty or random bytes. A refused upload leaves no staged file (harness.ts).
 */

const NDJSON_FILE = [
  { caseId: 'n1', activity: 'a', timestamp: '2024-01-01T00:00:00Z' },
  { caseId: 'n1', activity: 'b', timestamp: '2024-01-01T01:00:00Z', attributes: { amount: 3 } },
  { caseId: 'n2', activity: 'a', timestamp: 1704153600000, resource: 'ann' },
]
  .map((e) => JSON.stringify(e))
  .join('\n');
const XES = `<?xml version="1.0" encoding="UTF-8"?>
<log xes.version="1.0">
  <trace><string key="concept:name" value="x1"/>
    <event><string key="concept:name" value="a"/><date key="time:timestamp" value="2024-01-01T00:00:00.000+00:00"/><string key="org:resource" value="ann"/></event>
    <event><string key="concept:name" value="b"/><date key="time:timestamp" value="2024-01-01T02:00:00.000+00:00"/><int key="amount" value="7"/></event>
  </trace>
  <trace><string key="concept:name" value="x2"/>
    <event><string key="concept:name" value="a"/><date key="time:timestamp" value="2024-01-03T00:00:00.000+00:00"/></event>
  </trace>
</log>
`;

/** Dataset uploads: log files valid, cut, flipped, compressed and broken, near and over the upload limit. */
const uploadCase = (f: Fuzz, rng: Prng): Case => {
  const def = f.routes.find((d) => isUpload(d))!;
  const c = baseRequest(f, def, rng);
  c.door = 'upload';
  const [name, file] = rng.pick([
    ['csv', CSV],
    ['ndjson', NDJSON_FILE],
    ['xes', XES],
  ] as const);
  let bytes: Buffer = Buffer.from(file);
  const ops: string[] = [];
  const kind = rng.weighted([
    ['valid', 2],
    ['bytes', 4],
    ['truncate', 2],
    ['gzip', 1],
    ['gzip cut', 2],
    ['gzip corrupt', 2],
    ['huge field', 1],
    ['near limit', 1],
    ['over limit', 2],
    ['empty', 1],
    ['binary', 1],
  ] as const);
  c.status = [201, 400];
  switch (kind) {
    case 'valid':
      c.status = [201];
      break;
    case 'bytes':
      for (let k = rng.between(1, 3); k > 0; k--) {
        const m = mutateBytes(rng, bytes);
        bytes = m.bytes;
        ops.push(m.op);
      }
      break;
    case 'truncate': {
      const cut = rng.int(bytes.length);
      bytes = bytes.subarray(0, cut);
      ops.push(`cut at ${cut}`);
      break;
    }
    case 'gzip':
      bytes = gzipSync(bytes);
      c.status = [201];
      break;
    case 'gzip cut': {
      const gz = gzipSync(bytes);
      const cut = rng.between(10, gz.length - 1);
      bytes = gz.subarray(0, cut);
      ops.push(`cut at ${cut} of ${gz.length}`);
      break;
    }
    case 'gzip corrupt': {
      const gz = Buffer.from(gzipSync(bytes));
      for (let k = rng.between(1, 6); k > 0; k--) {
        const i = rng.between(10, gz.length - 9);
        gz[i] = gz[i]! ^ (1 << rng.int(8));
      }
      bytes = gz;
      break;
    }
    case 'huge field': {
      const big = 'F'.repeat(rng.pick([LIMITS.limitAttributeValueBytes + 1, 4000, 12_000]));
      bytes = Buffer.from(name === 'csv' ? file.replace(',10\n', `,${big}\n`) : name === 'ndjson' ? file.replace('"amount":3', `"amount":"${big}"`) : file.replace('value="7"', `value="${big}"`));
      ops.push(`a field of ${big.length} bytes`);
      break;
    }
    case 'near limit': {
      const pad = LIMITS.uploadLimitBytes - bytes.length - rng.int(3);
      bytes = Buffer.concat([bytes, Buffer.from(name === 'xes' ? ' '.repeat(pad) : '\n'.repeat(pad))]);
      ops.push(`${bytes.length} bytes`);
      break;
    }
    case 'over limit': {
      const over = rng.pick([1, 2, 1000, 100_000]);
      bytes = Buffer.concat([bytes, Buffer.from('\n'.repeat(LIMITS.uploadLimitBytes - bytes.length + over))]);
      ops.push(`${bytes.length} bytes`);
      c.status = [413];
      c.code = 'payload_too_large';
      c.message = /PCG_UPLOAD_LIMIT_BYTES/;
      break;
    }
    case 'empty':
      bytes = Buffer.alloc(0);
      c.status = [400];
      c.code = 'validation_failed';
      break;
    case 'binary':
      bytes = rng.bytes(rng.between(1, 2000));
      break;
  }
  c.req.payload = bytes;
  c.req.url = `${c.req.url}?name=${name}-${rng.word(4)}${rng.chance(0.3) ? '&partial=keep' : ''}`;
  c.what = `${name} ${kind}${ops.length ? ` (${ops.join(', ')})` : ''}${c.req.url.includes('partial') ? ' partial=keep' : ''}`;
  return c;
};

fuzzDoors('dataset uploads', { upload: uploadCase });
