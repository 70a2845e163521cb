import { gzipSync } from 'node:zlib';
import { mutateBytes, nestedJson, type Prng } from '../../tools/fuzz.js';
import { type Format, jsonish, xmlish } from './logs.js';

/**
 * The damage the file fuzz does to a seed log: bytes flipped, inserted and cut,
 * gzip whole, cut and corrupt, huge fields, XML entities, deep JSON, other
 * encodings and line ends, text edits that keep the file well-formed, empty
 * files.
 */

/** One damaged (or not) file of a format, and how it was made. */
export function mutate(rng: Prng, format: Format, seed: Buffer): { bytes: Buffer; what: string[] } {
  let bytes: Buffer = Buffer.from(seed);
  const what: string[] = [];
  const text = () => bytes.toString('utf8');
  const kind = rng.weighted([
    ['valid', 1],
    ['bytes', 6],
    ['truncate', 3],
    ['gzip', 1],
    ['gzip cut', 2],
    ['gzip corrupt', 2],
    ['huge field', 2],
    ['entities', xmlish(format) ? 2 : 0],
    ['deep', jsonish(format) ? 2 : 0],
    ['encoding', 2],
    ['text', format === 'ocel2-sqlite' ? 0 : 3],
    ['empty', 1],
  ] as const);
  what.push(kind);
  switch (kind) {
    case 'valid':
      break;
    case 'bytes':
      for (let k = rng.between(1, 4); k > 0; k--) {
        const m = mutateBytes(rng, bytes);
        bytes = m.bytes;
        what.push(m.op);
      }
      break;
    case 'truncate': {
      const cut = rng.int(bytes.length);
      bytes = bytes.subarray(0, cut);
      what.push(`at ${cut} of ${seed.length}`);
      break;
    }
    case 'gzip':
      bytes = gzipSync(bytes);
      break;
    case 'gzip cut': {
      const gz = gzipSync(bytes);
      const cut = rng.between(2, gz.length - 1);
      bytes = gz.subarray(0, cut);
      what.push(`at ${cut} of ${gz.length}`);
      break;
    }
    case 'gzip corrupt': {
      const gz = Buffer.from(gzipSync(bytes));
      for (let k = rng.between(1, 8); k > 0; k--) {
        const i = rng.between(10, gz.length - 1);
        gz[i] = gz[i]! ^ (1 << rng.int(8));
        what.push(`flip@${i}`);
      }
      bytes = gz;
      break;
    }
    case 'huge field': {
      const size = rng.pick([70_000, 300_000, 1_500_000]);
      const big = rng.pick(['x', 'é', ',', '"', '<', '\\']).repeat(size);
      what.push(`${size} × ${JSON.stringify(big[0])}`);
      if (format === 'ocel2-sqlite') {
        // Appended garbage after the database pages.
        bytes = Buffer.concat([bytes, Buffer.from(big)]);
      } else {
        const s = text();
        // Into the middle of the first field value the format has.
        const at = format === 'csv' ? s.indexOf('Create order') : jsonish(format) ? s.indexOf('"', s.indexOf(':') + 1) + 1 : s.indexOf('value="') + 7;
        bytes = Buffer.from(s.slice(0, Math.max(0, at)) + (jsonish(format) ? JSON.stringify(big).slice(1, -1) : big) + s.slice(Math.max(0, at)));
      }
      break;
    }
    case 'entities': {
      const entity = rng.pick(['&#0;', '&#x0;', '&#xD800;', '&#55296;', '&#x110000;', '&bogus;', '&#;', '&#x;', '&', '&amp', '&#xFFFE;', '&#1114111;']);
      const s = text();
      const at = s.indexOf('value="') >= 0 ? s.indexOf('value="') + 7 : s.indexOf('type="') + 6;
      bytes = Buffer.from(s.slice(0, at) + entity + s.slice(at));
      what.push(entity);
      break;
    }
    case 'deep': {
      const depth = rng.pick([100, 3000, 20_000]);
      const s = text();
      const nest = rng.chance(0.5) ? nestedJson(depth) : nestedJson(depth, '1', '{"a":', '}');
      if (format === 'ndjson') bytes = Buffer.from(`${s}\n${nest}\n${s.split('\n')[0]}`);
      else {
        const at = s.indexOf(':') + 1;
        bytes = Buffer.from(s.slice(0, at) + nest + ',"x":' + s.slice(at));
      }
      what.push(`${depth} deep`);
      break;
    }
    case 'encoding': {
      const how = rng.pick(['bom', 'utf16le', 'utf16be', 'latin1', 'crlf', 'cr', 'nul']);
      const s = text();
      if (how === 'bom') bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      else if (how === 'utf16le') bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
      else if (how === 'utf16be') bytes = Buffer.from(s, 'utf16le').swap16();
      else if (how === 'latin1') bytes = Buffer.from(s.replace(/a/g, 'ä'), 'latin1');
      else if (how === 'crlf') bytes = Buffer.from(s.replace(/\n/g, '\r\n'));
      else if (how === 'cr') bytes = Buffer.from(s.replace(/\n/g, '\r'));
      else bytes = Buffer.from(s.replace(/o/g, 'o\u0000'));
      what.push(how);
      break;
    }
    case 'text': {
      // Text edits that keep the file mostly well-formed: names and values a parser must take literally.
      const s = text();
      const swap = rng.pick([
        ['Create order', 'Create\torder'],
        ['Create order', '__proto__'],
        ['Create order', 'constructor'],
        ['Create order', ' '],
        ['Create order', ''],
        ['place order', 'toString'],
        ['2024-01-01', '2024-13-45'],
        ['2024-03-01', '0000-00-00'],
        ['2024-01-02', '9999999-01-02'],
        ['Ship', 'Ship\u2028goods'],
        ['ann', '\ud83d\ude00'],
        ['o1', ''],
        ['i1', 'o1'],
        ['Order', ''],
        ['"amount"', '"amount","amount"'],
        ['amount', 'ámount'],
      ]);
      bytes = Buffer.from(s.split(swap[0]!).join(swap[1]));
      what.push(`${swap[0]} -> ${JSON.stringify(swap[1])}`);
      break;
    }
    case 'empty':
      bytes = Buffer.from(rng.pick(['', ' ', '\n\n', '\ufeff', '{}', '[]', '<log/>', 'case,activity,time\n']));
      what.push(JSON.stringify(bytes.toString()));
      break;
  }
  return { bytes, what };
}
