import type { ProjectSnapshot } from '../store/project-store.js';
import type { ProcessTree } from '../mining/tree.js';
import { HOUR_MS } from '../time.js';
import { backboneOf, doneInsteadOf } from './backbone.js';
import { END_LABEL, EXPLAINED_MIN_CASES, readDecisions, tooFewToTell } from './decisions.js';
import { readSequenceRules } from './declare.js';
import { readLoopExits, readTurns } from './loops.js';
import { readEdgeKinds, type EdgeReading } from './edges.js';
import { readEscalations } from './escalations.js';
import { readClock, readTimeouts } from './timeouts.js';
import { readGroupings } from './groupings.js';
import { readExceptions } from './exceptions.js';
import { factsOf, pct, q, ratio, type ParsedVariants } from './facts.js';
import { readEnds } from './outcomes.js';
import { readPolicies } from './policies.js';
import { readProcessPart, readSuccessCriteria } from './process.js';
import { readQuality } from './quality.js';
import { readStages } from './stages.js';
import { treeFacts, treeOrderConflicts } from './tree-facts.js';
import { Ties } from './ties.js';
import { attributeTriggers } from './triggers.js';
import { applyVerdict, readVerdict, verdictMethod } from './verdicts.js';
import { profileOf } from './profile.js';
import { biasedDurations, readSelection, windowAssumption, windowCriteria, windowPolicies, windowRules } from './window.js';
import { pathVerdict } from './paths.js';
import { concurrencyText, readConcurrency, withoutConcurrent } from './concurrency.js';
import { stateAssumptions } from './state-log.js';
import { placeholderAssumptions } from './placeholder-steps.js';
import type {
  Decision,
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
  /** The mined process tree (undefined without cases), and its acceptance share. */
  tree: ProcessTree | undefined;
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
  edgeKinds: Map<string, EdgeReading>;
  decisions: Decision[];
  sequence_rules: SequenceRule[];
  exceptions: ExceptionItem[];
  /** Activities most of whose stopping cases were cut off while running (window.ts): paths ending there are work in progress, no exceptions. */
  openStops: Set<string>;
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
/** "a, b or c". */
const listed = (items: readonly string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`);

export function readProcess(input: ReadingInput): Reading {
  const { snapshot } = input;
  const f = factsOf(snapshot.tally, (millis) => millis / HOUR_MS, input.parsed);
  const backbone = backboneOf(f);
  // Whether there is a main path at all (ties, or a path per case: engine/reading/paths.ts); the builder states the figures.
  const paths = pathVerdict(f.variants.map((v) => v.count), f.cases);
  // What the data is (resolution, lifecycle, snapshots, leaks), before any claim on what it says.
  const profile = profileOf(snapshot.tally, f.toHours);
  const ties = new Ties(f, profile);
  // Order rows of the backbone steps first: every later order question about a step is then a lookup.
  for (const s of backbone.steps) f.order(s, s);
  const tree = treeFacts(input.tree);
  const required = tree.required;
  // Which activities run concurrently and which loops the tree has (engine/reading/concurrency.ts): one predicate for
  // every part below, so no part sequences what another reads as parallel.
  const conc = readConcurrency(f, input.tree, tree);
  const concurrent = conc.concurrent;
  const ends = readEnds(f, backbone, snapshot.periodEnd, profile.outcomes.length + profile.categories.length > 0, profile.frozenClock);
  // How the extract was cut (window.ts): cases cut off while running (ends.censoring), or kept for how they ended.
  const selection = readSelection(f);
  // Waits in fixed steps (a simulator's ticks, a batch job's schedule) say nothing of escalations or timing rules.
  const measured = readClock(f, profile.resolutionHours);
  // Generated times (engine/reading/profile.ts) say no more of timing than a clock ticking in fixed steps; a frozen
  // clock (every case at one instant: a log of order only, NO_CLOCK_TIME) says nothing of timing at all.
  const clock = profile.generatedTimes || profile.frozenClock ? { ...measured, quantized: true } : measured;
  // Nor do they say where one phase waits for another: stages are then cut along the order alone.
  const stages = readStages(f, backbone, new Set(ends.ends.keys()), !clock.quantized && !profile.frozenClock, concurrent);
  const escalations = clock.quantized ? { escalations: [] as Escalation[], edges: new Set<string>(), method: `none: ${measured.quantized && !profile.frozenClock ? 'the waits come in fixed steps (see the clock assumption)' : profile.frozenClock ? 'the log records no waits (see the times assumption)' : 'the times were generated (see the times assumption)'}` } : readEscalations(f, tree, profile);
  // Steps after a fixed wait are escalations too, read from their timing alone (engine/reading/timeouts.ts).
  const timeouts = readTimeouts(f, clock, escalations.edges);
  for (const { escalation: t } of timeouts) {
    escalations.escalations.push(t);
    // The hand-off is an escalation edge only when the fixed wait is most of it (else a clerk's early step shares it).
    if (t.evidence.share >= 0.5) escalations.edges.add(`${t.from}\u0000${t.to}`);
  }
  const edgeKinds = readEdgeKinds(f, backbone, required, input.nodes, input.edges, escalations.edges, ends.failureEnds, ends.stops, ties, profile, conc, ends.censoring?.byActivity);
  // Where loops go on their later turns (decisions are read at first visits; engine/reading/loops.ts).
  const turns = readTurns(f);
  const decisions = readDecisions(f, tree, profile, turns);
  // A check's verdict written in an attribute (engine/reading/verdicts.ts) splits the endings it is known at.
  const verdict = readVerdict(f, profile, decisions.decisions, ends);
  const verdictEnds = verdict ? [...verdict.byEnding.values()].reduce((n, s) => [n[0]! + s.yes, n[1]! + s.no], [0, 0]) : [0, 0];
  const recordedOutcomes = verdict ? [...profile.outcomes, { attribute: verdict.attribute, yes: verdictEnds[0]!, no: verdictEnds[1]! }] : profile.outcomes;
  const successCriteria = readSuccessCriteria(f, ends, profile.outcomes);
  if (verdict) applyVerdict(verdict, ends, successCriteria, f.cases);
  // Steps done instead of a backbone step (another channel for it), by that step.
  const instead = new Map<string, string[]>();
  for (const a of f.activities) {
    const b = doneInsteadOf(f, backbone, a);
    if (b !== undefined) instead.set(b, [...(instead.get(b) ?? []), a]);
  }
  const sequence = readSequenceRules(f, ties, instead);
  sequence.rules.push(...readLoopExits(f, turns, ties));
  const unordered = withoutConcurrent(sequence.rules, conc);
  sequence.rules = unordered.rules;
  // Where the outcome is a status reached (not a last step), a failure status is no ending a case stops at: the
  // exceptions' "ends with a failure ending" would count the few cases whose last event it is.
  const stopEnds = ends.status ? new Map([...ends.ends].filter(([, k]) => k !== 'failure')) : ends.ends;
  const exceptions = readExceptions(f, backbone, required, stopEnds, ends.stops, profile.frozenClock, paths.kind === 'main', conc);
  // A repeat the verdict of a check sends cases back to is explained by that attribute, not by the step before it.
  const answered = attributeTriggers(f, decisions.decisions, exceptions.exceptions);
  const policies = readPolicies(f, backbone, ties, clock.quantized, concurrent);
  policies.policies = windowPolicies(f, policies.policies, ends.censoring, selection);
  const objectTypes = [...snapshot.objectCounts.keys()];
  const process = readProcessPart(f, backbone, snapshot.meta.case_notion, objectTypes, ends, JSON.parse(snapshot.meta.case_id_sample ?? '[]') as string[], recordedOutcomes, profile.categories);
  if (selection?.ending !== undefined) {
    const others = f.cases - selection.endingCases;
    process.objective += ` ${others ? `All but ${others} of the cases end` : 'Every case ends'} with ${q(selection.ending)}: the log was selected on that ending (see the observation window assumption), so it shows no outcome variation and no success share is given.`;
  }
  // Under a frozen clock the first event's date is no date (the times assumption says so): no epoch or outlier note.
  const quality = readQuality(f, snapshot.meta, ends, profile.frozenClock ? undefined : snapshot.periodStart, paths.kind === 'distinct');
  const groups = readGroupings(f, profile, ends);
  process.case_represents += groups.note;
  // A log of record states: what a case is, is a record whose status changes are logged (the snapshot signals).
  if (profile.snapshot.length) process.case_represents += '; the log records the states of one record per case (a ticket or file whose status changes are logged; see the record updates assumption)';

  const assumptions: Plain[] = [
    `Reading (the interpreted parts) is computed by fixed rules over the counted state, not by a language model; each claim's evidence states its method. Name-based guesses are marked hypothesis.`,
    `Outcomes: ${ends.method}.${verdict ? ` Recorded verdict: ${verdictMethod(verdict)}; at those endings a case ending true is a success and one ending false a failure, whatever the ending's name.` : ''}`,
    `The backbone (the process's main behaviour, on which stages, edge kinds, skips and timing policies rest) is the ${backbone.method}: ${backbone.steps.map(q).join(', ')}. ${
      paths.kind === 'main'
        ? `The main variant is only the commonest path (${pct(ratio(paths.top, f.cases))} of cases).`
        : `No variant is main (${paths.kind === 'tied' ? 'the commonest paths are tied' : 'nearly every case has a path of its own'}: see the variants assumption), so no path is the process's way; the backbone rests on the counts per activity.`
    }`,
    concurrencyText(f, conc, unordered.dropped, conc.loops),
    `Stages: ${stages.method}.`,
    edgeKinds.assumption,
    `Decisions: ${decisions.method}. Branches and rules are read at an activity's first visit in a case; where a loop brings cases back to it, the steps taken on its later turns are stated in the decision's evidence, per turn. Where a decision's branches hold fewer than ${EXPLAINED_MIN_CASES} cases, no rule could explain it, so the reading says there are too few cases to tell, not that no attribute predicts it.`,
    `Sequence rules: ${sequence.method}; and, for loops, a step that comes right after an activity only from its k-th visit on (never at the earlier ones, where at its later rate at least 5 cases would have taken it), counted over the variants.`,
    `Exceptions: ${exceptions.method}.` +
      (exceptions.loops.length ? ` Repeats most cases make are the normal loop of the work, not exceptions: ${exceptions.loops.join('; ')}.` : '') +
      (exceptions.treeLoops.length ? ` Repeats that are turns of a loop of the mined process tree, not exceptions: ${exceptions.treeLoops.join('; ')}.` : ''),
    `Escalations: ${escalations.method}. Escalations after a failed or repeated attempt are not measured, only those after a long wait.`,
    `Policies: ${policies.method}. The case duration includes open cases (their duration so far)${biasedDurations(f, ends.censoring, selection) ? '; here no service level is read from it (see the observation window assumption)' : ''}.`,
    ...windowAssumption(f, ends.censoring, selection),
    ...quality.assumptions,
    ...placeholderAssumptions(f),
    ...profile.assumptions(),
    ...stateAssumptions(snapshot.meta, profile),
    ...groups.assumptions,
    ...(measured.quantized
      ? [`Clock: ${pct(clock.share)} of the hand-offs come after one of a few fixed waits (${clock.durations.slice(0, 6).join(', ')} hours, each within 5%): the times come from a simulated or batch clock, so no escalation, timeout, timing policy or service level is read from them.`]
      : []),
  ];

  // A parallel block of the tree that every case runs in one order is flagged, not left beside the rule silently.
  const open_questions: Plain[] = [...quality.open_questions, ...groups.open_questions, ...treeOrderConflicts(tree, f, sequence.rules)];
  for (const d of decisions.decisions) {
    if (d.explained) continue;
    const lead = decisions.leads.get(d.id);
    open_questions.push({
      question:
        `After ${q(d.at)}, what decides between ${listed(d.branches.map((b) => (b.to === END_LABEL ? 'stopping there' : q(b.to))))}? ` +
        (d.evidence.cases < EXPLAINED_MIN_CASES
          ? `The log has ${tooFewToTell(d.evidence.cases)}${lead ? `; ${lead}` : ''}.`
          : `No attribute tried at that point predicts it, on rules resting on at least ${EXPLAINED_MIN_CASES} cases, at least 10 points better than always guessing the commonest branch${lead ? `; but ${lead}` : ''}.`),
      evidence: d.evidence as unknown as Plain,
    });
  }
  // One question for every ending the data gives no verdict for (the rule is stated once, in the outcomes assumption).
  const unread = ends.outcomes.filter((o) => o.kind === 'other' && ends.ends.has(o.end_activity));
  if (unread.length) {
    const cases = unread.reduce((n, o) => n + o.cases, 0);
    const shown = unread.slice(0, 8).map((o) => `${q(o.end_activity)} (${o.cases})`);
    open_questions.push({
      question: profile.categories.length
        ? `Which of these endings are successes and which failures? Their names give no verdict: ${shown.join(', ')}${unread.length > 8 ? ` and ${unread.length - 8} more` : ''}; the log records ${profile.categories.map((c) => q(c.attribute)).join(' and ')} at the end (see the outcome assumption): which of its values are successes?`
        : `Which of these endings are successes and which failures? The log records no verdict for them: ${shown.join(', ')}${unread.length > 8 ? ` and ${unread.length - 8} more` : ''}.`,
      evidence: { cases, share: ratio(cases, f.cases), method: 'outcome counts; see the outcomes assumption' },
    });
  }
  if (ends.stalledCases > 0) {
    open_questions.push({
      question: profile.frozenClock
        ? `Are the ${ends.stalledCases} cases that stopped outside any ending unfinished, or abandoned? The log records no times, so it cannot tell.`
        : `Are the ${ends.stalledCases} cases that stopped outside any ending long ago abandoned, or still waiting?`,
      evidence: {
        cases: ends.stalledCases,
        share: ratio(ends.stalledCases, f.cases),
        method: profile.frozenClock ? 'cases stopped outside every ending (the outcome rules in the assumptions; without times none is read as open)' : 'cases stopped outside every ending and older there than the open cut (the outcome rules in the assumptions)',
      },
    });
  }
  for (const e of exceptions.exceptions) {
    if (e.id.startsWith('repeated-') && e.evidence.share >= 0.1 && !answered.has(e.id)) {
      open_questions.push({ question: `Why is ${e.name.replace(' repeated', '')} repeated in ${pct(e.evidence.share)} of the cases that have it?`, evidence: e.evidence as unknown as Plain });
    }
  }
  for (const e of escalations.escalations) {
    open_questions.push({ question: `Is ${q(e.to)} after ${q(e.from)} a fixed rule (${e.trigger})?`, evidence: e.evidence as unknown as Plain });
  }

  return {
    process,
    success_criteria: windowCriteria(successCriteria, selection),
    outcomes: ends.outcomes,
    stages: stages.stages,
    stageOf: stages.stageOf,
    edgeKinds: edgeKinds.kinds,
    decisions: decisions.decisions,
    sequence_rules: windowRules(sequence.rules, selection),
    exceptions: exceptions.exceptions,
    escalations: escalations.escalations,
    policies: policies.policies,
    openStops: new Set([...(ends.censoring?.byActivity ?? [])].filter(([a, n]) => n >= 0.5 * (ends.stops.get(a) ?? 0)).map(([a]) => a)),
    assumptions,
    open_questions,
  };
}

