import type { ProjectSnapshot } from '../store/project-store.js';
import { HOUR_MS } from '../time.js';
import { readDecisions } from './decisions.js';
import { readSequenceRules } from './declare.js';
import { readEdgeKinds } from './edges.js';
import { readEscalations } from './escalations.js';
import { readExceptions } from './exceptions.js';
import { factsOf, pct, q, ratio, type ParsedVariants } from './facts.js';
import { readEnds } from './outcomes.js';
import { readPolicies } from './policies.js';
import { readProcessPart, readSuccessCriteria } from './process.js';
import { readStages } from './stages.js';
import type {
  Decision,
  EdgeKind,
  Escalation,
  ExceptionItem,
  GraphEdge,
  GraphNode,
  Outcome,
  Plain,
  Policy,
  ProcessPart,
  SequenceRule,
  Stage,
  SuccessCriterion,
  Variant,
} from '../document/types.js';

/**
 * The interpreter's contract with the document builder (engine/document).
 * The builder computes the counted and mined parts, then hands them here; the
 * reading returns the interpreted parts. Deterministic: same input, same output.
 */
export interface ReadingInput {
  snapshot: ProjectSnapshot;
  /** Counted nodes and edges; their `stage` and `kind` are still placeholders. */
  nodes: readonly GraphNode[];
  edges: readonly GraphEdge[];
  variants: readonly Variant[];
  /** The discovered process tree in pm4py syntax, and its acceptance share. */
  processTree: string;
  casesItAccepts: number;
  /** Converts a duration in milliseconds between two epoch times to hours on the document's time basis. */
  hoursBetween(fromMillis: number, toMillis: number): number;
  /** The snapshot's variants already parsed (mining's variantLog); when absent the reading parses the keys itself. */
  parsed?: ParsedVariants;
}

export type { ParsedVariants } from './facts.js';

export interface Reading {
  process: ProcessPart;
  success_criteria: SuccessCriterion[];
  outcomes: Outcome[];
  stages: Stage[];
  /** Stage id per activity label; every activity in exactly one stage. */
  stageOf: Map<string, string>;
  /** Kind per edge id; edges not listed are `normal`. */
  edgeKinds: Map<string, { kind: EdgeKind; method: string }>;
  decisions: Decision[];
  sequence_rules: SequenceRule[];
  exceptions: ExceptionItem[];
  escalations: Escalation[];
  policies: Policy[];
  assumptions: Plain[];
  open_questions: Plain[];
}

/**
 * The interpreter: explicit, deterministic algorithms over the counted state
 * (the tally's variants, edges, sketches and the reading counters: choices,
 * sameResource, lastEvents). Every claim carries evidence whose method states
 * how it was reached and the cut used. Durations are read from the sketches,
 * which hold the document's time basis already, so `hoursBetween` is not
 * needed here.
 */
export function readProcess(input: ReadingInput): Reading {
  const { snapshot } = input;
  const f = factsOf(snapshot.tally, (millis) => millis / HOUR_MS, input.parsed);
  const ends = readEnds(f, snapshot.periodEnd);
  const happy = f.variants.find((v) => v.end !== undefined && ends.successEnds.includes(v.end));
  if (happy) f.mainPath = [...new Set(happy.path)];
  const stages = readStages(f, input.processTree);
  const escalations = readEscalations(f);
  const edgeKinds = readEdgeKinds(f, input.nodes, input.edges, input.variants, escalations.edges, ends.failureEnds);
  const decisions = readDecisions(f);
  const sequence = readSequenceRules(f);
  const exceptions = readExceptions(f, ends.successEnds, ends.failureEnds);
  const policies = readPolicies(f);
  const objectTypes = [...snapshot.objectCounts.keys()];
  const process = readProcessPart(f, snapshot.meta.case_notion, objectTypes, ends);

  const assumptions: Plain[] = [
    `Reading (the interpreted parts) is computed by fixed rules over the counted state, not by a language model; each claim's evidence states its method. Name-based guesses are marked hypothesis.`,
    `Outcomes: ${ends.method}.`,
    `The main path is the distinct activities of the commonest variant that ends in a success ending${happy ? '' : ' (none does: the commonest variant)'}: ${f.mainPath.map(q).join(', ')}.`,
    `Stages: ${stages.method}.`,
    edgeKinds.assumption,
    `Decisions: ${decisions.method}. Later visits of an activity (rework) are not counted as decisions. At most 12 attribute names per case are followed (the first met in case order); strings longer than 40 characters or with more than 3 digits are left out as ids, dates or free text.`,
    `Sequence rules: ${sequence.method}.`,
    `Exceptions: ${exceptions.method}.`,
    `Escalations: ${escalations.method}. Escalations after a failed or repeated attempt are not measured, only those after a long wait.`,
    `Policies: ${policies.method}. The case duration includes open cases (their duration so far).`,
  ];

  const open_questions: Plain[] = [];
  for (const d of decisions.decisions) {
    if (d.explained) continue;
    open_questions.push({
      question: `What decides between ${d.branches.map((b) => q(b.to)).join(', ')} after ${q(d.at)}? No attribute known at that point predicts it at least 10 points better than always guessing ${q(d.branches[0]!.to)}.`,
      evidence: d.evidence as unknown as Plain,
    });
  }
  for (const o of ends.outcomes) {
    if (o.kind === 'other' && ends.ends.has(o.end_activity)) {
      open_questions.push({ question: `Is ending with ${q(o.end_activity)} a success or a failure? Neither its name nor its place in the flow tells.`, evidence: { cases: o.cases, share: o.share, method: 'outcome counts' } });
    }
  }
  if (ends.stalledCases > 0) {
    open_questions.push({
      question: `Are the ${ends.stalledCases} cases that stopped outside any ending long ago abandoned, or still waiting?`,
      evidence: { cases: ends.stalledCases, share: ratio(ends.stalledCases, f.cases), method: ends.method },
    });
  }
  for (const e of exceptions.exceptions) {
    if (e.id.startsWith('repeated-') && e.evidence.share >= 0.1) {
      open_questions.push({ question: `Why is ${e.name.replace(' repeated', '')} repeated in ${pct(e.evidence.share)} of the cases that have it?`, evidence: e.evidence as unknown as Plain });
    }
  }
  for (const e of escalations.escalations) {
    open_questions.push({ question: `Is ${q(e.to)} after ${q(e.from)} a fixed rule (${e.trigger})?`, evidence: e.evidence as unknown as Plain });
  }

  return {
    process,
    success_criteria: readSuccessCriteria(f, ends, policies.serviceLevel),
    outcomes: ends.outcomes,
    stages: stages.stages,
    stageOf: stages.stageOf,
    edgeKinds: edgeKinds.kinds,
    decisions: decisions.decisions,
    sequence_rules: sequence.rules,
    exceptions: exceptions.exceptions,
    escalations: escalations.escalations,
    policies: policies.policies,
    assumptions,
    open_questions,
  };
}
