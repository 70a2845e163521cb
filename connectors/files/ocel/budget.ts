import { cmp, EVENT_LIMIT_NAMES } from '../../../engine/index.js';
import { DEFAULT_INPUT_LIMITS, INPUT_LIMIT_NAMES } from '../limits.js';
import { OcelError } from './errors.js';
import type { LogFacts } from './flatten.js';

/**
 * What an OCEL log may cost to read, counted before the work it would cause
 * (PCG_LIMIT_OCEL_RELATIONS, PCG_LIMIT_OBJECTS_PER_EVENT,
 * PCG_LIMIT_OBJECT_TYPES_PER_PROJECT). Reading a log and choosing its case
 * notion are linear in its relations (one pass, one union-find); flattening
 * is not: each OCEL event becomes one event per object of the case type, each
 * carrying all the OCEL event's objects, so an event of n objects of that type
 * makes n² references, and everything after (validation, digests, stored
 * bodies, counting) pays for each. 600 events of 600 objects (28.7 MB) made
 * 216 million and took 533 s to accept. So the flattened relations are
 * counted from the facts, before any event is made, and held to the budget
 * the raw relations are held to while they are read.
 */
export interface RelationBudget {
  readonly limit: number;
  /** Counts relations as they are read; throws once past the limit. */
  read(n: number): void;
}

const over = (limit: number, what: string) =>
  new OcelError('limit_exceeded', `limit ${INPUT_LIMIT_NAMES.ocelRelations}: an OCEL log may hold at most ${limit} relations (${what})`);

export function relationBudget(limit = DEFAULT_INPUT_LIMITS.ocelRelations): RelationBudget {
  let count = 0;
  return {
    limit,
    read(n) {
      count += n;
      if (count > limit) throw over(limit, 'this one has more event-to-object and object-to-object relations');
    },
  };
}

/**
 * The event-to-object relations the flattening on `caseType` would make: per OCEL event within the per-event bound,
 * its cases times its objects. Throws past the budget, before anything is made.
 */
export function assertFlattenable(facts: LogFacts, caseType: string, budget: RelationBudget, objectsPerEvent: number): void {
  let total = 0;
  for (const e of facts.events) {
    const objects = facts.related.get(e.id);
    if (!objects || objects.length > objectsPerEvent) continue;
    let cases = 0;
    let last: string | undefined;
    // Sorted by type then id (logFacts): the case objects are a run, one object under two qualifiers counted once.
    for (const o of objects) if (o.type === caseType && o.id !== last) (cases += 1), (last = o.id);
    total += cases * objects.length;
    if (total > budget.limit) {
      throw over(budget.limit, `flattened on "${caseType}", each of its events in k cases carries its objects k times: this one makes more than that; an event with many objects of the case type costs their square`);
    }
  }
}

/** A log with more object types than a project may hold is refused whole (its events would be refused type by type). */
export function assertObjectTypes(facts: LogFacts, limit: number): void {
  if (facts.objectTypes.length <= limit) return;
  const first = facts.objectTypes.map((t) => t.type).sort(cmp).slice(0, 3);
  throw new OcelError(
    'limit_exceeded',
    `limit ${EVENT_LIMIT_NAMES.objectTypesPerProject}: a project may have at most ${limit} object types (this log has ${facts.objectTypes.length}: "${first.join('", "')}", …)`,
  );
}
