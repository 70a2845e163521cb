/**
 * The side panels: each section of the document as a list the reader can
 * click, and the evidence of whatever is selected. Every text of the
 * document goes in as text (never as HTML), with its control characters
 * shown (text.ts); names are cut at LABEL_MAX and sentences at
 * SENTENCE_MAX characters, the whole text on hover.
 */
import { cases, hours, int, pct, plainText } from './format.js';
import { labelsToIds, nodeIdsByLabel, pathElements, type Shown } from './filter.js';
import { name, names, sentence } from './labels.js';
import { jsonText, labelText, oneLine, visibleText } from './text.js';
import type { Evidence, GraphDocument, Plain } from './types.js';
import type { DOCUMENT_SECTIONS } from '../../../engine/render/sections.js';

export type SelectionType =
  | 'node'
  | 'edge'
  | 'stage'
  | 'variant'
  | 'decision'
  | 'rule'
  | 'sequence'
  | 'policy'
  | 'exception'
  | 'escalation'
  | 'role'
  | 'outcome'
  | 'criterion'
  | 'process';
export interface Selection {
  type: SelectionType;
  id: string;
}

export const TABS = [
  ['overview', 'Overview'],
  ['variants', 'Variants'],
  ['decisions', 'Decisions'],
  ['rules', 'Sequence rules'],
  ['policies', 'Policies'],
  ['exceptions', 'Exceptions'],
  ['escalations', 'Escalations'],
  ['roles', 'Roles'],
  ['outcomes', 'Outcomes'],
  ['stages', 'Stages'],
  ['document', 'Document'],
] as const;
export type Tab = (typeof TABS)[number][0];

/** The tab each document section is listed under (engine/render/sections.ts): one named there and missing here fails to compile. */
type TabOf<T extends Tab> = T;
export type SectionTab = TabOf<Exclude<{ [K in keyof typeof DOCUMENT_SECTIONS]: (typeof DOCUMENT_SECTIONS)[K]['web'] }[keyof typeof DOCUMENT_SECTIONS], null>>;

type Child = Node | string | number | null | undefined | false;

/**
 * A small element builder: attributes as properties, children as text or
 * nodes. Text children are text nodes with their control characters shown
 * (one line; a <pre> keeps its line breaks and tabs), and so is a title.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | boolean | ((e: Event) => void)> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else if (k.startsWith('data-')) el.setAttribute(k, String(v));
    else if (typeof v === 'boolean') {
      if (v) el.setAttribute(k, '');
    } else el.setAttribute(k, k === 'title' ? oneLine(String(v)) : String(v));
  }
  const shown = tag === 'pre' ? visibleText : oneLine;
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : typeof c === 'string' ? shown(c) : c);
  return el;
}


function bar(share: number, cls = ''): HTMLElement {
  const b = h('span', { class: `bar ${cls}` });
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.max(0, Math.min(1, share)) * 100}%`;
  b.append(fill);
  return b;
}

const badge = (text: string, cls: string) => h('span', { class: `badge ${cls}` }, text);
const none = (what: string) => h('p', { class: 'none' }, `No ${what} in this document.`);

export interface PanelContext {
  select(selection: Selection): void;
  selected: Selection | undefined;
  /** Download and open the raw document. */
  download(): void;
  openRaw(): void;
}

function row(ctx: PanelContext, sel: Selection, ...children: Child[]): HTMLElement {
  const active = ctx.selected?.type === sel.type && ctx.selected.id === sel.id;
  return h(
    'div',
    { class: `row${active ? ' active' : ''}`, role: 'button', tabindex: 0, 'data-type': sel.type, 'data-id': sel.id, onclick: () => ctx.select(sel), onkeydown: (e: Event) => (e as KeyboardEvent).key === 'Enter' && ctx.select(sel) },
    ...children,
  );
}


export function renderPanel(tab: Tab, doc: GraphDocument, ctx: PanelContext): HTMLElement {
  const root = h('div', { class: `panel panel-${tab}`, 'data-tab': tab });
  switch (tab) {
    case 'overview': {
      const s = doc.source;
      root.append(
        row(ctx, { type: 'process', id: 'process' }, h('h4', {}, 'A case is'), sentence(doc.process.case_represents, 'p'), h('h4', {}, 'Objective'), sentence(doc.process.objective, 'p')),
        h('h4', {}, 'Data'),
        h(
          'table',
          { class: 'facts' },
          ...(
            [
              ['cases', int(s.cases)],
              ['events', int(s.events)],
              ['case notion', s.case_notion],
              ['period', `${s.period_start || '—'} … ${s.period_end || '—'}`],
              ['time basis', s.time_basis],
              ['data version', s.data_version],
              ['log digest', s.log_digest],
            ] as const
          ).map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v))),
        ),
        h('h4', {}, 'Model'),
        h('p', {}, `The process tree accepts ${pct(doc.model.cases_it_accepts)} of the cases.`),
        h('pre', { class: 'tree' }, doc.model.process_tree),
        h('h4', {}, 'Success criteria'),
        ...(doc.success_criteria.length
          ? doc.success_criteria.map((c) => row(ctx, { type: 'criterion', id: c.id }, h('div', { class: 'line' }, sentence(c.statement, 'span'), h('span', { class: 'num' }, pct(c.share_met))), bar(c.share_met)))
          : [none('success criteria')]),
        h('h4', {}, 'Assumptions'),
        doc.assumptions.length ? h('ul', { class: 'notes' }, ...doc.assumptions.map((a) => h('li', {}, plainText(a)))) : none('assumptions'),
        h('h4', {}, 'Open questions'),
        doc.open_questions.length ? h('ul', { class: 'notes' }, ...doc.open_questions.map((a) => h('li', {}, plainText(a)))) : none('open questions'),
      );
      break;
    }
    case 'variants':
      if (!doc.variants.length) root.append(none('variants'));
      for (const v of doc.variants) {
        root.append(
          row(
            ctx,
            { type: 'variant', id: v.id },
            h('div', { class: 'line' }, badge(v.class, `class-${v.class}`), h('span', { class: 'num' }, `${pct(v.share)} · ${cases(v.cases)}`)),
            bar(v.share, `class-${v.class}`),
            h('div', { class: 'path' }, `${v.path.length} steps: `, names(v.path, ' → ')),
          ),
        );
      }
      break;
    case 'decisions':
      if (!doc.decisions.length) root.append(none('decisions'));
      for (const d of doc.decisions) {
        const card = h('div', { class: 'card' });
        card.append(
          row(
            ctx,
            { type: 'decision', id: d.id },
            h('div', { class: 'line' }, h('strong', {}, 'At ', name(d.at)), d.explained ? badge('explained', 'ok') : badge('not explained', 'muted')),
            h('div', { class: 'sub' }, `baseline (commonest branch): ${pct(d.baseline_share)}`),
            ...d.branches.map((b) => h('div', { class: 'branch' }, h('span', {}, '→ ', name(b.to)), bar(b.share), h('span', { class: 'num' }, `${pct(b.share)} · ${int(b.cases)}`))),
          ),
        );
        for (const r of d.rules) {
          card.append(
            row(
              ctx,
              { type: 'rule', id: r.id },
              h('div', { class: 'rule' }, h('span', { class: 'when' }, 'if ', sentence(r.when.map(plainText).join(' and ') || 'always', 'span')), h('span', {}, ' then ', name(r.then))),
              h('div', { class: 'sub' }, `holds ${pct(r.holds)} of ${cases(r.cases)} · ${r.evidence.strength}`),
            ),
          );
        }
        if (!d.rules.length) card.append(h('p', { class: 'none' }, 'No rule found for this choice.'));
        root.append(card);
      }
      break;
    case 'rules':
      if (!doc.sequence_rules.length) root.append(none('sequence rules'));
      for (const r of doc.sequence_rules) {
        root.append(row(ctx, { type: 'sequence', id: r.id }, h('div', { class: 'line' }, badge(r.type.replace(/_/g, ' '), 'muted'), h('span', { class: 'num' }, `holds ${pct(r.holds)}`)), sentence(r.statement)));
      }
      break;
    case 'policies':
      if (!doc.policies.length) root.append(none('policies'));
      for (const p of doc.policies) {
        root.append(
          row(
            ctx,
            { type: 'policy', id: p.id },
            h('div', { class: 'line' }, badge(p.kind.replace(/_/g, ' '), 'muted'), h('span', { class: 'num' }, `met by ${pct(p.share_met)}`)),
            sentence(p.statement),
            p.threshold_hours > 0 ? h('div', { class: 'sub' }, `threshold ${hours(p.threshold_hours)}`) : null,
          ),
        );
      }
      break;
    case 'exceptions':
      if (!doc.exceptions.length) root.append(none('exceptions'));
      for (const x of doc.exceptions) {
        root.append(
          row(
            ctx,
            { type: 'exception', id: x.id },
            h('div', { class: 'line' }, name(x.name, 'strong'), h('span', { class: 'num' }, `${cases(x.cases)}`)),
            x.trigger ? h('div', { class: 'sub' }, 'trigger: ', sentence(x.trigger, 'span')) : null,
            x.handling.length ? h('div', { class: 'sub' }, 'handling: ', names(x.handling, ' → ')) : null,
          ),
        );
      }
      break;
    case 'escalations':
      if (!doc.escalations.length) root.append(none('escalations'));
      for (const e of doc.escalations) {
        root.append(row(ctx, { type: 'escalation', id: e.id }, h('div', { class: 'line' }, h('strong', {}, name(e.from), ' → ', name(e.to)), h('span', { class: 'num' }, `${cases(e.evidence.cases)}`)), sentence(e.trigger, 'div', 'sub')));
      }
      break;
    case 'roles':
      if (!doc.roles.length) root.append(none('roles'));
      for (const r of doc.roles) {
        root.append(
          row(
            ctx,
            { type: 'role', id: r.id },
            h('div', { class: 'line' }, name(r.name, 'strong'), h('span', { class: 'num' }, `${cases(r.cases)}`)),
            h('div', { class: 'sub' }, 'from ', name(r.attribute), ': ', names(r.activities)),
          ),
        );
      }
      break;
    case 'outcomes':
      if (!doc.outcomes.length) root.append(none('outcomes'));
      for (const o of doc.outcomes) {
        root.append(
          row(
            ctx,
            { type: 'outcome', id: o.id },
            h('div', { class: 'line' }, badge(o.kind, `kind-${o.kind}`), h('span', {}, ' ends with ', name(o.end_activity)), h('span', { class: 'num' }, `${pct(o.share)} · ${int(o.cases)}`)),
            bar(o.share, `kind-${o.kind}`),
          ),
        );
      }
      break;
    case 'stages':
      if (!doc.stages.length) root.append(none('stages'));
      doc.stages.forEach((s, i) => {
        root.append(row(ctx, { type: 'stage', id: s.id }, h('div', { class: 'line' }, h('strong', {}, `${i + 1}. `, name(s.name))), names(s.activities, ', ', 'div', 'sub')));
      });
      break;
    case 'document': {
      // As the CLI writes it: the exact document, controls \u-escaped (the download is the document itself).
      const text = jsonText(doc, 2);
      root.append(
        h(
          'div',
          { class: 'doc-actions' },
          h('button', { type: 'button', id: 'download-document', onclick: () => ctx.download() }, 'Download JSON'),
          h('button', { type: 'button', id: 'open-raw', onclick: () => ctx.openRaw() }, 'Open raw in a new tab'),
          h('span', { class: 'sub' }, `${doc.schema} ${doc.schema_version} · data version ${doc.source.data_version} · ${int(text.length / 1024)} KiB`),
        ),
        h('pre', { class: 'raw', id: 'raw-document' }, text),
      );
      break;
    }
  }
  return root;
}

/** What a selection lights up on the map. */
export function highlightOf(doc: GraphDocument, sel: Selection | undefined): Shown | undefined {
  if (!sel) return undefined;
  const ids = nodeIdsByLabel(doc);
  const endId = doc.nodes.find((n) => n.kind === 'end')?.id;
  const edgeBetween = (from: string | undefined, to: string | undefined) => doc.edges.find((e) => e.from === from && e.to === to)?.id;
  const target = (label: string) => (label === 'end' ? endId : ids.get(label));
  const nodesOnly = (labels: readonly Plain[]): Shown => ({ nodes: labelsToIds(doc, labels), edges: [] });
  switch (sel.type) {
    case 'variant': {
      const v = doc.variants.find((x) => x.id === sel.id);
      return v && pathElements(doc, v.path);
    }
    case 'decision':
    case 'rule': {
      const d = doc.decisions.find((x) => x.id === sel.id || x.rules.some((r) => r.id === sel.id));
      if (!d) return undefined;
      const at = ids.get(d.at);
      const rule = d.rules.find((r) => r.id === sel.id);
      const branches = rule ? [rule.then] : d.branches.map((b) => b.to);
      const targets = branches.map(target).filter((x): x is string => x !== undefined);
      return { nodes: [at, ...targets].filter((x): x is string => x !== undefined), edges: targets.map((t) => edgeBetween(at, t)).filter((x): x is string => x !== undefined) };
    }
    case 'stage': {
      const s = doc.stages.find((x) => x.id === sel.id);
      return s && nodesOnly(s.activities);
    }
    case 'sequence': {
      const r = doc.sequence_rules.find((x) => x.id === sel.id);
      return r && nodesOnly(r.activities);
    }
    case 'role': {
      const r = doc.roles.find((x) => x.id === sel.id);
      return r && nodesOnly(r.activities);
    }
    case 'exception': {
      const x = doc.exceptions.find((e) => e.id === sel.id);
      if (!x) return undefined;
      const quoted = [...x.name.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
      return nodesOnly([...quoted, ...x.handling.map(plainText)]);
    }
    case 'escalation': {
      const e = doc.escalations.find((x) => x.id === sel.id);
      if (!e) return undefined;
      const edge = edgeBetween(ids.get(e.from), ids.get(e.to));
      return { nodes: labelsToIds(doc, [e.from, e.to]), edges: edge ? [edge] : [] };
    }
    case 'outcome': {
      const o = doc.outcomes.find((x) => x.id === sel.id);
      if (!o) return undefined;
      const at = ids.get(o.end_activity);
      const edge = edgeBetween(at, endId);
      return { nodes: [at, endId].filter((x): x is string => x !== undefined), edges: edge ? [edge] : [] };
    }
    default:
      return undefined;
  }
}

function evidenceBlock(doc: GraphDocument, e: Evidence): HTMLElement {
  return h(
    'div',
    { class: 'evidence' },
    h('div', { class: 'line' }, badge(e.strength, `strength-${e.strength}`), h('span', { class: 'num' }, `${int(e.cases)} of ${cases(e.of_cases)} · ${pct(e.share)}`)),
    bar(e.share),
    h('p', { class: 'sub' }, doc.evidence_levels[e.strength] ?? ''),
    h('p', { class: 'method' }, e.method),
  );
}

/** A table of facts; a text value is cut at SENTENCE_MAX (whole on hover), a node goes in as built. */
function facts(rows: [string, string | HTMLElement][]): HTMLElement {
  return h('table', { class: 'facts' }, ...rows.map(([k, v]) => h('tr', {}, h('th', {}, k), typeof v === 'string' ? sentence(v, 'td') : h('td', {}, v))));
}

/** The evidence panel: what the selection is, its numbers and the evidence it rests on. */
export function renderSelection(doc: GraphDocument, sel: Selection | undefined): HTMLElement {
  const box = h('div', { class: 'selection', 'data-type': sel?.type ?? '', 'data-id': sel?.id ?? '' });
  const gone = () => box.append(h('p', { class: 'none' }, 'The selection is no longer in the document.'));
  if (!sel) {
    box.append(h('p', { class: 'none' }, 'Click a node, an edge, a stage or a row of a panel to see its evidence.'));
    return box;
  }
  const title = (kind: string, ...text: Child[]) => box.append(h('div', { class: 'sel-title' }, h('span', { class: 'kind' }, kind), h('strong', {}, ...text)));
  switch (sel.type) {
    case 'node': {
      const n = doc.nodes.find((x) => x.id === sel.id);
      if (!n) return gone(), box;
      title(n.kind === 'activity' ? 'activity' : n.kind, name(n.label));
      const stage = doc.stages.find((s) => s.id === n.stage);
      box.append(
        facts([
          ['cases', int(n.cases)],
          ['events', int(n.events)],
          ['cases repeating it', int(n.cases_repeating)],
          ['median time to next', hours(n.median_hours_to_next)],
          ['stage', stage ? name(stage.name) : '—'],
          ['roles', n.roles.length ? names(n.roles) : '—'],
          ...(n.object_types.length ? [['object types', names(n.object_types)] as [string, HTMLElement]] : []),
        ]),
        evidenceBlock(doc, n.evidence),
      );
      break;
    }
    case 'edge': {
      const e = doc.edges.find((x) => x.id === sel.id);
      if (!e) return gone(), box;
      const label = (id: string) => doc.nodes.find((n) => n.id === id)?.label ?? id;
      title(`${e.kind} edge`, name(label(e.from)), ' → ', name(label(e.to)));
      box.append(
        facts([
          ['cases', int(e.cases)],
          ['share of cases leaving', pct(e.share_of_from)],
          ['median wait', hours(e.median_wait_hours)],
          ['slow wait (90th pct)', hours(e.slow_wait_hours)],
        ]),
        evidenceBlock(doc, e.evidence),
      );
      break;
    }
    case 'stage': {
      const s = doc.stages.find((x) => x.id === sel.id);
      if (!s) return gone(), box;
      title('stage', name(s.name));
      box.append(facts([['activities', names(s.activities)]]));
      break;
    }
    case 'variant': {
      const v = doc.variants.find((x) => x.id === sel.id);
      if (!v) return gone(), box;
      title(`${v.class} variant`, `${pct(v.share)} of cases`);
      box.append(facts([['cases', int(v.cases)], ['share', pct(v.share)], ['steps', String(v.path.length)]]), h('ol', { class: 'path-list' }, ...v.path.map((p) => name(plainText(p), 'li'))));
      break;
    }
    case 'decision': {
      const d = doc.decisions.find((x) => x.id === sel.id);
      if (!d) return gone(), box;
      title('decision', 'at ', name(d.at));
      box.append(
        facts([
          ['branches', d.branches.map((b) => `${labelText(b.to)} ${pct(b.share)}`).join(', ')],
          ['baseline', pct(d.baseline_share)],
          ['explained', d.explained ? 'yes: the rules beat the baseline by 10 points or more' : 'no'],
          ['rules', String(d.rules.length)],
        ]),
        evidenceBlock(doc, d.evidence),
      );
      break;
    }
    case 'rule': {
      const d = doc.decisions.find((x) => x.rules.some((r) => r.id === sel.id));
      const r = d?.rules.find((x) => x.id === sel.id);
      if (!d || !r) return gone(), box;
      title('rule', 'at ', name(d.at), ': if ', sentence(r.when.map(plainText).join(' and ') || 'always', 'span'), ' then ', name(r.then));
      box.append(facts([['cases', int(r.cases)], ['holds', pct(r.holds)]]), evidenceBlock(doc, r.evidence));
      break;
    }
    case 'sequence': {
      const r = doc.sequence_rules.find((x) => x.id === sel.id);
      if (!r) return gone(), box;
      title(`${r.type.replace(/_/g, ' ')} rule`, sentence(r.statement, 'span'));
      box.append(facts([['holds', pct(r.holds)], ['activities', names(r.activities)]]), evidenceBlock(doc, r.evidence));
      break;
    }
    case 'policy': {
      const p = doc.policies.find((x) => x.id === sel.id);
      if (!p) return gone(), box;
      title(`${p.kind.replace(/_/g, ' ')} policy`, sentence(p.statement, 'span'));
      box.append(facts([['threshold', hours(p.threshold_hours)], ['met by', pct(p.share_met)]]), evidenceBlock(doc, p.evidence));
      break;
    }
    case 'exception': {
      const x = doc.exceptions.find((e) => e.id === sel.id);
      if (!x) return gone(), box;
      title('exception', name(x.name));
      box.append(
        facts([
          ['cases', int(x.cases)],
          ['trigger', x.trigger || '—'],
          ['detected by', x.detected_by],
          ['handling', x.handling.length ? names(x.handling, ' → ') : '—'],
        ]),
        evidenceBlock(doc, x.evidence),
      );
      break;
    }
    case 'escalation': {
      const e = doc.escalations.find((x) => x.id === sel.id);
      if (!e) return gone(), box;
      title('escalation', name(e.from), ' → ', name(e.to));
      box.append(facts([['trigger', e.trigger]]), evidenceBlock(doc, e.evidence));
      break;
    }
    case 'role': {
      const r = doc.roles.find((x) => x.id === sel.id);
      if (!r) return gone(), box;
      title('role', name(r.name));
      box.append(facts([['attribute', name(r.attribute)], ['cases', int(r.cases)], ['activities', names(r.activities)]]));
      break;
    }
    case 'outcome': {
      const o = doc.outcomes.find((x) => x.id === sel.id);
      if (!o) return gone(), box;
      title(`${o.kind} outcome`, 'ends with ', name(o.end_activity));
      box.append(facts([['cases', int(o.cases)], ['share', pct(o.share)]]));
      break;
    }
    case 'criterion': {
      const c = doc.success_criteria.find((x) => x.id === sel.id);
      if (!c) return gone(), box;
      title('success criterion', sentence(c.statement, 'span'));
      box.append(facts([['test', c.test], ['met by', pct(c.share_met)]]), evidenceBlock(doc, c.evidence));
      break;
    }
    case 'process': {
      title('process', sentence(doc.process.case_represents, 'span'));
      box.append(facts([['objective', doc.process.objective]]), evidenceBlock(doc, doc.process.evidence));
      break;
    }
  }
  return box;
}
