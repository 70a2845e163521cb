import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { optionsFor } from './manifest.js';
import {
  type CaseView,
  type FactFailure,
  type LogFacts,
  caseIs,
  caseNotionIn,
  caseUnknown,
  common,
  edgeNotException,
  endsWithCount,
  endsAs,
  failure,
  loopIsNormal,
  noClaimBelow,
  noEscalations,
  noOpenCases,
  noRuleOn,
  notAPerson,
  notException,
  notFailure,
  notSuccess,
  noVerdict,
  objectTypeTouches,
  pathsOfExecutions,
  repeatedByAtMost,
  repeatNotRework,
  repeatShare,
  skipIsNormal,
  stageBefore,
  stageOrder,
  stagesAtLeast,
  success,
  successExcludes,
  tiedOrderAtMostWeak,
  verdictFromAttribute,
} from './expert-vocabulary.js';

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

// Sources of the logs of MANIFEST-added.tsv.
const BILLING = 'Mannhardt et al., Hospital Billing event log (4TU 2017, CAiSE 2017): a case bills a package of medical services; NEW, FIN, RELEASE, CODE OK, BILLED; DELETE, STORNO, REOPEN';
const VINST = 'Steeman, BPI Challenge 2013 incidents (Volvo IT VINST): a case is an incident; the activity is its status, lifecycle:transition its sub-status';
const SEPSIS = "Mannhardt, Sepsis Cases event log (4TU 2016): one case is a patient's pathway through the hospital; Release A-E are discharges, Return ER a return to the emergency room (Mannhardt & Blinde 2017)";
const CONSULTA = 'Simod benchmark ConsultaDataMining201618: requests to recognise (homologate) courses at a Colombian university, Spanish activity names, Disco export with artificial Start and End events';
const TAX = 'Tax et al. 2017 preprocessing (Verenich, ProcessSequencePrediction): activity names replaced by integer ids, no resource';
const WABO_M1 = 'Buijs, Environmental permit application process (WABO), CoSeLoG municipality 1 (4TU 2014)';
const OCPA_RUN = 'ocpa OCEL 2.0 order-management running example (simulated; its pay order, package delivered and reorder item tables are empty)';
const PALLET = 'ocelescope pallet-logistics OCEL 2.0 sample (simulated, 14 events)';
const BPIC11 = 'van Dongen, BPI Challenge 2011 (Dutch academic hospital; each case is a patient of the gynaecology department; 4TU) as converted from eventdataR (day-level times)';
const SNOW = 'Amaral et al. 2018, Incident management process enriched event log (UCI, ServiceNow): one row per update of an incident record; made_sla says whether the incident met its SLA; closed_code, resolved_by, resolved_at, closed_at describe the end';
const BPIC17 = 'van Dongen, BPI Challenge 2017 (Dutch loan applications: A_ application states, O_ offers, W_ work items with lifecycle transitions), W_ items only as start/complete pairs (Simod filter)';
const PURCHASING = 'Fluxicon Disco purchasing example (simulated purchase-to-pay; every activity has start and complete events; variant and variant-index are Disco path identifiers)';
const P2P = 'Park & Tacke genannt Unterberg, OCEL 2.0 procure-to-pay log (ocel-standard.org, Zenodo 8412920): requisition, approval, quotation, purchase order, goods receipt, invoice, two-way match, payment';

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
      // Read by default as status+sub-status (lifecycle:transition holds the sub-status on every event: issue 31).
      success('Completed+Closed', `every case is a closed problem and all 1487 end with Completed+Closed, the normal end of problem handling (${VOLVO}; computed)`),
      noOpenCases(0, `the log holds closed problems only (${VOLVO})`),
      loopIsNormal('Accepted+In Progress', `792 of the 1475 cases with Accepted+In Progress (54%) have it more than once: work resumes after queueing, assignment or a wait (computed; ${VOLVO}); read by status alone, 'Accepted' repeated in 965 cases, mostly changes of sub-status`),
      notException('Accepted+In Progress > Completed+Closed (33%), the path through Queued and Assigned (9%), through Wait (7%) and In Progress twice (6%) are the commonest half (computed)'),
      stageOrder('Accepted+In Progress', 'Completed+Closed', 'Completed+Closed is the last event of all 1487 cases (computed)'),
      ...common(),
    ],
  },
  {
    file: 'pm4py/08_receipt.xes.gz',
    facts: [
      caseIs(['application', 'permit', 'request'], `a case is one environmental permit application in its receipt phase; the names do not say so plainly, so an honest unknown is acceptable (${WABO})`, { orUnknown: true }),
      notFailure('T10 Determine necessity to stop indication', `the receipt phase is done once receipt is confirmed and the stop advice/indication determined; all 828 cases ending with T10 did T02, T05 and T06 too (computed; ${WABO}); the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)`),
      notFailure('T05 Print and send confirmation of receipt', 'T05 and T10 close the phase in either order: 392 of the 400 cases ending with T05 also did T10 and T06 (computed); the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)'),
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
      repeatedByAtMost('Test Repair', 293, 'each test is logged as a start and a complete; counted as executions, 293 of 1102 cases test again after a restarted repair (computed by pairing start/complete FIFO per activity)'),
      repeatedByAtMost('Repair (Simple)', 213, '213 of 484 cases with a simple repair repair again after a failed test; the others have one start and one complete (computed, executions)'),
      repeatedByAtMost('Repair (Complex)', 51, '51 of 658 cases with a complex repair repair again; the others have one start and one complete (computed, executions)'),
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
      caseIs(['application', 'loan'], `a case is one loan application (${BPIC12}); the names are codes (A_, O_) and Dutch ('W_Completeren aanvraag'), whose verbs the product cannot read, so an honest unknown is right too (issue 31: words of another language are not nouns)`, { orUnknown: true }),
      failure('A_DECLINED', `the application is declined by the bank (${BPIC12})`),
      failure('A_CANCELLED', `the application is cancelled (${BPIC12})`),
      endsAs('O_CANCELLED', 'failure', 'all 279 cases ending with O_CANCELLED also have A_CANCELLED (computed)'),
      notSuccess('W_Completeren aanvraag', `a work item, not an application state (${BPIC12}); 1863 of the 1939 cases ending with it were declined or cancelled (computed)`),
      notSuccess('W_Afhandelen leads', 'all 2234 cases ending with this work item were declined (computed)'),
      successExcludes(['A_DECLINED', 'A_CANCELLED'], 'a success ending cannot be one most of whose cases were declined or cancelled (computed per ending)'),
      notException('the commonest variants (submitted > declined, 26%; the lead-handling decline, 14%, ...) are how most applications go (computed)'),
      loopIsNormal('W_Completeren aanvraag', `work items have SCHEDULE/START/COMPLETE events and are suspended and resumed (${BPIC12}); all 7367 cases with it repeat it (computed)`),
      loopIsNormal('W_Nabellen offertes', `work item with lifecycle events (${BPIC12}); 5011 of 5015 cases repeat it (computed)`),
      repeatedByAtMost('W_Afhandelen leads', 772, `a work item logged as schedule, start and complete (${BPIC12}); counted as executions, 772 of the 4755 cases with it handle the lead in more than one session (computed by pairing)`),
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
      notFailure('Packing', `packing is the last manufacturing step, the job is done (${LEVY}); 73 cases end with it (computed); the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)`),
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
      notFailure('End Route', 'the item is delivered when its route ends; all 398 cases end so (computed); the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)'),
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
      notFailure('Goods Issue', 'the material is issued: all 414 cases end so (computed); the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)'),
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
      notFailure('Load to Vehicle', 'the container is loaded onto its vehicle for departure: the aim of container logistics; the log records no verdict (no step names one), so the ending closes the work without saying how it went (issue 31: success only from a recorded outcome)'),
      loopIsNormal('Load Truck', 'a container is filled over several truck loads: 473 of 510 cases (93%) repeat Load Truck (computed)'),
      notException('the two commonest variants (214 + 77 cases, 57%) both load the truck several times (computed)'),
      stageOrder('Pick Up Empty Container', 'Load to Vehicle', 'the empty container is picked up first (computed: first event of 508 of 510 cases)'),
      stageOrder('Load Truck', 'Weigh', 'the container is weighed at the terminal after loading (computed)'),
      ...common(),
    ],
  },
  // ---------------------------------------------------------------- the logs of MANIFEST-added.tsv
  {
    file: 'pm4py/14_Billing_1t_per_variant.xes.gz',
    facts: [
      caseIs(['package', 'bill', 'billing', 'invoice', 'claim'], `a case bills one package of medical services (${BILLING}); the names (NEW, FIN, BILLED) do not say so, so an honest unknown is acceptable`, { orUnknown: true }),
      success('BILLED', `billing the package is the aim of the process (${BILLING}); 576 of the 1020 variants end with it (computed)`),
      notSuccess('DELETE', `a deleted billing case was never billed (${BILLING}); 182 variants end with it (computed)`),
      notSuccess('NEW', 'a case that only opened (8 variants end right after NEW) billed nothing (computed)'),
      stageBefore('NEW', 'BILLED', `NEW opens every case, billing is the last step (${BILLING}; NEW is the first event of all 1020 variants, computed)`),
      stageOrder('FIN', 'RELEASE', `the case is finalised, then released for coding (${BILLING}; FIN comes first in 928 of the 930 variants with both, computed)`),
      stageOrder('CODE OK', 'BILLED', `coding is checked before billing (${BILLING}; 654 of 664 variants with both, computed)`),
      ...common(),
    ],
  },
  {
    file: 'eventdataR/hospital_billing_10k.xes.gz',
    facts: [
      caseIs(['package', 'bill', 'billing', 'invoice', 'claim'], `a case bills one package of medical services (${BILLING}); the names do not say so, so an honest unknown is acceptable`, { orUnknown: true }),
      success('BILLED', `billing the package is the aim (${BILLING}); 6896 of the 10000 cases end with it (computed)`),
      notSuccess('DELETE', `a deleted billing case was never billed (${BILLING}); 980 cases end with it, 29 of the 982 with DELETE were billed before (computed)`),
      notSuccess('NEW', 'the 1837 cases that end right after NEW (1836 of them of caseType C) billed nothing (computed)'),
      notException(`NEW > CHANGE DIAGN > FIN > RELEASE > CODE OK > BILLED (36%) and the same without CHANGE DIAGN (22%) are the billing path (${BILLING}; computed)`),
      stageOrder('DELETE', 'BILLED', 'DELETE comes right after NEW in 590 of the 982 cases with it, after a REOPEN in 167, and after BILLED in only 29 (computed): it belongs to the early phase, not after billing'),
      stageOrder('FIN', 'RELEASE', `FIN comes before RELEASE in all 7209 cases with both (computed; ${BILLING})`),
      stageOrder('CODE OK', 'BILLED', `CODE OK comes before BILLED in all 6916 cases with both (computed; ${BILLING})`),
      stageBefore('NEW', 'BILLED', `NEW opens all 10000 cases, billing closes the package (${BILLING})`),
      noRuleOn(/(^|:)(isClosed|isCancelled|closeCode)$/, "isClosed on a case's first event is its final closed state: of the 848 cases with isClosed=false there, 837 end with DELETE (computed); isCancelled and closeCode likewise record how the case ended, not why"),
      ...common(),
    ],
  },
  {
    file: 'pm4py/07_bpic2013_incidents.xes.gz',
    facts: [
      caseIs(['incident'], `a case is one IT incident; the activity names are statuses (Accepted, Queued, Completed), so an honest unknown is acceptable (${VINST})`, { orUnknown: true }),
      // Read by default as status+sub-status (issue 31): Completed+Closed and Completed+In Call end 7455 of the 7554
      // cases, Completed+Resolved 90; Resolved then Closed are two sub-states now, not a repeat of Completed.
      success('Completed+Closed', `Closed is the normal end of incident handling; 5573 of the 7554 cases end with Completed+Closed (computed; ${VINST})`),
      noOpenCases(0.02, 'only 8 of 7554 cases end other than a Completed sub-status (computed)'),
      repeatNotRework('Accepted+In Progress', `consecutive Accepted+In Progress events are updates of one state: 7109 of the 7536 cases with it have several (computed; ${VINST})`),
      loopIsNormal('Accepted+In Progress', `work resumes after queueing, assignment or a wait: 94% of the cases with Accepted+In Progress repeat it (computed; ${VINST})`),
      notException('Accepted+In Progress twice then Completed+In Call (23%) and the commonest paths through Resolved and Closed are how incidents go (computed)'),
      stageOrder('Accepted+In Progress', 'Completed+Closed', 'Completed+Closed ends 5573 of the 7554 cases and follows Accepted+In Progress in them (computed)'),
      notAPerson(['-'], "org:resource '-' on 30 events is a missing value, not a person (computed)"),
      ...common(),
    ],
  },
  {
    file: 'rust4pm/Sepsis_Cases_-_Event_Log.xes.gz',
    facts: [
      caseIs(['patient', 'pathway'], `a case is one patient's pathway through the hospital (${SEPSIS}); not a triage or a test. No activity name or column says patient (ER Registration, Release A-E, codes), so "one case, identified by ..." is right too (issue 31: a noun only where the data supports one)`, { orUnknown: true }),
      notSuccess('Return ER', `Return ER is the patient coming back to the emergency room after discharge, a bad outcome (${SEPSIS}); all 291 cases ending with it had a Release before (computed)`),
      notFailure('Release A', `Release A is a discharge, the normal end of the hospital stay (${SEPSIS}); 393 cases end with it (computed)`),
      notSuccess('ER Sepsis Triage', 'the 49 cases that stop at the sepsis triage (35 of them after 3 events) had no treatment and no release recorded (computed)'),
      loopIsNormal('Leucocytes', `blood values are measured repeatedly during the stay: 677 of the 1012 cases with Leucocytes repeat it (computed; ${SEPSIS})`),
      loopIsNormal('CRP', `692 of the 1007 cases with CRP repeat it: repeated lab measurements (computed; ${SEPSIS})`),
      stageBefore('ER Registration', 'Release A', `registration at the emergency room opens the pathway, the release ends the stay (${SEPSIS}; registration first in all 671 cases with both, computed)`),
      stageOrder('ER Sepsis Triage', 'IV Antibiotics', 'antibiotics follow the sepsis triage in all 823 cases with both (computed)'),
      stageOrder('Admission NC', 'Release A', 'admission precedes the release in all 670 cases with both (computed)'),
      stageOrder('Release A', 'Return ER', 'Return ER follows Release A in all 277 cases with both (computed)'),
      notAPerson(['?'], "org:group '?' is written on all 294 Return ER events: a missing group, not a team (computed)"),
      ...common(),
    ],
  },
  {
    file: 'eventdataR/sepsis.csv',
    facts: [
      caseIs(['patient', 'pathway'], `a case is one patient's pathway through the hospital (${SEPSIS}); not a triage or a test. No activity name or column says patient (ER Registration, Release A-E, codes), so "one case, identified by ..." is right too (issue 31: a noun only where the data supports one)`, { orUnknown: true }),
      notSuccess('Return ER', `Return ER is the patient coming back to the emergency room after discharge (${SEPSIS}); all 291 cases ending with it had a Release before (computed)`),
      notFailure('Release A', `Release A is a discharge, the normal end of the stay (${SEPSIS}); 393 cases end with it (computed)`),
      loopIsNormal('Leucocytes', `677 of the 1012 cases with Leucocytes repeat it: repeated lab measurements (computed; ${SEPSIS})`),
      loopIsNormal('CRP', `692 of the 1007 cases with CRP repeat it (computed; ${SEPSIS})`),
      stageBefore('ER Registration', 'Release A', `registration opens the pathway, the release ends the stay (${SEPSIS})`),
      stageOrder('Release A', 'Return ER', 'Return ER follows Release A in all 277 cases with both (computed)'),
      noRuleOn(/^Variant( index)?$/i, 'Variant and Variant index are written by the Disco export from the whole path of the case (one value per variant, computed): they name the path, they do not decide it'),
      notAPerson(['?'], "org:group '?' is written on all 294 Return ER events: a missing group, not a team (computed)"),
      ...common(),
    ],
  },
  {
    file: 'roadtraffic/Road_Traffic_Fine_Management_Process.xes.gz',
    facts: [
      caseIs(['fine'], `a case is one road traffic fine (${FINES})`),
      success('Payment', `the fine is paid (${FINES}); 67201 of the 150370 cases end with it (computed)`),
      failure('Send for Credit Collection', `the fine was not paid and goes to a collection agency (${FINES}); 58997 cases (computed)`),
      noOpenCases(0.05, 'of the 20755 cases stopping at Send Fine, 19432 were sent more than a year before the log ends (computed): stuck, not open'),
      notException(`Create Fine > Payment (31%) and the full credit-collection path (38%) are the two commonest variants (computed), both in the normative model (${FINES})`),
      skipIsNormal('Send Fine', `an offender may pay before the fine is sent (${FINES}); 46371 cases do (computed)`),
      edgeNotException('Create Fine', 'Payment', `paying on the spot is a modelled path (${FINES}); 31% of cases (computed)`),
      stageBefore('Create Fine', 'Send for Credit Collection', `credit collection comes at the very end (${FINES})`),
      stageOrder('Send Fine', 'Add penalty', `the penalty is added after the fine is sent and notified (${FINES})`),
      noClaimBelow(24, 'every timestamp is a date at local midnight (one time of day over all 561470 events, computed): no wait, policy or escalation can be stated below a day'),
      ...common(),
    ],
  },
  {
    file: 'bpic2020/InternationalDeclarations.xes.gz',
    facts: [
      caseIs(['declaration'], `a case is one international travel declaration, with the events of its travel permit (${BPIC20})`),
      success('Payment Handled', `the declaration is paid out (${BPIC20}); 5646 of 6449 cases end with it (computed)`),
      notFailure('End trip', `536 of the 593 cases ending with End trip were paid before the trip ended (computed): the process ends with the trip or the payment (${BPIC20})`),
      failure('Declaration REJECTED by EMPLOYEE', `the employee accepts the rejection and does not resubmit (${BPIC20}); none of the 130 cases ending so was paid (computed)`),
      notSuccess('Declaration SAVED by EMPLOYEE', 'none of the 54 cases ending with a saved declaration was paid, 53 never submitted it (computed)'),
      notException('permit submitted and approved, trip, declaration approved, payment covers the commonest third (21% + 10%, computed)'),
      stageBefore('Permit SUBMITTED by EMPLOYEE', 'Payment Handled', `a permit is needed before an international trip; payment comes last (${BPIC20})`),
      stageOrder('End trip', 'Declaration SUBMITTED by EMPLOYEE', 'the declaration follows the trip in 5566 of the 6375 cases with both (computed)'),
      stageOrder('Declaration FINAL_APPROVED by SUPERVISOR', 'Request Payment', 'payment is requested after final approval in all 5940 cases with both (computed)'),
      noRuleOn(/(^|:)(id|Permit id|Permit ID|DeclarationNumber|travel permit number|Permit travel permit number|concept:name)$/i, 'declaration and permit numbers and ids name documents (6449 distinct ids and 6190 declaration numbers over 6449 cases, computed); they cannot decide a route'),
      ...common(),
    ],
  },
  {
    file: 'bpic2020/PermitLog.xes.gz',
    facts: [
      caseIs(['permit'], `a case is one travel permit, with the events of its declarations and payments (${BPIC20})`),
      success('Payment Handled', `the costs of the trip are paid (${BPIC20}); 5474 of 7065 cases end with it (computed)`),
      notFailure('End trip', `the process ends with either the trip taking place or a payment (${BPIC20}); 453 cases end with End trip (computed)`),
      notSuccess('Send Reminder', 'the 991 cases ending with a reminder are waiting for the employee to declare: 989 never submitted a declaration (computed)'),
      failure('Permit REJECTED by EMPLOYEE', `the employee withdraws the rejected permit (${BPIC20}); none of the 31 cases ending so was paid (computed)`),
      loopIsNormal('Send Reminder', 'reminders are sent repeatedly until the employee declares: 922 of the 1381 cases with one have several (computed)'),
      stageBefore('Permit SUBMITTED by EMPLOYEE', 'Payment Handled', `the permit is requested before the trip and its payments (${BPIC20})`),
      stageOrder('Permit FINAL_APPROVED by SUPERVISOR', 'Start trip', 'the permit is approved before the trip in 5147 of the 6286 cases with both (computed)'),
      noRuleOn(/(^|:)(TotalDeclared|Overspent|OverspentAmount)$/, 'TotalDeclared and the overspending figures sum the declarations made after the permit (a total known only at the end): they cannot explain a choice taken before them'),
      noRuleOn(/(^|:)(id|travel permit number|concept:name|dec_id_\d+|DeclarationNumber_\d+|Rfp_id_\d+|RfpNumber_\d+)$/i, 'permit, declaration and request numbers identify documents; they cannot decide a route'),
      ...common(),
    ],
  },
  {
    file: 'simod/ConsultaDataMining201618.csv',
    facts: [
      caseIs(['request', 'application', 'solicitud', 'homologation'], `a case is one student's request to recognise courses (${CONSULTA}); the names are Spanish, so an honest unknown is acceptable`, { orUnknown: true }),
      notSuccess('End', `End is an artificial event the export adds to every case (${CONSULTA}): of the 938 cases ending with it, 466 were cancelled and 463 recognised (computed)`),
      notFailure('End', 'End closes recognised and cancelled requests alike (463 / 466, computed): it records no verdict'),
      successExcludes(['Cancelar Solicitud', 'Notificacion estudiante cancelacion soli'], 'a success cannot be an ending most of whose requests were cancelled (Cancelar Solicitud = cancel the request; computed per ending)'),
      noRuleOn(/(^|:)variant(-index)?$/i, 'case:variant and case:variant-index are written by the Disco export from the whole path (one value per variant, computed)'),
      notAPerson(['Start', 'End'], "org:resource 'Start' and 'End' are written on the artificial Start and End events (954 each, computed): nobody"),
      stageOrder('Radicar Solicitud Homologacion', 'Validar solicitud', 'the request is filed before it is validated in 547 of the 562 cases with both (computed)'),
      stageOrder('Validar solicitud', 'Homologacion por grupo de cursos', 'validation precedes the recognition in 470 of the 479 cases with both (computed)'),
      stageOrder('Homologacion por grupo de cursos', 'Visto Bueno Cierre Proceso', 'the closing approval follows the recognition in all 144 cases with both (computed)'),
      ...common(),
    ],
  },
  {
    file: 'verenich/helpdesk.csv',
    facts: [
      caseIs(['ticket'], `a case is one support ticket (${HELPDESK}), but the activities are integer codes (${TAX}): an honest unknown is acceptable`, { orUnknown: true }),
      noOpenCases(0, 'all 3804 cases end with code 6 (computed): the log holds closed tickets'),
      notFailure('6', `code 6 ends every ticket (computed): the ticket is closed (${HELPDESK}), not failed`),
      notException('1 > 8 > 6 covers 57% of the tickets (computed)'),
      stageOrder('1', '6', 'code 1 comes before code 6 in all 3749 cases with both (computed)'),
      stageOrder('8', '6', 'code 8 comes before code 6 in 3568 of the 3571 cases with both (computed)'),
      ...common(),
    ],
  },
  {
    file: 'verenich/env_permit.csv',
    facts: [
      caseIs(['application', 'permit'], `a case is one environmental permit application (${WABO_M1}), but the 381 activities are integer codes (${TAX}): an honest unknown is acceptable`, { orUnknown: true }),
      noVerdict(`the codes (${TAX}) carry no verdict and the decision on the permit is not recorded in any attribute: no ending can be read as granted or refused`),
      notException('916 variants over 937 cases (computed): only edges and exception sizes can be judged'),
      loopIsNormal('41', 'code 41 is repeated in 187 of the 201 cases with it (93%, computed)'),
      stageOrder('23', '25', 'code 23 opens 899 of the 937 cases and comes before code 25 in 931 of 936 (computed)'),
      stageOrder('26', '27', 'code 26 comes before code 27 in all 877 cases with both (computed)'),
      ...common(),
    ],
  },
  {
    file: 'verenich/bpi_13_incidents.csv',
    facts: [
      caseIs(['incident'], `a case is one IT incident (${VINST}); the activities are integer codes of the sub-status (${TAX}): an honest unknown is acceptable`, { orUnknown: true }),
      notFailure('5', 'code 5 has the event count of the Closed sub-status of the XES form (5716, computed): a closed incident, not a failure'),
      notFailure('9', 'code 9 has the count of the In Call sub-status (2034 against 2035 in the XES form, computed), under which 1882 incidents are completed'),
      noOpenCases(0.02, 'the XES form of the same log ends 7546 of 7554 cases with Completed (computed)'),
      repeatNotRework('1', 'code 1 is the In Progress sub-status (30239 events, as in the XES form, computed): 1 > 1 > 9 (23%) is the XES path Accepted > Accepted > Completed, status updates rather than rework'),
      notException('1 > 1 > 9 (23%) and 1 > 1 > 3 > 5 (7%) are the commonest paths (computed)'),
      ...common(),
    ],
  },
  {
    file: 'verenich/bpi_12_w.csv',
    facts: [
      caseIs(['application', 'loan'], `a case is one loan application (${BPIC12}), but the activities are integer codes of its work items (${TAX}): an honest unknown is acceptable`, { orUnknown: true }),
      noVerdict(`the W_ work items do not record whether the application was approved, declined or cancelled (those are A_ events, left out here; ${BPIC12})`),
      loopIsNormal('5', `code 5 is W_Nabellen offertes (22976 completions, the BPIC 2012 count, computed): calling after offers is repeated in 4274 of 5011 cases (${BPIC12})`),
      loopIsNormal('4', 'code 4 is W_Nabellen incomplete dossiers (11407 completions, computed): repeated in 1474 of 1647 cases'),
      loopIsNormal('3', 'code 3 is W_Completeren aanvraag (23967 completions, computed): repeated in 4420 of 7367 cases'),
      stageOrder('3', '6', 'completing the application (3) comes before validating it (6) in all 3209 cases with both (computed)'),
      stageOrder('1', '3', 'handling the lead (1) comes before completing the application (3) in all 2515 cases with both (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocpa/running-example.sqlite',
    facts: [
      caseNotionIn(['orders'], `an order management process is read per order: orders start with place order (2000 of 2000) and are the object its steps serve; items, packages, customers and employees are touched by parts of it (${OCPA_RUN}; computed)`),
      objectTypeTouches('orders', ['place order', 'confirm order', 'payment reminder'], `every order is placed, confirmed and reminded of payment (computed; ${OCPA_RUN})`),
      objectTypeTouches('items', ['pick item', 'item out of stock'], 'items are picked (7670) or found out of stock (1508 items, computed)'),
      objectTypeTouches('packages', ['create package', 'send package', 'failed delivery'], 'packages are created, sent and fail delivery (320 packages, computed)'),
      objectTypeTouches('customers', ['place order', 'confirm order'], 'the 3 customers are on every place and confirm order event (computed)'),
      objectTypeTouches('employees', ['pick item', 'confirm order', 'create package', 'send package'], 'employees pick items, confirm orders and create and send packages (computed)'),
      notSuccess('payment reminder', `a payment reminder is not a payment; every order ends with one only because the file's pay order events are missing (${OCPA_RUN})`),
      notSuccess('failed delivery', 'a failed delivery is not a delivery (every package ends so because the package delivered events are missing, computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocpa/running-example.sqlite',
    options: { caseNotion: 'orders' },
    facts: [
      caseIs(['order'], 'the case notion is the orders object: a case is one order'),
      stageBefore('place order', 'payment reminder', 'ordering and payment are phases apart: place order > confirm order takes 18.5 h (median), confirm order > payment reminder 149 h (computed, all 2000 orders in that order)'),
      notException('place order > confirm order > payment reminder covers 1614 of 2000 orders (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocelescope/pallet-logistics-v0.9.sqlite',
    facts: [
      objectTypeTouches('Order', ['receive order', 'get item'], `orders are received and their items fetched (computed; ${PALLET})`),
      objectTypeTouches('Item', ['get item', 'load'], `items are fetched and loaded (computed; ${PALLET})`),
      objectTypeTouches('Pallet', ['load', 'deliver'], `pallets are loaded and delivered (computed; ${PALLET})`),
      objectTypeTouches('Vehicle', ['inspect', 'load', 'deliver'], `vehicles are inspected, loaded and deliver (computed; ${PALLET})`),
      ...common(),
    ],
  },
  {
    file: 'eventdataR/bpic2011_hospital.xes.gz',
    facts: [
      caseIs(['patient'], `a case is one patient of the gynaecology department (${BPIC11}); not an adjective of an activity name (poliklinisch) nor a test. The names are Dutch fees and tests, no column says patient: "one case, identified by ..." is right too (issue 31)`, { orUnknown: true }),
      noVerdict(`the log records treatments, lab tests and fees but no outcome (no discharge status, no diagnosis result): no ending is a success or a failure (${BPIC11})`),
      noClaimBelow(24, 'times are dates (every event at 00:00 or 01:00 UTC, computed): nothing can be stated below a day'),
      tiedOrderAtMostWeak('87% of consecutive steps share their timestamp (computed): the order of same-day steps is the order they were written to the file, not evidence'),
      loopIsNormal('aanname laboratoriumonderzoek', 'lab samples are taken again and again during treatment: 765 of the 804 patients with one have several (computed)'),
      loopIsNormal('vervolgconsult poliklinisch', 'follow-up consults recur: 760 of the 958 patients with one have several (computed)'),
      noRuleOn(/Diagnosis Treatment Combination ID/i, 'diagnosis-treatment combination ids identify billing records (688 distinct values over the 688 cases with one, computed); they cannot decide a route'),
      ...common(),
    ],
  },
  {
    file: 'ibm/servicenow_incidents.csv.gz',
    facts: [
      caseIs(['incident'], `a case is one incident (${SNOW}); not 'inc', the prefix of its number`, { orUnknown: true }),
      notFailure('Closed', `Closed is the normal end of an incident (${SNOW}); 20768 of the 20769 incidents end with it (computed)`),
      noOpenCases(0.01, 'all but one of the 20769 incidents end Closed (computed)'),
      verdictFromAttribute('made_sla', `made_sla records whether the incident met its SLA (${SNOW}); false on the last row of 8174 incidents (39%, computed): the outcome the log records`),
      repeatNotRework('Active', `consecutive Active rows are updates of a record that stays Active (sys_mod_count grows on all 45795 same-state pairs, computed; ${SNOW}); 58.5% of the incidents reaching Active have them`),
      repeatNotRework('New', 'consecutive New rows are updates of a New record: 7348 of the 13383 incidents reaching New have them (computed)'),
      repeatNotRework('Awaiting User Info', 'consecutive Awaiting User Info rows are updates while waiting: 3100 of 4775 incidents (computed)'),
      noRuleOn(/^(closed_code|resolved_by|resolved_at|closed_at)$/, `closed_code, resolved_by, resolved_at and closed_at hold the end of the incident, copied onto every row from the first (constant in all 20769 incidents, computed; ${SNOW}): they cannot explain a choice`),
      notAPerson(['?'], "assigned_to '?' (23030 rows) is an unassigned incident, not a resolver (computed)"),
      stageOrder('Resolved', 'Closed', 'Closed follows the last Resolved in 20757 of the 20765 incidents with both (computed)'),
      stageBefore('New', 'Closed', `an incident opens New and ends Closed (${SNOW})`),
      ...common(),
    ],
  },
  {
    file: 'simod/BPI_Challenge_2017_W_Two_TS_filtered.xes.gz',
    facts: [
      caseIs(['application', 'loan'], `a case is one loan application (${BPIC17})`),
      noVerdict(`the W_ work items do not record whether the application was accepted, denied or cancelled (A_ and O_ events are left out; ${BPIC17}): W_Validate application ends accepted and denied applications alike`),
      repeatShare('W_Complete application', 0.25, 0.5, 'pairing start and complete, 2888 of the 8129 cases (36%) complete the application more than once: real rework, neither 100% nor hidden (computed)'),
      repeatShare('W_Handle leads', 0, 0.35, 'paired, 227 of the 993 cases (23%) handle leads more than once (computed)'),
      repeatShare('W_Shortened completion', 0, 0.1, 'paired, 2 of the 64 cases repeat it (computed)'),
      repeatNotRework('W_Shortened completion', 'its 132 events are 66 start/complete pairs of single executions (computed)'),
      loopIsNormal('W_Call after offers', `calls after an offer are repeated until the customer answers (${BPIC17}): 7873 of the 8903 cases execute it more than once (computed, pairs as one)`),
      loopIsNormal('W_Call incomplete files', `calls about missing documents recur: 3979 of 4103 cases (computed, pairs as one; ${BPIC17})`),
      stageOrder('W_Complete application', 'W_Validate application', `the application is completed, offers are followed up, then it is validated (${BPIC17})`),
      stageOrder('W_Call after offers', 'W_Validate application', `validation follows the offers (${BPIC17})`),
      noRuleOn(/variant/i, '(case)_variant, variant and variant-index are Disco path identifiers (each names one variant, computed): they name the path, they do not decide it'),
      ...common(),
    ],
  },
  {
    file: 'simod/PurchasingExample.xes.gz',
    facts: [
      caseIs(['purchase', 'requisition', 'order', 'request'], `a case is one purchase, from its requisition to the payment of the invoice (${PURCHASING})`),
      success('Pay Invoice', `paying the supplier's invoice ends a completed purchase (${PURCHASING}); 413 of 608 cases (computed)`),
      notSuccess('Analyze Purchase Requisition', 'the 64 cases ending with the analysis of the requisition never got a quotation or an order (computed): the requisition was not pursued'),
      notSuccess('Analyze Request for Quotation', 'the 131 cases ending with the analysis of the request for quotation never got an order (computed)'),
      noOpenCases(0.05, 'a simulated sample: cases end with Pay Invoice or an analysis that stops them, spread over the whole period; only 24 of 608 (4%) end with an analysis in the last 30 days (computed)'),
      pathsOfExecutions(`every activity has start and complete events (9119 pairs, computed; ${PURCHASING}): the commonest path is 18 executions, no activity twice in a row`),
      repeatNotRework('Create Purchase Requisition', 'each of the 608 cases has one start/complete pair of it, no second execution (computed)'),
      repeatNotRework('Pay Invoice', 'each of the 413 cases paying has one start/complete pair (computed)'),
      repeatShare('Create Purchase Requisition', 0, 0.05, 'paired, no case creates the requisition twice (computed)'),
      noEscalations(`no step of the simulated process is taken after a long wait or a failed attempt (${PURCHASING}); the next step looks slow only beside an instant start-to-complete hop`),
      stageBefore('Create Purchase Requisition', 'Pay Invoice', `a purchase runs from requisition to payment (${PURCHASING})`),
      stageOrder('Create Purchase Order', 'Deliver Goods Services', `goods are delivered against the order (${PURCHASING})`),
      noRuleOn(/variant/i, 'variant and variant-index are Disco path identifiers (one value per variant, computed): they name the path, they do not decide it'),
      ...common(),
    ],
  },
  {
    file: 'ocel-standard/ocel2_p2p.sqlite',
    facts: [
      // Two readings stand: per purchase order (its objects run from Create Purchase Order to Execute Payment) or per
      // requisition (one per procurement: each of the 927 linked object groups holds exactly one, and its orders come
      // from it). The default's rule (one object per execution, case-notion.ts) takes the requisition and names the
      // orders as the alternative; a case of the whole execution, requisition to payment, is not built (issue 31 note).
      caseNotionIn(['purchase_order', 'purchase_requisition'], `procure-to-pay is read per purchase order: its objects begin with Create Purchase Order (1598 of 1598) and end with Execute Payment (1398), the order the requisition, quotation, goods and invoices serve; or per requisition, the one object of each procurement (${P2P}; computed)`),
      objectTypeTouches('purchase_requisition', ['Create Purchase Requisition', 'Approve Purchase Requisition', 'Delegate Purchase Requisition Approval', 'Create Request for Quotation'], `requisitions are created, approved or delegated, then quoted (computed; ${P2P})`),
      objectTypeTouches('quotation', ['Create Request for Quotation', 'Create Purchase Order', 'Approve Purchase Order'], 'quotations are requested and turned into approved orders (computed)'),
      objectTypeTouches('purchase_order', ['Create Purchase Order', 'Approve Purchase Order', 'Create Goods Receipt', 'Execute Payment'], 'orders are created, approved, received and paid (computed)'),
      objectTypeTouches('goods receipt', ['Create Goods Receipt', 'Create Invoice Receipt', 'Perform Two-Way Match', 'Execute Payment'], 'goods receipts are invoiced, matched and paid (computed)'),
      objectTypeTouches('invoice receipt', ['Create Invoice Receipt', 'Perform Two-Way Match', 'Execute Payment'], 'invoices are matched and paid (computed)'),
      objectTypeTouches('material', ['Create Purchase Requisition', 'Approve Purchase Requisition'], 'materials are named on requisitions (computed)'),
      objectTypeTouches('payment', ['Execute Payment'], 'payments are executed (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocel-standard/ocel2_p2p.sqlite',
    options: { caseNotion: 'purchase_order' },
    facts: [
      caseIs(['order', 'purchase order'], 'the case notion is the purchase_order object: a case is one purchase order'),
      success('Execute Payment', `the order is paid: the end of procure-to-pay (${P2P}); 1398 of 1598 orders end with it (computed)`),
      stageBefore('Create Purchase Order', 'Execute Payment', `ordering, then goods and invoices, then payment are the phases of the description (${P2P}); payment comes 99 h (median) after the last receipt, 15 days after creation (computed)`),
      stageOrder('Approve Purchase Order', 'Create Goods Receipt', `goods are received against an approved order (${P2P}; Approve Purchase Order > Create Goods Receipt in all 1598 orders, computed)`),
      loopIsNormal('Create Goods Receipt', 'orders are delivered in parts: 1253 of the 1598 orders have more than one goods receipt (computed)'),
      ...common(),
    ],
  },
  {
    file: 'ocel-standard/ocel2_p2p.sqlite',
    options: { caseNotion: 'goods receipt' },
    facts: [
      edgeNotException('Create Goods Receipt', 'Execute Payment', 'read per goods receipt, in all 466 hand-offs Create Goods Receipt -> Execute Payment the receipt had already been invoiced and two-way matched (computed): a payment after matching, not a skip of it'),
      success('Execute Payment', `paying is the end of a goods receipt's handling (${P2P}); 1744 of 1941 receipts end with it (computed)`),
      stageOrder('Perform Two-Way Match', 'Execute Payment', `payment follows the match (${P2P}; computed)`),
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
