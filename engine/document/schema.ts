import { z } from 'zod';
import type { GraphDocument, Plain } from './types.js';

/**
 * The graph document's checked shape (spec: "Resources and their fields").
 * Strict at every level: no field outside the listed ones, no nulls, shares in
 * 0..1, counts integers >= 0, hours >= 0.
 */
export const SCHEMA_NAME = 'service.process-context-graph';
export const SCHEMA_VERSION = '1.0';

const finite = () => z.number().refine(Number.isFinite, 'must be finite');
const count = () => z.int().min(0);
const share = () => z.number().min(0).max(1);
const hours = () => z.number().min(0).refine(Number.isFinite, 'must be finite');

export const plainSchema: z.ZodType<Plain> = z
  .lazy(() => z.union([z.string(), finite(), z.boolean(), z.array(plainSchema), z.record(z.string(), plainSchema)]))
  .meta({ id: 'plain', description: 'string, number, boolean, array of plain or object of plain; never null' });

export const strengthSchema = z.enum(['counted', 'strong', 'moderate', 'weak', 'hypothesis']);

export const evidenceSchema = z
  .strictObject({
    cases: count(),
    of_cases: count(),
    share: share(),
    strength: strengthSchema,
    method: z.string(),
  })
  .meta({ id: 'evidence', description: 'what an element rests on: cases, of how many, the share where it holds, strength and method' });

const sourceSchema = z.strictObject({
  data_version: z.string(),
  log_digest: z.string(),
  case_notion: z.string(),
  cases: count(),
  events: count(),
  period_start: z.string(),
  period_end: z.string(),
  time_basis: z.enum(['working', 'clock']),
});

const processSchema = z.strictObject({ case_represents: z.string(), objective: z.string(), evidence: evidenceSchema });

const successCriterionSchema = z.strictObject({
  id: z.string(),
  statement: z.string(),
  test: z.string(),
  share_met: share(),
  evidence: evidenceSchema,
});

const outcomeSchema = z.strictObject({
  id: z.string(),
  end_activity: z.string(),
  kind: z.enum(['success', 'failure', 'open', 'other']),
  cases: count(),
  share: share(),
});

const stageSchema = z.strictObject({ id: z.string(), name: z.string(), activities: z.array(plainSchema) });

const nodeSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['start', 'end', 'activity']),
  label: z.string(),
  stage: z.string(),
  cases: count(),
  events: count(),
  cases_repeating: count(),
  median_hours_to_next: hours(),
  roles: z.array(plainSchema),
  object_types: z.array(plainSchema),
  evidence: evidenceSchema,
});

const edgeSchema = z.strictObject({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  kind: z.enum(['normal', 'allowed', 'rework', 'skip', 'exception', 'escalation']),
  cases: count(),
  share_of_from: share(),
  median_wait_hours: hours(),
  slow_wait_hours: hours(),
  evidence: evidenceSchema,
});

const variantSchema = z.strictObject({
  id: z.string(),
  path: z.array(plainSchema),
  class: z.enum(['main', 'allowed', 'exception']),
  cases: count(),
  share: share(),
});

const modelSchema = z.strictObject({ process_tree: z.string(), cases_it_accepts: share() });

const branchSchema = z.strictObject({ to: z.string(), cases: count(), share: share() });
const ruleSchema = z.strictObject({
  id: z.string(),
  when: z.array(plainSchema),
  then: z.string(),
  cases: count(),
  holds: share(),
  evidence: evidenceSchema,
});
const decisionSchema = z.strictObject({
  id: z.string(),
  at: z.string(),
  branches: z.array(branchSchema),
  baseline_share: share(),
  rules: z.array(ruleSchema),
  explained: z.boolean(),
  evidence: evidenceSchema,
});

const sequenceRuleSchema = z.strictObject({
  id: z.string(),
  type: z.enum(['precedence', 'response', 'at_most_once', 'other']),
  statement: z.string(),
  activities: z.array(plainSchema),
  holds: share(),
  evidence: evidenceSchema,
});

const exceptionSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  trigger: z.string(),
  detected_by: z.string(),
  handling: z.array(plainSchema),
  cases: count(),
  evidence: evidenceSchema,
});

const escalationSchema = z.strictObject({ id: z.string(), from: z.string(), to: z.string(), trigger: z.string(), evidence: evidenceSchema });

const policySchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['service_level', 'timing', 'sequence', 'separation']),
  statement: z.string(),
  threshold_hours: hours(),
  share_met: share(),
  evidence: evidenceSchema,
});

const roleSchema = z.strictObject({ id: z.string(), name: z.string(), attribute: z.string(), activities: z.array(plainSchema), cases: count() });
const objectTypeSchema = z.strictObject({ id: z.string(), name: z.string(), count: count(), activities: z.array(plainSchema) });
const objectRelationSchema = z.strictObject({ from_type: z.string(), to_type: z.string(), qualifier: z.string(), count: count() });

const evidenceLevelsSchema = z.strictObject({
  counted: z.string(),
  strong: z.string(),
  moderate: z.string(),
  weak: z.string(),
  hypothesis: z.string(),
});

export const graphDocumentSchema = z.strictObject({
  schema: z.literal(SCHEMA_NAME),
  schema_version: z.literal(SCHEMA_VERSION),
  source: sourceSchema,
  process: processSchema,
  success_criteria: z.array(successCriterionSchema),
  outcomes: z.array(outcomeSchema),
  stages: z.array(stageSchema),
  nodes: z.array(nodeSchema),
  edges: z.array(edgeSchema),
  variants: z.array(variantSchema),
  model: modelSchema,
  decisions: z.array(decisionSchema),
  sequence_rules: z.array(sequenceRuleSchema),
  exceptions: z.array(exceptionSchema),
  escalations: z.array(escalationSchema),
  policies: z.array(policySchema),
  roles: z.array(roleSchema),
  object_types: z.array(objectTypeSchema),
  object_relations: z.array(objectRelationSchema),
  evidence_levels: evidenceLevelsSchema,
  assumptions: z.array(plainSchema),
  open_questions: z.array(plainSchema),
});

// The TypeScript types (types.ts) and the schema must describe one shape: both directions are checked at compile time.
type Parsed = z.infer<typeof graphDocumentSchema>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typesAgree: Same<Parsed, GraphDocument> = true;
void typesAgree;

export interface DocumentProblem {
  /** JSON-pointer-like: `/edges/3/share_of_from`; `` for the whole document. */
  path: string;
  message: string;
}

const pointer = (path: readonly PropertyKey[]): string => path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Every problem of a would-be document, each with its path. Never throws. */
export function validateDocument(doc: unknown): { ok: boolean; problems: DocumentProblem[] } {
  const parsed = graphDocumentSchema.safeParse(doc);
  if (parsed.success) return { ok: true, problems: [] };
  const problems: DocumentProblem[] = [];
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: pointer([...issue.path, key]), message: 'field not allowed here' });
    } else if (issue.code === 'invalid_union' && issue.path.length > 0 && issue.errors.length > 0) {
      problems.push({ path: pointer(issue.path), message: 'expected a plain value (string, finite number, boolean, array or object of plain values; never null)' });
    } else {
      problems.push({ path: pointer(issue.path), message: issue.message });
    }
  }
  return { ok: false, problems };
}

/** The document's JSON Schema (draft 2020-12), for `pcg schema` and for readers outside TypeScript. */
export function documentJsonSchema(): Record<string, unknown> {
  const json = z.toJSONSchema(graphDocumentSchema, { target: 'draft-2020-12', unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as Record<string, unknown>;
  return {
    ...json,
    $id: `https://schemas.invalid/${SCHEMA_NAME}/${SCHEMA_VERSION}`,
    title: 'Process context graph document',
  };
}
