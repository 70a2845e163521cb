/**
 * The document's sections: one row per top-level key of the graph document, saying how each face
 * shows it. `pcg diff` (diff.ts) and the MCP views (api/mcp/views.ts) iterate the rows; the report
 * (report.ts) names its section per row, and test/render/sections.test.ts checks that every renderer
 * covers every row. A key added to GraphDocument without a row fails to compile (the `satisfies`
 * below); docs/architecture.md, "Adding a document section", has the rest of the recipe.
 */
import type { GraphDocument } from '../document/types.js';
import type { ReportSectionId } from './report.js';

export interface SectionRow {
  /** How people name it: the diff's heading (in lower case) and the web page's tab. */
  title: string;
  /** The report's section that shows it (report.ts), `lead` for the opening paragraph, or null with the reason in a comment. */
  report: ReportSectionId | 'lead' | null;
  /** `pcg diff`: its elements are matched and these fields compared (diff.ts says how); null: not compared. */
  diff: { fields: readonly string[] } | null;
  /** MCP: `get_graph` pages through it under this view name, and `diff` compares it when `diff` is set; null: only in the full view. */
  mcp: { view: string; diff: boolean } | null;
  /** Counted (its length) in MCP's summary. */
  counted: boolean;
  /** The web page's tab listing it (api/web/src/panels.ts TABS); null: the map, the overview or the raw document show it. */
  web: string | null;
}

/**
 * The rows in the order the diff, MCP's sections and its counts list them (the report has an order of its own:
 * report.ts). The MCP view of the sequence rules is `rules`, its name since the tool was published.
 */
export const DOCUMENT_SECTIONS = {
  nodes: {
    title: 'Nodes',
    report: 'performance',
    diff: { fields: ['kind', 'label', 'stage', 'cases', 'events', 'cases_repeating'] },
    mcp: { view: 'nodes', diff: true },
    counted: true,
    web: null,
  },
  edges: { title: 'Edges', report: 'performance', diff: { fields: ['kind', 'cases'] }, mcp: { view: 'edges', diff: true }, counted: true, web: null },
  variants: { title: 'Variants', report: 'variants', diff: { fields: ['class', 'cases', 'share'] }, mcp: { view: 'variants', diff: true }, counted: true, web: 'variants' },
  decisions: { title: 'Decisions', report: 'decisions', diff: { fields: ['branches', 'rules', 'explained'] }, mcp: { view: 'decisions', diff: false }, counted: true, web: 'decisions' },
  sequence_rules: {
    title: 'Sequence rules',
    report: 'sequence-rules',
    diff: { fields: ['type', 'statement', 'holds'] },
    mcp: { view: 'rules', diff: true },
    counted: true,
    web: 'rules',
  },
  policies: {
    title: 'Policies',
    report: 'policies',
    diff: { fields: ['kind', 'statement', 'threshold_hours', 'share_met'] },
    mcp: { view: 'policies', diff: true },
    counted: true,
    web: 'policies',
  },
  outcomes: {
    title: 'Outcomes',
    report: 'outcomes',
    // The end activity too: ids are made from it, and two names that read alike (Check-in, Check in) share a stem.
    diff: { fields: ['end_activity', 'kind', 'cases', 'share'] },
    mcp: { view: 'outcomes', diff: false },
    counted: true,
    web: 'outcomes',
  },
  stages: { title: 'Stages', report: 'stages', diff: null, mcp: null, counted: true, web: 'stages' },
  exceptions: { title: 'Exceptions', report: 'exceptions', diff: null, mcp: null, counted: true, web: 'exceptions' },
  escalations: { title: 'Escalations', report: 'escalations', diff: null, mcp: null, counted: true, web: 'escalations' },
  roles: { title: 'Roles', report: 'roles', diff: null, mcp: null, counted: true, web: 'roles' },
  success_criteria: { title: 'Success criteria', report: 'case', diff: null, mcp: null, counted: true, web: null },
  object_types: { title: 'Object types', report: 'objects', diff: null, mcp: null, counted: true, web: null },
  open_questions: { title: 'Open questions', report: 'data-quality', diff: null, mcp: null, counted: true, web: null },
  // Named in the report's lead: counts, period, case notion, time basis, data version and digest.
  source: { title: 'Source', report: 'lead', diff: null, mcp: null, counted: false, web: null },
  process: { title: 'Process', report: 'case', diff: null, mcp: null, counted: false, web: null },
  model: { title: 'Process tree', report: 'main-path', diff: null, mcp: null, counted: false, web: null },
  object_relations: { title: 'Object relations', report: 'objects', diff: null, mcp: null, counted: false, web: null },
  assumptions: { title: 'Assumptions', report: 'data-quality', diff: null, mcp: null, counted: false, web: null },
  // The report is a reading of the document, not the document: it names neither the schema nor the strengths' definitions
  // (each claim says its strength in words).
  schema: { title: 'Schema', report: null, diff: null, mcp: null, counted: false, web: null },
  schema_version: { title: 'Schema version', report: null, diff: null, mcp: null, counted: false, web: null },
  evidence_levels: { title: 'Evidence levels', report: null, diff: null, mcp: null, counted: false, web: null },
} as const satisfies Record<keyof GraphDocument, SectionRow>;

export type SectionKey = keyof typeof DOCUMENT_SECTIONS;
type Rows = typeof DOCUMENT_SECTIONS;

/** The keys, in the table's order. */
export const SECTION_KEYS = Object.keys(DOCUMENT_SECTIONS) as SectionKey[];

/** The sections `pcg diff` compares. */
export type DiffSectionKey = { [K in SectionKey]: Rows[K]['diff'] extends null ? never : K }[SectionKey];
/** The sections MCP pages through, by their view name. */
export type McpView = { [K in SectionKey]: Rows[K]['mcp'] extends { view: infer V } ? V : never }[SectionKey];

export const sectionRow = (key: SectionKey): SectionRow => DOCUMENT_SECTIONS[key];
