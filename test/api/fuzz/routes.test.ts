import type { Prng } from '../../tools/fuzz.js';
import { fuzzDoors } from './harness.js';
import { baseRequest, type Case, isStream, pickRoute } from './requests.js';
import type { Fuzz } from './world.js';

/**
 * Every route as it is served: a valid request of any route answered with its
 * success status, a method its path does not serve answered 405 with Allow,
 * HEAD on a GET route answered as GET without a body.
 */

/** Methods a path does not serve: 405 with Allow; HEAD on a GET route answers as GET, without a body. */
const methodCase = (f: Fuzz, rng: Prng): Case => {
  const def = pickRoute(f, rng, (d) => !isStream(d));
  const c = baseRequest(f, def, rng);
  c.door = 'method';
  const path = c.req.url.split('?')[0]!;
  const served: string[] = f.routes.filter((r) => new RegExp(`^${r.url.replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(path)).map((r) => r.method);
  if (served.includes('GET') && def.method === 'GET' && rng.chance(0.3)) {
    c.req.method = 'HEAD';
    c.what = `HEAD ${def.url}`;
    return c;
  }
  const free = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'].filter((m) => !served.includes(m));
  if (!free.length) return c;
  const method = rng.pick(free);
  c.req.method = method;
  c.what = `${method} ${def.url}`;
  c.status = [405];
  c.code = 'method_not_allowed';
  return c;
};

/** A valid request of any route: answered with its success status. */
const baseCase = (f: Fuzz, rng: Prng): Case => baseRequest(f, pickRoute(f, rng), rng);

fuzzDoors('routes and methods', { method: methodCase, base: baseCase });
