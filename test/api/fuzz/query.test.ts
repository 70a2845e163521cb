import type { Prng } from '../../tools/fuzz.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, isStream, isUpload, pickRoute } from './requests.js';
import type { Fuzz } from './world.js';

/**
 * The query door: unknown, repeated, badly encoded, huge and boundary values
 * of every route's query — the graph's version and investigation, the dead
 * letters' cursor and limit, an upload's options. A stream always carries a
 * parameter it refuses, so it never opens.
 */

/** Unknown, repeated, badly encoded, huge and boundary values of every route's query. */
const queryCase = (f: Fuzz, rng: Prng): Case => {
  const def = pickRoute(f, rng, (d) => d.method === 'GET' || isUpload(d) || rng.chance(0.2));
  const c = baseRequest(f, def, rng);
  c.door = 'query';
  const url = c.req.url.split('?')[0]!;
  const graph = def.url.endsWith('/graph');
  const deadLetters = def.url.endsWith('/dead-letters');
  const kind = rng.weighted([
    ['unknown', 2],
    ['bad encoding', 2],
    ['huge', 1],
    ['odd', 1],
    ['version', graph ? 5 : 0],
    ['investigation', graph || isStream(def) ? 4 : 0],
    ['dead letters', deadLetters ? 5 : 0],
    ['upload options', isUpload(def) ? 5 : 0],
  ] as const);
  const refused = () => {
    c.status = [400];
    c.code = 'validation_failed';
  };
  const set = (q: string) => {
    c.req.url = `${url}?${q}`;
    c.what = `?${q.slice(0, 80)}`;
  };
  switch (kind) {
    case 'unknown':
      set(rng.pick(['x=1', 'bogus', '__proto__=1', 'constructor[prototype]=1', 'a[b]=c', `${rng.word(5)}=${rng.word(5)}`, '=1', 'toString=1']));
      refused();
      break;
    case 'bad encoding': {
      const q = rng.pick(['%zz=1', 'x=%zz', '%=1', 'x=%e2%82', 'x=%00', '%C0%AF=1', 'x=%ff%fe']);
      set(q);
      refused();
      break;
    }
    case 'huge': {
      const name = graph ? rng.pick(['version', 'investigation', 'x']) : 'x';
      set(`${name}=${'9'.repeat(rng.pick([400, 5000, 60_000]))}`);
      refused();
      break;
    }
    case 'odd': {
      const q = rng.pick(['', '&', '&&&', '#frag', ';', '+']);
      c.req.url = `${url}?${q}`;
      c.what = `?${q}`;
      if (q === ';' || q === '+') refused();
      break;
    }
    case 'version': {
      const v = rng.pick([String(f.graphVersion), '0', '123456', '-1', '1.5', 'abc', '', '1e3', '0x10', ' 1', '9007199254740993', 'Infinity', 'NaN']);
      const both = rng.chance(0.2);
      const repeated = rng.chance(0.15);
      set(`version=${encodeURIComponent(v)}${repeated ? `&version=${encodeURIComponent(v)}` : ''}${both ? `&investigation=${f.ids.inv}` : ''}`);
      const n = v.trim() === '' ? 0 : Number(v);
      if (repeated || !Number.isSafeInteger(n) || n < 0) refused();
      else if (both) {
        c.status = [404];
        c.code = 'not_found';
      } else if (n === f.graphVersion) c.status = [200];
      else {
        // A version served since (the fuzz serves new ones) or none.
        c.status = [200, 404];
      }
      break;
    }
    case 'investigation': {
      const v = rng.pick([f.ids.inv, f.ids.inv.toUpperCase(), crypto.randomUUID(), 'not-a-guid', '', `${f.ids.inv}x`, f.ids.inv.replace(/-/g, '')]);
      const repeated = rng.chance(0.15);
      set(`investigation=${v}${repeated ? `&investigation=${v}` : ''}${isStream(def) ? '&bogus=1' : ''}`);
      if (repeated || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) || isStream(def)) refused();
      else if (v.toLowerCase() === f.ids.inv) c.status = [200];
      else {
        c.status = [404];
        c.code = 'not_found';
      }
      break;
    }
    case 'dead letters': {
      const after = rng.pick([null, '0:0', '1:2', 'x', '1:2:3', '-1:0', '', '00:00', '99999999999999999999:1']);
      const limit = rng.pick([null, '0', '1', '1000', '1001', '1.5', '', '-1', 'ten']);
      const q = [after !== null ? `after=${after}` : '', limit !== null ? `limit=${limit}` : ''].filter(Boolean).join('&');
      set(q);
      const badAfter = after !== null && !/^\d+:\d+$/.test(after);
      const n = limit === null ? 100 : limit.trim() === '' ? 0 : Number(limit);
      const badLimit = !Number.isInteger(n) || n < 1 || n > 1000;
      if (badAfter || badLimit) refused();
      else c.status = [200];
      break;
    }
    case 'upload options': {
      const options = rng.pick([
        'format=csv',
        'format=xes',
        'format=ndjson',
        'format=ocel2-json',
        'format=bogus',
        'lifecycle=complete',
        'lifecycle=x',
        'delimiter=;',
        `delimiter=${'x'.repeat(9)}`,
        'delimiter=',
        'caseColumn=nope',
        'caseColumn=case&activityColumn=activity&timestampColumn=time',
        'timezone=Europe/Berlin',
        'timezone=Mars/Olympus',
        'partial=keep',
        'partial=yes',
        `name=${'n'.repeat(201)}`,
        'name=%20',
        'classifier=x',
        'caseNotion=order',
      ]);
      set(options);
      c.status = [201, 400];
      if (/format=bogus|lifecycle=x|delimiter=x{9}|delimiter=(&|$)|partial=yes|name=n{201}|name=%20/.test(options)) refused();
      break;
    }
  }
  // A stream that could open would never end: it always carries a parameter it refuses.
  if (isStream(def) && !c.req.url.split('#')[0]!.includes('bogus=1')) {
    const [before, fragment] = c.req.url.split('#') as [string, string | undefined];
    c.req.url = `${before}${before.includes('?') ? '&' : '?'}bogus=1${fragment === undefined ? '' : `#${fragment}`}`;
    refused();
  }
  return c;
};

fuzzDoors('query strings', { query: queryCase });
