import { choose, round2, staff, type DecisionRule, type EscalationTruth, type ModelSpec } from '../model.js';

const approval: DecisionRule = { attribute: 'orderAmount', op: '>', value: 5000, then: 'Manager Approval', otherwise: 'Auto Approval', rate: 1 };
const reminder: EscalationTruth = { activity: 'Send Payment Reminder', from: 'Confirm Delivery', to: 'Receive Payment', afterHours: 336, earlyRate: 0.01, role: 'finance' };
const CANCEL = 0.015;
const RETURN = 0.01;
const CHANGES = 0.15;

/** A sales order from receipt to payment. */
export const orderToCash: ModelSpec = {
  name: 'order-to-cash',
  description: 'Sales orders from receipt through credit check, approval, fulfilment and delivery to payment.',
  caseRepresents: 'a sales order',
  casePrefix: 'SO',
  roles: {
    sales: staff('sales', 6),
    finance: staff('finance', 5),
    manager: staff('manager', 3),
    warehouse: staff('warehouse', 8),
    logistics: ['carrier-a', 'carrier-b'],
    system: ['system'],
  },
  steps: {
    'Receive Order': { role: 'sales', stage: 'Order entry', waitMedianHours: 0, waitSigma: 0 },
    'Check Credit': { role: 'finance', stage: 'Order entry', waitMedianHours: 2, waitSigma: 0.8 },
    'Cancel Order': { role: 'sales', stage: 'Order entry', waitMedianHours: 6, waitSigma: 0.8 },
    'Manager Approval': { role: 'manager', stage: 'Approval', waitMedianHours: 8, waitSigma: 0.9 },
    'Auto Approval': { role: 'system', stage: 'Approval', waitMedianHours: 0.05, waitSigma: 0.5 },
    'Pick Goods': { role: 'warehouse', stage: 'Fulfilment', waitMedianHours: 6, waitSigma: 0.7 },
    'Pack Goods': { role: 'warehouse', stage: 'Fulfilment', waitMedianHours: 3, waitSigma: 0.6 },
    'Create Invoice': { role: 'finance', stage: 'Fulfilment', waitMedianHours: 5, waitSigma: 0.8 },
    'Ship Goods': { role: 'warehouse', stage: 'Fulfilment', waitMedianHours: 4, waitSigma: 0.6 },
    'Carrier A Pickup': { role: 'logistics', stage: 'Delivery', waitMedianHours: 8, waitSigma: 0.5 },
    'Carrier B Pickup': { role: 'logistics', stage: 'Delivery', waitMedianHours: 8, waitSigma: 0.5 },
    'Confirm Delivery': { role: 'system', stage: 'Delivery', waitMedianHours: 30, waitSigma: 0.5 },
    'Return Goods': { role: 'sales', stage: 'Delivery', waitMedianHours: 48, waitSigma: 0.7 },
    'Issue Credit Note': { role: 'finance', stage: 'Payment', waitMedianHours: 24, waitSigma: 0.6 },
    'Send Payment Reminder': { role: 'finance', stage: 'Payment', waitMedianHours: 0, waitSigma: 0 },
    'Receive Payment': { role: 'system', stage: 'Payment', waitMedianHours: 168, waitSigma: 0.6 },
    'Close Order': { role: 'system', stage: 'Payment', waitMedianHours: 2, waitSigma: 0.5 },
  },
  attributes: [
    { name: 'orderAmount', type: 'float', level: 'case', description: 'order value in EUR' },
    { name: 'segment', type: 'string', level: 'case', description: 'customer segment: retail, wholesale or public' },
    { name: 'region', type: 'string', level: 'case', description: 'sales region' },
    { name: 'lines', type: 'int', level: 'case', description: 'order lines' },
    { name: 'paidAmount', type: 'float', level: 'event', activities: ['Receive Payment'], description: 'amount received' },
    { name: 'creditAmount', type: 'float', level: 'event', activities: ['Issue Credit Note'], description: 'amount credited' },
  ],
  caseAttributes(rng) {
    return {
      orderAmount: round2(Math.min(250_000, rng.lognormal(2500, 1))),
      segment: rng.weighted([
        ['retail', 0.55],
        ['wholesale', 0.35],
        ['public', 0.1],
      ]),
      region: rng.pick(['north', 'south', 'east', 'west']),
      lines: rng.int(1, 20),
    };
  },
  run(c) {
    const amount = c.attributes.orderAmount as number;
    if (c.rng.chance(CANCEL)) {
      c.step('Cancel Order');
      return;
    }
    for (let changes = 0; ; changes++) {
      c.step('Check Credit');
      const branch = choose(approval, c);
      c.step(branch);
      if (!(branch === 'Manager Approval' && changes < 2 && c.rng.chance(CHANGES))) break;
    }
    c.parallel(
      (b) => {
        b.step('Pick Goods');
        b.step('Pack Goods');
      },
      (b) => b.step('Create Invoice', { differentFrom: 'Check Credit' }),
    );
    c.step('Ship Goods');
    c.step(c.rng.chance(0.6) ? 'Carrier A Pickup' : 'Carrier B Pickup');
    c.step('Confirm Delivery');
    if (c.rng.chance(RETURN)) {
      c.step('Return Goods');
      c.step('Issue Credit Note', { attributes: { creditAmount: amount } });
      c.step('Close Order');
      return;
    }
    c.stepWithEscalation('Receive Payment', reminder, { attributes: { paidAmount: amount } });
    c.step('Close Order');
  },
  truth: {
    startActivity: 'Receive Order',
    endActivities: { success: ['Close Order'], failure: ['Cancel Order'] },
    stages: ['Order entry', 'Approval', 'Fulfilment', 'Delivery', 'Payment'],
    decisions: [
      { at: 'Check Credit', branches: ['Manager Approval', 'Auto Approval'], rule: approval, shares: null },
      { at: 'Ship Goods', branches: ['Carrier A Pickup', 'Carrier B Pickup'], rule: null, shares: { 'Carrier A Pickup': 0.6, 'Carrier B Pickup': 0.4 } },
    ],
    rework: [{ from: 'Manager Approval', to: 'Check Credit', probability: CHANGES, maxRepeats: 2 }],
    parallel: [{ after: ['Manager Approval', 'Auto Approval'], branches: [['Pick Goods', 'Pack Goods'], ['Create Invoice']], join: 'Ship Goods' }],
    separation: [{ activities: ['Check Credit', 'Create Invoice'], role: 'finance' }],
    escalations: [reminder],
    exceptions: [
      { name: 'order cancelled by the customer', after: 'Receive Order', activities: ['Cancel Order'], probability: CANCEL, endsCase: true },
      { name: 'goods returned', after: 'Confirm Delivery', activities: ['Return Goods', 'Issue Credit Note', 'Close Order'], probability: RETURN, endsCase: false },
    ],
  },
};
