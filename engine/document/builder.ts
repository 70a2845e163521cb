import { workingMillisBetween, type WorkingCalendar } from '../calendar.js';
import { EngineError } from '../errors.js';
import { discoverModel, variantLog, FALLBACK_THRESHOLD, MAX_CONCURRENT_SEARCH, NOISE_THRESHOLDS, MIN_ACCEPTANCE, safeLabel, treeLabels, type MinedModel, type ProcessTree } from '../mining/index.js';
import { readProcess } from '../reading/index.js';
import type { ProjectSnapshot } from '../store/project-store.js';
import { HOUR_MS, isoUtc, NO_CLOCK_TIME } from '../time.js';
import { EVIDENCE_LEVELS, shareOf } from './evidence.js';
import { countedGraph, SLOW_PERCENTILE } from './graph.js';
import { declaredActivities, objectParts } from './objects.js';
import { roleParts } from './roles.js';
import { SCHEMA_NAME, SCHEMA_VERSION } from './schema.js';
import type { GraphDocument, Plain } from './types.js';
import { listVariants, MIN_VARIANT_SHARE } from './variants.js';
import { DISTINCT_PATHS, MAIN_PATH_Z, verdictText, type PathVerdict } from '../reading/paths.js';

export interface BuildOptions {
  /** `working` needs a snapshot from workingSnapshot(); default: the snapshot's own basis (clock). */
  timeBasis?: 'clock' | 'working';
  /** What one case is; default the store's meta `case_notion`, else `case id`. */
  caseNotion?: string;
}

/**
 * The graph document of a project's state. Pure and deterministic: it reads
 * only the snapshot's sufficient statistics (never events), so its cost grows
 * with activities and variants, not with the number of events.
 */
export function buildDocument(snapshot: ProjectSnapshot, options: BuildOptions = {}): GraphDocument {
  const { tally, meta } = snapshot;
  const basis = options.timeBasis ?? (meta.time_basis === 'working' ? 'working' : 'clock');
  const calendar = basis === 'working' ? calendarOf(snapshot) : undefined;
  const caseNotion = options.caseNotion ?? meta.case_notion ?? 'case id';
  const cases = tally.cases;

  const { roles, rolesOf, assumption: roleAssumption } = roleParts(tally, meta.resource_attribute ?? 'org:resource');
  const objects = objectParts(snapshot.objectCounts, tally.objectTypes, snapshot.objectRelations, declaredActivities(meta));
  const graph = countedGraph(
    tally,
    (a) => rolesOf.get(a) ?? [],
    (a) => objects.typesOf.get(a) ?? [],
  );
  // Variant keys are parsed once, for the miner and the reading both.
  const prepared = variantLog(tally.variants);
  const model = cases > 0 ? discoverModel(tally.variants, NOISE_THRESHOLDS, prepared) : undefined;
  const processTree = model?.text ?? 'tau';
  const casesItAccepts = model ? shareOf(model.acceptedCases, model.cases) : 0;

  const reading = readProcess({
    snapshot,
    nodes: graph.nodes,
    edges: graph.edges,
    tree: model?.tree,
    casesItAccepts,
    hoursBetween: (from, to) => (calendar ? workingMillisBetween(from, to, calendar) : Math.max(0, to - from)) / HOUR_MS,
    parsed: { traces: prepared.log.traces, counts: prepared.log.counts, labels: prepared.labels, keys: prepared.keys },
  });
  // Listed after the reading: a path ending where cases were cut off while running is no exception (reading/window.ts).
  const listed = listVariants(tally.variants, cases, model?.acceptedVariants ?? new Map(), reading.openStops);
  const nodes = graph.nodes.map((n) => (n.kind === 'activity' ? { ...n, stage: reading.stageOf.get(n.label) ?? '' } : n));
  const edges = graph.edges.map((e) => {
    const k = reading.edgeKinds.get(e.id);
    return k ? { ...e, kind: k.kind, evidence: { ...e.evidence, ...(k.strength ? { strength: k.strength } : {}), method: `${e.evidence.method}; kind: ${k.method}` } } : e;
  });

  // A log that records no time (every event at NO_CLOCK_TIME, as readers give it) has no period.
  const noClock = snapshot.periodStart === NO_CLOCK_TIME && snapshot.periodEnd === NO_CLOCK_TIME;
  return {
    schema: SCHEMA_NAME,
    schema_version: SCHEMA_VERSION,
    source: {
      data_version: String(snapshot.dataVersion),
      log_digest: snapshot.logDigest,
      case_notion: caseNotion,
      cases,
      events: tally.events,
      period_start: snapshot.periodStart === undefined || noClock ? '' : isoUtc(snapshot.periodStart),
      period_end: snapshot.periodEnd === undefined || noClock ? '' : isoUtc(snapshot.periodEnd),
      time_basis: basis,
    },
    process: reading.process,
    success_criteria: reading.success_criteria,
    outcomes: reading.outcomes,
    stages: reading.stages,
    nodes,
    edges,
    variants: listed.variants,
    model: { process_tree: processTree, cases_it_accepts: casesItAccepts },
    decisions: reading.decisions,
    sequence_rules: reading.sequence_rules,
    exceptions: reading.exceptions,
    escalations: reading.escalations,
    policies: reading.policies,
    roles,
    object_types: objects.objectTypes,
    object_relations: objects.relations,
    evidence_levels: { ...EVIDENCE_LEVELS },
    assumptions: [...assumptionsOf({ snapshot, basis, calendar, caseNotion, model, listed, roleAssumption }), ...reading.assumptions],
    open_questions: [...reading.open_questions],
  };
}

/**
 * Which activity names the printed tree writes differently, each with how: pm4py's tree syntax has no escape for a
 * single quote (its parser ends a label at the next one) nor for a line break, so those are written as \u2019 and a
 * space (safeLabel). Map them back before replaying the tree on the log.
 */
function labelsWritten(tree: ProcessTree): Plain {
  const changed = treeLabels(tree).filter((l) => safeLabel(l) !== l).sort();
  if (!changed.length) return 'every activity name is written in the tree as it is';
  return {
    written_differently: changed.map((l) => ({ activity: l, in_tree: safeLabel(l) })),
    why: "pm4py's tree syntax has no escape for a single quote or a line break: they are written as \u2019 and a space; map these back before replaying the tree on the log",
  };
}

function calendarOf(snapshot: ProjectSnapshot): WorkingCalendar {
  if (snapshot.meta.time_basis !== 'working' || !snapshot.meta.calendar) {
    throw new EngineError('invalid_argument', 'the working time basis needs a snapshot from workingSnapshot(store, calendar)');
  }
  return JSON.parse(snapshot.meta.calendar) as WorkingCalendar;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function assumptionsOf(a: {
  snapshot: ProjectSnapshot;
  basis: 'clock' | 'working';
  calendar: WorkingCalendar | undefined;
  caseNotion: string;
  model: MinedModel | undefined;
  listed: { leftOff: number; leftOffCases: number; verdict: PathVerdict };
  roleAssumption: string;
}): Plain[] {
  const out: Plain[] = [
    `A case is one ${a.caseNotion}; its events are ordered by time, ties by event id (file order for imported logs).`,
    a.basis === 'clock'
      ? 'Durations are clock time (every hour counts, nights and weekends included).'
      : `Durations are working time on the calendar ${JSON.stringify(a.calendar)}: only the working hours of worked days in that zone, holidays left out. They were recomputed from the stored events (cost grows with events, unlike the rest of the document).`,
    `Hours are medians (the lower median) and ${SLOW_PERCENTILE * 100}th percentiles read from log-bucket sketches with 1% relative error, not exact order statistics.`,
    'A wait (an edge\'s median_wait_hours and slow_wait_hours, a node\'s median_hours_to_next) runs from an event to the next event of its case, or to that event\'s recorded start when the log has one (start/complete pairs), so it is idle time and not the next step\'s own work.',
    'The start and end nodes are not events: their cases are all cases, their events 0. Edges from start and to end carry no wait.',
    'An edge\'s share_of_from is the share of the cases reaching its from-node that take that hand-off at least once; a case that leaves a node several ways counts for each, so the shares out of one node can add up to more than 1.',
    `Variants: the main path is the commonest, where it leads the next by at least ${MAIN_PATH_Z} standard deviations of a fair split between the two (top - next >= ${MAIN_PATH_Z}·√(top + next)) and cases repeat paths (fewer variants than ${DISTINCT_PATHS * 100}% of the cases); ${verdictText(a.listed.verdict)}. Allowed are paths the process tree accepts and the commonest paths that together hold half of the cases (the process itself, even where the tree is too coarse to accept them), and paths ending where the cases stopping were mostly cut off while running (see the observation window assumption); exceptions are the other paths the tree does not accept. Paths followed by fewer than ${MIN_VARIANT_SHARE * 100} in 100 cases are left off (${a.listed.leftOff} paths, ${a.listed.leftOffCases} cases).`,
  ];
  if (a.model) {
    const m = a.model;
    out.push({
      model: `process tree discovered with the Inductive Miner infrequent (IMf, Leemans et al. 2013) on the variants; log splits on variants, directly-follows cuts, the fall-throughs of pm4py (the activity-concurrent one only in sublogs of at most ${MAX_CONCURRENT_SEARCH} activities)`,
      noise_threshold: m.noiseThreshold,
      threshold_rule: `tried noise thresholds ${NOISE_THRESHOLDS.join(', ')}; kept the one with the best harmonic mean of accepted share and precision among those accepting at least ${MIN_ACCEPTANCE * 100}% of cases (ties: the earlier threshold); when none did, threshold ${FALLBACK_THRESHOLD} (the plain Inductive Miner) was tried too and the tree accepting most was kept`,
      trials: m.trials.map((t) => ({ noise_threshold: t.noiseThreshold, cases_it_accepts: round(t.acceptedShare), precision: round(t.precision) })),
      cases_it_accepts: `${m.acceptedCases} of ${m.cases} cases (${pct(shareOf(m.acceptedCases, m.cases))}), exact: every variant checked for membership in the tree's language`,
      precision: round(m.precision),
      flower_precision: round(m.flowerPrecision),
      precision_method: 'escaping-edges precision (ETC, Muñoz-Gama and Carmona) over the prefixes of the variants, weighted by cases, as pm4py\'s token-based ETC counts it but with the exact model state; the flower model (any activity in any order) is the floor',
      labels: labelsWritten(m.tree),
    });
  } else {
    out.push('No cases: the process tree is tau and accepts 0 cases.');
  }
  out.push(a.roleAssumption);
  if (a.snapshot.rejected > 0) out.push(`${a.snapshot.rejected} records were refused (not parsed, mapped or valid; kept as dead letters) and are not counted.`);
  return out;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
