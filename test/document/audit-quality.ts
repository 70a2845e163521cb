import type { GraphDocument } from '../../engine/document/types.js';
import type { CaseFacts, Findings } from './audit.js';

/**
 * The audit of the data-quality and roles figures of issue 31, recomputed from the cases: placeholder steps (events,
 * cases, and no stage, stage member or ending on them), placeholder resources (events), and the events carrying each
 * organisational attribute the roles assumption names.
 */
const PLACEHOLDER_RESOURCES = new Set(['', '?', '-', '--', 'missing', 'undefined', 'unknown', 'null', 'none', 'n/a', 'na', 'nan', 'nil', 'empty', 'not set', '#n/a', '__invalid__']);

export function auditQuality(doc: GraphDocument, cases: readonly CaseFacts[], f: Findings): void {
  const texts = doc.assumptions.filter((a): a is string => typeof a === 'string');
  const steps = texts.find((t) => / names? no step \(a placeholder/.test(t));
  if (steps) {
    for (const m of steps.matchAll(/'([^']*)' \((\d+) events in (\d+) cases\)/g)) {
      const [, label, events, withIt] = m as unknown as [string, string, string, string];
      let e = 0;
      let c = 0;
      for (const k of cases) {
        const n = k.visits.get(label) ?? 0;
        e += n;
        if (n) c++;
      }
      f.same(`/assumptions (placeholder step ${label})/events`, Number(events), e);
      f.same(`/assumptions (placeholder step ${label})/cases`, Number(withIt), c);
      const node = doc.nodes.find((x) => x.kind === 'activity' && x.label === label);
      if (node?.stage) f.problem(`/nodes (${label})/stage`, `a placeholder step is in stage ${node.stage}`);
      if (doc.stages.some((s) => s.activities.includes(label))) f.problem(`/stages (${label})`, 'a placeholder step is a stage member');
      if (doc.outcomes.some((o) => o.end_activity === label)) f.problem(`/outcomes (${label})`, 'a placeholder step is an ending');
    }
  }
  const nobody = texts.find((t) => t.startsWith('Data quality: the resource '));
  if (nobody) {
    for (const m of nobody.matchAll(/'([^']*)' on (\d+) events/g)) {
      const [, resource, events] = m as unknown as [string, string, string];
      let e = 0;
      for (const k of cases) for (const ev of k.events) if (ev.resource === resource) e++;
      f.same(`/assumptions (resource ${resource})/events`, Number(events), e);
      if (!PLACEHOLDER_RESOURCES.has(resource.trim().toLowerCase())) f.problem(`/assumptions (resource ${resource})`, 'not a placeholder value');
    }
  }
  const roles = texts.find((t) => t.startsWith('Roles come from the ') && / events \([\d.]+%\) carry one/.test(t));
  if (roles) {
    const carrying = (attribute: string) => {
      let e = 0;
      for (const k of cases) {
        for (const ev of k.events) {
          const v = ev.attributes[attribute];
          if (typeof v === 'string' && v.trim() && v.trim().length <= 100 && !PLACEHOLDER_RESOURCES.has(v.trim().toLowerCase())) e++;
        }
      }
      return e;
    };
    const used = /^Roles come from the (\S+) attribute.*?; (\d+) of (\d+) events/.exec(roles);
    if (used) f.same(`/assumptions (roles ${used[1]})/events`, Number(used[2]), carrying(used[1]!));
    for (const m of roles.matchAll(/(\S+) \(on (\d+) events, [\d.]+%\)/g)) f.same(`/assumptions (roles ${m[1]})/events`, Number(m[2]), carrying(m[1]!));
  }
}
