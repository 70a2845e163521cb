import type { AttributeValue } from '../../engine/index.js';
import type { CaseScript, EscalationTruth, ModelSpec, StepOptions } from './model.js';
import { Rng } from './random.js';

export interface PlannedEvent {
  activity: string;
  /** Epoch milliseconds, whole seconds. */
  time: number;
  resource: string;
  attributes: Record<string, AttributeValue> | undefined;
}

export interface PlannedCase {
  index: number;
  caseId: string;
  /** Case attributes, carried on the first event. */
  attributes: Record<string, AttributeValue>;
  /** In time order (ties keep the order the flow produced them). */
  events: PlannedEvent[];
}

const HOUR = 3_600_000;

/** Resources of a role with a skewed workload: a few people do most of the work, as in real teams. */
class Pool {
  readonly names: string[];
  private readonly cumulative: number[];
  constructor(names: string[]) {
    this.names = names;
    let total = 0;
    this.cumulative = names.map((_, i) => (total += 1 / Math.sqrt(i + 1)));
  }
  pick(rng: Rng, exclude?: ReadonlySet<string>): string {
    const total = this.cumulative[this.cumulative.length - 1] as number;
    for (let attempt = 0; attempt < 32; attempt++) {
      const u = rng.next() * total;
      let i = 0;
      while ((this.cumulative[i] as number) <= u) i++;
      const name = this.names[i] as string;
      if (!exclude?.has(name)) return name;
    }
    const free = this.names.filter((n) => !exclude?.has(n));
    return free.length ? rng.pick(free) : (this.names[0] as string);
  }
}

const pools = new WeakMap<ModelSpec, Map<string, Pool>>();
function poolsOf(spec: ModelSpec): Map<string, Pool> {
  let found = pools.get(spec);
  if (!found) {
    found = new Map(Object.entries(spec.roles).map(([role, names]) => [role, new Pool(names)]));
    pools.set(spec, found);
  }
  return found;
}

/** Shared by the branches of one case. */
interface CaseState {
  spec: ModelSpec;
  pools: Map<string, Pool>;
  rng: Rng;
  attributes: Record<string, AttributeValue>;
  events: PlannedEvent[];
  owners: Map<string, string>;
  /** Real milliseconds per model hour (smaller in a sped-up live feed). */
  hourMs: number;
}

class Script implements CaseScript {
  constructor(
    private readonly s: CaseState,
    public t: number,
  ) {}

  get rng(): Rng {
    return this.s.rng;
  }
  get attributes(): Readonly<Record<string, AttributeValue>> {
    return this.s.attributes;
  }

  private sampleWait(activity: string): number {
    const step = this.s.spec.steps[activity];
    if (!step) throw new Error(`simulator: model ${this.s.spec.name} has no step '${activity}'`);
    return this.s.rng.lognormal(step.waitMedianHours, step.waitSigma);
  }

  /** Places an activity `hours` after the current time (at least a second later). */
  private at(activity: string, hours: number, options: StepOptions): string {
    const { spec, pools, rng } = this.s;
    const step = spec.steps[activity];
    if (!step) throw new Error(`simulator: model ${spec.name} has no step '${activity}'`);
    const role = step.role;
    const pool = pools.get(role);
    if (!pool) throw new Error(`simulator: model ${spec.name} has no role '${role}'`);
    let resource: string | undefined = options.sticky ? this.s.owners.get(role) : undefined;
    if (resource === undefined) {
      const exclude = options.differentFrom ? this.doneBy(options.differentFrom) : undefined;
      resource = pool.pick(rng, exclude);
      if (options.sticky) this.s.owners.set(role, resource);
    }
    this.t = Math.round((this.t + Math.max(1000, hours * this.s.hourMs)) / 1000) * 1000;
    this.s.events.push({ activity, time: this.t, resource, attributes: options.attributes });
    return resource;
  }

  /** Who has done an activity in this case so far (a case has a few dozen events at most). */
  private doneBy(activity: string): Set<string> {
    const found = new Set<string>();
    for (const e of this.s.events) if (e.activity === activity) found.add(e.resource);
    return found;
  }

  step(activity: string, options: StepOptions = {}): string {
    return this.at(activity, options.waitHours ?? this.sampleWait(activity), options);
  }

  parallel(...branches: ((c: CaseScript) => void)[]): void {
    let end = this.t;
    for (const branch of branches) {
      const fork = new Script(this.s, this.t);
      branch(fork);
      end = Math.max(end, fork.t);
    }
    this.t = end;
  }

  stepWithEscalation(to: string, e: EscalationTruth, options: StepOptions = {}): string {
    const wait = options.waitHours ?? this.sampleWait(to);
    const rng = this.s.rng;
    if (wait > e.afterHours) {
      this.at(e.activity, e.afterHours + rng.next(), {});
      // Escalated work gets picked up quickly.
      return this.at(to, rng.lognormal(3, 0.6), options);
    }
    if (rng.chance(e.earlyRate)) {
      const early = wait * rng.uniform(0.2, 0.8);
      this.at(e.activity, early, {});
      return this.at(to, wait - early, options);
    }
    return this.at(to, wait, options);
  }
}

/**
 * Builds the whole trace of one case. Each case has its own random stream
 * (seed, case index), so a case is the same whatever else runs beside it.
 */
export function buildCase(spec: ModelSpec, seed: number, index: number, start: number, hourMs = HOUR): PlannedCase {
  const rng = new Rng(seed, index, 0xca5e);
  const attributes = spec.caseAttributes(rng);
  const state: CaseState = { spec, pools: poolsOf(spec), rng, attributes, events: [], owners: new Map(), hourMs };
  const script = new Script(state, start - 1000);
  // The first activity happens at the arrival time itself.
  const first = spec.truth.startActivity;
  script.step(first, { waitHours: 0 });
  spec.run(script);
  const events = state.events;
  events.sort((a, b) => a.time - b.time);
  const caseId = `${spec.casePrefix}-${String(index + 1).padStart(6, '0')}`;
  return { index, caseId, attributes, events };
}
