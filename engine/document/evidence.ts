import type { Evidence, EvidenceLevels } from './types.js';

/** The five strengths, defined once (the document's `evidence_levels`). */
export const EVIDENCE_LEVELS: EvidenceLevels = {
  counted: 'Counted directly from the events: an exact number of cases or events, with no model or judgement in between.',
  strong: 'Mined or inferred from the counts and holding in at least 95 of 100 cases it applies to, over at least 30 cases.',
  moderate: 'Mined or inferred and holding in at least 80 of 100 cases it applies to, over at least 10 cases.',
  weak: 'Mined or inferred but holding in fewer than 80 of 100 cases, or resting on fewer than 10 cases.',
  hypothesis: 'A reading of the data not tested against the counts: a lead to check, not a finding.',
};

/** A share that is always a finite number in 0..1 (0 of 0 is 0). */
export function shareOf(part: number, whole: number): number {
  if (!(whole > 0) || !(part > 0)) return 0;
  return Math.min(1, part / whole);
}

export function counted(cases: number, ofCases: number, method: string): Evidence {
  return { cases, of_cases: ofCases, share: shareOf(cases, ofCases), strength: 'counted', method };
}

/** Evidence for a mined claim: the strength follows the definitions above. */
export function mined(cases: number, ofCases: number, method: string): Evidence {
  const share = shareOf(cases, ofCases);
  const strength = share >= 0.95 && ofCases >= 30 ? 'strong' : share >= 0.8 && ofCases >= 10 ? 'moderate' : 'weak';
  return { cases, of_cases: ofCases, share, strength, method };
}
