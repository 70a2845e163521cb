import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { optionsFor } from './manifest.js';
import { type CaseView, type FactFailure, type LogFacts, caseIs, caseUnknown, common, edgeNotException, endsWithCount, failure, loopIsNormal, noOpenCases, noRuleOn, notException, notSuccess, skipIsNormal, stageBefore, stageOrder, stagesAtLeast, success, successExcludes } from './expert-vocabulary.js';

/**
 * Expert facts: what a process-mining expert would say about each shared real
 * log, from the log's published description and from figures computed on the
 * data, written as data plus small predicates over the graph document. They
 * are the yardstick for the reading (process.case_represents, outcomes,
 * stages, edge kinds, exceptions, decisions), independent of how the engine
 * words or thresholds anything: each fact is about meaning, each carries a
 * one-line `why` with its source.
 *
 * expert-facts.test.ts runs them under vitest (one test per log, every
 * failing fact listed at once). Without vitest:
 *
 *   PCG_REAL_LOGS=/work/shared/logs node --import tsx test/real-logs/expert-facts.ts [substring of a log name ...]
 *
 * prints the failing facts of every (or every matching) log.
 */

const AALST = 'van der Aalst, Process Mining (2016), ch. 1-2 running example';
const FINES = 'de Leoni & Mannhardt, Road Traffic Fine Management Process (4TU, 2015) and Mannhardt et al. 2016 normative model';
const VOLVO = 'Steeman, BPI Challenge 2013 (Volvo IT problem management), closed problems log';
const WABO = 'Buijs, Receipt phase of an environmental permit application process (WABO, CoSeLoG, 4TU 2014)';
const REPAIR = 'ProM tutorial repairExample (simulated telephone repair, start+complete events)';
const HELPDESK = 'Verenich (2016), helpdesk ticketing log of an Italian software company';
const BPIC12 = 'van Dongen, BPI Challenge 2012 description (Dutch loan applications: A_ application, O_ offer, W_ work item states)';
const BPIC19 = 'van Dongen, BPI Challenge 2019 description (purchase order handling, a case is a purchase order item)';
const BPIC20 = 'van Dongen, BPI Challenge 2020 description (TU/e travel expense claims)';
const LEVY = 'Levy (2014), Production Analysis with Process Mining Technology (4TU)';
const BPIC15 = 'van Dongen, BPI Challenge 2015 description (building permit applications of Dutch municipalities)';

export const EXPERT_FACTS: LogFacts[] = [
  {
    file: 'pm4py/running-example.xes',
    facts: [
      caseIs(['request'], `a case is a request for compensation (${AALST})`),
      success('pay compensation', `paying the compensation is the request granted (${AALST})`),
      failure('reject request', `rejecting is the request refused (${AALST})`),
      noOpenCases(0, 'all 6 cases end with pay compensation (3) or reject request (3): the textbook log holds complete cases only (computed)'),
      notException(`all 6 traces fit the textbook model; pay, reject and reinitiate are the three modelled outcomes of decide (${AALST})`),
      edgeNotException('decide', 'reject request', `reject is one of the three modelled choices after decide, taken by half the cases (${AALST}; 3 of 6 computed)`),
      stageOrder('register request', 'decide', `register opens the case, decide follows the examination (${AALST})`),
      stageOrder('decide', 'pay compensation', `payment only follows a decision (${AALST})`),
      ...common(),
    ],
  },
  {
    file: 'pm4py/roadtraffic100traces.xes',
    facts: [
      caseIs(['fine'], `a case is one road traffic fine (${FINES})`),
      success('Payment', `the fine is paid: the process reached its aim (${FINES})`),
      failure('Send for Credit Collection', `the fine was not paid in full and goes to a collection agency (${FINES})`),
      noOpenCases(0.05, 'every case reaching Payment or credit collection is closed; of the 17 stopping at Send Fine, 16 were sent in 2001-2008, years before the period end (computed)'),
      notException(`Create Fine > Payment (22%) and the full credit-collection path (36%) are the two commonest variants (computed), both in the normative model (${FINES})`),
      skipIsNormal('Send Fine', `an offender may pay right after the fine is created, before it is sent (${FINES}); 22 of 100 cases do (computed)`),
      skipIsNormal('Insert Fine Notification', `no notification is needed when the fine is paid before it (${FINES})`),
      skipIsNormal('Add penalty', `the penalty is added only when the fine is not paid within 180 days of notification, so paying earlier is not a skip (${FINES})`),
      edgeNotException('Create Fine', 'Payment', `paying on the spot is a modelled path (${FINES}); 22% of cases (computed)`),
      stagesAtLeast(3, `creation and sending, notification and penalty, then payment or credit collection (and appeal) are separate phases months apart (${FINES}; median waits 3400 h, 930 h, 1500 h computed)`),
      stageBefore('Create Fine', 'Send for Credit Collection', `credit collection comes at the very end, about a year after creation (${FINES})`),
      stageOrder('Send Fine', 'Add penalty', `the penalty is added after the fine is sent and notified (${FINES})`),
      stageOrder('Insert Fine Notification', 'Send for Credit Collection', `collection follows notification and penalty (${FINES})`),
      ...common(),
    ],
  },
  {
    file: 'pm4py/06_bpic2013_closed.xes.gz',
    facts: [
      caseIs(['problem'], `a case is one IT problem; its activity names are statuses (Accepted, Queued, Completed), so an honest unknown is acceptable (${VOLVO})`, { orUnknown: true }),
      success('Completed', `every case is a closed problem and all 1487 end with Completed, the normal end of problem handling (${VOLVO}; computed)`),
      noOpenCases(0, `the log holds closed problems only (${VOLVO})`),
      loopIsNormal('Accepted', `965 of the 1486 cases with Accepted (65%) have it more than once: status updates while in progress (computed; ${VOLVO})`),
      notException('Accepted > Completed (33%), Accepted > Accepted > Completed (15%) and one Queued path (10%) are the commonest half (computed)'),
      stageOrder('Accepted', 'Completed', 'Completed is the last event of all 1487 cases (computed)'),
      ...common(),
    ],
  },
  {
    file: 'pm4py/08_receipt.xes.gz',
    facts: [
      caseIs(['application', 'permit', 'request'], `a case is one environmental permit application in its receipt phase; the names do not say so plainly, so an honest unknown is acceptable (${WABO})`, { orUnknown: true }),
      success('T10 Determine necessity to stop indication', `the receipt phase is done once receipt is confirmed and the stop advice/indication determined; all 828 cases ending with T10 did T02, T05 and T06 too (computed; ${WABO})`),
      success('T05 Print and send confirmation of receipt', 'T05 and T10 close the phase in either order: 392 of the 400 cases ending with T05 also did T10 and T06 (computed)'),
      notSuccess('Confirmation of receipt', 'the 116 cases ending with Confirmation of receipt have that single event: the receipt phase never ran (computed)'),
      notException('the two commonest variants (713 + 123 cases, 58%) are the same six steps in two orders (computed)'),
      stageOrder('Confirmation of receipt', 'T10 Determine necessity to stop indication', `Confirmation of receipt is the first event of all 1434 cases (computed)`),
      stageOrder('T02 Check confirmation of receipt', 'T05 Print and send confirmation of receipt', `the confirmation is checked (T02), determined (T04), then printed and sent (T05) (${WABO})`),
      ...common(),
    ],
  },
  {
    file: 'pm4py/03_repairExample.xes.gz',
    facts: [
      caseIs(['repair', 'phone', 'telephone'], `a case is one telephone repair (${REPAIR})`),
      success('Archive Repair', `a repair ends with archiving (${REPAIR}); 1000 of 1104 cases (computed)`),
      loopIsNormal('Analyze Defect', `every case has Analyze Defect twice: the start and complete events of one execution (${REPAIR}; 1104 of 1104 computed)`),
      loopIsNormal('Test Repair', `1102 of 1102 cases have Test Repair at least twice: start and complete of each test (computed)`),
      loopIsNormal('Repair (Simple)', `all 484 cases with Repair (Simple) have it at least twice: start and complete (computed)`),
      loopIsNormal('Repair (Complex)', `658 of 659 cases with Repair (Complex) have it at least twice: start and complete (computed)`),
      notException('the commonest variants are Register, Analyze, Repair, Test, Inform, Archive with start/complete pairs interleaved (computed)'),
      stageOrder('Register', 'Analyze Defect', `the defect is analysed after registration (${REPAIR})`),
      stageOrder('Analyze Defect', 'Test Repair', `the repair is tested after analysis and repair (${REPAIR})`),
      stageOrder('Test Repair', 'Archive Repair', `archiving closes the case (${REPAIR})`),
      ...common(),
    ],
  },
  {
    file: 'pm4py/helpdesk.xes.gz',
    facts: [
      caseIs(['ticket'], `a case is one support ticket (${HELPDESK})`),
      success('Closed', `a ticket ends closed after resolution (${HELPDESK}); 4557 of 4580 cases (computed)`),
      notSuccess('Wait', 'a ticket whose last event is Wait was left waiting, not closed (8 cases, computed)'),
      noOpenCases(0.02, '99.5% of the tickets end with Closed; the rest are a few dozen (computed)'),
      notException('Assign seriousness > Take in charge > Resolve > Closed covers 52% of tickets (computed)'),
      stageOrder('Assign seriousness', 'Resolve ticket', `seriousness is assigned on intake, resolution comes later (${HELPDESK})`),
      stageOrder('Take in charge ticket', 'Closed', `a ticket is taken in charge before it is closed (${HELPDESK})`),
      stageOrder('Resolve ticket', 'Closed', 'in all 4559 tickets with both, Closed comes after the last Resolve ticket (computed)'),
      ...common(),
    ],
  },
  {
    file: 'pm4py/bpic2012.xes.gz',
    facts: [
      caseIs(['application', 'loan', 'aanvraag'], `a case is one loan application ('aanvraag' in the log's Dutch work-item names; ${BPIC12})`),
      failure('A_DECLINED', `the application is declined by the bank (${BPIC12})`),
      failure('A_CANCELLED', `the application is cancelled (${BPIC12})`),
      failure('O_CANCELLED', 'all 279 cases ending with O_CANCELLED also have A_CANCELLED (computed)'),
      notSuccess('W_Completeren aanvraag', `a work item, not an application state (${BPIC12}); 1863 of the 1939 cases ending with it were declined or cancelled (computed)`),
      notSuccess('W_Afhandelen leads', 'all 2234 cases ending with this work item were declined (computed)'),
      successExcludes(['A_DECLINED', 'A_CANCELLED'], 'a success ending cannot be one most of whose cases were declined or cancelled (computed per ending)'),
      notException('the commonest variants (submitted > declined, 26%; the lead-handling decline, 14%, ...) are how most applications go (computed)'),
      loopIsNormal('W_Completeren aanvraag', `work items have SCHEDULE/START/COMPLETE events and are suspended and resumed (${BPIC12}); all 7367 cases with it repeat it (computed)`),
      loopIsNormal('W_Nabellen offertes', `work item with lifecycle events (${BPIC12}); 5011 of 5015 cases repeat it (computed)`),
      loopIsNormal('W_Afhandelen leads', `work item with lifecycle events (${BPIC12}); all 4755 cases repeat it (computed)`),
      loopIsNormal('W_Valideren aanvraag', `work item with lifecycle events (${BPIC12}); 3210 of 3254 cases repeat it (computed)`),
      loopIsNormal('W_Nabellen incomplete dossiers', `work item with lifecycle events (${BPIC12}); all 1647 cases repeat it (computed)`),
      stagesAtLeast(3, `application (submission, pre-acceptance), offer (created, sent, returned), then validation and approval are distinct phases (${BPIC12})`),
      stageBefore('A_SUBMITTED', 'O_SENT', `an offer is only made after the application is submitted and pre-accepted (${BPIC12})`),
      stageOrder('A_PREACCEPTED', 'O_CREATED', `offers follow pre-acceptance (${BPIC12})`),
      stageOrder('O_SENT', 'A_ACTIVATED', `the loan is activated after the offer is returned and validated (${BPIC12})`),
      noRuleOn(/REG_DATE/, 'case:REG_DATE is the submission timestamp, distinct for every one of the 13087 applications (computed); a rule on it is not a decision driver'),
      ...common(),
    ],
  },
  {
    file: 'pm4py/16_bpic2019_1t_per_variant.xes.gz',
    facts: [
      caseIs(['item', 'order line'], `a case is one purchase order item (${BPIC19})`),
      success('Clear Invoice', `clearing the invoice is the payment that completes a purchase order item (${BPIC19}); 7152 of 11973 cases end with it (computed)`),
      notSuccess('Set Payment Block', 'a payment block stops payment; none of the 25 cases ending with it has Clear Invoice (computed)'),
      notSuccess('Delete Purchase Order Item', 'a deleted item was withdrawn; 88 of the 108 cases ending with it never cleared an invoice (computed)'),
      loopIsNormal('Record Goods Receipt', `items are delivered in parts with several goods receipts (${BPIC19}); 6623 of 11461 cases with it (58%) repeat it (computed, one trace per variant)`),
      loopIsNormal('Record Service Entry Sheet', `service items get periodic service entry sheets (${BPIC19}); 3165 of 3447 cases (92%) repeat it (computed)`),
      notException('every trace is its own variant here; only edges and exception sizes can be judged (computed: 11973 variants)'),
      stageOrder('Create Purchase Requisition Item', 'Create Purchase Order Item', `a requisition precedes the order (${BPIC19})`),
      stageOrder('Create Purchase Order Item', 'Clear Invoice', `the invoice is cleared after the order (${BPIC19})`),
      stageOrder('Record Goods Receipt', 'Clear Invoice', `payment follows the goods receipt in 3-way matching (${BPIC19})`),
      ...common(),
    ],
  },
  {
    file: 'bpic2020/DomesticDeclarations.xes.gz',
    facts: [
      caseIs(['declaration'], `a case is one domestic travel expense declaration (${BPIC20})`),
      success('Payment Handled', `the declaration is paid out (${BPIC20}); 10043 of 10500 cases (computed)`),
      failure('Declaration REJECTED by EMPLOYEE', `the employee accepts a rejection and does not resubmit: the claim is dropped (${BPIC20})`),
      notSuccess('Declaration SAVED by EMPLOYEE', 'the 134 cases ending with SAVED have only that event: the declaration was never submitted (computed)'),
      noOpenCases(0.02, '95.6% end with Payment Handled, 2.7% rejected by the employee, 1.3% saved only; a few cases stop elsewhere (computed)'),
      notException('submitted > approved by administration > final approved > payment, with or without the budget owner, covers 68% (computed)'),
      stagesAtLeast(2, `approval by the university's roles, then payment by finance, are separate phases (${BPIC20})`),
      stageBefore('Declaration SUBMITTED by EMPLOYEE', 'Payment Handled', `payment comes after the approval chain (${BPIC20})`),
      stageOrder('Declaration FINAL_APPROVED by SUPERVISOR', 'Request Payment', `payment is requested after final approval (${BPIC20})`),
      noRuleOn(/(^|:)(id|DeclarationNumber|BudgetNumber|concept:name)$/i, 'declaration numbers and ids name the case; they cannot decide its route (computed: 10049 distinct DeclarationNumber, 10500 ids over 10500 cases)'),
      endsWithCount('1212 cases have REJECTED by EMPLOYEE, only 284 end with it (computed)', 'Declaration REJECTED by EMPLOYEE'),
      ...common(),
    ],
  },
  {
    file: 'bpic2020/RequestForPayment.xes.gz',
    facts: [
      caseIs(['request'], `a case is one request for payment (${BPIC20})`),
      success('Payment Handled', `the request is paid (${BPIC20}); 6305 of 6886 cases (computed)`),
      failure('Request For Payment REJECTED by EMPLOYEE', `the employee accepts the rejection and does not resubmit (${BPIC20})`),
      notSuccess('Request For Payment SAVED by EMPLOYEE', 'the 74 cases ending with SAVED have only that event: never submitted, never paid (computed)'),
      notSuccess('Request For Payment FINAL_APPROVED by SUPERVISOR', 'none of the 11 cases ending with final approval has a payment (computed); the aim is the payment'),
      noOpenCases(0.02, '91.6% end with Payment Handled and 6.5% rejected by the employee; a few dozen stop elsewhere (computed)'),
      notException('submitted > approved by administration > final approved > payment, with or without the budget owner, covers 69% (computed)'),
      stagesAtLeast(2, `approval, then payment by finance (${BPIC20})`),
      stageBefore('Request For Payment SUBMITTED by EMPLOYEE', 'Payment Handled', `payment comes after the approval chain (${BPIC20})`),
      noRuleOn(/(^|:)(id|Rfp_id|RfpNumber|concept:name)$/i, 'request numbers and ids name the case; they cannot decide its route (computed: 6322 distinct RfpNumber, 6886 Rfp_id over 6886 cases)'),
      ...common(),
    ],
  },
  {
    file: 'bpic2020/PrepaidTravelCost.xes.gz',
    facts: [
      caseIs(['request', 'prepaid'], `a case is one request for payment of prepaid travel costs (trace Rfp_id 'request for payment N'; ${BPIC20})`),
      success('Payment Handled', `the prepaid cost is paid (${BPIC20}); 1970 of 2099 cases (computed)`),
      failure('Request For Payment REJECTED by EMPLOYEE', `the employee accepts the rejection and does not resubmit (${BPIC20})`),
      notSuccess('Request For Payment SAVED by EMPLOYEE', 'none of the 20 cases ending with SAVED was paid (computed)'),
      noOpenCases(0.02, '93.9% end with Payment Handled; the rest are rejections and a few dozen others (computed)'),
      notException('permit approval followed by the request approval and payment covers the commonest half (computed)'),
      stagesAtLeast(2, `the travel permit is approved, then the prepaid cost is requested and paid (${BPIC20})`),
      stageOrder('Permit SUBMITTED by EMPLOYEE', 'Request For Payment SUBMITTED by EMPLOYEE', `the permit comes first in 1859 of 2099 cases (computed; ${BPIC20})`),
      stageBefore('Permit SUBMITTED by EMPLOYEE', 'Payment Handled', `the permit is requested well before the payment (${BPIC20})`),
      noRuleOn(/(^|:)(id|Rfp_id|RfpNumber|Permit id|Permit travel permit number|Permit BudgetNumber|Permit ProjectNumber|Permit ActivityNumber|Permit TaskNumber|concept:name)$/i, 'permit, budget and request numbers identify documents; a rule listing some of them is overfitting (computed: 139 budget numbers, 1327 permit ids)'),
      ...common(),
    ],
  },
  {
    file: 'simod/Production.csv',
    facts: [
      caseUnknown(`a case is one production job (${LEVY}); the activity names are machine operations, so the data cannot name it: an honest unknown, never an operation`, ['order', 'job', 'part', 'product', 'piece']),
      success('Packing', `packing is the last manufacturing step, the job is done (${LEVY}); 73 cases end with it (computed)`),
      loopIsNormal('Turning & Milling', `a job runs on the machine in several sessions: 153 of the 162 cases with it (94%) repeat it (computed)`),
      loopIsNormal('Round Grinding', '103 of the 111 cases with it (93%) repeat it (computed)'),
      loopIsNormal('Final Inspection Q.C.', '113 of the 176 cases with it (64%) repeat it: inspection per batch (computed)'),
      notException('217 variants over 225 cases: only edges and exception sizes can be judged (computed)'),
      stageOrder('Turning & Milling', 'Final Inspection Q.C.', `machining precedes final inspection (${LEVY})`),
      stageOrder('Turning & Milling', 'Packing', `packing is last (${LEVY})`),
      ...common(),
    ],
  },
  {
    file: 'simod/BPIC15_1.csv.gz',
    facts: [
      caseUnknown(`a case is one building permit application (${BPIC15}), but the activity names are codes (01_HOOFD_010...): the data cannot name it`, ['permit', 'application']),
      notSuccess('01_HOOFD_030_2', 'the 26 cases ending with it have a median of 13 events against 44 overall and none reaches the 5xx decision steps (computed): early stops, not successes'),
      loopIsNormal('01_HOOFD_100', '187 of the 201 cases with it (93%) repeat it (computed)'),
      notException('1137 variants over 1199 cases: only edges and exception sizes can be judged (computed)'),
      stageOrder('01_HOOFD_010', '01_HOOFD_510_2', `010 opens 1135 of 1199 cases; the 5xx steps decide (${BPIC15}; computed)`),
      ...common(),
    ],
  },
  {
    file: 'pm4py/recruiting-red.jsonocel',
    options: { caseNotion: 'applications' },
    facts: [
      caseIs(['application'], 'the case notion is the applications object: a case is one job application (pm4py recruiting example)'),
      success('offer accepted and hired', 'the applicant is hired: the aim of recruiting'),
      failure('send rejection', 'the application is rejected (781 of 916 cases, computed)'),
      failure('job offer declined', 'the applicant declines the offer: no hire'),
      noOpenCases(0, 'all 916 cases end with rejection, hire or declined offer (computed)'),
      notException('the five commonest variants (59%) all end in a rejection after screening, references or interview (computed): that is how most applications go'),
      edgeNotException('first screening', 'send rejection', 'rejection right after the first screening is the commonest way out, 187 cases (computed)'),
      edgeNotException('consult manager', 'send rejection', 'rejection after consulting the manager is a normal outcome, 218 cases (computed)'),
      stagesAtLeast(2, 'screening, then interviews and offer, are distinct phases'),
      stageBefore('submit application', 'make job offer', 'an offer comes only after screening and interview (computed: every offer follows an interview)'),
      stageOrder('first screening', 'conduct interview', 'interviews follow screening (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocpa/order_process.jsonocel',
    options: { caseNotion: 'item' },
    facts: [
      caseIs(['item'], 'the case notion is the item object (ocpa order process sample)'),
      success('End Route', 'the item is delivered when its route ends; all 398 cases end so (computed)'),
      noOpenCases(0, 'all 398 cases end with End Route (computed)'),
      notException('two variants: with (201) and without (197) a stock-out (computed)'),
      skipIsNormal('Item out of stock', 'an item in stock has no stock-out: its absence is the normal path (197 of 398 cases, computed)'),
      skipIsNormal('Reorder Item', 'reordering happens only after a stock-out (201 of 201, computed)'),
      edgeNotException('Confirm Order', 'Pick Item', 'picking right after confirmation is the in-stock path, 49% of items (computed)'),
      stageBefore('Place Order', 'End Route', 'ordering and delivery are distinct phases'),
      stageOrder('Place Order', 'Start Route', 'the route starts after the order (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocpa/p2p-normal.jsonocel',
    options: { caseNotion: 'MATERIAL' },
    facts: [
      caseIs(['material'], 'the case notion is the MATERIAL object (ocpa procure-to-pay sample)'),
      success('Goods Issue', 'the material is issued: all 414 cases end so (computed)'),
      noOpenCases(0, 'all 414 cases end with Goods Issue (computed)'),
      notException('two variants, differing only in the order of Verify Material and Plan Goods Issue (253 / 161, computed)'),
      edgeNotException('Issue Goods Receipt', 'Plan Goods Issue', 'planning the issue before verifying the material is the second of two orders of the same steps, 161 cases (computed)'),
      stageOrder('Create Purchase Requisition', 'Create Purchase Order', 'requisition before order (procure-to-pay)'),
      stageOrder('Receive Goods', 'Goods Issue', 'goods are received before they are issued (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocpa/logistics.sqlite',
    options: { caseNotion: 'Container' },
    facts: [
      caseIs(['container'], 'the case notion is the Container object (OCEL 2.0 container logistics sample)'),
      success('Load to Vehicle', 'the container is loaded onto its vehicle for departure: the aim of container logistics'),
      loopIsNormal('Load Truck', 'a container is filled over several truck loads: 473 of 510 cases (93%) repeat Load Truck (computed)'),
      notException('the two commonest variants (214 + 77 cases, 57%) both load the truck several times (computed)'),
      stageOrder('Pick Up Empty Container', 'Load to Vehicle', 'the empty container is picked up first (computed: first event of 508 of 510 cases)'),
      stageOrder('Load Truck', 'Weigh', 'the container is weighed at the terminal after loading (computed)'),
      ...common(),
    ],
  },
];

// ---------------------------------------------------------------- building and checking

/**
 * Imports one log into a temporary project, builds its document and checks
 * every fact of the log against it; the temporary folder is removed
 * afterwards. Returns the failing facts (a fact that throws fails with the error).
 */
export async function checkLog(spec: LogFacts, logsDir: string): Promise<FactFailure[]> {
  const work = mkdtempSync(join(tmpdir(), 'pcg-expert-facts-'));
  try {
    const store = ProjectStore.open(join(work, 'state.sqlite'));
    try {
      await importLog(store, join(logsDir, spec.file), { ...optionsFor(spec.file), ...spec.options });
      const doc = buildDocument(store.snapshot());
      let read: CaseView[] | undefined;
      const cases = () =>
        (read ??= [...store.traces()].map((t) => {
          const attributes = new Map<string, string>();
          for (const e of t) for (const [k, v] of Object.entries(e.attributes)) if (!attributes.has(k)) attributes.set(k, String(v));
          return { activities: t.map((e) => e.activity), times: t.map((e) => e.time), attributes };
        }));
      const failures: FactFailure[] = [];
      for (const f of spec.facts) {
        let saw: string | undefined;
        try {
          saw = f.check({ doc, cases });
        } catch (err) {
          saw = `the check threw: ${err instanceof Error ? err.message : String(err)}`;
        }
        if (saw !== undefined) failures.push({ log: spec.file, fact: f.fact, why: f.why, saw });
      }
      return failures;
    } finally {
      store.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A log's name in reports: its file, and the case notion when the facts pin one. */
export function specName(spec: LogFacts): string {
  return spec.options?.caseNotion ? `${spec.file} (case notion ${spec.options.caseNotion})` : spec.file;
}

export function formatFailure(f: FactFailure): string {
  return `${f.fact}: ${f.saw}  [why: ${f.why}]`;
}

/**
 * Checks every log (or those whose name contains one of `only`) and prints the
 * failing facts per log; returns them all. A log that cannot be built is
 * reported as one failure.
 */
export async function printExpertFacts(logsDir: string, only: string[] = [], out: (line: string) => void = console.log): Promise<FactFailure[]> {
  const all: FactFailure[] = [];
  let facts = 0;
  for (const spec of EXPERT_FACTS) {
    if (only.length && !only.some((o) => spec.file.includes(o))) continue;
    const started = Date.now();
    let failures: FactFailure[];
    try {
      failures = await checkLog(spec, logsDir);
    } catch (err) {
      failures = [{ log: spec.file, fact: '(build)', why: 'the document must build', saw: err instanceof Error ? err.message : String(err) }];
    }
    facts += spec.facts.length;
    all.push(...failures);
    out(`${specName(spec)}: ${spec.facts.length - failures.filter((f) => f.fact !== '(build)').length}/${spec.facts.length} facts hold (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    for (const f of failures) out(`  FAIL ${formatFailure(f)}`);
  }
  out(`${all.length} failing of ${facts} facts`);
  return all;
}

// Run directly: node --import tsx test/real-logs/expert-facts.ts [log name substrings]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.env.PCG_REAL_LOGS || join(process.cwd(), '..', 'shared', 'logs');
  printExpertFacts(dir, process.argv.slice(2)).then(
    (failures) => {
      process.exitCode = failures.length ? 1 : 0;
    },
    (err) => {
      console.error(err);
      process.exitCode = 2;
    },
  );
}
