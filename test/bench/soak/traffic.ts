import type { Clock } from './clock.js';

/**
 * The tenants' requests, sent through one place so that every answer is
 * counted the same way: each well-behaved request's latency (body read
 * included, as a client sees it), every tenant's statuses by route, every 5xx
 * and every failed well-behaved request (what fails the run), and statuses a
 * call did not expect (reported, not failing: the pathological tenant's
 * probes document the server's answers). Plus the tally of work done.
 */

export type Kind = 'read' | 'ingest' | 'upload' | 'other';

/** One well-behaved request (status 0: no response). */
export interface Rec {
  t: number;
  tenant: string;
  kind: Kind;
  label: string;
  ms: number;
  status: number;
}

export interface Who {
  name: string;
  good: boolean;
}

export interface CallOptions {
  key?: string;
  body?: string | Buffer | Uint8Array;
  type?: string;
  headers?: Record<string, string>;
  kind?: Kind;
  timeoutMs?: number;
  /** Statuses this call expects: anything else is counted as unexpected (5xx always is). */
  expect?: number[];
}

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
  ms: number;
}

/** Work done, for the report's "work:" line. */
export interface Totals {
  goodEvents: number;
  badEvents: number;
  uploads: number;
  deletes: number;
  sseConnects: number;
  projectsMade: number;
  projectsDeleted: number;
  projectLimitHits: number;
  keysIssued: number;
  badStreams: number;
  revokedStreamsEnded: number;
  revokedStreamsLeftOpen: number;
}

/** What every tenant's loop runs with: where its requests go, and the signal that ends the run. */
export interface Load {
  traffic: Traffic;
  /** Aborted when the run stops. */
  signal: AbortSignal;
}

export class Traffic {
  readonly recs: Rec[] = [];
  /** Per tenant and label: statuses counted (all tenants). */
  readonly statuses = new Map<string, Map<string, number>>();
  readonly fiveHundreds: string[] = [];
  readonly failures: string[] = [];
  readonly unexpected: string[] = [];
  /** When each of the chaos tenant's requests started. */
  readonly chaosTimes: number[] = [];
  /** Graph stream events received, by tenant and event name. */
  readonly sseEvents = new Map<string, number>();
  readonly totals: Totals = { goodEvents: 0, badEvents: 0, uploads: 0, deletes: 0, sseConnects: 0, projectsMade: 0, projectsDeleted: 0, projectLimitHits: 0, keysIssued: 0, badStreams: 0, revokedStreamsEnded: 0, revokedStreamsLeftOpen: 0 };
  /** The pathological wide project's graph builds: how many activities, how long the GET took. */
  readonly wideBuilds: { activities: number; ms: number }[] = [];
  /** When the wide project reached its 2,000 activities and was deleted (the end of each of its cycles, ~100 s long). */
  readonly wideCycles: number[] = [];

  /** `load`: aborted when the run stops; what fails after that is the stop's doing, not the server's. */
  constructor(
    readonly base: string,
    private readonly clock: Clock,
    private readonly load: AbortSignal,
  ) {}

  wideCycleEnded(): void {
    this.wideCycles.push(this.clock.now());
  }

  count(tenant: string, label: string, status: number | string): void {
    let m = this.statuses.get(tenant);
    if (!m) this.statuses.set(tenant, (m = new Map()));
    const k = `${label} ${status}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }

  /** The latencies (ms) of the well-behaved requests of a kind answered within [from, to), of all tenants or one. */
  between(from: number, to: number, kind: Kind, tenant?: string): number[] {
    return this.recs.filter((r) => r.t >= from && r.t < to && r.kind === kind && r.status > 0 && (!tenant || r.tenant === tenant)).map((r) => r.ms);
  }

  async call(who: Who, label: string, method: string, path: string, o: CallOptions = {}): Promise<Answer | undefined> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
    if (o.body !== undefined) headers['content-type'] = o.type ?? 'application/json';
    const started = performance.now();
    const at = this.clock.now();
    if (who.name === 'chaos') this.chaosTimes.push(at);
    try {
      const r = await fetch(this.base + path, { method, headers, body: o.body, signal: AbortSignal.timeout(o.timeoutMs ?? 60_000) });
      const text = await r.text();
      const ms = performance.now() - started;
      if (who.good) this.recs.push({ t: at, tenant: who.name, kind: o.kind ?? 'other', label, ms, status: r.status });
      this.count(who.name, label, r.status);
      if (r.status >= 500) this.fiveHundreds.push(`${who.name} ${method} ${label} ${r.status} at ${(at / 1000).toFixed(0)} s: ${text.slice(0, 300)}`);
      else if (o.expect && !o.expect.includes(r.status)) {
        if (this.unexpected.length < 100) this.unexpected.push(`${who.name} ${method} ${label} ${r.status} (expected ${o.expect.join('/')}): ${text.slice(0, 200)}`);
      }
      return { status: r.status, text, headers: r.headers, ms };
    } catch (error) {
      const ms = performance.now() - started;
      const cause = (error as { cause?: Error }).cause;
      const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`;
      if (who.good) {
        this.recs.push({ t: at, tenant: who.name, kind: o.kind ?? 'other', label, ms, status: 0 });
        if (!this.load.aborted) this.failures.push(`${who.name} ${method} ${label} at ${(at / 1000).toFixed(0)} s: ${reason}`);
      }
      this.count(who.name, label, 'network error');
      return undefined;
    }
  }

  /** A graph stream subscriber: counts its events until aborted or the stream ends. */
  async subscribe(who: Who, label: string, path: string, key: string, signal: AbortSignal): Promise<'ended' | 'aborted' | number> {
    try {
      const r = await fetch(this.base + path, { headers: { authorization: `Bearer ${key}` }, signal });
      this.count(who.name, label, r.status);
      if (r.status !== 200) {
        await r.text();
        if (r.status >= 500) this.fiveHundreds.push(`${who.name} GET ${label} ${r.status}`);
        return r.status;
      }
      const decoder = new TextDecoder();
      let rest = '';
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        rest += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = rest.indexOf('\n\n')) >= 0) {
          const block = rest.slice(0, end);
          rest = rest.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          if (event) this.sseEvents.set(`${who.name} ${event}`, (this.sseEvents.get(`${who.name} ${event}`) ?? 0) + 1);
        }
      }
      return 'ended';
    } catch (error) {
      if (signal.aborted) return 'aborted';
      this.count(who.name, label, 'stream error');
      if (who.good && !this.load.aborted) this.failures.push(`${who.name} ${label}: ${(error as Error).message}`);
      return 'ended';
    }
  }
}
