/**
 * The process context graph document as TypeScript types, field for field as
 * the spec (shared/spec/process-context-graph-and-api.md) lists them. The zod
 * schema in schema.ts is the checked form of the same shape.
 */
export type Plain = string | number | boolean | Plain[] | { [key: string]: Plain };
export type Strength = 'counted' | 'strong' | 'moderate' | 'weak' | 'hypothesis';

export interface Evidence {
  cases: number;
  of_cases: number;
  share: number;
  strength: Strength;
  method: string;
}

export interface Source {
  data_version: string;
  log_digest: string;
  case_notion: string;
  cases: number;
  events: number;
  period_start: string;
  period_end: string;
  time_basis: 'working' | 'clock';
}

export interface ProcessPart {
  case_represents: string;
  objective: string;
  evidence: Evidence;
}
export interface SuccessCriterion {
  id: string;
  statement: string;
  test: string;
  share_met: number;
  evidence: Evidence;
}
export interface Outcome {
  id: string;
  end_activity: string;
  kind: 'success' | 'failure' | 'open' | 'other';
  cases: number;
  share: number;
}
export interface Stage {
  id: string;
  name: string;
  activities: Plain[];
}
export interface GraphNode {
  id: string;
  kind: 'start' | 'end' | 'activity';
  label: string;
  stage: string;
  cases: number;
  events: number;
  cases_repeating: number;
  median_hours_to_next: number;
  roles: Plain[];
  object_types: Plain[];
  evidence: Evidence;
}
export type EdgeKind = 'normal' | 'allowed' | 'rework' | 'skip' | 'exception' | 'escalation';
export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  kind: EdgeKind;
  cases: number;
  share_of_from: number;
  median_wait_hours: number;
  slow_wait_hours: number;
  evidence: Evidence;
}
export interface Variant {
  id: string;
  path: Plain[];
  class: 'main' | 'allowed' | 'exception';
  cases: number;
  share: number;
}
export interface Model {
  process_tree: string;
  cases_it_accepts: number;
}
export interface Branch {
  to: string;
  cases: number;
  share: number;
}
export interface Rule {
  id: string;
  when: Plain[];
  then: string;
  cases: number;
  holds: number;
  evidence: Evidence;
}
export interface Decision {
  id: string;
  at: string;
  branches: Branch[];
  baseline_share: number;
  rules: Rule[];
  explained: boolean;
  evidence: Evidence;
}
export interface SequenceRule {
  id: string;
  type: 'precedence' | 'response' | 'at_most_once' | 'other';
  statement: string;
  activities: Plain[];
  holds: number;
  evidence: Evidence;
}
export interface ExceptionItem {
  id: string;
  name: string;
  trigger: string;
  detected_by: string;
  handling: Plain[];
  cases: number;
  evidence: Evidence;
}
export interface Escalation {
  id: string;
  from: string;
  to: string;
  trigger: string;
  evidence: Evidence;
}
export interface Policy {
  id: string;
  kind: 'service_level' | 'timing' | 'sequence' | 'separation';
  statement: string;
  threshold_hours: number;
  share_met: number;
  evidence: Evidence;
}
export interface Role {
  id: string;
  name: string;
  attribute: string;
  activities: Plain[];
  cases: number;
}
export interface ObjectType {
  id: string;
  name: string;
  count: number;
  activities: Plain[];
}
export interface ObjectRelationItem {
  from_type: string;
  to_type: string;
  qualifier: string;
  count: number;
}
export type EvidenceLevels = Record<Strength, string>;

export interface GraphDocument {
  schema: 'service.process-context-graph';
  schema_version: '1.0';
  source: Source;
  process: ProcessPart;
  success_criteria: SuccessCriterion[];
  outcomes: Outcome[];
  stages: Stage[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  variants: Variant[];
  model: Model;
  decisions: Decision[];
  sequence_rules: SequenceRule[];
  exceptions: ExceptionItem[];
  escalations: Escalation[];
  policies: Policy[];
  roles: Role[];
  object_types: ObjectType[];
  object_relations: ObjectRelationItem[];
  evidence_levels: EvidenceLevels;
  assumptions: Plain[];
  open_questions: Plain[];
}
