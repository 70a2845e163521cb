import { STANDARD_TRANSITIONS } from '../../engine/lifecycle.js';
import type { Input } from './input.js';
import type { LifecycleMode } from './types.js';

/**
 * What a log's `lifecycle:transition` column is, read from its values before its events are (issue 31).
 *
 * A tool that logs an activity's execution writes the standard lifecycle model there (start, complete, schedule,
 * suspend, …): two events of one step, paired into one execution (lifecycle.ts). A ticketing or case-management
 * system that logs a record's status changes writes its second level of state there instead ('In Progress',
 * 'Awaiting Assignment', 'Wait', 'Closed', 'Cancelled'): a change of that value is a change of state, and the waits
 * of the process are the times spent in those sub-states. Dropping it (or pairing on it) folds 'In Progress →
 * Assigned → In Progress' into a repeat of one status and mixes a half-hour close with a months-long wait. So
 * without `--lifecycle`, the mode is chosen per log: `label` (the activity is the name and the sub-state,
 * `name+value`) when most events carrying a transition carry one outside the standard model, else `pair`.
 */

/** Events read at most before the choice is made: the column's vocabulary shows in its first thousands. */
const SNIFF_EVENTS = 2000;
/** Bytes of content read at most for the choice (BPIC 2012's header runs to megabytes; a log whose header is larger is read by the old default, pair). */
const SNIFF_BYTES = 16 << 20;
/** Share of events carrying a transition that must be outside the standard model for it to be a state (as engine/reading/profile.ts reads it). */
export const NON_STANDARD_SHARE = 0.5;

/** The lifecycle mode a log is read with and why, in words (stored as meta `lifecycle` and `lifecycle_reason`). */
export interface LifecycleChoice {
  mode: LifecycleMode;
  reason: string;
}

/** Counts of the transition values met (trimmed, lower-cased) and the events read. */
export interface TransitionSample {
  values: Map<string, number>;
  /** Original spelling of each value (its first), for the reason. */
  spelled: Map<string, string>;
  /** XES: the events met in the sample, and whether time:timestamp is named there at all (1) or not (0: order only). */
  met?: number;
  timed?: number;
}

/**
 * The mode for these options and values: the one given; `pair` when a classifier builds the activity (its keys say
 * what an activity is) or the values are the standard model's; `label` when most are not.
 */
export function chooseLifecycle(
  given: LifecycleMode | undefined,
  classifier: string | undefined,
  sample: TransitionSample,
  /** What the log calls its activity and lifecycle fields (a CSV's column names). */
  names: { activity: string; lifecycle: string } = { activity: 'concept:name', lifecycle: 'lifecycle:transition' },
): LifecycleChoice {
  if (given !== undefined) return { mode: given, reason: `--lifecycle ${given}, as given` };
  if (classifier !== undefined) return { mode: 'pair', reason: `the classifier ${classifier} builds the activity; starts paired with what closes them` };
  let carrying = 0;
  let outside = 0;
  for (const [value, n] of sample.values) {
    carrying += n;
    if (!STANDARD_TRANSITIONS.has(value)) outside += n;
  }
  if (carrying === 0) return { mode: 'pair', reason: `no ${names.lifecycle} values among the events read first` };
  const share = outside / carrying;
  const pct = `${Math.round(share * 1000) / 10}%`;
  if (share < NON_STANDARD_SHARE) {
    return { mode: 'pair', reason: `${names.lifecycle} holds the standard lifecycle model on ${Math.round((1 - share) * 1000) / 10}% of the ${carrying} events read first: a start and the transition closing it are one execution` };
  }
  const examples = [...sample.values]
    .filter(([v]) => !STANDARD_TRANSITIONS.has(v))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 4)
    .map(([v]) => `'${sample.spelled.get(v) ?? v}'`);
  return {
    mode: 'label',
    reason:
      `${names.lifecycle} holds values outside the lifecycle model on ${pct} of the ${carrying} events read first (${examples.join(', ')}): ` +
      `they are a state of the record (a sub-status), so each activity is ${names.activity}+${names.lifecycle} and a change of either is a step`,
  };
}

/** The transition values of a XES log's first events (at most SNIFF_EVENTS events, within SNIFF_BYTES of content). */
export async function sampleTransitions(input: Input): Promise<TransitionSample> {
  const sample: TransitionSample = { values: new Map(), spelled: new Map() };
  const valueOf = /value\s*=\s*(["'])(.*?)\1/;
  const KEY = 'lifecycle:transition';
  let carry = '';
  let bytes = 0;
  let events = 0;
  // Events met (with a transition or not): a log without the column stops being read after as many as with it.
  let met = 0;
  // Whether time:timestamp is named (a global default included): a log whose first events have none records order only.
  let timed = 0;
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of input.chunks()) {
    bytes += chunk.length;
    const text = carry + decoder.decode(chunk, { stream: true });
    // indexOf, not a regular expression over the text: the scan costs what decompressing the bytes does.
    let at = text.indexOf(KEY);
    let done = 0;
    while (at >= 0) {
      const open = text.lastIndexOf('<', at);
      const close = text.indexOf('>', at);
      if (close < 0) break;
      done = close + 1;
      const tag = text.slice(open, close + 1);
      at = text.indexOf(KEY, close);
      // A string attribute keyed lifecycle:transition, its value before or after its key.
      if (!tag.startsWith('<string') || !new RegExp(`key\\s*=\\s*["']${KEY}["']`).test(tag)) continue;
      const raw = valueOf.exec(tag.replace(/key\s*=\s*(["']).*?\1/, ''))?.[2];
      if (raw === undefined) continue;
      const value = unescape(raw).trim();
      const key = value.toLowerCase();
      if (!key) continue;
      sample.values.set(key, (sample.values.get(key) ?? 0) + 1);
      if (!sample.spelled.has(key)) sample.spelled.set(key, value);
      events += 1;
    }
    // Where the sample's last event ends: a time met after it says nothing of the events read first.
    let upTo = text.length;
    for (let e = text.indexOf('<event'); e >= 0; e = text.indexOf('<event', e + 6)) {
      if (met === SNIFF_EVENTS) {
        upTo = e;
        break;
      }
      met++;
    }
    const named = text.indexOf('time:timestamp');
    if (named >= 0 && named < upTo) timed = 1;
    if (events >= SNIFF_EVENTS || met >= SNIFF_EVENTS || bytes >= SNIFF_BYTES) break;
    // An unfinished tag at the end is read with the next chunk.
    const open = text.lastIndexOf('<');
    carry = open >= done && text.length - open < 4096 ? text.slice(open) : '';
  }
  sample.met = met;
  sample.timed = timed;
  return sample;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e]!);
}
