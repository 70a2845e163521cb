import { EngineError, type WireEvent } from '../../engine/index.js';
import { calibrate } from './calibration.js';
import { buildCase, type PlannedCase } from './case.js';
import { Heap } from './heap.js';
import type { ModelSpec } from './model.js';
import { modelSpec } from './models/index.js';
import { Rng } from './random.js';
import type { WriteOptions } from './writers.js';

export interface SimulateOptions {
  model: string;
  cases: number;
  seed: number;
  /** Epoch ms when the first case starts: the window's start (default 2025-01-06T00:00Z). */
  start?: number;
  /** Share of events emitted after a later event of their case (default 0). */
  lateShare?: number;
  /** Share of events emitted a second time, identical, a little later (default 0). */
  duplicateShare?: number;
  /** Share of cases still open when the window closes (default 0.05; 0 lets every case finish). */
  openShare?: number;
}

export const DEFAULT_START = Date.UTC(2025, 0, 6);
export const DEFAULT_OPEN_SHARE = 0.05;
const HOUR = 3_600_000;

interface Active {
  planned: PlannedCase;
  next: number;
  /** Emissions still to come, duplicates included: zero marks the case's last emission. */
  remaining: number;
}

interface Delayed {
  event: WireEvent;
  active: Active;
  duplicate: boolean;
}

/** How the merge is driven: a finite log (simulate) or an endless real-time feed (liveFeed). */
export interface SimulationConfig {
  spec: ModelSpec;
  seed: number;
  /** Returns the next case's arrival time (non-decreasing), Infinity when no case is left. */
  arrivals: () => number;
  /** Events after this time are cut: their cases stay open. */
  windowEnd: number;
  lateShare: number;
  duplicateShare: number;
  /** Milliseconds per model hour (the live feed runs the models faster than real time). */
  hourMs: number;
}

/**
 * Merges the cases in flight into one stream in time order. A case's whole
 * trace is planned when it arrives (a few dozen events), so memory holds only
 * the cases in flight, never the log.
 */
export class Simulation {
  private readonly main = new Heap<Active>();
  private readonly delayed = new Heap<Delayed>();
  private readonly emission: Rng;
  private readonly finals = new WeakSet<WireEvent>();
  private nextArrival: number;
  private index = 0;

  constructor(private readonly config: SimulationConfig) {
    this.emission = new Rng(config.seed, 0xe1717);
    this.nextArrival = config.arrivals();
  }

  /** What the writers need to know up front: CSV columns, XES types, when a case is complete. */
  writeOptions(): WriteOptions {
    const attributes = this.config.spec.attributes;
    return {
      attributes: attributes.map((a) => a.name),
      attributeTypes: Object.fromEntries(attributes.map((a) => [a.name, a.type])),
      isLastOfCase: (event) => this.finals.has(event),
    };
  }

  /** True when this emitted event is the last one its case will ever emit (writers flush the case then). */
  isLastOfCase(event: WireEvent): boolean {
    return this.finals.has(event);
  }

  /** The emission time of the next event (Infinity when the log is done). */
  nextKey(): number {
    this.admit();
    return Math.min(this.main.topKey, this.delayed.topKey);
  }

  next(): WireEvent | undefined {
    const { lateShare, hourMs } = this.config;
    for (;;) {
      this.admit();
      const mainKey = this.main.topKey;
      const delayedKey = this.delayed.topKey;
      if (mainKey === Infinity && delayedKey === Infinity) return undefined;
      if (delayedKey <= mainKey) {
        const d = this.delayed.pop() as Delayed;
        return this.emit(d.event, d.active, delayedKey, d.duplicate);
      }
      const active = this.main.top as Active;
      const events = active.planned.events;
      const n = active.next++;
      const planned = events[n]!;
      if (active.next < events.length) this.main.rekeyTop(events[active.next]!.time);
      else this.main.pop();
      const event = this.wire(active.planned, n);
      if (lateShare > 0 && this.emission.chance(lateShare)) {
        // Held back until after the case's next event, so it really arrives out of order.
        const after = active.next < events.length ? events[active.next]!.time : planned.time;
        this.delayed.push(after + 1000 + this.emission.lognormal(1, 1) * hourMs, { event, active, duplicate: false });
        continue;
      }
      return this.emit(event, active, planned.time, false);
    }
  }

  *events(): Generator<WireEvent> {
    for (let e = this.next(); e !== undefined; e = this.next()) yield e;
  }

  private emit(event: WireEvent, active: Active, key: number, duplicate: boolean): WireEvent {
    const { duplicateShare, hourMs } = this.config;
    if (!duplicate && duplicateShare > 0 && this.emission.chance(duplicateShare)) {
      // A redelivery: the same event again, a few model minutes later.
      const copy: WireEvent = { ...event, ...(event.attributes ? { attributes: { ...event.attributes } } : {}) };
      active.remaining++;
      this.delayed.push(key + (this.emission.uniform(1, 30) / 60) * hourMs, { event: copy, active, duplicate: true });
    }
    if (--active.remaining === 0) this.finals.add(event);
    return event;
  }

  private admit(): void {
    const { spec, seed, windowEnd, hourMs } = this.config;
    while (this.nextArrival !== Infinity && (this.main.size === 0 || this.nextArrival <= this.main.topKey)) {
      const planned = buildCase(spec, seed, this.index++, this.nextArrival, hourMs);
      if (planned.events[planned.events.length - 1]!.time > windowEnd) planned.events = planned.events.filter((e) => e.time <= windowEnd);
      if (planned.events.length) this.main.push(planned.events[0]!.time, { planned, next: 0, remaining: planned.events.length });
      this.nextArrival = this.config.arrivals();
    }
  }

  private wire(planned: PlannedCase, n: number): WireEvent {
    const e = planned.events[n]!;
    const event: WireEvent = {
      caseId: planned.caseId,
      activity: e.activity,
      timestamp: isoSeconds(e.time),
      eventId: `${planned.caseId}-${String(n + 1).padStart(3, '0')}`,
      resource: e.resource,
    };
    const attributes = n === 0 ? { ...planned.attributes, ...e.attributes } : e.attributes;
    if (attributes && Object.keys(attributes).length) event.attributes = { ...attributes };
    return event;
  }
}

const pad2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
let cachedDay = NaN;
let cachedDayText = '';

/** `Date#toISOString` for whole-second times, without a Date per event (the hot path of a million-event log). */
function isoSeconds(t: number): string {
  const day = Math.floor(t / 86_400_000);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  let s = Math.floor((t - day * 86_400_000) / 1000);
  const ms = t % 1000;
  const hh = Math.floor(s / 3600);
  s -= hh * 3600;
  const mm = Math.floor(s / 60);
  s -= mm * 60;
  if (ms !== 0) return new Date(t).toISOString();
  return `${cachedDayText}${pad2[hh]}:${pad2[mm]}:${pad2[s]}.000Z`;
}

function share(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0 || v >= 1) throw new EngineError('invalid_argument', `${name} must be a number in [0, 1), got ${value}`);
  return v;
}

/** Checks the options and sets up the merge of a finite log. */
export function createSimulation(options: SimulateOptions): Simulation {
  const spec = modelSpec(options.model);
  const { cases, seed } = options;
  if (!Number.isInteger(cases) || cases < 0) throw new EngineError('invalid_argument', `cases must be a whole number >= 0, got ${cases}`);
  if (!Number.isInteger(seed)) throw new EngineError('invalid_argument', `seed must be an integer, got ${seed}`);
  const start = options.start ?? DEFAULT_START;
  if (!Number.isFinite(start)) throw new EngineError('invalid_argument', `start must be epoch milliseconds, got ${start}`);
  const openShare = share('openShare', options.openShare, DEFAULT_OPEN_SHARE);
  const lateShare = share('lateShare', options.lateShare, 0);
  const duplicateShare = share('duplicateShare', options.duplicateShare, 0);
  // Little's law: the cases in flight when the window closes are arrival rate × mean
  // duration, so a window of mean / openShare leaves about openShare of them open.
  const window = (calibrate(spec).meanHours * HOUR) / (openShare > 0 ? openShare : DEFAULT_OPEN_SHARE);
  const arrivalRng = new Rng(seed, 0xa771);
  let i = 0;
  const arrivals = (): number => {
    if (i >= cases) return Infinity;
    // One arrival per slot, placed at random inside it (the first case starts at `start`):
    // steady load, no bunching at the window's edges.
    const t = start + Math.floor((window * (i + (i === 0 ? 0 : arrivalRng.next()))) / cases / 1000) * 1000;
    i++;
    return t;
  };
  return new Simulation({
    spec,
    seed,
    arrivals,
    windowEnd: openShare > 0 ? start + window : Infinity,
    lateShare,
    duplicateShare,
    hourMs: HOUR,
  });
}

/** The events of a simulated log, in emission order (see SimulateOptions). */
export function simulate(options: SimulateOptions): Generator<WireEvent> {
  return createSimulation(options).events();
}
