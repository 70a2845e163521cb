import type { Prng } from '../../tools/fuzz.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, fill, isStream, pickRoute } from './requests.js';
import type { Fuzz } from './world.js';

/**
 * The path door: one parameter of a route's path changed — upper-case GUIDs
 * (served as the lower-case ones), unknown ids (404, or 403 for a tenant the
 * key does not hold), malformed, overlong, dot segments, bad percent-encoding.
 */

/** Path parameters: upper-case GUIDs, unknown ones, overlong, dotted, badly encoded. */
const pathCase = (f: Fuzz, rng: Prng): Case => {
  const def = pickRoute(f, rng, (d) => d.url.includes(':'));
  const c = baseRequest(f, def, rng);
  c.door = 'path';
  const { params } = fill(f, def, rng);
  const [name] = rng.pick(params);
  const last = params[params.length - 1]![0] === name;
  // A cluster's or a topic's name, not a GUID: upper case is another name, and any unknown topic may be granted.
  const named = name === 'cluster' || name === 'topic';
  const kind = rng.weighted([
    ['upper', def.method === 'DELETE' || named ? 0 : 4],
    ['unknown', name === 'topic' ? 0 : 3],
    ['malformed', 3],
    ['overlong', 2],
    // Dot segments are resolved by the client: on a DELETE they could name the project itself.
    ['dots', def.method === 'DELETE' ? 0 : 2],
    ['encoding', 2],
  ] as const);
  const [path, query] = c.req.url.split('?') as [string, string | undefined];
  // The value in the filled URL (a DELETE's last one is a fresh unknown id).
  const segments = path.split('/');
  const at = segments.findIndex((s, i) => def.url.split('/')[i] === `:${name}`);
  const current = segments[at]!;
  let replacement = current;
  const refused = (code: string, status: number, message?: RegExp) => {
    c.status = [status];
    c.code = code;
    if (message) c.message = message;
  };
  switch (kind) {
    case 'upper':
      replacement = current.toUpperCase();
      break;
    case 'unknown':
      replacement = name === 'cluster' ? `c${rng.word(8).toLowerCase()}` : crypto.randomUUID();
      // A tenant the key does not hold is 403 (checked before the query); any other unknown id is 404 (a stream's bogus query is refused first).
      if (name === 'tenantId' && typeof def.access === 'object') refused('forbidden', 403);
      // A PUT of a cluster declares it under any new name.
      else if (name === 'cluster' && def.method === 'PUT' && def.url.endsWith(':cluster')) c.status = [200];
      else if (isStream(def)) refused('validation_failed', 400);
      else refused('not_found', 404);
      break;
    case 'malformed':
      replacement = named
        ? rng.pick(['Bad!', '%20', '%E2%82%AC', "'1'", `{${current}}`, `${current}%2B`])
        : rng.pick(['not-a-guid', current.replace(/-/g, ''), `{${current}}`, `${current}0`, 'x'.repeat(100), '%20', '%E2%82%AC', '0', '-1', 'null', "'1'"]);
      refused('validation_failed', 400);
      break;
    case 'overlong':
      replacement = 'a'.repeat(rng.between(201, 600));
      refused('validation_failed', 400, /^a path segment is longer than allowed$/);
      break;
    case 'dots':
      replacement = rng.pick(['.', '..', '%2e', '%2e%2e', '...', '.%2e']);
      c.status = undefined;
      break;
    case 'encoding':
      replacement = rng.pick(['%zz', '%', '%e2%82', `${current.slice(0, 8)}%2F${current.slice(9)}`, '%00', '%C0%AF']);
      refused('validation_failed', 400);
      break;
  }
  segments[at] = replacement;
  c.req.url = segments.join('/') + (query !== undefined ? `?${query}` : '');
  c.what = `${def.method} ${def.url} ${name}=${replacement.slice(0, 60)}${replacement.length > 60 ? `…(${replacement.length})` : ''}${last ? '' : ' (not last)'}`;
  // Refusals of the path come after the key check: a route's key errors stay as they are.
  return c;
};

fuzzDoors('path parameters', { path: pathCase });
