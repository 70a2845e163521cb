import { choose, staff, type DecisionRule, type ModelSpec } from '../model.js';

/*
 * Emergency care, where no path is typical: every patient is registered,
 * triaged, diagnosed and discharged, but which examinations and treatments
 * happen in between is decided for each independently, and those done run
 * side by side, so their order varies. The variants are many and none holds
 * more than a few percent of cases; the commonest single variant is the
 * patient who leaves before being seen (a short, always-identical path),
 * which is not a success. A reading must find the backbone and the phases
 * from the activities, not from the commonest variant.
 */

const ACUITY: readonly (readonly [number, number])[] = [
  [1, 0.05],
  [2, 0.15],
  [3, 0.4],
  [4, 0.3],
  [5, 0.1],
];
const admission: DecisionRule = { attribute: 'acuity', op: '<=', value: 2, then: 'Admit to Ward', otherwise: 'Discharge', rate: 0.85 };
const LEFT = 0.035;
const TRANSFER = 0.03;
const MAX_ROUNDS = 3;
/** Each examination or treatment is ordered or not on its own (a CT scan whether or not an X-ray is taken). */
const EXAMS = { 'Blood Test': 0.5, 'X-Ray': 0.5, 'CT Scan': 0.3, ECG: 0.45, 'Consult Specialist': 0.35, 'Administer Medication': 0.5 } as const;

const acuityAtMost2 = ACUITY.filter(([a]) => a <= 2).reduce((n, [, p]) => n + p, 0);
const admitted = acuityAtMost2 * admission.rate + (1 - acuityAtMost2) * (1 - admission.rate);
const diagnosed = 1 - LEFT;
const decided = diagnosed * (1 - TRANSFER);
const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** A patient's visit to the emergency department, from registration to discharge. */
export const patientCare: ModelSpec = {
  name: 'patient-care',
  description: 'Emergency department visits from registration and triage through examinations and treatment to diagnosis, admission and discharge.',
  caseRepresents: 'a patient visit',
  casePrefix: 'PC',
  roles: {
    clerk: staff('clerk', 4),
    nurse: staff('nurse', 12),
    radiographer: staff('radiographer', 4),
    specialist: staff('specialist', 5),
    physician: staff('physician', 8),
  },
  // Waits are short inside a phase and long between phases (the patient waits for the next team).
  steps: {
    Register: { role: 'clerk', stage: 'Intake', waitMedianHours: 0, waitSigma: 0 },
    Triage: { role: 'nurse', stage: 'Intake', waitMedianHours: 0.3, waitSigma: 0.5 },
    'Left Without Being Seen': { role: 'nurse', stage: 'Intake', waitMedianHours: 3, waitSigma: 0.5 },
    // Each examination waits from triage on its own, all about as long: they bunch together and interleave.
    'Blood Test': { role: 'nurse', stage: 'Examination', waitMedianHours: 2.5, waitSigma: 0.3 },
    'X-Ray': { role: 'radiographer', stage: 'Examination', waitMedianHours: 3, waitSigma: 0.3 },
    'CT Scan': { role: 'radiographer', stage: 'Examination', waitMedianHours: 3.5, waitSigma: 0.3 },
    ECG: { role: 'nurse', stage: 'Examination', waitMedianHours: 2.5, waitSigma: 0.3 },
    'Consult Specialist': { role: 'specialist', stage: 'Examination', waitMedianHours: 3.5, waitSigma: 0.3 },
    'Administer Medication': { role: 'nurse', stage: 'Examination', waitMedianHours: 2.5, waitSigma: 0.4 },
    Diagnosis: { role: 'physician', stage: 'Treatment', waitMedianHours: 3, waitSigma: 0.4 },
    'Transfer to Other Hospital': { role: 'physician', stage: 'Treatment', waitMedianHours: 2, waitSigma: 0.5 },
    'Admit to Ward': { role: 'nurse', stage: 'Treatment', waitMedianHours: 1, waitSigma: 0.4 },
    'Ward Round': { role: 'physician', stage: 'Treatment', waitMedianHours: 20, waitSigma: 0.3 },
    Discharge: { role: 'physician', stage: 'Discharge', waitMedianHours: 4, waitSigma: 0.4 },
  },
  attributes: [
    { name: 'acuity', type: 'int', level: 'case', description: 'triage level, 1 (most urgent) to 5' },
    { name: 'age', type: 'int', level: 'case', description: 'age in years' },
    { name: 'arrivalMode', type: 'string', level: 'case', description: 'ambulance or walk-in' },
    { name: 'ward', type: 'string', level: 'event', activities: ['Admit to Ward'], description: 'internal, surgery or cardiology' },
  ],
  caseAttributes(rng) {
    return {
      acuity: rng.weighted(ACUITY),
      age: rng.int(1, 95),
      arrivalMode: rng.chance(0.25) ? 'ambulance' : 'walk-in',
    };
  },
  run(c) {
    c.step('Triage', { sticky: true });
    if (c.rng.chance(LEFT)) {
      c.step('Left Without Being Seen');
      return;
    }
    // Every choice is drawn up front, in a fixed order, so a case's path depends only on its own stream.
    const ordered = Object.fromEntries(Object.entries(EXAMS).map(([a, p]) => [a, c.rng.chance(p)])) as Record<keyof typeof EXAMS, boolean>;
    c.parallel(
      (b) => {
        if (ordered['Blood Test']) b.step('Blood Test', { sticky: true });
      },
      (b) => {
        if (ordered['X-Ray']) b.step('X-Ray');
      },
      (b) => {
        if (ordered['CT Scan']) b.step('CT Scan');
      },
      (b) => {
        if (ordered.ECG) b.step('ECG', { sticky: true });
      },
      (b) => {
        if (ordered['Consult Specialist']) b.step('Consult Specialist');
      },
      (b) => {
        if (ordered['Administer Medication']) b.step('Administer Medication', { sticky: true });
      },
    );
    c.step('Diagnosis', { sticky: true });
    if (c.rng.chance(TRANSFER)) {
      c.step('Transfer to Other Hospital', { sticky: true });
      return;
    }
    if (choose(admission, c) === 'Admit to Ward') {
      c.step('Admit to Ward', { attributes: { ward: c.rng.pick(['internal', 'surgery', 'cardiology']) } });
      const rounds = c.rng.int(1, MAX_ROUNDS);
      for (let i = 0; i < rounds; i++) c.step('Ward Round');
    }
    c.step('Discharge', { sticky: true });
  },
  truth: {
    startActivity: 'Register',
    endActivities: { success: ['Discharge'], failure: ['Left Without Being Seen', 'Transfer to Other Hospital'] },
    stages: ['Intake', 'Examination', 'Treatment', 'Discharge'],
    decisions: [{ at: 'Diagnosis', branches: ['Admit to Ward', 'Discharge'], rule: admission, shares: null }],
    rework: [],
    parallel: [{ after: ['Triage'], branches: [['Blood Test'], ['X-Ray'], ['CT Scan'], ['ECG'], ['Consult Specialist'], ['Administer Medication']], join: 'Diagnosis' }],
    separation: [],
    escalations: [],
    exceptions: [
      { name: 'left without being seen', after: 'Triage', activities: ['Left Without Being Seen'], probability: LEFT, endsCase: true },
      { name: 'transfer', after: 'Diagnosis', activities: ['Transfer to Other Hospital'], probability: TRANSFER, endsCase: true },
    ],
    backbone: [
      { activity: 'Register', share: 1 },
      { activity: 'Triage', share: 1 },
      { activity: 'Diagnosis', share: r4(diagnosed) },
      { activity: 'Discharge', share: r4(decided) },
    ],
    optional: Object.entries(EXAMS).map(([activity, probability]) => ({ activity, probability })),
    // Rounds are drawn uniformly from 1 to MAX_ROUNDS: two or more in (MAX_ROUNDS - 1) / MAX_ROUNDS of admissions.
    repeated: [{ activity: 'Ward Round', share: r4((decided * admitted * (MAX_ROUNDS - 1)) / MAX_ROUNDS), minTimes: 2, maxTimes: MAX_ROUNDS }],
    commonestVariantMaxShare: 0.05,
  },
};
