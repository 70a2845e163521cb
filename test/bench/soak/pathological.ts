import { gzipSync } from 'node:zlib';
import { jitter, sleep } from './clock.js';
import { hostileInputs } from './hostile-inputs.js';
import { BODY_LIMIT, GLOBAL, HEADERS_TIMEOUT_MS, LIMITS, UPLOAD_LIMIT } from './options.js';
import type { Tenant } from './tenants.js';
import type { CallOptions, Load, Who } from './traffic.js';

/**
 * The pathological tenant: everything a careless or hostile client may send,
 * at once and all run long, so that the soak shows whether any of it leaves
 * something behind in the server (memory, descriptors, slower answers for the
 * others). Its requests expect a status each (an unexpected one is reported,
 * not failed: these probes document the server's answers); a 5xx fails the
 * run as for anyone.
 */
const bad: Who = { name: 'chaos', good: false };

const longText = (n: number, seed: number) => {
  const unit = `${seed.toString(36)}-lorem-ipsum-dolor-sit-amet-`;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
};
const t2025 = Date.UTC(2025, 0, 1);

export class Pathological {
  /** The churned projects most recently made (at most 20): the stream churn opens its streams on them. */
  private readonly churned: string[] = [];

  /** `victim`: a well-behaved tenant, whose project this one tries to read. */
  constructor(
    private readonly load: Load,
    private readonly tenant: Tenant,
    private readonly victim: Tenant,
  ) {}

  /** Its loops, running until the load stops. */
  run(): Promise<unknown>[] {
    return [this.wide(), this.huge(), this.overLimit(), this.malformed(), this.churn(), this.keyChurn(), this.streamChurn(), hostileInputs(this.load, this.tenant, HEADERS_TIMEOUT_MS)];
  }

  private get signal(): AbortSignal {
    return this.load.signal;
  }

  private get totals() {
    return this.load.traffic.totals;
  }

  private call(label: string, method: string, path: string, o?: CallOptions) {
    return this.load.traffic.call(bad, label, method, path, o);
  }

  /** A project fed one new distinct activity per event (and new attribute names), re-made at 2,000 activities. */
  private async wide() {
    const c = this.tenant;
    let project = '';
    let activities = 0;
    let made = 0;
    for (let n = 0; !this.signal.aborted; n++) {
      if (!project || activities >= 2000) {
        if (project) {
          await this.call('DELETE project (wide)', 'DELETE', `/api/${c.id}/project/${project}`, { key: c.key, expect: [204] });
          this.load.traffic.wideCycleEnded();
        }
        const a = await this.call('POST project (wide)', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: `wide-${made++}` }), expect: [201, 422] });
        if (a?.status !== 201) {
          project = '';
          await sleep(2000, this.signal);
          continue;
        }
        project = JSON.parse(a.text).id;
        activities = 0;
      }
      const events = Array.from({ length: 25 }, (_, i) => {
        const k = activities++;
        // Every fifth name is just under the activity limit; some are multi-byte.
        const activity = k % 5 === 0 ? `${longText(LIMITS.activity - 24, k)}-${String(k).padStart(8, '0')}` : k % 7 === 0 ? `Äktivität ✓ ${k}` : `step ${k}`;
        return { caseId: `w-${(n * 25 + i) % 300}`, activity, timestamp: t2025 + (n * 25 + i) * 1000, eventId: `w-${made}-${k}`, attributes: { [`attr_${k % 500}`]: `v${k % 13}`, amount: k % 1000 } };
      });
      const path = `/api/${c.id}/project/${project}`;
      const a = await this.call('POST events (wide)', 'POST', `${path}/events`, { key: c.key, body: JSON.stringify(events), expect: [200, 404] });
      if (a?.status === 200) this.totals.badEvents += 25;
      if (n % 10 === 9) {
        const g = await this.call('GET graph (wide)', 'GET', `${path}/graph`, { key: c.key, expect: [200, 404] });
        if (g?.status === 200) this.load.traffic.wideBuilds.push({ activities, ms: g.ms });
      }
      await sleep(1000, this.signal);
    }
  }

  /** Events just under every per-event limit: 60 KiB attribute values, 990 attributes, 500-byte ids, 1,000-byte activities. */
  private async huge() {
    const c = this.tenant;
    const path = `/api/${c.id}/project/${c.projects.huge}`;
    for (let n = 0; !this.signal.aborted; n++) {
      const id = (s: string) => `${s}-${n}-`.padEnd(LIMITS.id - 12, 'x');
      const ts = t2025 + n * 60_000;
      const events = [
        {
          caseId: id(`case-${n % 50}`).slice(0, 200) + `-${n % 50}`,
          activity: `${longText(LIMITS.activity - 40, n % 4)}-big-values-${n % 4}`,
          timestamp: ts,
          eventId: id('big'),
          resource: id('res'),
          attributes: { note: longText(LIMITS.attributeValue - 1024, n), memo: longText(LIMITS.attributeValue - 100, n + 1), tag: longText(60_000, n + 2) },
        },
        {
          caseId: `case-${n % 50}`,
          activity: `many-attributes-${n % 3}`,
          timestamp: ts + 1000,
          eventId: id('many'),
          attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes - 10 }, (_, i) => [`a${i}`, i % 2 ? `${n}-${i}` : n * i])),
        },
      ];
      const a = await this.call('POST events (huge)', 'POST', `${path}/events`, { key: c.key, body: JSON.stringify(events), expect: [200] });
      if (a?.status === 200) this.totals.badEvents += JSON.parse(a.text).accepted;
      if (n % 5 === 4) await this.call('GET graph (huge)', 'GET', `${path}/graph`, { key: c.key, expect: [200] });
      await sleep(3000, this.signal);
    }
  }

  /** Requests over a limit, in turn. */
  private async overLimit() {
    const c = this.tenant;
    const path = `/api/${c.id}/project/${c.projects.huge}`;
    const cases: (() => Promise<unknown>)[] = [
      // One event over each per-event limit, and one good one: 200 with four rejections.
      () =>
        this.call('POST events over limits', 'POST', `${path}/events`, {
          key: c.key,
          expect: [200],
          body: JSON.stringify([
            { caseId: 'ol', activity: 'A'.repeat(LIMITS.activity + 1), timestamp: t2025 },
            { caseId: 'ol', activity: 'B', timestamp: t2025, attributes: { v: 'x'.repeat(LIMITS.attributeValue + 10) } },
            { caseId: 'ol', activity: 'C', timestamp: t2025, attributes: Object.fromEntries(Array.from({ length: LIMITS.attributes + 1 }, (_, i) => [`k${i}`, i])) },
            { caseId: 'c'.repeat(LIMITS.id + 1), activity: 'D', timestamp: t2025 },
            { caseId: 'ol', activity: 'E', timestamp: t2025 + 1 },
          ]),
        }),
      // More events than a request may carry: 413.
      () => this.call('POST events over count', 'POST', `${path}/events`, { key: c.key, type: 'application/x-ndjson', body: '{}\n'.repeat(LIMITS.eventsPerRequest + 1), expect: [413] }),
      // A body over the body limit: 413 (or the connection closed on it).
      () => this.call('POST events over body limit', 'POST', `${path}/events`, { key: c.key, body: `[${'"x",'.repeat(BODY_LIMIT / 4)}"x"]`, expect: [413] }),
      // An upload over the upload limit: 413, nothing staged left behind.
      () => this.call('POST dataset over upload limit', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: Buffer.alloc(UPLOAD_LIMIT + 65536, 'case,activity,time\n'), expect: [413] }),
      // Too many events in a JSON array (zod's .max on the body).
      () => this.call('POST events over count (json)', 'POST', `${path}/events`, { key: c.key, body: `[${'{},'.repeat(LIMITS.eventsPerRequest)}{}]`, expect: [413, 400] }),
    ];
    for (let n = 0; !this.signal.aborted; n++) {
      await cases[n % cases.length]!();
      await sleep(jitter(4000), this.signal);
    }
  }

  /** Malformed requests, in turn. */
  private async malformed() {
    const c = this.tenant;
    const path = `/api/${c.id}/project/${c.projects.huge}`;
    const nested = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const gz = gzipSync(Buffer.from(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ caseId: `g${i % 40}`, activity: `x${i % 5}`, timestamp: t2025 + i })).join('\n') + '\n'));
    const cases: [string, () => Promise<unknown>][] = [
      ['broken JSON', () => this.call('malformed: broken JSON', 'POST', `${path}/events`, { key: c.key, body: '[{"caseId": "a", "activity": ', expect: [400] })],
      ['NDJSON half bad', () => this.call('malformed: NDJSON half bad', 'POST', `${path}/events`, { key: c.key, type: 'application/x-ndjson', body: '{"caseId":"n","activity":"a","timestamp":1}\nnot json\n{"caseId":\n{"caseId":"n","activity":"b","timestamp":"yesterday"}\n', expect: [200] })],
      ['a number', () => this.call('malformed: a number', 'POST', `${path}/events`, { key: c.key, body: '42', expect: [400] })],
      ['text/plain', () => this.call('malformed: text/plain', 'POST', `${path}/events`, { key: c.key, type: 'text/plain', body: 'hello', expect: [400, 415] })],
      ['deep array', () => this.call('malformed: 20k-deep array', 'POST', `${path}/events`, { key: c.key, body: nested, expect: [200, 400] })],
      ['deep object', () => this.call('malformed: 5k-deep object', 'POST', `${path}/events`, { key: c.key, body: deepObject, expect: [200, 400] })],
      ['odd fields', () => this.call('malformed: odd fields', 'POST', `${path}/events`, { key: c.key, expect: [200], body: '[{"caseId":"o","activity":"a\\u0000b","timestamp":"2025-13-45T99:00:00Z"},{"caseId":"\\ud800","activity":"q","timestamp":1},{"caseId":"o","caseId":"dup","activity":"r","timestamp":-1e300},{"caseId":null,"activity":[],"timestamp":{}},{"caseId":"o","activity":"s","timestamp":1,"attributes":{"n":1e309,"o":{"deep":[1]}}}]' })],
      ['__proto__', () => this.call('malformed: __proto__ key', 'POST', `${path}/events`, { key: c.key, expect: [400], body: '[{"__proto__":{"x":1},"caseId":"o","activity":"p","timestamp":1}]' })],
      ['binary upload', () => this.call('malformed: binary upload', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919 + 13) & 255)), expect: [400] })],
      ['cut gzip', () => this.call('malformed: cut gzip', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: gz.subarray(0, Math.floor(gz.length / 2)), expect: [400] })],
      ['cut XES', () => this.call('malformed: cut XES', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: '<?xml version="1.0"?><log xes.version="1.0"><trace><string key="concept:name" value="t1"/><event><string key="concept:name" value="a"/><date key="time:timestamp" value="2025-01-01T00:00:00Z"/></event><event><string key="conc', expect: [400] })],
      ['CSV no columns', () => this.call('malformed: CSV without columns', 'POST', `${path}/dataset`, { key: c.key, type: 'application/octet-stream', body: 'foo;bar\n1;2\n3;4\n', expect: [400] })],
      ['bad query', () => this.call('malformed: unknown upload option', 'POST', `${path}/dataset?bogus=1`, { key: c.key, type: 'application/octet-stream', body: 'a,b\n', expect: [400] })],
      ['bad version', () => this.call('malformed: ?version=abc', 'GET', `${path}/graph?version=abc`, { key: c.key, expect: [400] })],
      ['bad guid', () => this.call('malformed: bad GUID', 'GET', `/api/${c.id}/project/not-a-guid/graph`, { key: c.key, expect: [400, 404] })],
      ['long segment', () => this.call('malformed: 300-char segment', 'GET', `/api/${c.id}/project/${'z'.repeat(300)}`, { key: c.key, expect: [400, 404, 414] })],
      ['bad encoding', () => this.call('malformed: bad URL encoding', 'GET', `/api/${c.id}/project/%E0%A4%A`, { key: c.key, expect: [400, 404] })],
      ['unknown route', () => this.call('malformed: unknown route', 'GET', `/api/${c.id}/nothing/here`, { key: c.key, expect: [404] })],
      ['wrong method', () => this.call('malformed: wrong method', 'PATCH', `${path}/graph`, { key: c.key, expect: [405, 404] })],
      ['big header', () => this.call('malformed: 40 KB header', 'GET', `${path}/graph`, { key: c.key, headers: { 'x-junk': 'j'.repeat(40_000) }, expect: [431] })],
      ['other tenant', () => this.call('malformed: another tenant\'s project', 'GET', `/api/${this.victim.id}/project/${this.victim.projects.stream}/graph`, { key: c.key, expect: [403, 404] })],
      ['bad json project', () => this.call('malformed: project body', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: '', extra: true }), expect: [400] })],
      ['zero events', () => this.call('malformed: empty array', 'POST', `${path}/events`, { key: c.key, body: '[]', expect: [200] })],
    ];
    for (let n = 0; !this.signal.aborted; n++) {
      await cases[n % cases.length]![1]();
      await sleep(jitter(1500), this.signal);
    }
  }

  /** Projects made, fed, read and deleted; creation up to the tenant's limit (422), then the oldest go. */
  private async churn() {
    const c = this.tenant;
    const mine: string[] = [];
    for (let n = 0; !this.signal.aborted; n++) {
      const a = await this.call('POST project (churn)', 'POST', `/api/${c.id}/project`, { key: c.key, body: JSON.stringify({ name: `churn-${n}`, description: 'd'.repeat(1999) }), expect: [201, 422] });
      if (a?.status === 422) {
        this.totals.projectLimitHits++;
        for (const id of mine.splice(0, 5)) {
          await this.call('DELETE project (churn)', 'DELETE', `/api/${c.id}/project/${id}`, { key: c.key, expect: [204] });
          this.totals.projectsDeleted++;
        }
        // A project already gone: 404.
        await this.call('DELETE project (gone)', 'DELETE', `/api/${c.id}/project/00000000-0000-4000-8000-000000000000`, { key: c.key, expect: [404] });
      } else if (a?.status === 201) {
        const id = JSON.parse(a.text).id as string;
        mine.push(id);
        this.totals.projectsMade++;
        const events = Array.from({ length: 30 }, (_, i) => ({ caseId: `k${i % 6}`, activity: ['a', 'b', 'c', 'd'][i % 4]!, timestamp: t2025 + i * 1000 }));
        await this.call('POST events (churn)', 'POST', `/api/${c.id}/project/${id}/events`, { key: c.key, body: JSON.stringify(events), expect: [200] });
        await this.call('GET graph (churn)', 'GET', `/api/${c.id}/project/${id}/graph`, { key: c.key, expect: [200] });
        this.churned.push(id);
        if (this.churned.length > 20) this.churned.shift();
      }
      if (n % 5 === 0) await this.call('GET projects', 'GET', `/api/${c.id}/project`, { key: c.key, expect: [200] });
      await sleep(jitter(1500), this.signal);
    }
  }

  /** Keys issued, used once, revoked, used again; unknown keys; now and then a burst over the rate limit. */
  private async keyChurn() {
    const c = this.tenant;
    for (let n = 0; !this.signal.aborted; n++) {
      const viaGlobal = n % 5 === 0;
      const issued = viaGlobal
        ? await this.call('POST apikey (global)', 'POST', `/api/tenant/${c.id}/apikey`, { key: GLOBAL, body: JSON.stringify({ userId: c.userId, name: `churn-${n}`, permissions: ['read'] }), expect: [201] })
        : await this.call('POST apikey', 'POST', `/api/${c.id}/apikey`, { key: c.key, body: JSON.stringify({ userId: c.userId, name: `churn-${n}`, permissions: ['read', 'write'], ...(n % 3 === 0 ? { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } : {}) }), expect: [201] });
      if (issued?.status === 201) {
        const { id, key } = JSON.parse(issued.text) as { id: string; key: string };
        this.totals.keysIssued++;
        if (n % 40 === 39) {
          // A burst over the rate limit (600 at once, 100/s): about a hundred 429s.
          let next = 0;
          await Promise.all(
            Array.from({ length: 20 }, async () => {
              while (next < 700 && !this.signal.aborted) {
                next++;
                await this.call('rate-limit burst', 'GET', `/api/${c.id}/project`, { key, expect: [200, 429] });
              }
            }),
          );
        } else {
          await this.call('GET projects (new key)', 'GET', `/api/${c.id}/project`, { key, expect: [200] });
        }
        if (viaGlobal) await this.call('DELETE apikey (global)', 'DELETE', `/api/tenant/${c.id}/apikey/${id}`, { key: GLOBAL, expect: [204] });
        else await this.call('DELETE apikey', 'DELETE', `/api/${c.id}/apikey/${id}`, { key: c.key, expect: [204] });
        await this.call('GET projects (revoked key)', 'GET', `/api/${c.id}/project`, { key, expect: [401] });
      }
      await this.call('GET projects (unknown key)', 'GET', `/api/${c.id}/project`, { key: `pcg_${Math.random().toString(36).slice(2)}${'q'.repeat(30)}`, expect: [401] });
      if (n % 20 === 0) await this.call('GET apikeys', 'GET', `/api/${c.id}/apikey`, { key: c.key, expect: [200] });
      await sleep(jitter(500), this.signal);
    }
  }

  /** Graph streams opened and dropped; one in three on a key revoked while it is open (it must end). */
  private async streamChurn() {
    const c = this.tenant;
    for (let n = 0; !this.signal.aborted; n++) {
      const project = this.churned[Math.floor(Math.random() * this.churned.length)] ?? c.projects.huge!;
      const path = `/api/${c.id}/project/${project}/graph/stream${n % 2 ? '?include=document' : ''}`;
      if (n % 3 === 0) {
        const issued = await this.call('POST apikey (stream)', 'POST', `/api/${c.id}/apikey`, { key: c.key, body: JSON.stringify({ userId: c.userId, name: `stream-${n}`, permissions: ['read'] }), expect: [201] });
        if (issued?.status !== 201) continue;
        const { id, key } = JSON.parse(issued.text) as { id: string; key: string };
        const stop = new AbortController();
        const timer = setTimeout(() => stop.abort(), 10_000);
        const done = this.load.traffic.subscribe(bad, 'SSE (revoked)', path, key, AbortSignal.any([stop.signal, this.signal]));
        await sleep(500 + Math.random() * 1000, this.signal);
        await this.call('DELETE apikey (stream)', 'DELETE', `/api/${c.id}/apikey/${id}`, { key: c.key, expect: [204] });
        const outcome = await done;
        clearTimeout(timer);
        if (outcome === 'ended' || outcome === 404) this.totals.revokedStreamsEnded++;
        else if (outcome === 'aborted' && !this.signal.aborted) this.totals.revokedStreamsLeftOpen++;
      } else {
        const stop = new AbortController();
        const timer = setTimeout(() => stop.abort(), Math.random() * 2000);
        await this.load.traffic.subscribe(bad, 'SSE (dropped)', path, c.key, AbortSignal.any([stop.signal, this.signal]));
        clearTimeout(timer);
      }
      this.totals.badStreams++;
      await sleep(jitter(2000), this.signal);
    }
  }
}
