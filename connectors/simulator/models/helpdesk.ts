import { choose, staff, type DecisionRule, type EscalationTruth, type ModelSpec } from '../model.js';

const routing: DecisionRule = { attribute: 'priority', op: 'in', value: ['high', 'critical'], then: 'Assign Level 2', otherwise: 'Handle at Level 1', rate: 0.9 };
const escalation: EscalationTruth = { activity: 'Escalate to Manager', from: 'Assign Level 2', to: 'Investigate Issue', afterHours: 12, earlyRate: 0.02, role: 'manager' };
const DUPLICATE = 0.02;
const REJECTED = 0.2;
const SURVEY = 0.6;

/** A support ticket from opening to closure. */
export const helpdesk: ModelSpec = {
  name: 'helpdesk',
  description: 'Support tickets from opening through triage, first- or second-level resolution to closure.',
  caseRepresents: 'a support ticket',
  casePrefix: 'HD',
  roles: {
    agent: staff('agent', 10),
    engineer: staff('engineer', 6),
    manager: staff('manager', 2),
    system: ['system'],
  },
  steps: {
    'Open Ticket': { role: 'system', stage: 'Intake', waitMedianHours: 0, waitSigma: 0 },
    Triage: { role: 'agent', stage: 'Intake', waitMedianHours: 0.5, waitSigma: 1 },
    'Mark as Duplicate': { role: 'agent', stage: 'Intake', waitMedianHours: 1, waitSigma: 0.6 },
    'Handle at Level 1': { role: 'agent', stage: 'Resolution', waitMedianHours: 2, waitSigma: 0.9 },
    'Assign Level 2': { role: 'agent', stage: 'Resolution', waitMedianHours: 0.3, waitSigma: 0.6 },
    'Escalate to Manager': { role: 'manager', stage: 'Resolution', waitMedianHours: 0, waitSigma: 0 },
    'Investigate Issue': { role: 'engineer', stage: 'Resolution', waitMedianHours: 4, waitSigma: 1 },
    'Implement Fix': { role: 'engineer', stage: 'Resolution', waitMedianHours: 6, waitSigma: 0.8 },
    'Verify Fix': { role: 'engineer', stage: 'Resolution', waitMedianHours: 3, waitSigma: 0.7 },
    'Notify Customer': { role: 'agent', stage: 'Resolution', waitMedianHours: 1, waitSigma: 0.6 },
    'Propose Solution': { role: 'agent', stage: 'Resolution', waitMedianHours: 3, waitSigma: 0.8 },
    'Solution Rejected': { role: 'system', stage: 'Resolution', waitMedianHours: 18, waitSigma: 0.8 },
    'Resolve Ticket': { role: 'agent', stage: 'Closure', waitMedianHours: 12, waitSigma: 0.8 },
    'Send Survey': { role: 'system', stage: 'Closure', waitMedianHours: 1, waitSigma: 0.5 },
    'Close Ticket': { role: 'system', stage: 'Closure', waitMedianHours: 48, waitSigma: 0.3 },
  },
  attributes: [
    { name: 'priority', type: 'string', level: 'case', description: 'low, medium, high or critical' },
    { name: 'channel', type: 'string', level: 'case', description: 'email, phone or portal' },
    { name: 'vip', type: 'boolean', level: 'case', description: 'key account' },
    { name: 'satisfaction', type: 'int', level: 'event', activities: ['Close Ticket'], description: 'survey score 1 to 5 (surveyed tickets only)' },
  ],
  caseAttributes(rng) {
    return {
      priority: rng.weighted([
        ['low', 0.35],
        ['medium', 0.35],
        ['high', 0.2],
        ['critical', 0.1],
      ]),
      channel: rng.weighted([
        ['email', 0.5],
        ['phone', 0.3],
        ['portal', 0.2],
      ]),
      vip: rng.chance(0.1),
    };
  },
  run(c) {
    c.step('Triage', { sticky: true });
    if (c.rng.chance(DUPLICATE)) {
      c.step('Mark as Duplicate', { sticky: true });
      return;
    }
    if (choose(routing, c) === 'Assign Level 2') {
      c.step('Assign Level 2', { sticky: true });
      c.stepWithEscalation('Investigate Issue', escalation);
      c.parallel(
        (b) => {
          b.step('Implement Fix', { sticky: true });
          b.step('Verify Fix', { differentFrom: 'Implement Fix' });
        },
        (b) => b.step('Notify Customer', { sticky: true }),
      );
    } else {
      c.step('Handle at Level 1', { sticky: true });
    }
    c.step('Propose Solution', { sticky: true });
    for (let i = 0; i < 3 && c.rng.chance(REJECTED); i++) {
      c.step('Solution Rejected');
      c.step('Propose Solution', { sticky: true });
    }
    c.step('Resolve Ticket', { sticky: true });
    const surveyed = c.rng.chance(SURVEY);
    if (surveyed) c.step('Send Survey');
    c.step('Close Ticket', surveyed ? { attributes: { satisfaction: c.rng.int(1, 5) } } : {});
  },
  truth: {
    startActivity: 'Open Ticket',
    endActivities: { success: ['Close Ticket'], failure: ['Mark as Duplicate'] },
    stages: ['Intake', 'Resolution', 'Closure'],
    decisions: [
      { at: 'Triage', branches: ['Assign Level 2', 'Handle at Level 1'], rule: routing, shares: null },
      { at: 'Resolve Ticket', branches: ['Send Survey', 'Close Ticket'], rule: null, shares: { 'Send Survey': SURVEY, 'Close Ticket': 1 - SURVEY } },
    ],
    rework: [{ from: 'Solution Rejected', to: 'Propose Solution', probability: REJECTED, maxRepeats: 3 }],
    parallel: [{ after: ['Investigate Issue'], branches: [['Implement Fix', 'Verify Fix'], ['Notify Customer']], join: 'Propose Solution' }],
    separation: [{ activities: ['Implement Fix', 'Verify Fix'], role: 'engineer' }],
    escalations: [escalation],
    exceptions: [{ name: 'duplicate ticket', after: 'Triage', activities: ['Mark as Duplicate'], probability: DUPLICATE, endsCase: true }],
  },
};
