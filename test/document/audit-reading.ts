import type { Decision, GraphDocument, Plain } from '../../engine/document/types.js';
import { choiceValue } from '../../engine/tally.js';
import { isPlaceholder } from '../../engine/reading/words.js';
import { parseTree, type ProcessTree } from '../../engine/mining/tree.js';
import { auditQuality } from './audit-quality.js';
import { idleWait, quoted, q, ratio, withinHours, type CaseFacts, type Findings } from './audit.js';

/**
 * The audit of the reading's counted figures (see audit.ts): success
 * criteria, policies, exceptions and decisions, each recomputed from the
 * cases by the definitions the rewritten reading follows. Items are found by
 * the activity names their text quotes ('X'), with the id's slugs deciding
 * an order the words leave open; anything that cannot be resolved is listed
 * in `skipped`, never guessed.
 */
export function auditReading(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings, clock: boolean): void {
  const labels = new Set<string>();
  for (const c of cases) for (const a of c.first.keys()) labels.add(a);
  auditCriteria(doc, cases, labels, f);
  auditPolicies(doc, cases, labels, f, clock);
  auditExceptions(doc, cases, labels, f);
  doc.decisions.forEach((d, i) => auditDecision(d, `/decisions/${i}`, cases, labels, f));
  doc.sequence_rules.forEach((r, i) => {
    if (r.id.startsWith('later-turn-')) auditLaterTurn(r.statement, r.activities.map(String), r.evidence.cases, `/sequence_rules/${i}`, cases, f);
    else auditQuantifier(r.statement, r.holds, `/sequence_rules/${i}`, f);
    if (r.id.startsWith('chain_response-')) auditChain(r.activities.map(String), r.holds, r.evidence.of_cases, `/sequence_rules/${i}`, cases, f);
  });
  auditPaths(doc, cases, f);
  auditSpecialists(doc, cases, f);
  auditConcurrency(doc, cases, labels, f);
  auditQuality(doc, cases, f);
  auditWindow(doc, cases, labels, f);
}

/**
 * The concurrency assumption (engine/reading/concurrency.ts), recomputed from the cases: each pair named concurrent
 * sits in a parallel block of the document's process tree, its directly-follows case counts both ways are as stated
 * and the rarer is at least 10% of both; no interleaving edge joins a pair not named; the behaviours (variants with
 * adjacent concurrent steps swapped to one order) count as stated; and each repeat said to be a turn of a tree loop
 * went through the loop's other part between its 1st and 2nd visit as often as stated.
 */
function auditConcurrency(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  const text = doc.assumptions.find((x): x is string => typeof x === 'string' && x.startsWith('Concurrency:'));
  if (!text) return f.skip('/assumptions (concurrency)', 'no concurrency assumption');
  const df = (a: string, b: string) => cases.filter((c) => c.acts.some((x, i) => x === a && c.acts[i + 1] === b)).length;
  const chains = new Map<string, string[]>();
  const walk = (t: ProcessTree, chain: string[], id: { n: number }) => {
    if (t.kind === 'activity') {
      if (!chains.has(t.label)) chains.set(t.label, chain);
    } else if (t.kind !== 'tau') {
      const here = [...chain, `${id.n++}:${t.kind}`];
      for (const c of t.children) walk(c, here, id);
    }
  };
  walk(parseTree(doc.model.process_tree), [], { n: 0 });
  const safe = (l: string) => l.replace(/'/g, '\u2019').replace(/\r\n|\r|\n/g, ' ');
  const pairs: [string, string][] = [];
  const end = text.indexOf('. Concurrent activities are not sequenced');
  for (const part of (end > 0 ? text.slice(0, end) : '').split('; ')) {
    const m = / \((\d+) cases? '.*' -> '.*', (\d+) the other way\)/.exec(part);
    const named = quoted(part.replace(/ \(\d+ cases? .*$/, ''), labels);
    if (!m || named.length < 2) continue;
    const [a, b] = named.slice(-2) as [string, string];
    pairs.push([a, b]);
    const path = `/assumptions (concurrency ${q(a)} ${q(b)})`;
    f.same(`${path}/a->b`, Number(m[1]), df(a, b));
    f.same(`${path}/b->a`, Number(m[2]), df(b, a));
    if (Math.min(df(a, b), df(b, a)) < 0.1 * (df(a, b) + df(b, a))) f.problem(path, 'the rarer direction is under 10% of both');
    const ca = chains.get(safe(a)) ?? [];
    const cb = chains.get(safe(b)) ?? [];
    let k = 0;
    while (k < ca.length && k < cb.length && ca[k] === cb[k]) k++;
    if (!(k > 0 && ca[k - 1]!.endsWith(':parallel'))) f.problem(path, 'not in a parallel block of the process tree');
  }
  const involved = new Set(pairs.flat());
  const concurrent = (a: string, b: string) => a !== b && pairs.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  const labelOf = new Map(doc.nodes.map((n) => [n.id, n.label]));
  doc.edges.forEach((e, i) => {
    if (e.evidence.method.includes('interleaving, not a hand-off') && !concurrent(labelOf.get(e.from) ?? '', labelOf.get(e.to) ?? '')) f.problem(`/edges/${i}`, 'an interleaving between activities the concurrency assumption does not name');
  });
  const stated = /the (\d+) variants make (\d+) behaviours, the commonest of (\d+) cases/.exec(text);
  if (stated) {
    const paths = new Set(cases.map((c) => JSON.stringify(c.acts)));
    const behaviours = new Map<string, number>();
    for (const c of cases) {
      // The least order (by label) among the orders reached by swapping adjacent concurrent steps: each time, the
      // least step that every step left before it is concurrent with.
      const rest = [...c.acts];
      const acts: string[] = [];
      while (rest.length) {
        let best = 0;
        // A step concurrent with nothing stops every later one from moving before it.
        for (let i = 1; i < rest.length && involved.has(rest[i - 1]!); i++) if (rest.slice(0, i).every((y) => concurrent(y, rest[i]!)) && rest[i]! < rest[best]!) best = i;
        acts.push(rest.splice(best, 1)[0]!);
      }
      const key = JSON.stringify(acts);
      behaviours.set(key, (behaviours.get(key) ?? 0) + 1);
    }
    f.same('/assumptions (concurrency)/variants', Number(stated[1]), paths.size);
    f.same('/assumptions (concurrency)/behaviours', Number(stated[2]), behaviours.size);
    f.same('/assumptions (concurrency)/commonest behaviour', Number(stated[3]), Math.max(...behaviours.values()));
  }
  // The tree's loops as stated, and the repeats said to be their turns.
  const loops: { body: string[]; redo: string[] }[] = [];
  const loopText = /Loops of the mined process tree with a redo step \([^)]*\): (.*)\.$/.exec(text)?.[1] ?? '';
  for (const part of loopText.split(/; (?=body )/)) {
    const at = part.indexOf(', redo ');
    if (part.startsWith('body ') && at > 0) loops.push({ body: quoted(part.slice(5, at), labels), redo: quoted(part.slice(at + 7), labels) });
  }
  const exceptions = doc.assumptions.find((x): x is string => typeof x === 'string' && x.startsWith('Exceptions:')) ?? '';
  const turns = /Repeats that are turns of a loop of the mined process tree, not exceptions: (.*)\.$/.exec(exceptions)?.[1] ?? '';
  for (const m of turns.matchAll(/'((?:[^']|'(?! again))*)' again after the loop's (redo step|body) '.*?' \(through that part of the mined tree's loop between the 1st and 2nd visit in (\d+) of the (\d+) cases/g)) {
    const a = m[1]!;
    const loop = loops.find((l) => (m[2] === 'body' ? l.redo : l.body).includes(a));
    const path = `/assumptions (exceptions: loop turn of ${q(a)})`;
    if (!loop) {
      f.problem(path, 'no stated loop holds it');
      continue;
    }
    const other = new Set(m[2] === 'body' ? loop.body : loop.redo);
    let repeating = 0;
    let through = 0;
    for (const c of cases) {
      const first = c.acts.indexOf(a);
      const second = secondVisit(c.acts, a);
      if (second < 0) continue;
      repeating++;
      if (c.acts.slice(first + 1, second).some((x) => other.has(x))) through++;
    }
    f.same(`${path}/repeating`, Number(m[4]), repeating);
    f.same(`${path}/through`, Number(m[3]), through);
    if (through < 0.9 * repeating) f.problem(path, 'under 90% of the repeating cases went through the loop');
  }
}

const HOUR = 3_600_000;
/** The low end of the middle 90% (the reading's own expression, so both round alike). */
const LOW = (1 - 0.9) / 2;
const isoDay = (hour: number) => new Date(hour * HOUR).toISOString().slice(0, 10);
const daysText = (hours: number) => (hours >= 48 ? `${Math.round(hours / 24)} days` : `${hours} hours`);

/** The first hour by which at least `share` of the hours (one per case, sorted) are counted. */
function hourAt(sorted: readonly number[], share: number): number {
  const k = Math.max(1, Math.ceil(share * sorted.length));
  return sorted[Math.min(sorted.length, k) - 1]!;
}

/**
 * The observation window (engine/reading/window.ts), recomputed from the cases. Selection on the ending: the middle
 * 90% of case ends within at most a quarter of the hours the middle 90% of starts spread over (at least 20 cases), both
 * ways: stated exactly when it holds, with its figures; then no service level, no success criterion on the one ending
 * at least 99% of the cases end with, and every response rule to it says "by selection". Censoring, where stated:
 * the unfinished cases are those stopping at the activities it names; the final stretch begins at the first hour from
 * which at most a quarter of the others began; its counts are read back, at least 75% of the unfinished cases began
 * in it, each activity's open outcome holds at least the cases begun there, and no service level is given.
 */
function auditWindow(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  const stated = doc.assumptions.filter((x): x is string => typeof x === 'string' && x.startsWith('Observation window:'));
  const startHour = (c: CaseFacts) => Math.floor(c.events[0]!.time / HOUR);
  const endHour = (c: CaseFacts) => Math.floor(c.events[c.events.length - 1]!.time / HOUR);
  const withEvents = cases.filter((c) => c.events.length > 0);
  const selectionText = stated.find((x) => x.includes('selected on its ending'));
  const starts = withEvents.map(startHour).sort((a, b) => a - b);
  const ends = withEvents.map(endHour).sort((a, b) => a - b);
  const holds = withEvents.length >= 20 && (() => {
    const endSpan = hourAt(ends, 1 - LOW) - hourAt(ends, LOW) + 1;
    const startSpan = hourAt(starts, 1 - LOW) - hourAt(starts, LOW) + 1;
    return endSpan <= 0.25 * startSpan;
  })();
  f.same('/outcomes (observation window) selected on the ending', selectionText !== undefined, holds);
  if (selectionText && holds) {
    const e = [hourAt(ends, LOW), hourAt(ends, 1 - LOW)] as const;
    const s = [hourAt(starts, LOW), hourAt(starts, 1 - LOW)] as const;
    const endSpan = e[1] - e[0] + 1;
    const startSpan = s[1] - s[0] + 1;
    const m = /end within (.+?) \((\S+) to (\S+)\) while their starts spread over (.+?) \((\S+) to (\S+)\): the ends are ([\d.]+%) as spread/.exec(selectionText);
    if (!m) f.problem('/outcomes (observation window)', `unreadable: ${selectionText}`);
    else {
      f.same('/outcomes (observation window) ends', m.slice(1, 4).join(' '), `${daysText(endSpan)} ${isoDay(e[0])} ${isoDay(e[1])}`);
      f.same('/outcomes (observation window) starts', m.slice(4, 7).join(' '), `${daysText(startSpan)} ${isoDay(s[0])} ${isoDay(s[1])}`);
      f.same('/outcomes (observation window) spread', m[7], pctText(ratio(endSpan, startSpan)));
    }
    if (doc.policies.some((p) => p.kind === 'service_level')) f.problem('/policies (observation window)', 'a service level from case durations in a log selected on its ending');
    const byLast = new Map<string, number>();
    for (const c of withEvents) byLast.set(c.last, (byLast.get(c.last) ?? 0) + 1);
    const [ending, n] = [...byLast].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
    const one = n >= 0.99 * withEvents.length;
    f.same('/outcomes (observation window) one ending', selectionText.includes(`end with ${q(ending)}: that is the filter`), one);
    if (one) {
      doc.success_criteria.forEach((c, i) => {
        if (c.test.includes(q(ending))) f.problem(`/success_criteria/${i}`, `a success share of the ending the log was selected on (${q(ending)})`);
      });
      doc.sequence_rules.forEach((r, i) => {
        if (r.type === 'response' && r.activities[r.activities.length - 1] === ending && !r.statement.includes('by selection')) f.problem(`/sequence_rules/${i}/statement`, `holds by selection on ${q(ending)} but does not say so`);
      });
    }
  }
  const censoring = stated.find((x) => x.includes('cut while cases ran'));
  if (!censoring) return;
  const m = /began from (\S+) on \((\d+) of (\d+)\), but (\d+) of the (\d+) cases stopped outside an ending \(at (.+?); ([\d.]+%)\) began then/.exec(censoring);
  if (!m) return f.problem('/outcomes (observation window)', `unreadable: ${censoring}`);
  if (/ and \d+ more$/.test(m[6]!)) return f.skip('/outcomes (observation window)', 'more than 12 activities where unfinished cases stop: not all named');
  const at = new Set(quoted(m[6]!, labels));
  const done = withEvents.filter((c) => !at.has(c.last)).map(startHour).sort((a, b) => a - b);
  const open = withEvents.filter((c) => at.has(c.last));
  // Hours from the latest back, each taken whole while at most a quarter of the finished cases began from it on.
  const perHour = new Map<number, number>();
  for (const h of done) perHour.set(h, (perHour.get(h) ?? 0) + 1);
  let from = done[done.length - 1]! + 1;
  let after = 0;
  for (const [h, k] of [...perHour].sort((a, b) => b[0] - a[0])) {
    if (after + k > 0.25 * done.length) break;
    after += k;
    from = h;
  }
  const late = open.filter((c) => startHour(c) >= from);
  f.same('/outcomes (observation window) stretch', m[1], new Date(from * HOUR).toISOString());
  f.same('/outcomes (observation window) finished in stretch', `${m[2]} of ${m[3]}`, `${after} of ${done.length}`);
  f.same('/outcomes (observation window) censored', `${m[4]} of ${m[5]} ${m[7]}`, `${late.length} of ${open.length} ${pctText(ratio(late.length, open.length))}`);
  if (late.length < 0.75 * open.length) f.problem('/outcomes (observation window)', `only ${late.length} of ${open.length} unfinished cases began in the final stretch`);
  for (const x of at) {
    const listed = doc.outcomes.filter((o) => o.end_activity === x && o.kind === 'open').reduce((n, o) => n + o.cases, 0);
    const begun = late.filter((c) => c.last === x).length;
    if (listed < begun) f.problem(`/outcomes (end_activity ${q(x)})`, `${listed} open, but ${begun} cases stopping there began in the final stretch`);
  }
  if (late.length >= 0.01 * withEvents.length && doc.policies.some((p) => p.kind === 'service_level')) f.problem('/policies (observation window)', `a service level from case durations that include ${late.length} cases cut off while running (at least 1% of the cases)`);
}

const pctText = (x: number): string => `${(Math.round(x * 1000) / 10).toString()}%`;

/**
 * A rule's words match its share: "always", "never", "only after" and "at most once in a case" stand alone only at
 * 100%; below it the statement carries the share (never printed as 100%).
 */
function auditQuantifier(statement: string, holds: number, path: string, f: Findings): void {
  if (holds >= 1) return;
  const shown = pctText(holds) === '100%' ? '99.9%' : pctText(holds);
  if (!statement.includes(` ${shown} of the cases with `)) f.problem(`${path}/statement`, `holds ${holds} but the statement does not give ${shown}: ${statement}`);
  if (/\b(always|never)\b/.test(statement)) f.problem(`${path}/statement`, `an absolute word at ${shown}: ${statement}`);
}

/** chain_response a -> b: the cases with a where every a is directly followed by b, among the cases with a. */
function auditChain(activities: string[], holds: number, of: number, path: string, all: readonly CaseFacts[], f: Findings): void {
  const [a, b] = activities as [string, string];
  let withA = 0;
  let held = 0;
  for (const c of all) {
    if (!c.first.has(a)) continue;
    withA++;
    if (c.acts.every((x, i) => x !== a || c.acts[i + 1] === b)) held++;
  }
  f.same(`${path}/evidence/of_cases`, of, withA);
  f.near(`${path}/holds`, holds, ratio(held, withA));
}

/**
 * Whether the log has a main path (engine/reading/paths.ts, recomputed here from the cases by its definition):
 * none where variants reach 90% of the cases (distinct paths) or where the commonest leads the next by less than
 * 2·√(top + next) (a tie); the variants assumption's figures are read back.
 */
function auditPaths(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const byPath = new Map<string, number>();
  for (const c of cases) byPath.set(JSON.stringify(c.acts), (byPath.get(JSON.stringify(c.acts)) ?? 0) + 1);
  const counts = [...byPath.values()].sort((x, y) => y - x);
  const [top = 0, next = 0] = counts;
  const near = (c: number) => top - c < 2 * Math.sqrt(top + c);
  const kind = counts.length >= 2 && counts.length >= 0.9 * cases.length ? 'distinct' : counts.length < 2 || !near(next) ? 'main' : 'tied';
  const mains = doc.variants.filter((v) => v.class === 'main');
  f.same('/variants (main path)/count of main', mains.length, kind === 'main' && cases.length > 0 ? 1 : 0);
  if (mains.length === 1) f.same('/variants (main path)/cases', mains[0]!.cases, top);
  const text = doc.assumptions.find((x): x is string => typeof x === 'string' && x.startsWith('Variants:'));
  if (!text || !cases.length) return f.skip('/variants (main path)/assumption', 'no variants assumption');
  const one = /here every case follows the one path \((\d+) cases\)/.exec(text);
  const main = /here the commonest path \((\d+) cases, ([\d.]+%)\) leads the next \((\d+) cases\)/.exec(text);
  const tied = /here no path is main: the commonest path \((\d+) cases\) and the next \((\d+) cases\) are within sampling noise of each other \((\d+) paths/.exec(text);
  const distinct = /here no path is main: (\d+) distinct paths for (\d+) cases \(([\d.]+%)\); the commonest has (\d+) cases?/.exec(text);
  const stated = one || main ? 'main' : tied ? 'tied' : distinct ? 'distinct' : 'none';
  f.same('/variants (main path)/assumption verdict', stated, kind);
  if (one) f.same('/variants (main path)/assumption top', Number(one[1]), top);
  if (main) {
    f.same('/variants (main path)/assumption top', Number(main[1]), top);
    f.same('/variants (main path)/assumption top share', main[2], pctText(ratio(top, cases.length)));
    f.same('/variants (main path)/assumption next', Number(main[3]), next);
  }
  if (tied) {
    f.same('/variants (main path)/assumption top', Number(tied[1]), top);
    f.same('/variants (main path)/assumption next', Number(tied[2]), next);
    f.same('/variants (main path)/assumption tied', Number(tied[3]), counts.filter(near).length);
  }
  if (distinct) {
    f.same('/variants (main path)/assumption variants', Number(distinct[1]), counts.length);
    f.same('/variants (main path)/assumption cases', Number(distinct[2]), cases.length);
    f.same('/variants (main path)/assumption share', distinct[3], pctText(ratio(counts.length, cases.length)));
    f.same('/variants (main path)/assumption top', Number(distinct[4]), top);
  }
}

/**
 * A step that follows an activity only from its k-th visit on (engine/reading/loops.ts): the cases where it
 * follows at all, none of them at an earlier visit, and how many of the k-th visits it follows.
 */
function auditLaterTurn(statement: string, activities: string[], cases: number, path: string, all: readonly CaseFacts[], f: Findings): void {
  const [a, b] = activities as [string, string];
  const stated = /only from a case's (\d)/.exec(statement);
  const atK = /after (\d+) of the (\d+) \d/.exec(statement);
  if (!stated || !atK) return f.skip(path, `unreadable statement: ${statement}`);
  const k0 = Number(stated[1]);
  // The 5th turn stands for the 5th and later ones: its visits are not one a case.
  if (k0 >= 5) return f.skip(path, 'a turn counted with the later ones');
  let withB = 0;
  let earliest = Infinity;
  let takenAtK = 0;
  let visitsAtK = 0;
  for (const c of all) {
    let k = 0;
    let taken = false;
    c.acts.forEach((x, i) => {
      if (x !== a) return;
      k++;
      if (k === k0) visitsAtK++;
      if (c.acts[i + 1] !== b) return;
      taken = true;
      earliest = Math.min(earliest, k);
      if (k === k0) takenAtK++;
    });
    if (taken) withB++;
  }
  f.same(`${path}/evidence/cases`, cases, withB);
  f.same(`${path}/statement (first turn)`, k0, earliest);
  f.same(`${path}/statement (taken at that turn)`, Number(atK[1]), takenAtK);
  f.same(`${path}/statement (visits of that turn)`, Number(atK[2]), visitsAtK);
}

const count = (cases: readonly CaseFacts[], test: (c: CaseFacts) => boolean): number => cases.reduce((n, c) => n + (test(c) ? 1 : 0), 0);

/** The reading's id fragment of a label, to tell which of two quoted names an id puts first. */
function slug(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}

/**
 * The two activities an item is about, in its own order: by the id
 * (kind-slug(a)-slug(b)) when that tells, else by the text, where
 * "'b' follows 'a'" names the second first.
 */
function pairOf(id: string, text: string, labels: Set<string>): [string, string] | undefined {
  const named = quoted(text, labels);
  // One name is a pair only when written twice ('a' -> 'a'); else the other name is no activity of the events.
  if (named.length === 1) return text.split(q(named[0]!)).length > 2 ? [named[0]!, named[0]!] : undefined;
  if (named.length !== 2) return undefined;
  const [x, y] = named as [string, string];
  const byId = ([[x, y], [y, x]] as [string, string][]).filter(([a, b]) => id.includes(`${slug(a)}-${slug(b)}`));
  if (byId.length === 1) return byId[0];
  return / follows /.test(text.slice(text.indexOf(q(x)), text.lastIndexOf(q(y)))) ? [y, x] : [x, y];
}

/** The one activity an item names; several are narrowed by the id's slug. */
function subjectOf(id: string, text: string, labels: Set<string>): string | undefined {
  const named = quoted(text, labels);
  const byId = named.length > 1 ? named.filter((a) => id.includes(slug(a))) : named;
  return byId.length === 1 ? byId[0] : undefined;
}

function auditCriteria(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  doc.success_criteria.forEach((c, i) => {
    const path = `/success_criteria/${i}`;
    if (c.id === 'success-ending') {
      // A recorded verdict (engine/reading/verdicts.ts): only the cases ending there with the attribute's last value true,
      // and the ending's outcome items split by that value.
      const verdict = / and last value of '(.+)' in the case is true$/.exec(c.test)?.[1];
      const ends = new Set(quoted(verdict === undefined ? c.test : c.test.slice(0, c.test.indexOf(' and last value of ')), labels));
      if (!ends.size) return f.skip(path, `its test names no activity: ${c.test}`);
      if (verdict !== undefined) {
        for (const x of ends) {
          const stopping = cases.filter((k) => k.last === x);
          for (const [kind, value] of [['success', true], ['failure', false]] as const) {
            const item = doc.outcomes.find((o) => o.end_activity === x && o.kind === kind);
            f.same(`/outcomes (${kind} at ${q(x)} by ${q(verdict)})`, item?.cases ?? 0, count(stopping, (k) => lastVerdict(k, verdict) === value));
          }
        }
        return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => ends.has(x.last) && lastVerdict(x, verdict) === true), cases.length));
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => ends.has(x.last)), cases.length));
    }
    if (c.id === 'success-status') {
      // Cases with an event of a success status, whatever follows it.
      const reached = new Set(quoted(c.test, labels));
      if (!reached.size) return f.skip(path, `its test names no activity: ${c.test}`);
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => x.acts.some((a) => reached.has(a))), cases.length));
    }
    if (c.id === 'success-step') {
      // Cases with an event of any step the test lists.
      const steps = new Set(quoted(c.test, labels));
      if (!steps.size) return f.skip(path, `its test names no activity: ${c.test}`);
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => x.acts.some((a) => steps.has(a))), cases.length));
    }
    if (c.id.startsWith('recorded-')) {
      // The attribute's last value in the case, true or false in any of the spellings the profile accepts, over the
      // cases whose last value is one of them.
      const attribute = /last value of '(.+)' in the case/.exec(c.test)?.[1];
      if (attribute === undefined) return f.skip(path, `its test names no attribute: ${c.test}`);
      let yes = 0;
      let no = 0;
      for (const x of cases) {
        const verdict = lastVerdict(x, attribute);
        if (verdict === true) yes += 1;
        else if (verdict === false) no += 1;
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(yes, yes + no));
    }
    if (c.id === 'no-failure-step') {
      // Cases with no event of any activity the test lists.
      const never = new Set(quoted(c.test, labels));
      if (!never.size) return f.skip(path, `its test names no activity: ${c.test}`);
      // "Never passes through" only where no case ending in success did; else the statement counts those that did.
      const successTest = doc.success_criteria.find((x) => x.id === 'success-ending')?.test;
      if (successTest !== undefined) {
        const success = new Set(quoted(successTest, labels));
        const succeeded = cases.filter((x) => success.has(x.last));
        const through = count(succeeded, (x) => x.acts.some((a) => never.has(a)));
        const said = /: (\d+) of the (\d+) cases ending in success did\.$/.exec(c.statement);
        if (!said) f.same(`${path}/statement (successful cases through them)`, c.statement.includes(' never passes through ') ? 0 : -1, through);
        else {
          f.same(`${path}/statement (successful cases through them)`, Number(said[1]), through);
          f.same(`${path}/statement (successful cases)`, Number(said[2]), succeeded.length);
        }
      }
      return f.near(`${path}/share_met`, c.share_met, ratio(count(cases, (x) => !x.acts.some((a) => never.has(a))), cases.length));
    }
    // A criterion the audit cannot recompute is a finding: every criterion the reading writes has a definition here.
    f.problem(path, `criterion ${c.id} has no audit definition`);
  });
}

const TRUE_TEXT = new Set(['true', 'TRUE', 'True', 'yes', 'Yes', '1']);
const FALSE_TEXT = new Set(['false', 'FALSE', 'False', 'no', 'No', '0']);

/** The case's last value of an attribute read as a verdict, undefined when it has none or another value. */
function lastVerdict(c: CaseFacts, attribute: string): boolean | undefined {
  const name = attribute.replace(/^case:/, '');
  for (let k = c.events.length - 1; k >= 0; k--) {
    const attrs = c.events[k]!.attributes;
    const value = attrs[attribute] ?? attrs[name];
    if (value === undefined || value === null) continue;
    const text = String(value);
    return TRUE_TEXT.has(text) ? true : FALSE_TEXT.has(text) ? false : undefined;
  }
  return undefined;
}

function auditPolicies(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings, clock: boolean): void {
  doc.policies.forEach((p, i) => {
    const path = `/policies/${i}`;
    if (p.kind === 'service_level') {
      if (!clock) return f.skip(path, 'working time basis');
      return f.near(`${path}/share_met`, p.share_met, ratio(count(cases, (c) => withinHours(c.duration, p.threshold_hours)), cases.length));
    }
    const pair = pairOf(p.id, p.statement, labels);
    if (!pair) return f.skip(path, `${p.id}: its statement does not name two activities: ${p.statement}`);
    const [a, b] = pair;
    if (p.kind === 'timing') {
      if (!clock) return f.skip(path, 'working time basis');
      let occurrences = 0;
      let met = 0;
      for (const c of cases) {
        for (let k = 0; k + 1 < c.acts.length; k++) {
          if (c.acts[k] !== a || c.acts[k + 1] !== b) continue;
          occurrences += 1;
          if (withinHours(idleWait(c.events[k]!, c.events[k + 1]!), p.threshold_hours)) met += 1;
        }
      }
      f.near(`${path}/share_met`, p.share_met, ratio(met, occurrences));
      return f.same(`${path}/evidence/of_cases`, p.evidence.of_cases, occurrences);
    }
    const both = cases.filter((c) => c.first.has(a) && c.first.has(b));
    if (p.kind === 'sequence') return f.near(`${path}/share_met`, p.share_met, ratio(count(both, (c) => c.first.get(a)! < c.first.get(b)!), both.length));
    // Separation: no one resource did both (events without a resource name nobody).
    const apart = count(both, (c) => {
      const byA = new Set(c.events.filter((e) => e.activity === a && e.resource !== undefined).map((e) => e.resource));
      return !c.events.some((e) => e.activity === b && e.resource !== undefined && byA.has(e.resource));
    });
    f.near(`${path}/share_met`, p.share_met, ratio(apart, both.length));
  });
}

const EXCEPTION_KINDS = ['failed-ending', 'out-of-order', 'repeated', 'skipped', 'rare'] as const;

function auditExceptions(doc: GraphDocument, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  doc.exceptions.forEach((x, i) => {
    const path = `/exceptions/${i}`;
    if (x.cases > cases.length / 2) f.problem(`${path}/cases`, `${x.cases} cases, more than half of all ${cases.length}: not an exception`);
    const kind = EXCEPTION_KINDS.find((k) => x.id.startsWith(`${k}-`));
    if (!kind) return f.skip(path, `${x.id}: no audit definition for this kind`);
    const check = (n: number, of: number) => {
      f.same(`${path}/cases`, x.cases, n);
      if (of >= 0) f.same(`${path}/evidence/of_cases`, x.evidence.of_cases, of);
    };
    if (kind === 'out-of-order') {
      // The name puts the step that came first in these cases first: "'b' before 'a'".
      const pair = pairOf(x.id, x.name, labels);
      if (!pair) return f.skip(path, `${x.id}: its name does not name two activities: ${x.name}`);
      const [early, late] = pair;
      return check(count(cases, (c) => c.first.has(early) && c.first.has(late) && c.first.get(early)! < c.first.get(late)!), -1);
    }
    const a = subjectOf(x.id, x.name, labels);
    if (a === undefined) return f.skip(path, `${x.id}: its name does not name one activity: ${x.name}`);
    const has = (c: CaseFacts) => c.first.has(a);
    if (kind === 'repeated') {
      check(count(cases, (c) => (c.visits.get(a) ?? 0) > 1), count(cases, has));
      // A trigger in the attributes of a decision point (engine/reading/triggers.ts): the cases going from their first
      // P straight to b, those of them repeating it, and the repeating cases that went that way. The rule it names is
      // audited with its decision.
      const via = /^after '(.+?)' with .+?: (\d+) of the (\d+) cases that repeat it went from their first '.+?' straight to '(.+?)', and (\d+) of the (\d+) cases taking that way repeat it/s.exec(x.trigger);
      if (via) {
        const [, at, , , to] = via;
        const took = (c: CaseFacts) => c.first.has(at!) && c.acts[c.first.get(at!)! + 1] === to;
        const comesBack = (c: CaseFacts) => c.acts.indexOf(a) <= c.first.get(at!)! && c.acts.lastIndexOf(a) > c.first.get(at!)!;
        const repeating = cases.filter((c) => (c.visits.get(a) ?? 0) > 1);
        const taking = cases.filter(took);
        f.same(`${path}/trigger`, `${via[2]} of ${via[3]}; ${via[5]} of ${via[6]}`, `${count(repeating, took)} of ${repeating.length}; ${count(taking, (c) => c.first.has(a) && comesBack(c))} of ${taking.length}`);
        return;
      }
      // The trigger's count: the repeating cases whose second visit comes right after the step it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `visit, ${q(l)}, in`, (l) => (l === a ? `${q(l)} directly again (` : undefined)]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      const repeating = cases.filter((c) => (c.visits.get(a) ?? 0) > 1);
      f.same(`${path}/trigger`, stated, `${count(repeating, (c) => c.acts[secondVisit(c.acts, a) - 1] === named)} of ${repeating.length}`);
      return;
    }
    if (kind === 'rare') {
      const withA = cases.filter(has);
      check(withA.length, cases.length);
      // The trigger's count: the cases with the step whose first visit comes at their start, or right after the step it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const first = (c: CaseFacts) => c.first.get(a)!;
      if (x.trigger.includes('the start of the case')) return f.same(`${path}/trigger`, stated, `${count(withA, (c) => first(c) === 0)} of ${withA.length}`);
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `before it, ${q(l)}, in`]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      f.same(`${path}/trigger`, stated, `${count(withA, (c) => c.acts[first(c) - 1] === named)} of ${withA.length}`);
      return;
    }
    if (kind === 'failed-ending') {
      check(count(cases, (c) => c.last === a), cases.length);
      // The trigger's count: the cases ending there whose step right before the last is the one it names.
      const stated = statedCount(x.trigger);
      if (!stated) return;
      const named = namedIn(x.trigger, labels, [(l) => `after ${q(l)} (`, (l) => `before it, ${q(l)}, in`]);
      if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
      const ending = cases.filter((c) => c.last === a);
      f.same(`${path}/trigger`, stated, `${count(ending, (c) => c.acts[c.acts.length - 2] === named)} of ${ending.length}`);
      return;
    }
    const p = stepBefore(x.trigger, labels, a) ?? stepBefore(x.detected_by, labels, a);
    if (p === undefined) return f.skip(path, `${x.id}: neither trigger nor detected_by names the step before ${q(a)}: ${x.trigger} / ${x.detected_by}`);
    // The later steps a skipping case went on to, as detected_by lists them: "a later step of the backbone ('c', 'd')".
    const onward = /later step of the backbone \((.*?)\) without/.exec(x.detected_by)?.[1];
    if (onward === undefined) return f.skip(path, `${x.id}: detected_by names no later steps: ${x.detected_by}`);
    const later = new Set(quoted(onward, labels));
    const withP = cases.filter((c) => c.first.has(p));
    const skipping = withP.filter((c) => !has(c) && c.acts.some((s, j) => j > c.first.get(p)! && later.has(s)));
    check(skipping.length, withP.length);
    // The trigger's count: the skipping cases whose step right after their first p is the one it names.
    const stated = statedCount(x.trigger);
    if (!stated) return;
    const named = namedIn(x.trigger, labels, [(l) => `goes to ${q(l)} instead (`, (l) => `the commonest, ${q(l)}, in`]);
    if (named === undefined) return f.skip(`${path}/trigger`, `${x.id}: the trigger names no one step: ${x.trigger}`);
    f.same(`${path}/trigger`, stated, `${count(skipping, (c) => c.acts[c.first.get(p)! + 1] === named)} of ${skipping.length}`);
  });
}

/** The "n of the N cases" a trigger states, as "n of N". */
function statedCount(text: string): string | undefined {
  const m = /(\d+) of the (\d+) cases/.exec(text);
  return m ? `${m[1]} of ${m[2]}` : undefined;
}

/** The one label some pattern finds in the text (undefined for none or several). */
function namedIn(text: string, labels: Set<string>, patterns: ((label: string) => string | undefined)[]): string | undefined {
  const found = [...labels].filter((l) =>
    patterns.some((p) => {
      const needle = p(l);
      return needle !== undefined && text.includes(needle);
    }),
  );
  return found.length === 1 ? found[0] : undefined;
}

/** The index of an activity's second event in a case (-1 when it has none). */
function secondVisit(acts: readonly string[], a: string): number {
  const first = acts.indexOf(a);
  return first < 0 ? -1 : acts.indexOf(a, first + 1);
}

/** The activity a text names as the step before `x`: "after 'P'". */
function stepBefore(text: string, labels: Set<string>, x: string): string | undefined {
  const named = quoted(text, labels).filter((l) => l !== x && text.includes(`after ${q(l)}`));
  return named.length === 1 ? named[0] : undefined;
}

interface Condition {
  attribute: string;
  op: 'in' | '<' | '>=' | 'any';
  value: Plain;
}

function conditionsOf(when: Plain[]): Condition[] | undefined {
  const out: Condition[] = [];
  for (const w of when) {
    if (typeof w !== 'object' || w === null || Array.isArray(w)) return undefined;
    const { attribute, op, value } = w as Record<string, Plain>;
    if (typeof attribute !== 'string' || (op !== 'in' && op !== '<' && op !== '>=' && op !== 'any')) return undefined;
    if ((op === 'in' && !Array.isArray(value)) || ((op === '<' || op === '>=') && typeof value !== 'number')) return undefined;
    out.push({ attribute, op, value: value! });
  }
  return out;
}

/** A number as the counters read it: numbers, and decimal numbers written as text (choiceValue's rule). */
function numeric(v: string | number | boolean): number | undefined {
  if (typeof v === 'number') return v;
  return typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** The counted label of a value listed in an 'in' rule: numbers and booleans are shown as their label's value. */
function listedLabel(v: Plain): string | undefined {
  if (typeof v === 'number') return `n:${v}`;
  if (typeof v === 'boolean') return `b:${v}`;
  return typeof v === 'string' ? choiceValue(v) : undefined;
}

function satisfies(c: Condition, raw: string | number | boolean | undefined): boolean {
  if (raw === undefined) return false;
  if (c.op === 'any') return choiceValue(raw) !== undefined;
  if (c.op === 'in') {
    const label = choiceValue(raw);
    return label !== undefined && (c.value as Plain[]).some((v) => listedLabel(v) === label);
  }
  // Thresholds are bin boundaries, so the raw number falls on the same side as its bin.
  const n = numeric(raw);
  return n !== undefined && (c.op === '<' ? n < (c.value as number) : n >= (c.value as number));
}

/**
 * A decision at A: each case's first visit of A and the step right after it
 * ('end' when the case stops there); a rule's attribute value is the latest
 * one carried by an event up to and including that visit.
 */
function auditDecision(d: Decision, path: string, cases: readonly CaseFacts[], labels: Set<string>, f: Findings): void {
  if (!labels.has(d.at)) return f.problem(`${path}/at`, `${q(d.at)} is no activity of the events`);
  const visits: { c: CaseFacts; k: number; next: string }[] = [];
  const taken = new Map<string, number>();
  for (const c of cases) {
    const k = c.first.get(d.at);
    if (k === undefined) continue;
    const next = k + 1 < c.acts.length ? c.acts[k + 1]! : 'end';
    visits.push({ c, k, next });
    taken.set(next, (taken.get(next) ?? 0) + 1);
  }
  let top = 0;
  d.branches.forEach((b, j) => {
    const n = taken.get(b.to) ?? 0;
    top = Math.max(top, ratio(n, visits.length));
    f.same(`${path}/branches/${j}/cases`, b.cases, n);
    f.near(`${path}/branches/${j}/share`, b.share, ratio(n, visits.length));
  });
  f.near(`${path}/baseline_share`, d.baseline_share, top);
  f.same(`${path}/evidence/of_cases`, d.evidence.of_cases, visits.length);
  const branches = new Set(d.branches.map((b) => b.to));
  // The cases in the branches, recomputed: under 20 no rule could explain the choice, so the words must say too few.
  const inBranches = visits.filter((v) => branches.has(v.next)).length;
  f.same(`${path}/evidence/cases`, d.evidence.cases, inBranches);
  const fewWords = d.evidence.method.includes('too few cases');
  if (inBranches < 20 && /no attribute [a-z ]+ predicts/.test(d.evidence.method)) f.problem(`${path}/evidence/method`, `${inBranches} cases in the branches, too few to tell, but the method says no attribute predicts the branch`);
  if (inBranches >= 20 && fewWords) f.problem(`${path}/evidence/method`, `${inBranches} cases in the branches, but the method says too few to tell`);
  const names = attributeNames(cases);
  d.rules.forEach((r, j) => {
    const conditions = conditionsOf(r.when);
    if (!conditions) return f.skip(`${path}/rules/${j}`, `unreadable when: ${JSON.stringify(r.when)}`);
    // Importers name case attributes case:X (XES, pm4py CSV) or carry them bare on the first event (simulator).
    const resolved = conditions.map((c) => ({ ...c, attribute: resolveName(c.attribute, names) }));
    let n = 0;
    let hits = 0;
    for (const v of visits) {
      if (!branches.has(v.next) || !resolved.every((c) => satisfies(c, known(v.c, v.k, c.attribute)))) continue;
      n += 1;
      if (v.next === r.then) hits += 1;
    }
    f.same(`${path}/rules/${j}/cases`, r.cases, n);
    f.near(`${path}/rules/${j}/holds`, r.holds, ratio(hits, n));
  });
}

function known(c: CaseFacts, k: number, attribute: string): string | number | boolean | undefined {
  for (let i = k; i >= 0; i--) {
    const attrs = c.events[i]!.attributes;
    if (Object.hasOwn(attrs, attribute)) return attrs[attribute];
  }
  return undefined;
}

const namesOf = new WeakMap<readonly CaseFacts[], Set<string>>();
function attributeNames(cases: readonly CaseFacts[]): Set<string> {
  let names = namesOf.get(cases);
  if (!names) {
    names = new Set();
    for (const c of cases) for (const e of c.events) for (const a in e.attributes) names.add(a);
    namesOf.set(cases, names);
  }
  return names;
}

/** The name as the events carry it; with or without a `case:` prefix only when the log has no attribute of the name as given. */
function resolveName(name: string, names: Set<string>): string {
  if (names.has(name)) return name;
  const other = name.startsWith('case:') ? name.slice(5) : `case:${name}`;
  return names.has(other) ? other : name;
}

/**
 * Roles read from the resource attribute: a resource is a role of its own ("R alone, doing only this step") exactly
 * when, recomputed from the events, it does at least 20 events of one activity, 95% of its own events there, and
 * stands out among the k resources doing it: all of it, or a share of at least max(30%, 1.5/k) that exceeds the fair
 * share 1/k by 3 binomial standard errors over the activity's events (the largest such per activity).
 */
function auditSpecialists(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const text = doc.assumptions.find((x): x is string => typeof x === 'string' && x.startsWith('Roles come from the'));
  if (!text || !text.includes('grouped by their activity profile')) return f.skip('/roles (specialists)', 'roles not read from the resource attribute');
  const byPair = new Map<string, Map<string, number>>();
  const own = new Map<string, number>();
  for (const c of cases) {
    for (const e of c.events) {
      if (e.resource === undefined || isPlaceholder(e.resource)) continue;
      const m = byPair.get(e.activity) ?? new Map<string, number>();
      m.set(e.resource, (m.get(e.resource) ?? 0) + 1);
      byPair.set(e.activity, m);
      own.set(e.resource, (own.get(e.resource) ?? 0) + 1);
    }
  }
  const activitiesOf = new Map<string, number>();
  for (const m of byPair.values()) for (const r of m.keys()) activitiesOf.set(r, (activitiesOf.get(r) ?? 0) + 1);
  const expected = new Set<string>();
  for (const [activity, m] of byPair) {
    const all = [...m.values()].reduce((a, b) => a + b, 0);
    const k = m.size;
    let best: { r: string; share: number } | undefined;
    for (const [r, n] of [...m].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
      // A value written only on the one activity it names is the step standing in for nobody.
      if (activitiesOf.get(r) === 1 && r.trim().toLowerCase() === activity.trim().toLowerCase()) continue;
      const share = n / all;
      const fair = 1 / k;
      const out = k === 1 ? share >= 0.3 : share >= Math.max(0.3, 1.5 * fair) && share - fair >= 3 * Math.sqrt((fair * (1 - fair)) / all);
      if (n >= 20 && n / own.get(r)! >= 0.95 && out && share > (best?.share ?? 0)) best = { r, share };
    }
    if (best) expected.add(best.r);
  }
  const stated = new Set<string>();
  for (const r of doc.roles) {
    const m = / \((.+) alone, doing only this step\)$/.exec(String(r.name));
    if (m) stated.add(m[1]!);
  }
  f.same('/roles (specialists)', [...stated].sort().join(', '), [...expected].sort().join(', '));
}
