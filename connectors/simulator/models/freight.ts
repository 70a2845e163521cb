import { choose, round2, staff, type DecisionRule, type ModelSpec } from '../model.js';

/*
 * Container transport, where repeating a step is the normal work: the
 * container is filled one truckload at a time, so most cases load the truck
 * two to five times before the container is weighed. A reading must not
 * take that loop for rework or an exception.
 */

/** Truckloads a container needs (the case attribute `truckloads`): one load in 6% of bookings. */
const TRUCKLOADS: readonly (readonly [number, number])[] = [
  [1, 0.06],
  [2, 0.3],
  [3, 0.3],
  [4, 0.22],
  [5, 0.12],
];
const stock: DecisionRule = { attribute: 'daysToDeparture', op: '>', value: 2, then: 'Place in Stock', otherwise: 'Bring to Loading Bay', rate: 0.9 };
const CANCEL = 0.04;

const oneLoad = TRUCKLOADS.find(([n]) => n === 1)![1];
const maxLoads = Math.max(...TRUCKLOADS.map(([n]) => n));
const booked = 1 - CANCEL;
const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** A container transport from booking to departure. */
export const freight: ModelSpec = {
  name: 'freight',
  description: 'Container transports from booking through pick-up, truck loading and weighing, optional stock, to loading onto the vehicle and departure.',
  caseRepresents: 'a container transport',
  casePrefix: 'FR',
  roles: {
    planner: staff('planner', 4),
    driver: staff('driver', 15),
    operator: staff('operator', 6),
    crane: staff('crane', 4),
    dispatcher: staff('dispatcher', 2),
  },
  // Long waits separate the phases: the empty container is fetched a day after booking, the
  // loaded container drives to the terminal, and stays there until its vehicle is due.
  steps: {
    'Book Transport': { role: 'planner', stage: 'Booking', waitMedianHours: 0, waitSigma: 0 },
    Cancelled: { role: 'planner', stage: 'Booking', waitMedianHours: 30, waitSigma: 0.6 },
    'Pick Up Empty Container': { role: 'driver', stage: 'Loading', waitMedianHours: 24, waitSigma: 0.5 },
    'Load Truck': { role: 'driver', stage: 'Loading', waitMedianHours: 1.5, waitSigma: 0.4 },
    Weigh: { role: 'operator', stage: 'Terminal', waitMedianHours: 4, waitSigma: 0.4 },
    'Place in Stock': { role: 'operator', stage: 'Terminal', waitMedianHours: 0.5, waitSigma: 0.5 },
    'Bring to Loading Bay': { role: 'operator', stage: 'Departure', waitMedianHours: 30, waitSigma: 0.5 },
    'Load to Vehicle': { role: 'crane', stage: 'Departure', waitMedianHours: 1, waitSigma: 0.4 },
    Depart: { role: 'dispatcher', stage: 'Departure', waitMedianHours: 2, waitSigma: 0.4 },
  },
  attributes: [
    { name: 'truckloads', type: 'int', level: 'case', description: 'truckloads needed to fill the container (1 to 5)' },
    { name: 'daysToDeparture', type: 'int', level: 'case', description: 'days from booking to the planned departure (0 to 6)' },
    { name: 'containerSize', type: 'string', level: 'case', description: '20ft or 40ft' },
    { name: 'grossTons', type: 'float', level: 'event', activities: ['Weigh'], description: 'weight of the loaded container' },
  ],
  caseAttributes(rng) {
    return {
      truckloads: rng.weighted(TRUCKLOADS),
      daysToDeparture: rng.int(0, 6),
      containerSize: rng.chance(0.6) ? '40ft' : '20ft',
    };
  },
  run(c) {
    if (c.rng.chance(CANCEL)) {
      c.step('Cancelled');
      return;
    }
    // One driver fetches the container and brings every load.
    c.step('Pick Up Empty Container', { sticky: true });
    const loads = c.attributes.truckloads as number;
    for (let i = 0; i < loads; i++) c.step('Load Truck', { sticky: true });
    c.step('Weigh', { attributes: { grossTons: round2(3 + loads * c.rng.uniform(3.5, 5)) } });
    if (choose(stock, c) === 'Place in Stock') c.step('Place in Stock');
    c.step('Bring to Loading Bay');
    c.step('Load to Vehicle');
    c.step('Depart');
  },
  truth: {
    startActivity: 'Book Transport',
    endActivities: { success: ['Depart'], failure: ['Cancelled'] },
    stages: ['Booking', 'Loading', 'Terminal', 'Departure'],
    decisions: [{ at: 'Weigh', branches: ['Place in Stock', 'Bring to Loading Bay'], rule: stock, shares: null }],
    rework: [],
    parallel: [],
    separation: [],
    escalations: [],
    exceptions: [{ name: 'cancelled booking', after: 'Book Transport', activities: ['Cancelled'], probability: CANCEL, endsCase: true }],
    backbone: ['Book Transport', 'Pick Up Empty Container', 'Load Truck', 'Weigh', 'Bring to Loading Bay', 'Load to Vehicle', 'Depart'].map((activity) => ({
      activity,
      share: activity === 'Book Transport' ? 1 : r4(booked),
    })),
    repeated: [{ activity: 'Load Truck', share: r4(booked * (1 - oneLoad)), minTimes: 2, maxTimes: maxLoads }],
  },
};
