/**
 * The readable report of a graph document as a small tree of sections and
 * blocks, which markdown.ts and html.ts write out. Every figure is read from
 * the document as it stands (only formatted: shares as percentages, hours
 * rounded); nothing is recounted, re-sorted by another measure or guessed.
 */
import type { GraphDocument, Plain } from '../document/types.js';
import { casesText, eventsText, hours, labelsById, mainVariant, pathText, pct, plainText, whenText } from './format.js';
import { performanceSection } from './performance.js';
import { indentedTree } from './tree-text.js';

export type Block =
  | { kind: 'p'; text: string }
  | { kind: 'h3'; text: string }
  | { kind: 'list'; items: string[]; ordered?: boolean }
  | { kind: 'table'; head: string[]; rows: string[][]; numeric?: boolean[] }
  | { kind: 'code'; text: string };

export interface Section {
  id: string;
  title: string;
  blocks: Block[];
}

export interface Report {
  title: string;
  /** One paragraph on what the document was built from. */
  lead: string;
  sections: Section[];
}

/** How many variants the report lists. */
export const TOP_VARIANTS = 10;

/** Text closed with a full stop unless it already ends a sentence. */
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

const none = (what: string): Block => ({ kind: 'p', text: `No ${what} in this document.` });

export function buildReport(doc: GraphDocument): Report {
  const s = doc.source;
  const lead =
    // An empty period is a log that records order only (no times): say so rather than print "from  to".
    `${casesText(s.cases)} and ${eventsText(s.events)} ${s.period_start ? `from ${s.period_start} to ${s.period_end}` : 'with no times recorded (order only)'}; ` +
    `case notion ${s.case_notion}; ${s.period_start ? `durations in ${s.time_basis} time; ` : ''}data version ${s.data_version}, log digest ${s.log_digest}.`;
  return {
    title: 'Process report',
    lead,
    sections: Object.values(REPORT_SECTIONS).flatMap((build: (doc: GraphDocument) => Section | undefined) => build(doc) ?? []),
  };
}

/**
 * The report's sections in their order, each built from the document (undefined: left out). Every key of the
 * document names the one that shows it (sections.ts); each builder's section has its key as its id.
 */
const REPORT_SECTIONS = {
  case: caseSection,
  outcomes: outcomesSection,
  stages: stagesSection,
  'main-path': mainPathSection,
  performance: performanceSection,
  variants: variantsSection,
  decisions: decisionsSection,
  'sequence-rules': sequenceSection,
  policies: policiesSection,
  exceptions: exceptionsSection,
  escalations: escalationsSection,
  roles: rolesSection,
  objects: (doc: GraphDocument) => (doc.object_types.length ? objectsSection(doc) : undefined),
  'data-quality': qualitySection,
};
export type ReportSectionId = keyof typeof REPORT_SECTIONS;

function caseSection(doc: GraphDocument): Section {
  const p = doc.process;
  const blocks: Block[] = [
    { kind: 'p', text: sentence(`A case is ${p.case_represents}`) },
    { kind: 'p', text: sentence(`Objective: ${p.objective}`) },
    { kind: 'p', text: sentence(`Evidence (${p.evidence.strength}): ${p.evidence.method}`) },
  ];
  if (doc.success_criteria.length) {
    blocks.push({ kind: 'h3', text: 'Success criteria' });
    blocks.push({
      kind: 'list',
      items: doc.success_criteria.map((c) => `${sentence(c.statement)} Met by ${pct(c.share_met)} of the cases (${c.evidence.cases} of ${c.evidence.of_cases}; test: ${c.test}).`),
    });
  }
  return { id: 'case', title: 'What a case is', blocks };
}

function outcomesSection(doc: GraphDocument): Section {
  if (!doc.outcomes.length) return { id: 'outcomes', title: 'Outcomes', blocks: [none('outcomes')] };
  return {
    id: 'outcomes',
    title: 'Outcomes',
    blocks: [
      {
        kind: 'table',
        head: ['Ends with', 'Kind', 'Cases', 'Share'],
        numeric: [false, false, true, true],
        rows: doc.outcomes.map((o) => [o.end_activity, o.kind, String(o.cases), pct(o.share)]),
      },
    ],
  };
}

function stagesSection(doc: GraphDocument): Section {
  if (!doc.stages.length) return { id: 'stages', title: 'Stages', blocks: [none('stages')] };
  return {
    id: 'stages',
    title: 'Stages',
    blocks: [{ kind: 'list', ordered: true, items: doc.stages.map((st) => `${st.name}: ${st.activities.map(plainText).join(', ')}`) }],
  };
}

/** Below this share the commonest path is not what a case typically does, and the report says so rather than call it the main path. */
export const TYPICAL_PATH_SHARE = 0.2;

function mainPathSection(doc: GraphDocument): Section {
  const main = mainVariant(doc);
  const blocks: Block[] = main
    ? [
        { kind: 'p', text: pathText(main.path) },
        { kind: 'p', text: `The commonest path: ${casesText(main.cases)} (${pct(main.share)} of all cases), variant ${main.id}.` },
        ...(main.share < TYPICAL_PATH_SHARE
          ? [{ kind: 'p' as const, text: `Cases rarely share a whole path (the commonest covers ${pct(main.share)}): it is not what a case typically does; the stages give the usual order.` }]
          : []),
      ]
    : [
        {
          kind: 'p',
          text: doc.source.cases > 0
            ? 'The document names no main path: no path is followed clearly more often than the next, or nearly every case has a path of its own (the variants assumption gives the figures); the stages give the usual order.'
            : 'The document names no main path.',
        },
      ];
  blocks.push({ kind: 'h3', text: 'Process tree' });
  blocks.push({ kind: 'p', text: `The mined process tree accepts ${pct(doc.model.cases_it_accepts)} of the cases.` });
  blocks.push({ kind: 'code', text: indentedTree(doc.model.process_tree) });
  // No main path, no "Main path" heading over the sentence saying there is none.
  return { id: 'main-path', title: !main ? 'Paths' : main.share < TYPICAL_PATH_SHARE ? 'Commonest path' : 'Main path', blocks };
}

function variantsSection(doc: GraphDocument): Section {
  if (!doc.variants.length) return { id: 'variants', title: 'Top variants', blocks: [none('variants')] };
  const shown = doc.variants.slice(0, TOP_VARIANTS);
  const blocks: Block[] = [
    {
      kind: 'table',
      head: ['#', 'Class', 'Cases', 'Share', 'Path'],
      numeric: [true, false, true, true, false],
      rows: shown.map((v, i) => [String(i + 1), v.class, String(v.cases), pct(v.share), pathText(v.path)]),
    },
  ];
  if (doc.variants.length > shown.length) blocks.push({ kind: 'p', text: `The first ${shown.length} of the ${doc.variants.length} variants the document lists.` });
  return { id: 'variants', title: 'Top variants', blocks };
}

function decisionsSection(doc: GraphDocument): Section {
  if (!doc.decisions.length) return { id: 'decisions', title: 'Decisions', blocks: [none('decision points')] };
  const blocks: Block[] = [];
  for (const d of doc.decisions) {
    blocks.push({ kind: 'h3', text: `At ${d.at}` });
    blocks.push({
      kind: 'p',
      text:
        `Next steps: ${d.branches.map((b) => `${b.to} ${casesText(b.cases)} (${pct(b.share)})`).join(', ')}. ` +
        `Always guessing the commonest branch is right for ${pct(d.baseline_share)}; ` +
        `${d.explained ? 'the rules explain the choice' : 'the rules do not explain the choice'} (${d.evidence.strength}, ${d.evidence.cases} of ${casesText(d.evidence.of_cases)}).`,
    });
    if (d.rules.length) {
      blocks.push({
        kind: 'list',
        items: d.rules.map((r) => `if ${whenText(r.when)} then ${r.then}: ${casesText(r.cases)}, holds in ${pct(r.holds)} (${r.evidence.strength})`),
      });
    } else blocks.push({ kind: 'p', text: 'No rule found.' });
  }
  return { id: 'decisions', title: 'Decisions', blocks };
}

function sequenceSection(doc: GraphDocument): Section {
  if (!doc.sequence_rules.length) return { id: 'sequence-rules', title: 'Sequence rules', blocks: [none('sequence rules')] };
  return {
    id: 'sequence-rules',
    title: 'Sequence rules',
    blocks: [{ kind: 'list', items: doc.sequence_rules.map((r) => `${sentence(r.statement)} Holds in ${pct(r.holds)} (${r.evidence.cases} of ${casesText(r.evidence.of_cases)}).`) }],
  };
}

function policiesSection(doc: GraphDocument): Section {
  if (!doc.policies.length) return { id: 'policies', title: 'Policies', blocks: [none('policies')] };
  return {
    id: 'policies',
    title: 'Policies',
    blocks: [
      {
        kind: 'table',
        head: ['Kind', 'Policy', 'Met', 'Strength'],
        numeric: [false, false, true, false],
        rows: doc.policies.map((p) => [p.kind, p.statement, pct(p.share_met), p.evidence.strength]),
      },
    ],
  };
}

function exceptionsSection(doc: GraphDocument): Section {
  if (!doc.exceptions.length) return { id: 'exceptions', title: 'Exceptions', blocks: [none('exceptions')] };
  return {
    id: 'exceptions',
    title: 'Exceptions',
    blocks: [
      {
        kind: 'table',
        head: ['Exception', 'Cases', 'Trigger', 'Then'],
        numeric: [false, true, false, false],
        rows: doc.exceptions.map((e) => [e.name, String(e.cases), e.trigger, e.handling.map(plainText).join(' → ')]),
      },
    ],
  };
}

function escalationsSection(doc: GraphDocument): Section {
  if (!doc.escalations.length) return { id: 'escalations', title: 'Escalations', blocks: [none('escalations')] };
  return {
    id: 'escalations',
    title: 'Escalations',
    blocks: [{ kind: 'list', items: doc.escalations.map((e) => `${e.from} → ${e.to}: ${e.trigger} (${casesText(e.evidence.cases)}, ${e.evidence.strength})`) }],
  };
}

function rolesSection(doc: GraphDocument): Section {
  if (!doc.roles.length) return { id: 'roles', title: 'Roles', blocks: [none('roles')] };
  return {
    id: 'roles',
    title: 'Roles',
    blocks: [
      {
        kind: 'table',
        head: ['Role', 'From', 'Cases', 'Activities'],
        numeric: [false, false, true, false],
        rows: doc.roles.map((r) => [r.name, r.attribute, String(r.cases), r.activities.map(plainText).join(', ')]),
      },
    ],
  };
}

function objectsSection(doc: GraphDocument): Section {
  const blocks: Block[] = [
    {
      kind: 'table',
      head: ['Object type', 'Objects', 'Activities'],
      numeric: [false, true, false],
      rows: doc.object_types.map((o) => [o.name, String(o.count), o.activities.map(plainText).join(', ')]),
    },
  ];
  if (doc.object_relations.length) {
    blocks.push({
      kind: 'table',
      head: ['From', 'To', 'Qualifier', 'Count'],
      numeric: [false, false, false, true],
      rows: doc.object_relations.map((r) => [r.from_type, r.to_type, r.qualifier, String(r.count)]),
    });
  }
  return { id: 'objects', title: 'Object types', blocks };
}

/** An open question as text: its question, then its evidence's counts and method. */
function questionText(q: Plain): string {
  if (q && typeof q === 'object' && !Array.isArray(q) && typeof q.question === 'string') {
    const e = q.evidence;
    if (e && typeof e === 'object' && !Array.isArray(e) && typeof e.cases === 'number' && typeof e.of_cases === 'number') {
      return `${q.question} (${e.cases} of ${casesText(e.of_cases)}${typeof e.method === 'string' ? `; ${e.method}` : ''})`;
    }
    return q.question;
  }
  return plainText(q);
}

function qualitySection(doc: GraphDocument): Section {
  const blocks: Block[] = [{ kind: 'h3', text: 'Open questions' }];
  blocks.push(doc.open_questions.length ? { kind: 'list', items: doc.open_questions.map(questionText) } : none('open questions'));
  blocks.push({ kind: 'h3', text: 'Assumptions' });
  blocks.push(doc.assumptions.length ? { kind: 'list', items: doc.assumptions.map(plainText) } : none('assumptions'));
  return { id: 'data-quality', title: 'Data quality and assumptions', blocks };
}

/** The map in one line (activities, hand-offs, the slowest hand-off by its 90th percentile): the HTML map's caption. */
export function nodeSummary(doc: GraphDocument): string {
  const labels = labelsById(doc);
  const activities = doc.nodes.filter((n) => n.kind === 'activity').length;
  const waits = doc.edges.filter((e) => e.slow_wait_hours > 0);
  const slowest = waits.reduce<(typeof waits)[number] | undefined>((m, e) => (!m || e.slow_wait_hours > m.slow_wait_hours ? e : m), undefined);
  return (
    `${activities} activities and ${doc.edges.length} hand-offs` +
    (slowest ? `; the slowest hand-off is ${labels.get(slowest.from)} → ${labels.get(slowest.to)} (90th percentile ${hours(slowest.slow_wait_hours)})` : '')
  );
}
