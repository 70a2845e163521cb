import type { ImportOptions } from '../../connectors/files/index.js';
import type { GraphDocument } from '../../engine/document/index.js';
import { slug } from '../../engine/reading/facts.js';

/**
 * The vocabulary of the expert facts (expert-facts.ts): what a fact may look
 * at, and the kinds of fact, each a small predicate over the graph document
 * (and, where a fact is about the data, the stored cases).
 */

// ---------------------------------------------------------------- evidence a fact may look at

/** One case as stored: its activities in case order, their times, and the first value seen of each attribute. */
export interface CaseView {
  activities: string[];
  /** Epoch milliseconds of each event, in case order. */
  times: number[];
  attributes: Map<string, string>;
}

/** What a fact is checked against: the document, and (lazily) the project's stored cases. */
export interface Evidence {
  doc: GraphDocument;
  /** Every stored case (store.traces()), read once on first use. */
  cases(): readonly CaseView[];
}

export interface Fact {
  /** The fact in the vocabulary below, e.g. `success('Payment')`. */
  fact: string;
  /** One line: why an expert says so, with its source (a published description or a figure computed from the data). */
  why: string;
  /** undefined when the document agrees; otherwise what the document says. */
  check(e: Evidence): string | undefined;
}

export interface LogFacts {
  /** Path under the shared logs folder (PCG_REAL_LOGS). */
  file: string;
  /** Import options (OCEL logs pin their case notion so the facts speak of one flattening). */
  options?: ImportOptions;
  facts: Fact[];
}

export interface FactFailure {
  log: string;
  fact: string;
  why: string;
  saw: string;
}

// ---------------------------------------------------------------- small helpers

const quote = (s: string) => `'${s}'`;
const dquote = (s: string) => `"${s}"`;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A word (or phrase) as a whole word, allowing a plural. */
const wordRe = (w: string) => new RegExp(`(^|[^a-z0-9])${escapeRe(w)}(s|es)?([^a-z0-9]|$)`, 'i');


/** Status and verb words that can never be what a case is (they name a step or a state of it). */
const STATUS_WORDS = /\b(declined|accepted|completed|rejected|release[sd]?|appeals?|approved|cancell?ed|submitted|queued|unmatched)\b/i;

function label(doc: GraphDocument, nodeId: string): string {
  return doc.nodes.find((n) => n.id === nodeId)?.label ?? nodeId;
}

function stageIndex(doc: GraphDocument, activity: string): number {
  return doc.stages.findIndex((s) => s.activities.some((a) => String(a) === activity));
}

/** The text after "ends with", without its quotes, when the exception names a failed ending. */
function endsWithActivity(doc: GraphDocument, x: GraphDocument['exceptions'][number]): string | undefined {
  const m = /^\s*(?:the case |a case )?ends? (?:with|in|at)\s+(.+?)\s*$/i.exec(x.name);
  if (m) return m[1]!.replace(/^['"‘“]|['"’”]$/g, '');
  const id = /^(failed-ending|ends-with|ending)-(.+)$/.exec(x.id)?.[2];
  if (id) return doc.nodes.find((n) => n.kind === 'activity' && slug(n.label) === id)?.label;
  return undefined;
}

/** Exceptions about one activity of one family ('repeated', 'skipped'): by id, or by a name that quotes the activity. */
function exceptionsFor(doc: GraphDocument, family: 'repeated' | 'skipped', activity: string, nameWord: RegExp) {
  return doc.exceptions.filter(
    (x) =>
      x.id === `${family}-${slug(activity)}` ||
      (x.id.startsWith(`${family}-`) && slug(x.id.slice(family.length + 1)) === slug(activity)) ||
      (nameWord.test(x.name) && (x.name.includes(`'${activity}'`) || x.name.includes(`"${activity}"`) || x.name.includes(`‘${activity}’`))),
  );
}

/** The attribute a rule condition is on: the `attribute` of an object condition, else the condition's text. */
function conditionAttribute(c: unknown): string {
  if (c && typeof c === 'object' && !Array.isArray(c) && typeof (c as Record<string, unknown>).attribute === 'string') return (c as Record<string, string>).attribute!;
  return typeof c === 'string' ? c : JSON.stringify(c);
}

/** A condition on categories (an object condition whose value is a string or a list), with its attribute; undefined for numeric thresholds or text. */
function categoricalAttribute(c: unknown): string | undefined {
  if (!c || typeof c !== 'object' || Array.isArray(c)) return undefined;
  const o = c as Record<string, unknown>;
  if (typeof o.attribute !== 'string') return undefined;
  return typeof o.value === 'string' || Array.isArray(o.value) ? o.attribute : undefined;
}

/** An honest "not known" reading: names the case identifier, claims no word of the activity names, says hypothesis. Returns what is wrong, or undefined. */
function honestUnknown(doc: GraphDocument): string | undefined {
  const text = doc.process.case_represents;
  const notion = doc.source.case_notion;
  const problems: string[] = [];
  if (doc.process.evidence.strength !== 'hypothesis') problems.push(`strength is ${doc.process.evidence.strength}, not hypothesis`);
  if (!/\bcase\b|identifie[rd]/i.test(text) && !(notion && text.includes(notion))) problems.push('it names neither the case nor the case identifier');
  const rest = notion ? text.split(notion).join(' ') : text;
  const activityWords = new Set(
    doc.nodes
      .filter((n) => n.kind === 'activity')
      .flatMap((n) => n.label.toLowerCase().split(/[^a-z]+/))
      .filter((w) => w.length >= 3 && w !== 'case'),
  );
  const claimed = rest
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => activityWords.has(w));
  if (claimed.length) problems.push(`it claims the activity-name word ${quote(claimed[0]!)}`);
  const status = STATUS_WORDS.exec(text);
  if (status) problems.push(`it uses the status word ${quote(status[0])}`);
  return problems.length ? problems.join(', ') : undefined;
}

// ---------------------------------------------------------------- the vocabulary

/**
 * process.case_represents mentions one of these nouns (a plural is fine). With
 * orUnknown, an honest unknown (see caseUnknown) is accepted too: for logs whose
 * data cannot name the thing (status-named or coded activities).
 */
export function caseIs(words: string[], why: string, opts: { orUnknown?: boolean } = {}): Fact {
  return {
    fact: `caseIs(${words.map(quote).join(', ')}${opts.orUnknown ? ', or unknown' : ''})`,
    why,
    check: ({ doc }) => {
      const text = doc.process.case_represents;
      if (words.some((w) => wordRe(w).test(text))) return undefined;
      const unknown = opts.orUnknown ? honestUnknown(doc) : 'not allowed';
      if (opts.orUnknown && unknown === undefined) return undefined;
      const status = STATUS_WORDS.exec(text);
      return (
        `case_represents is ${quote(text)} (strength ${doc.process.evidence.strength})` +
        (status ? `: ${quote(status[0])} is a status/verb, not what a case is` : `: none of ${words.join('/')}`) +
        (opts.orUnknown ? `; not an honest unknown either (${unknown})` : '')
      );
    },
  };
}

/**
 * No noun can be known from the data (coded or operation-named activities):
 * case_represents names the case (or its identifier), claims no word of the
 * activity names, and its strength is hypothesis. A mention of one of alsoRight
 * (the published meaning) passes too.
 */
export function caseUnknown(why: string, alsoRight: string[] = []): Fact {
  return {
    fact: `caseUnknown(${alsoRight.length ? `or ${alsoRight.map(quote).join(', ')}` : ''})`,
    why,
    check: ({ doc }) => {
      if (alsoRight.some((w) => wordRe(w).test(doc.process.case_represents))) return undefined;
      const wrong = honestUnknown(doc);
      return wrong ? `case_represents is ${quote(doc.process.case_represents)}: ${wrong}` : undefined;
    },
  };
}

/**
 * The outcome items ending with this activity have this kind. An 'open' item
 * for the cases that stopped there recently is tolerated while it holds less
 * than half of them; every other item must have the kind.
 */
function endKind(activity: string, kind: 'success' | 'failure', why: string): Fact {
  return {
    fact: `${kind}(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const items = doc.outcomes.filter((o) => o.end_activity === activity);
      if (!items.length) return `no outcome item ends with ${quote(activity)}`;
      // Cases that stopped there recently may be read as open (where that cut lies is the engine's threshold), while they are a minority.
      // A few cases stopping there may have ended otherwise (a case ending there without the step that decides it):
      // at least 90% of the decided cases must read as the kind.
      const decided = items.filter((o) => o.kind !== 'open');
      const decidedCases = decided.reduce((n, o) => n + o.cases, 0);
      const ofKind = decided.filter((o) => o.kind === kind).reduce((n, o) => n + o.cases, 0);
      const open = items.filter((o) => o.kind === 'open').reduce((n, o) => n + o.cases, 0);
      const total = items.reduce((n, o) => n + o.cases, 0);
      const ok = decidedCases > 0 && ofKind >= 0.9 * decidedCases && open <= total / 2;
      return ok ? undefined : `outcomes ending with ${quote(activity)}: ${items.map((o) => `${o.kind} (${o.cases} cases)`).join(', ')}`;
    },
  };
}

/** The outcome items ending with this activity are successes. */
export const success = (activity: string, why: string) => endKind(activity, 'success', why);
/** The outcome items ending with this activity are failures. */
export const failure = (activity: string, why: string) => endKind(activity, 'failure', why);

/**
 * The cases whose last step is this activity are read as `kind`: by the outcome items ending with it, or, where the
 * document reads the outcome from statuses (items kind-reached-…), by the status each such case reached (at least
 * 90% of them). A withdrawn offer after a cancelled application is a failure either way.
 */
export function endsAs(activity: string, kind: 'success' | 'failure', why: string): Fact {
  const byItem = endKind(activity, kind, why);
  return {
    fact: `endsAs(${quote(activity)}, ${kind})`,
    why,
    check: (e) => {
      const statuses = new Map(e.doc.outcomes.filter((o) => /^[a-z]+-reached-/.test(o.id)).map((o) => [o.end_activity, o.kind]));
      if (!statuses.size || e.doc.outcomes.some((o) => o.end_activity === activity)) return byItem.check(e);
      const ending = e.cases().filter((c) => c.activities[c.activities.length - 1] === activity);
      const read = ending.filter((c) => {
        const s = [...c.activities].reverse().find((a) => statuses.has(a));
        return s !== undefined && statuses.get(s) === kind;
      }).length;
      return read >= 0.9 * ending.length ? undefined : `${read} of the ${ending.length} cases ending with ${quote(activity)} reached a ${kind} status`;
    },
  };
}

/** No outcome item ending with this activity is a success. */
export function notSuccess(activity: string, why: string): Fact {
  return {
    fact: `notSuccess(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const bad = doc.outcomes.filter((o) => o.end_activity === activity && o.kind === 'success');
      return bad.length ? `outcome ${bad[0]!.id} reads ${quote(activity)} (${bad[0]!.cases} cases) as a success` : undefined;
    },
  };
}

/** No outcome item ending with this activity is a failure (the ending closes the work; the log records no verdict). */
export function notFailure(activity: string, why: string): Fact {
  return {
    fact: `notFailure(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const bad = doc.outcomes.filter((o) => o.end_activity === activity && o.kind === 'failure');
      return bad.length ? `outcome ${bad[0]!.id} reads ${quote(activity)} (${bad[0]!.cases} cases) as a failure` : undefined;
    },
  };
}

/**
 * At most `cases` cases repeat the activity (executions counted once: a start and its complete are one, so a log
 * writing both does not make every case repeat every step).
 */
export function repeatedByAtMost(activity: string, cases: number, why: string): Fact {
  return {
    fact: `repeatedByAtMost(${quote(activity)}, ${cases})`,
    why,
    check: ({ doc }) => {
      const node = doc.nodes.find((n) => n.kind === 'activity' && n.label === activity);
      if (!node) return `no node ${quote(activity)}`;
      return node.cases_repeating > cases ? `${node.cases_repeating} cases repeat ${quote(activity)}` : undefined;
    },
  };
}

/** At most maxShare of all cases are in outcomes of kind 'open'. */
export function noOpenCases(maxShare: number, why: string): Fact {
  return {
    fact: `noOpenCases(${maxShare})`,
    why,
    check: ({ doc }) => {
      const open = doc.outcomes.filter((o) => o.kind === 'open');
      const n = open.reduce((s, o) => s + o.cases, 0);
      const share = doc.source.cases ? n / doc.source.cases : 0;
      return share > maxShare ? `${n} of ${doc.source.cases} cases (${pct(share)}) are open: ${open.map((o) => `${o.end_activity} ${o.cases}`).join(', ')}` : undefined;
    },
  };
}

/**
 * What most cases do is not an exception: the commonest variants covering the
 * first half of the cases (with any variant as common as the last of them) are
 * not of class exception; no edge taken by more than half of all cases is a
 * skip or an exception; no exception item holds more than half of all cases.
 */
export function notException(why: string): Fact {
  return {
    fact: 'notException()',
    why,
    check: ({ doc }) => {
      const half = doc.source.cases / 2;
      const problems: string[] = [];
      const variants = [...doc.variants].sort((a, b) => b.cases - a.cases);
      let covered = 0;
      let floor = Infinity;
      for (const v of variants) {
        if (covered >= half && v.cases < floor) break;
        covered += v.cases;
        floor = Math.min(floor, v.cases);
        if (v.class === 'exception') problems.push(`variant ${v.id} (${v.cases} cases, ${pct(v.share)}, among the commonest half) is class exception`);
      }
      for (const e of doc.edges) {
        if (e.cases > half && (e.kind === 'skip' || e.kind === 'exception')) problems.push(`edge ${label(doc, e.from)} -> ${label(doc, e.to)} (${e.cases} cases) is kind ${e.kind}`);
      }
      for (const x of doc.exceptions) {
        if (x.cases > half) problems.push(`exception ${x.id} holds ${x.cases} of ${doc.source.cases} cases`);
      }
      return problems.length ? problems.join('; ') : undefined;
    },
  };
}

/** A repetition most cases reaching the activity show is how the process works: no 'repeated-' exception for it. */
export function loopIsNormal(activity: string, why: string): Fact {
  return {
    fact: `loopIsNormal(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const bad = exceptionsFor(doc, 'repeated', activity, /repeat|again|loop|rework/i);
      return bad.length ? `exception ${bad[0]!.id} (${dquote(bad[0]!.name)}, ${bad[0]!.cases} cases)` : undefined;
    },
  };
}

/** Going without this activity is a normal path (it is conditional, not a step to skip): no 'skipped-' exception for it. */
export function skipIsNormal(activity: string, why: string): Fact {
  return {
    fact: `skipIsNormal(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const bad = exceptionsFor(doc, 'skipped', activity, /skip|without|missing/i);
      return bad.length ? `exception ${bad[0]!.id} (${dquote(bad[0]!.name)}, ${bad[0]!.cases} cases)` : undefined;
    },
  };
}

/** The hand-off from -> to is a normal path of the process: its edge exists and is not kind skip or exception. */
export function edgeNotException(from: string, to: string, why: string): Fact {
  return {
    fact: `edgeNotException(${quote(from)}, ${quote(to)})`,
    why,
    check: ({ doc }) => {
      const e = doc.edges.find((x) => label(doc, x.from) === from && label(doc, x.to) === to);
      if (!e) return `no edge ${quote(from)} -> ${quote(to)}`;
      return e.kind === 'skip' || e.kind === 'exception' ? `edge ${from} -> ${to} (${e.cases} cases) is kind ${e.kind}` : undefined;
    },
  };
}

function stageCompare(a: string, b: string, strict: boolean, why: string): Fact {
  return {
    fact: `${strict ? 'stageBefore' : 'stageOrder'}(${quote(a)}, ${quote(b)})`,
    why,
    check: ({ doc }) => {
      const i = stageIndex(doc, a);
      const j = stageIndex(doc, b);
      if (i < 0 || j < 0) return `${quote(i < 0 ? a : b)} is in no stage`;
      const ok = strict ? i < j : i <= j;
      return ok ? undefined : `${quote(a)} is in stage ${i + 1} (${quote(doc.stages[i]!.name)}), ${quote(b)} in stage ${j + 1} (${quote(doc.stages[j]!.name)}) of ${doc.stages.length}`;
    },
  };
}

/** The stage holding a comes no later than the stage holding b (stages are listed in case order). */
export const stageOrder = (a: string, b: string, why: string) => stageCompare(a, b, false, why);
/** The stage holding a comes strictly before the stage holding b: they are different phases. */
export const stageBefore = (a: string, b: string, why: string) => stageCompare(a, b, true, why);

/** The process clearly has phases: at least n stages. */
export function stagesAtLeast(n: number, why: string): Fact {
  return {
    fact: `stagesAtLeast(${n})`,
    why,
    check: ({ doc }) => (doc.stages.length >= n ? undefined : `${doc.stages.length} stage(s): ${doc.stages.map((s) => quote(s.name)).join(', ')}`),
  };
}

/** No decision rule's condition is on an attribute matching the pattern (identifiers, timestamps: not decision drivers). */
export function noRuleOn(pattern: RegExp, why: string): Fact {
  return {
    fact: `noRuleOn(${pattern})`,
    why,
    check: ({ doc }) => {
      const hits = new Map<string, number>();
      for (const d of doc.decisions)
        for (const r of d.rules)
          for (const c of r.when) {
            const a = conditionAttribute(c);
            if (!pattern.test(a)) continue;
            const key = `at ${quote(d.at)} on ${a.length > 80 ? `${a.slice(0, 80)}...` : a} (explained=${d.explained})`;
            hits.set(key, (hits.get(key) ?? 0) + 1);
          }
      return hits.size ? [...hits].map(([k, n]) => `${n} rule(s) ${k}`).join('; ') : undefined;
    },
  };
}

/**
 * No rule's condition lists categories of an ID-like attribute: one whose
 * values, over the stored cases having it (at least 20), are distinct for more
 * than half of them. Recomputed from store.traces().
 */
export function noIdLikeRules(why: string): Fact {
  return {
    fact: 'noIdLikeRules()',
    why,
    check: ({ doc, cases }) => {
      const attrs = new Set<string>();
      for (const d of doc.decisions) for (const r of d.rules) for (const c of r.when) {
        const a = categoricalAttribute(c);
        if (a) attrs.add(a);
      }
      if (!attrs.size) return undefined;
      const hits: string[] = [];
      for (const a of attrs) {
        const values = new Set<string>();
        let having = 0;
        for (const c of cases()) {
          const v = c.attributes.get(a);
          if (v === undefined) continue;
          having++;
          values.add(v);
        }
        if (having >= 20 && values.size > having / 2) hits.push(`${a} (${values.size} distinct values over ${having} cases)`);
      }
      return hits.length ? `rules on ID-like attributes: ${hits.join(', ')}` : undefined;
    },
  };
}

/** Every decision with explained=true has rules whose cases sum to at least min. */
export function explainedNeeds(min: number, why: string): Fact {
  return {
    fact: `explainedNeeds(${min})`,
    why,
    check: ({ doc }) => {
      const bad = doc.decisions.filter((d) => d.explained && d.rules.reduce((n, r) => n + r.cases, 0) < min);
      return bad.length ? bad.map((d) => `decision at ${quote(d.at)} is explained by rules over ${d.rules.reduce((n, r) => n + r.cases, 0)} cases`).join('; ') : undefined;
    },
  };
}

/**
 * An exception 'ends with X' (when present) counts exactly the cases whose last
 * event is X, recomputed from store.traces(). Without an activity: every such
 * exception of the document.
 */
export function endsWithCount(why: string, activity?: string): Fact {
  return {
    fact: `endsWithCount(${activity ? quote(activity) : ''})`,
    why,
    check: ({ doc, cases }) => {
      const wrong: string[] = [];
      for (const x of doc.exceptions) {
        const a = endsWithActivity(doc, x);
        if (a === undefined || (activity !== undefined && a !== activity)) continue;
        const n = cases().filter((c) => c.activities[c.activities.length - 1] === a).length;
        if (x.cases !== n) wrong.push(`${dquote(x.name)} counts ${x.cases} cases, ${n} end with ${quote(a)}`);
      }
      return wrong.length ? wrong.join('; ') : undefined;
    },
  };
}

/**
 * A success ending is not one most of whose cases went through a failure step:
 * for each success outcome, at most half of the cases ending with its activity
 * contain any of these activities (recomputed from store.traces()).
 */
export function successExcludes(activities: string[], why: string): Fact {
  return {
    fact: `successExcludes(${activities.map(quote).join(', ')})`,
    why,
    check: ({ doc, cases }) => {
      const bad: string[] = [];
      for (const end of new Set(doc.outcomes.filter((o) => o.kind === 'success').map((o) => o.end_activity))) {
        const ending = cases().filter((c) => c.activities[c.activities.length - 1] === end);
        const failed = ending.filter((c) => activities.some((a) => c.activities.includes(a))).length;
        if (ending.length && failed > ending.length / 2) bad.push(`success ending ${quote(end)}: ${failed} of its ${ending.length} cases (${pct(failed / ending.length)}) went through ${activities.join('/')}`);
      }
      return bad.length ? bad.join('; ') : undefined;
    },
  };
}

/**
 * The log records no outcome (no verdict in an activity or attribute, no
 * terminal status that says how the case went): no outcome item is a success
 * or a failure, and no success criterion is stated as met by most cases.
 */
export function noVerdict(why: string): Fact {
  return {
    fact: 'noVerdict()',
    why,
    check: ({ doc }) => {
      const judged = doc.outcomes.filter((o) => o.kind === 'success' || o.kind === 'failure');
      const problems = judged.map((o) => `${quote(o.end_activity)} is ${o.kind} (${o.cases} cases)`);
      for (const c of doc.success_criteria) if (c.evidence.strength !== 'hypothesis') problems.push(`success criterion ${c.id} is ${c.evidence.strength}`);
      return problems.length ? problems.join('; ') : undefined;
    },
  };
}

/**
 * The repeats of this activity are not rework: they are the start and
 * complete events of one execution, or updates of a record that stays in the
 * same state (a snapshot log). No edge from the activity to itself is of kind
 * rework, skip or exception; no 'repeated-' exception names it; no decision at
 * it has a branch back to it.
 */
export function repeatNotRework(activity: string, why: string): Fact {
  return {
    fact: `repeatNotRework(${quote(activity)})`,
    why,
    check: ({ doc }) => {
      const problems: string[] = [];
      for (const e of doc.edges) {
        if (label(doc, e.from) === activity && label(doc, e.to) === activity && (e.kind === 'rework' || e.kind === 'skip' || e.kind === 'exception')) {
          problems.push(`edge ${activity} -> ${activity} (${e.cases} cases) is kind ${e.kind}`);
        }
      }
      for (const x of exceptionsFor(doc, 'repeated', activity, /repeat|again|loop|rework/i)) problems.push(`exception ${x.id} (${dquote(x.name)}, ${x.cases} cases)`);
      for (const d of doc.decisions) {
        const back = d.branches.find((b) => b.to === activity || label(doc, b.to) === activity);
        if (d.at === activity && back) problems.push(`decision ${d.id} at ${quote(activity)} has a branch back to it (${back.cases} cases)`);
      }
      return problems.length ? problems.join('; ') : undefined;
    },
  };
}

/**
 * Paths are paths of executions, not of raw lifecycle events: the commonest
 * variant never lists one activity twice in a row (start and complete of one
 * execution are one step).
 */
export function pathsOfExecutions(why: string): Fact {
  return {
    fact: 'pathsOfExecutions()',
    why,
    check: ({ doc }) => {
      const top = [...doc.variants].sort((a, b) => b.cases - a.cases)[0];
      if (!top) return 'no variants';
      const path = top.path.map(String);
      const i = path.findIndex((a, k) => k > 0 && path[k - 1] === a);
      return i < 0 ? undefined : `the commonest variant ${top.id} (${top.cases} cases) lists ${quote(path[i]!)} twice in a row: ${path.join(' > ')}`;
    },
  };
}

/**
 * The share of an activity's cases that repeat it, as the document counts it
 * (node cases_repeating over cases), lies in [min, max]: the share of cases
 * that execute it more than once, start and complete of one execution being
 * one execution (computed by pairing the lifecycle events).
 */
export function repeatShare(activity: string, min: number, max: number, why: string): Fact {
  return {
    fact: `repeatShare(${quote(activity)}, ${min}, ${max})`,
    why,
    check: ({ doc }) => {
      const n = doc.nodes.find((x) => x.kind === 'activity' && x.label === activity);
      if (!n) return `no node ${quote(activity)}`;
      const share = n.cases ? n.cases_repeating / n.cases : 0;
      return share >= min && share <= max ? undefined : `${n.cases_repeating} of its ${n.cases} cases (${pct(share)}) repeat ${quote(activity)}`;
    },
  };
}

/** No step is an escalation (no activity of the process is taken after a long wait or a failed attempt): no escalations, no edge of kind escalation. */
export function noEscalations(why: string): Fact {
  return {
    fact: 'noEscalations()',
    why,
    check: ({ doc }) => {
      const edges = doc.edges.filter((e) => e.kind === 'escalation');
      if (!doc.escalations.length && !edges.length) return undefined;
      return `${doc.escalations.length} escalations (e.g. ${doc.escalations[0] ? `${label(doc, doc.escalations[0].from)} -> ${label(doc, doc.escalations[0].to)}` : '-'}), ${edges.length} escalation edges`;
    },
  };
}

/**
 * Nothing is claimed below the data's time resolution (day-level timestamps:
 * 24 hours): no timing or service-level policy with a threshold under it (a
 * policy of 0 hours among same-day steps is file order), and no escalation
 * edge whose slow wait is under it.
 */
export function noClaimBelow(hours: number, why: string): Fact {
  return {
    fact: `noClaimBelow(${hours})`,
    why,
    check: ({ doc }) => {
      const problems: string[] = [];
      const policies = doc.policies.filter((p) => (p.kind === 'timing' || p.kind === 'service_level') && p.threshold_hours < hours);
      if (policies.length) problems.push(`${policies.length} timing/service-level policies under ${hours} h (e.g. ${policies[0]!.id}: ${policies[0]!.threshold_hours} h)`);
      const escalations = doc.edges.filter((e) => e.kind === 'escalation' && e.slow_wait_hours < hours);
      if (escalations.length) problems.push(`${escalations.length} escalation edges with slow waits under ${hours} h (e.g. ${label(doc, escalations[0]!.from)} -> ${label(doc, escalations[0]!.to)}: ${escalations[0]!.slow_wait_hours} h)`);
      return problems.length ? problems.join('; ') : undefined;
    },
  };
}

/** The activity labels a text names (longest first, so a label inside another is not counted twice), in order of appearance. */
function labelsIn(doc: GraphDocument, text: string): string[] {
  const labels = doc.nodes.filter((n) => n.kind === 'activity').map((n) => n.label).sort((a, b) => b.length - a.length);
  const found: { at: number; label: string }[] = [];
  let rest = text;
  for (const l of labels) {
    const at = rest.indexOf(l);
    if (at < 0) continue;
    found.push({ at, label: l });
    rest = rest.slice(0, at) + ' '.repeat(l.length) + rest.slice(at + l.length);
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.label);
}

/**
 * An order between two steps that mostly share a timestamp (same-day steps of
 * a day-level log) is file order, not evidence: every sequence rule and every
 * sequence policy on a pair of activities whose first occurrences share their
 * timestamp in at least minTied of the cases with both is at most weak
 * (recomputed from the stored cases' times).
 */
export function tiedOrderAtMostWeak(why: string, minTied = 0.5): Fact {
  return {
    fact: `tiedOrderAtMostWeak(${minTied})`,
    why,
    check: ({ doc, cases }) => {
      const tiedShare = new Map<string, number>();
      const tied = (a: string, b: string): number => {
        const key = `${a}\u0000${b}`;
        let share = tiedShare.get(key);
        if (share === undefined) {
          let both = 0;
          let same = 0;
          for (const c of cases()) {
            const i = c.activities.indexOf(a);
            const j = c.activities.indexOf(b);
            if (i < 0 || j < 0) continue;
            both++;
            if (c.times[i] === c.times[j]) same++;
          }
          share = both ? same / both : 0;
          tiedShare.set(key, share);
        }
        return share;
      };
      const strong = (s: string) => s === 'counted' || s === 'strong' || s === 'moderate';
      const problems: string[] = [];
      for (const r of doc.sequence_rules) {
        const acts = r.activities.map(String);
        if (acts.length < 2 || !strong(r.evidence.strength) || acts[0] === acts[1]) continue;
        const share = tied(acts[0]!, acts[1]!);
        if (share >= minTied) problems.push(`sequence rule ${r.id} (${r.evidence.strength}) orders ${quote(acts[0]!)} and ${quote(acts[1]!)}, tied in ${pct(share)} of the cases with both`);
      }
      for (const p of doc.policies) {
        if (p.kind !== 'sequence' || !strong(p.evidence.strength)) continue;
        const acts = labelsIn(doc, p.statement);
        if (acts.length < 2) continue;
        const share = tied(acts[0]!, acts[1]!);
        if (share >= minTied) problems.push(`sequence policy ${p.id} (${p.evidence.strength}) orders ${quote(acts[0]!)} and ${quote(acts[1]!)}, tied in ${pct(share)} of the cases with both`);
      }
      return problems.length ? `${problems.length} order claims on tied steps: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; ...' : ''}` : undefined;
    },
  };
}

/**
 * A placeholder value (missing data written as '?', 'nan', '-') is nobody: no
 * role has it as its name, and no separation policy names it.
 */
export function notAPerson(values: string[], why: string): Fact {
  return {
    fact: `notAPerson(${values.map(quote).join(', ')})`,
    why,
    check: ({ doc }) => {
      const lower = new Set(values.map((v) => v.toLowerCase()));
      const problems: string[] = [];
      for (const r of doc.roles) if (lower.has(r.name.trim().toLowerCase())) problems.push(`role ${r.id} is named ${quote(r.name)} (${r.activities.length} activities)`);
      for (const p of doc.policies) {
        if (p.kind !== 'separation') continue;
        const v = values.find((x) => [`'${x}'`, `"${x}"`, `‘${x}’`, `“${x}”`].some((w) => p.statement.includes(w)));
        if (v !== undefined) problems.push(`separation policy ${p.id} names ${quote(v)}`);
      }
      return problems.length ? problems.join('; ') : undefined;
    },
  };
}

/** An OCEL object type is listed with (at least) these activities touching it, whatever the case notion. */
export function objectTypeTouches(type: string, activities: string[], why: string): Fact {
  return {
    fact: `objectTypeTouches(${quote(type)}, ${activities.map(quote).join(', ')})`,
    why,
    check: ({ doc }) => {
      const t = doc.object_types.find((x) => x.name === type);
      if (!t) return `no object type ${quote(type)} (types: ${doc.object_types.map((x) => x.name).join(', ')})`;
      const listed = new Set(t.activities.map(String));
      const missing = activities.filter((a) => !listed.has(a));
      return missing.length ? `object type ${quote(type)} lists ${t.activities.length ? t.activities.map(String).map(quote).join(', ') : 'no activities'}; missing ${missing.map(quote).join(', ')}` : undefined;
    },
  };
}

/** The case notion the log is read with (by default, when the fact's log pins none) is one of these object types. */
export function caseNotionIn(types: string[], why: string): Fact {
  return {
    fact: `caseNotionIn(${types.map(quote).join(', ')})`,
    why,
    check: ({ doc }) => (types.includes(doc.source.case_notion) ? undefined : `the case notion is ${quote(doc.source.case_notion)}`),
  };
}

/**
 * The verdict the log records in an attribute (an SLA flag, say) is read: some
 * success criterion names the attribute in its statement or test.
 */
export function verdictFromAttribute(attribute: string, why: string): Fact {
  return {
    fact: `verdictFromAttribute(${quote(attribute)})`,
    why,
    check: ({ doc }) => {
      const re = wordRe(attribute);
      const ok = doc.success_criteria.some((c) => re.test(c.statement) || re.test(c.test));
      return ok ? undefined : `no success criterion names ${quote(attribute)} (criteria: ${doc.success_criteria.map((c) => c.id).join(', ') || 'none'})`;
    },
  };
}

/** Facts every log gets: they hold for any process. */
export function common(): Fact[] {
  return [
    endsWithCount('an "ends with X" exception is about the cases whose last event is X, not every case touching X (definition; recomputed from the stored cases)'),
    explainedNeeds(20, 'a decision read as explained by rules over a handful of cases is noise, not a rule an agent should repeat (held-out scores on <20 cases are meaningless)'),
    noIdLikeRules('an attribute distinct for most cases (an identifier) cannot drive a decision; a rule listing its values is overfitting (distinct counts recomputed from the stored cases)'),
  ];
}

// ---------------------------------------------------------------- the facts, log by log
