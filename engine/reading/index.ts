import type { ProjectSnapshot } from '../store/project-store.js';
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
}

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

/** Placeholder until the interpreter lands: valid, empty, and honest about it. */
export function readProcess(input: ReadingInput): Reading {
  const activities = input.nodes.filter((n) => n.kind === 'activity').map((n) => n.label);
  return {
    process: {
      case_represents: `one ${input.snapshot.meta.case_notion ?? 'case'}`,
      objective: 'not yet interpreted',
      evidence: { cases: 0, of_cases: input.snapshot.tally.cases, share: 0, strength: 'hypothesis', method: 'placeholder: no interpreter' },
    },
    success_criteria: [],
    outcomes: [],
    stages: [{ id: 'stage-1', name: 'all activities', activities }],
    stageOf: new Map(activities.map((a) => [a, 'stage-1'])),
    edgeKinds: new Map(),
    decisions: [],
    sequence_rules: [],
    exceptions: [],
    escalations: [],
    policies: [],
    assumptions: ['The interpreted parts (outcomes, stages, decisions, rules, exceptions, escalations, policies) are not computed yet.'],
    open_questions: [],
  };
}
