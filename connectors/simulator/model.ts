import type { AttributeValue } from '../../engine/index.js';
import type { Rng } from './random.js';

/** How a log attribute is typed in the writers (XES element, CSV column). */
export type AttributeType = 'string' | 'float' | 'int' | 'boolean';

export interface AttributeSpec {
  name: string;
  type: AttributeType;
  /** `case`: drawn once per case, carried on the case's first event; `event`: set on the events of `activities`. */
  level: 'case' | 'event';
  activities?: string[];
  description: string;
}

/** One activity of a model: who does it and how long the case waits before it (hours, lognormal). */
export interface StepSpec {
  role: string;
  stage: string;
  waitMedianHours: number;
  waitSigma: number;
}

/** An attribute rule that drives a choice: `attribute op value` → `then`, else `otherwise`, followed at `rate`. */
export interface DecisionRule {
  attribute: string;
  op: '>' | '<=' | '==' | 'in';
  value: number | string | boolean | string[];
  then: string;
  otherwise: string;
  /** Share of cases whose branch follows the rule (the rest take the other branch). */
  rate: number;
}

export interface DecisionTruth {
  /** The activity directly followed by one of the branches. */
  at: string;
  branches: string[];
  /** Null when the choice is driven by nothing (pure chance). */
  rule: DecisionRule | null;
  /** For a random choice: branch → probability. */
  shares: Record<string, number> | null;
}

/** A loop back: `from` is directly followed by the earlier `to` with `probability` each time (at most `maxRepeats`). */
export interface ReworkTruth {
  from: string;
  to: string;
  probability: number;
  maxRepeats: number;
}

/** Concurrent branches: all start after one of `after`, their events interleave, `join` waits for all. */
export interface ParallelTruth {
  after: string[];
  branches: string[][];
  join: string;
}

/** Two activities of one case never done by the same resource (four eyes). */
export interface SeparationTruth {
  activities: [string, string];
  role: string;
}

/**
 * `activity` is inserted between `from` and `to` when the wait after `from`
 * exceeds `afterHours` (it happens `afterHours` plus up to an hour after `from`);
 * besides, `earlyRate` of the cases reaching `from` escalate early regardless.
 */
export interface EscalationTruth {
  activity: string;
  from: string;
  to: string;
  afterHours: number;
  earlyRate: number;
  role: string;
}

/** A rare path: after `after`, with `probability`, the case runs `activities`; `endsCase` when it then stops. */
export interface ExceptionTruth {
  name: string;
  after: string;
  activities: string[];
  probability: number;
  endsCase: boolean;
}

export interface RoleTruth {
  role: string;
  resources: string[];
  activities: string[];
}

/** Steps (nearly) every case takes, in order: `share` is the expected share of all cases with the step. */
export interface BackboneTruth {
  activity: string;
  share: number;
}

/** A step a case takes or not by its own independent chance, `probability` among the cases reaching it. */
export interface OptionalTruth {
  activity: string;
  probability: number;
}

/**
 * Normal work done several times in one case (one truckload at a time), not
 * rework: `share` of all cases do `activity` between `minTimes` and `maxTimes`
 * times; the other cases reaching it do it once.
 */
export interface RepeatTruth {
  activity: string;
  share: number;
  minTimes: number;
  maxTimes: number;
}

/** The static truth a model states about itself (the calibrated parts are added by groundTruth). */
export interface ModelTruth {
  startActivity: string;
  endActivities: { success: string[]; failure: string[] };
  stages: string[];
  decisions: DecisionTruth[];
  rework: ReworkTruth[];
  parallel: ParallelTruth[];
  separation: SeparationTruth[];
  escalations: EscalationTruth[];
  exceptions: ExceptionTruth[];
  /** Stated by the models built to have them (absent: not stated, not "none"). */
  backbone?: BackboneTruth[];
  optional?: OptionalTruth[];
  repeated?: RepeatTruth[];
  /** Many variants, none dominant: the commonest one holds at most this share of cases. */
  commonestVariantMaxShare?: number;
}

/** What a model's flow sees while it builds one case. */
export interface CaseScript {
  readonly rng: Rng;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** Runs an activity after its sampled wait (or `waitHours`); returns the resource used. */
  step(activity: string, options?: StepOptions): string;
  /** Runs branches concurrently from the current time; continues when the last one ends. */
  parallel(...branches: ((c: CaseScript) => void)[]): void;
  /** Runs `to`, inserting `escalation` when the wait exceeds its threshold (see EscalationTruth). */
  stepWithEscalation(to: string, escalation: EscalationTruth, options?: StepOptions): string;
}

export interface StepOptions {
  waitHours?: number;
  /** The resource must differ from whoever did this activity in the case (separation of duties). */
  differentFrom?: string;
  /** The same resource does every sticky step of this role in the case (a case owner). */
  sticky?: boolean;
  attributes?: Record<string, AttributeValue>;
}

export interface ModelSpec {
  name: string;
  description: string;
  caseRepresents: string;
  casePrefix: string;
  /** Role → its resources; role `system` is automated. */
  roles: Record<string, string[]>;
  steps: Record<string, StepSpec>;
  attributes: AttributeSpec[];
  caseAttributes(rng: Rng): Record<string, AttributeValue>;
  run(c: CaseScript): void;
  truth: ModelTruth;
}

/** Staff names such as `clerk-07`: the role is readable, the person is not the role. */
export function staff(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);
}

export function follows(rule: DecisionRule, attributes: Readonly<Record<string, AttributeValue>>): boolean {
  const v = attributes[rule.attribute];
  switch (rule.op) {
    case '>':
      return typeof v === 'number' && v > (rule.value as number);
    case '<=':
      return typeof v === 'number' && v <= (rule.value as number);
    case '==':
      return v === rule.value;
    case 'in':
      return Array.isArray(rule.value) && typeof v === 'string' && rule.value.includes(v);
  }
}

/** The branch a rule picks for a case, honouring its rate. */
export function choose(rule: DecisionRule, c: CaseScript): string {
  const holds = follows(rule, c.attributes);
  const obey = c.rng.chance(rule.rate);
  return holds === obey ? rule.then : rule.otherwise;
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;
