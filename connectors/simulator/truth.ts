import { calibrate } from './calibration.js';
import type { AttributeSpec, ModelTruth, RoleTruth } from './model.js';
import { modelSpec } from './models/index.js';
import { DEFAULT_OPEN_SHARE } from './simulation.js';

/** Everything a model is known to do: what later tests assert mined results against. */
export interface GroundTruth extends Omit<ModelTruth, 'stages'> {
  model: string;
  description: string;
  caseRepresents: string;
  /** Case ids are `${casePrefix}-000001`, `-000002`, …; event ids `${caseId}-001`, … */
  casePrefix: string;
  /** Every activity with its role, stage and the lognormal wait before it (from the previous event of its branch). */
  activities: { name: string; role: string; stage: string; waitMedianHours: number; waitSigma: number }[];
  /** In the order a case moves through them. */
  stages: { name: string; activities: string[] }[];
  roles: RoleTruth[];
  attributes: AttributeSpec[];
  /** `share` of complete cases finish within `hours` of their first event (measured on a fixed reference run). */
  serviceLevel: { from: string; to: 'case end'; hours: number; share: number; medianHours: number; meanHours: number; sampleCases: number };
  /** Cases still open when the window closes: their next event would fall after it. */
  open: { defaultShare: number; rule: string };
}

/** The ground truth of a built-in model, as a plain JSON-safe object (a fresh copy each call). */
export function groundTruth(model: string): GroundTruth {
  const spec = modelSpec(model);
  const cal = calibrate(spec);
  const activities = Object.entries(spec.steps).map(([name, s]) => ({
    name,
    role: s.role,
    stage: s.stage,
    waitMedianHours: s.waitMedianHours,
    waitSigma: s.waitSigma,
  }));
  const truth: GroundTruth = {
    model: spec.name,
    description: spec.description,
    caseRepresents: spec.caseRepresents,
    casePrefix: spec.casePrefix,
    startActivity: spec.truth.startActivity,
    endActivities: spec.truth.endActivities,
    activities,
    stages: spec.truth.stages.map((name) => ({ name, activities: activities.filter((a) => a.stage === name).map((a) => a.name) })),
    decisions: spec.truth.decisions,
    rework: spec.truth.rework,
    parallel: spec.truth.parallel,
    separation: spec.truth.separation,
    escalations: spec.truth.escalations,
    exceptions: spec.truth.exceptions,
    ...(spec.truth.backbone ? { backbone: spec.truth.backbone } : {}),
    ...(spec.truth.optional ? { optional: spec.truth.optional } : {}),
    ...(spec.truth.repeated ? { repeated: spec.truth.repeated } : {}),
    ...(spec.truth.commonestVariantMaxShare !== undefined ? { commonestVariantMaxShare: spec.truth.commonestVariantMaxShare } : {}),
    roles: Object.entries(spec.roles).map(([role, resources]) => ({
      role,
      resources,
      activities: activities.filter((a) => a.role === role).map((a) => a.name),
    })),
    attributes: spec.attributes,
    serviceLevel: {
      from: spec.truth.startActivity,
      to: 'case end',
      hours: cal.p90Hours,
      share: 0.9,
      medianHours: cal.medianHours,
      meanHours: cal.meanHours,
      sampleCases: cal.cases,
    },
    open: {
      defaultShare: DEFAULT_OPEN_SHARE,
      rule: 'cases whose remaining events fall after the end of the window (start + meanHours / openShare) are cut there and stay open',
    },
  };
  return structuredClone(truth);
}
