import { choose, round2, staff, type DecisionRule, type EscalationTruth, type ModelSpec } from '../model.js';

const inspection: DecisionRule = { attribute: 'claimAmount', op: '>', value: 10_000, then: 'Expert Inspection', otherwise: 'Assess Claim', rate: 0.95 };
const escalation: EscalationTruth = { activity: 'Escalate Claim', from: 'Assess Claim', to: 'Review Assessment', afterHours: 48, earlyRate: 0.01, role: 'teamlead' };
const REJECT = 0.02;
const FRAUD = 0.01;
const DOCUMENTS = 0.25;
const AUDIT = 0.4;
const medianByType: Record<string, number> = { car: 4000, home: 8000, travel: 1200, health: 3000 };

/** An insurance claim from registration to settlement. */
export const claims: ModelSpec = {
  name: 'claims',
  description: 'Insurance claims from registration through coverage check, assessment and review to settlement.',
  caseRepresents: 'an insurance claim',
  casePrefix: 'CL',
  roles: {
    agent: staff('agent', 8),
    adjuster: staff('adjuster', 10),
    expert: staff('expert', 4),
    investigator: staff('investigator', 2),
    teamlead: staff('teamlead', 2),
    manager: staff('manager', 3),
    finance: staff('finance', 4),
    system: ['system'],
  },
  steps: {
    'Register Claim': { role: 'agent', stage: 'Intake', waitMedianHours: 0, waitSigma: 0 },
    'Check Coverage': { role: 'agent', stage: 'Intake', waitMedianHours: 4, waitSigma: 0.8 },
    'Reject Claim': { role: 'agent', stage: 'Intake', waitMedianHours: 12, waitSigma: 0.7 },
    'Expert Inspection': { role: 'expert', stage: 'Assessment', waitMedianHours: 48, waitSigma: 0.7 },
    'Assess Claim': { role: 'adjuster', stage: 'Assessment', waitMedianHours: 16, waitSigma: 0.9 },
    'Request Documents': { role: 'agent', stage: 'Assessment', waitMedianHours: 4, waitSigma: 0.6 },
    'Fraud Investigation': { role: 'investigator', stage: 'Assessment', waitMedianHours: 24, waitSigma: 0.7 },
    'Deny Claim': { role: 'manager', stage: 'Assessment', waitMedianHours: 72, waitSigma: 0.6 },
    'Escalate Claim': { role: 'teamlead', stage: 'Review', waitMedianHours: 0, waitSigma: 0 },
    'Review Assessment': { role: 'adjuster', stage: 'Review', waitMedianHours: 20, waitSigma: 1 },
    'Quality Check': { role: 'teamlead', stage: 'Review', waitMedianHours: 8, waitSigma: 0.7 },
    'Approve Claim': { role: 'manager', stage: 'Review', waitMedianHours: 6, waitSigma: 0.8 },
    'Calculate Payment': { role: 'finance', stage: 'Settlement', waitMedianHours: 4, waitSigma: 0.6 },
    'Pay Claim': { role: 'finance', stage: 'Settlement', waitMedianHours: 24, waitSigma: 0.5 },
    'Send Decision Letter': { role: 'agent', stage: 'Settlement', waitMedianHours: 10, waitSigma: 0.7 },
    'Close Claim': { role: 'system', stage: 'Settlement', waitMedianHours: 2, waitSigma: 0.5 },
  },
  attributes: [
    { name: 'claimType', type: 'string', level: 'case', description: 'car, home, travel or health' },
    { name: 'claimAmount', type: 'float', level: 'case', description: 'amount claimed in EUR' },
    { name: 'policyYears', type: 'int', level: 'case', description: 'years the policy has run' },
    { name: 'goldCustomer', type: 'boolean', level: 'case', description: 'customer in the gold programme' },
    { name: 'approvedAmount', type: 'float', level: 'event', activities: ['Approve Claim'], description: 'amount approved' },
  ],
  caseAttributes(rng) {
    const claimType = rng.weighted([
      ['car', 0.45],
      ['home', 0.3],
      ['travel', 0.15],
      ['health', 0.1],
    ]);
    return {
      claimType,
      claimAmount: round2(Math.min(500_000, rng.lognormal(medianByType[claimType] as number, 1))),
      policyYears: rng.int(0, 30),
      goldCustomer: rng.chance(0.2),
    };
  },
  run(c) {
    c.step('Check Coverage', { sticky: true });
    if (c.rng.chance(REJECT)) {
      c.step('Reject Claim', { sticky: true });
      return;
    }
    if (choose(inspection, c) === 'Expert Inspection') c.step('Expert Inspection');
    c.step('Assess Claim', { sticky: true });
    for (let i = 0; i < 3 && c.rng.chance(DOCUMENTS); i++) {
      c.step('Request Documents', { sticky: true });
      c.step('Assess Claim', { sticky: true });
    }
    if (c.rng.chance(FRAUD)) {
      c.step('Fraud Investigation');
      c.step('Deny Claim');
      return;
    }
    c.stepWithEscalation('Review Assessment', escalation, { differentFrom: 'Assess Claim' });
    if (c.rng.chance(AUDIT)) c.step('Quality Check');
    const amount = c.attributes.claimAmount as number;
    c.step('Approve Claim', { attributes: { approvedAmount: round2(amount * c.rng.uniform(0.7, 1)) } });
    c.parallel(
      (b) => {
        b.step('Calculate Payment');
        b.step('Pay Claim');
      },
      (b) => b.step('Send Decision Letter', { sticky: true }),
    );
    c.step('Close Claim');
  },
  truth: {
    startActivity: 'Register Claim',
    endActivities: { success: ['Close Claim'], failure: ['Reject Claim', 'Deny Claim'] },
    stages: ['Intake', 'Assessment', 'Review', 'Settlement'],
    decisions: [
      { at: 'Check Coverage', branches: ['Expert Inspection', 'Assess Claim'], rule: inspection, shares: null },
      { at: 'Review Assessment', branches: ['Quality Check', 'Approve Claim'], rule: null, shares: { 'Quality Check': AUDIT, 'Approve Claim': 1 - AUDIT } },
    ],
    rework: [{ from: 'Request Documents', to: 'Assess Claim', probability: DOCUMENTS, maxRepeats: 3 }],
    parallel: [{ after: ['Approve Claim'], branches: [['Calculate Payment', 'Pay Claim'], ['Send Decision Letter']], join: 'Close Claim' }],
    separation: [{ activities: ['Assess Claim', 'Review Assessment'], role: 'adjuster' }],
    escalations: [escalation],
    exceptions: [
      { name: 'claim not covered', after: 'Check Coverage', activities: ['Reject Claim'], probability: REJECT, endsCase: true },
      { name: 'suspected fraud', after: 'Assess Claim', activities: ['Fraud Investigation', 'Deny Claim'], probability: FRAUD, endsCase: true },
    ],
  },
};
