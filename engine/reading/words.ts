/**
 * What activity names say, read as whole words. Every reading from words is
 * a guess (strength `hypothesis`): the lists below are the only vocabulary,
 * stated in the document's assumptions, and never matched inside other words
 * (so "repayment" is not "pay" and "unsuccessful" is not "successful").
 */

/** Lower-case words of a name: split at spaces, punctuation, digits, underscores and camelCase. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .normalize('NFKD')
    .split(/[^a-z]+/)
    .filter((w) => w.length > 0);
}

/** Words that say a case ended badly. */
export const FAILURE_WORDS: readonly string[] = [
  'cancel', 'cancelled', 'canceled', 'cancellation', 'reject', 'rejected', 'rejection', 'decline', 'declined', 'denied', 'deny', 'denial',
  'fail', 'failed', 'failure', 'abort', 'aborted', 'error', 'refuse', 'refused', 'refusal', 'withdraw', 'withdrawn', 'withdrawal',
  'terminate', 'terminated', 'termination', 'void', 'voided', 'revoke', 'revoked', 'expire', 'expired', 'invalid', 'duplicate',
  'lost', 'unsuccessful', 'abandon', 'abandoned', 'collection', 'dismissed', 'lapsed', 'unpaid', 'overdue', 'dropped', 'delete',
  'deleted', 'deletion',
];

/** Words that say a case reached its goal. */
export const SUCCESS_WORDS: readonly string[] = [
  'close', 'closed', 'complete', 'completed', 'completion', 'pay', 'paid', 'payment', 'approve', 'approved', 'approval', 'accept', 'accepted',
  'resolve', 'resolved', 'finish', 'finished', 'done', 'deliver', 'delivered', 'delivery', 'settle', 'settled', 'shipped', 'archive',
  'archived', 'success', 'successful', 'won', 'fulfil', 'fulfill', 'fulfilled', 'granted', 'hired', 'discharge', 'discharged', 'solved',
  'clear', 'cleared', 'billed', 'invoiced',
];

/** Words that turn a success word around ("not accepted", "without payment", "Miss Rent Payment"). */
const NEGATIONS = new Set(['not', 'no', 'non', 'without', 'never', 'un', 'miss', 'missed', 'missing']);
/** Words that make a success word a step towards it, not its reaching ("Request Payment", "for approval", "Payment Reminder", "Accept Late Payment": a late one taken in, the case goes on). */
const PENDING = new Set(['late', 'partial', 'partially', 'request', 'requested', 'reminder', 'block', 'blocked', 'hold', 'pending', 'wait', 'waiting', 'awaiting', 'for', 'prepare', 'draft', 'schedule', 'scheduled', 'plan', 'planned', 'check', 'review', 'change', 'remove', 'set', 'send', 'submit', 'submitted']);

/** Success words that name a gate on the way as often as the goal: an approval is often followed by more work. */
const GATE_WORDS = new Set(['approve', 'approved', 'approval', 'accept', 'accepted', 'granted']);

const failureSet = new Set(FAILURE_WORDS);
const successSet = new Set(SUCCESS_WORDS);

/** 'failure', 'success' or undefined, from an activity name's whole words (failure words win; a pending word voids a success word). */
export function nameVerdict(name: string): 'success' | 'failure' | undefined {
  const words = wordsOf(name);
  if (words.some((w) => failureSet.has(w))) return 'failure';
  if (!words.some((w) => successSet.has(w))) return undefined;
  if (words.some((w) => NEGATIONS.has(w))) return 'failure';
  return words.some((w) => PENDING.has(w)) ? undefined : 'success';
}

/**
 * Whether a name says the case is over whenever it stops there: a failure, or
 * a success that is no gate ("Close Order", "Payment", but not "Auto Approval").
 */
export function isFinalName(name: string): boolean {
  const verdict = nameVerdict(name);
  if (verdict === 'failure') return true;
  return verdict === 'success' && wordsOf(name).some((w) => successSet.has(w) && !GATE_WORDS.has(w));
}

/** Filler and the people or systems doing a step: never what a case is about. */
const FILLER = new Set([
  'the', 'a', 'an', 'and', 'or', 'of', 'for', 'to', 'by', 'in', 'on', 'at', 'with', 'from', 'into', 'up', 'out', 'off', 'new', 'all',
  'not', 'no', 'is', 'be', 'other', 'again', 'first', 'second', 'final', 'partly', 'pre', 'sub', 'via', 'per', 'its', 'their', 'simple',
  'complex', 'high', 'low', 'level', 'employee', 'manager', 'supervisor', 'administration', 'director', 'owner', 'approver', 'system',
  'user', 'customer', 'missing', 'budget', 'intern', 'internal', 'external', 'party',
]);

/** Verbs and statuses that are never nouns in activity names. */
const VERBS = new Set([
  'create', 'created', 'hand', 'handed', 'register', 'registered', 'registration', 'receive', 'received', 'submit', 'submitted', 'send', 'sent', 'check',
  'checked', 'update', 'updated', 'changed', 'set', 'remove', 'removed', 'assign', 'assigned', 'insert', 'inserted', 'add', 'added', 'pick',
  'picked', 'load', 'loaded', 'place', 'placed', 'confirm', 'confirmed', 'confirmation', 'pay', 'notify', 'notified', 'handle', 'handled',
  'determine', 'draft', 'print', 'adjust', 'processed', 'reviewed', 'analyze', 'analyse', 'start', 'started', 'end', 'ended', 'open',
  'opened', 'queued', 'released', 'requested', 'schedule', 'scheduled', 'wait', 'waiting', 'take', 'get', 'make', 'do', 'go', 'call',
  'contact', 'prepare', 'verify', 'verified', 'validate', 'validated', 'inform', 'informed', 'issued', 'booked', 'planned', 'bring', 'give',
  'put', 'evaluate', 'assess', 'inspect', 'examine', 'decide', 'reopen', 'reopened', 'escalate', 'escalated', 'forward', 'forwarded',
  'returned', 'resubmit', 'sign', 'signed', 'block', 'blocked', 'unblock', 'reactivate', 'delete', 'deleted', 'edit', 'enter', 'entered',
  'fill', 'filed', 'apply', 'applied', 'transferred', 'select', 'selected', 'preaccepted', 'partlysubmitted', 'activated', 'reminder',
  'saved', 'save', 'receipt', 'unmatched', 'matched', 'progress', 'pending', 'hold', 'resume', 'resumed', 'stop', 'stopped', 'repeat', 'for',
]);

/** Words that are verbs when they open a name ("Request Payment") and nouns after a verb ("register request"). */
const OPENING_VERBS = new Set(['request', 'appeal', 'release', 'order', 'claim', 'change', 'transfer', 'return', 'review', 'record', 'issue', 'file', 'book', 'plan', 'process', 'test', 'repair', 'payment', 'schedule', 'report', 'offer', 'invoice', 'decision', 'notification', 'approval', 'delivery']);

/** Words in -ing that are things. */
const GERUND_NOUNS = new Set(['building', 'booking', 'meeting', 'listing', 'housing', 'clothing', 'painting', 'drawing', 'offering', 'filing', 'shipping', 'billing', 'funding', 'training', 'hearing', 'ruling', 'warning', 'finding', 'setting', 'posting']);

/**
 * The object of a name that reads "verb object" ("Create Fine", "register request", "Insert ticket"): the name's
 * first word is a verb this vocabulary knows. A name that opens with anything else ("ER Triage", "vervolgconsult
 * poliklinisch", a verb of a language the vocabulary does not hold) names no object it can read.
 */
export function objectOf(name: string): string | undefined {
  const first = wordsOf(name)[0];
  const verb = (w: string) => VERBS.has(w) || OPENING_VERBS.has(w) || successSet.has(w) || failureSet.has(w);
  if (first === undefined || !(verb(first) || (first.endsWith('s') && verb(first.slice(0, -1))))) return undefined;
  return nounOf(name);
}

/**
 * The noun phrase of an activity name, read as "verb object": filler,
 * statuses and verbs are left out, and a word that can be either is a verb
 * when it opens the name (unless a preposition follows: "Request for
 * Payment"). Names with no lower-case letter are codes ("01_HOOFD_010",
 * "A_SUBMITTED") and say nothing.
 */
export function nounOf(name: string): string | undefined {
  if (!/[a-z]/.test(name)) return undefined;
  const all = wordsOf(name);
  const words = all.filter((w, i) => {
    if (w.length < 3 || FILLER.has(w) || VERBS.has(w) || (w.endsWith('s') && VERBS.has(w.slice(0, -1))) || failureSet.has(w)) return false;
    // Qualities ("seriousness", "priority") are what is assessed about a case, not the case.
    if (/(ness|ity)$/.test(w)) return false;
    // Gerunds name work being done ("Turning", "Packing"), not the thing it is done to.
    if (w.length > 5 && w.endsWith('ing') && !GERUND_NOUNS.has(w)) return false;
    if (successSet.has(w) && !OPENING_VERBS.has(w)) return false;
    if (i === 0 && OPENING_VERBS.has(w) && !['for', 'of'].includes(all[1] ?? '')) return false;
    return true;
  });
  return words.length ? words.join(' ') : undefined;
}

/** Whether every word of a noun phrase is a word of the name. */
export function nameHolds(name: string, noun: string): boolean {
  const words = new Set(wordsOf(name));
  return noun.split(' ').every((w) => words.has(w));
}

/**
 * In how many different ways the names act on a noun: the distinct sets of
 * their other words ("Create Fine", "Send Fine", "Insert Fine Notification":
 * 3). An object is acted on in several ways; a step's own name repeated with
 * a suffix ("Final Inspection", "Final Inspection Q.C.") is one way.
 */
export function nounContexts(names: readonly string[], noun: string): number {
  const own = new Set(noun.split(' '));
  const contexts = new Set<string>();
  for (const name of names) {
    if (!nameHolds(name, noun)) continue;
    contexts.add(wordsOf(name).filter((w) => w.length >= 3 && !own.has(w) && !FILLER.has(w)).sort().join(' '));
  }
  return contexts.size;
}

/** Nouns a case identifier column can carry ("order_id" -> order); generic names say nothing. */
export function nounOfColumn(column: string): string | undefined {
  const words = wordsOf(column.replace(/^case:/, '')).filter((w) => !['case', 'id', 'ids', 'key', 'number', 'nr', 'no', 'concept', 'name', 'trace', 'uuid', 'identifier', 'code'].includes(w));
  return words.length && words.every((w) => w.length >= 3) ? words.join(' ') : undefined;
}

/**
 * The thing case ids name, when most of them are one phrase and a number
 * ("declaration 86791", "request for payment 1", "order_42"): the log's own
 * word for its cases. Generic phrases ("case", "trace") and single letters say nothing.
 */
export function nounOfIds(ids: readonly string[]): string | undefined {
  if (ids.length < 3) return undefined;
  const counts = new Map<string, number>();
  for (const id of ids) {
    const m = /^([A-Za-z][A-Za-z _.-]*?)[ _.#:-]*\d+$/.exec(id.trim());
    // A prefix in capitals ("INC0001234") is a code, not a word for the thing.
    if (!m || !/[a-z]/.test(m[1]!)) continue;
    const phrase = wordsOf(m[1]!).filter((w) => !['case', 'trace', 'id', 'nr', 'no', 'number', 'instance'].includes(w)).join(' ');
    // Short prefixes ("inc", "po", "req") are abbreviations, not words.
    if (phrase.length >= 5) counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best && best[1] >= 0.8 * ids.length ? best[0] : undefined;
}

/** Attribute values that stand for "no value" in real logs. */
const PLACEHOLDERS = new Set(['', '?', '-', '--', 'missing', 'undefined', 'unknown', 'null', 'none', 'n/a', 'na', 'nan', 'nil', 'empty', 'not set', '#n/a', '__invalid__']);
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.has(value.trim().toLowerCase());
}

/** Attribute names that identify rather than describe (numbers, ids, codes, keys). */
export function isIdName(attribute: string): boolean {
  const name = attribute.replace(/^case:/, '');
  // Columns a tool adds when it writes a table out (pm4py's '@@index', '@@case_index') number rows, and a column
  // named for the case or the row is its identifier.
  if (name.startsWith('@@') || ['case', 'index', 'row', 'rownum', 'rowid'].includes(name.toLowerCase())) return true;
  const words = wordsOf(name);
  const last = words[words.length - 1];
  return last !== undefined && ['id', 'ids', 'number', 'nr', 'no', 'num', 'code', 'key', 'uuid', 'guid', 'identifier', 'ref', 'reference', 'index'].includes(last);
}

/**
 * An attribute a log extraction tool writes from the case's whole path: its variant's number or how many cases share
 * it (Disco's 'Variant', 'variant-index'; pm4py's 'variant:index', 'variant:count'). It restates the path, so it
 * causes no choice on the way (a rule on it leaks the answer), however few cases show it.
 */
export function isVariantName(attribute: string): boolean {
  return wordsOf(attribute.replace(/^case:/, '')).some((w) => w === 'variant' || w === 'variants');
}

/** Words that name a group of people, whatever follows them ('Team A', 'Level 2 support', 'Back office'). */
const GROUP_WORDS = new Set(['team', 'teams', 'group', 'department', 'dept', 'unit', 'section', 'division', 'office', 'desk', 'pool', 'queue', 'squad', 'tier', 'level', 'ward', 'branch', 'board', 'committee', 'staff', 'helpdesk', 'backoffice', 'frontoffice']);
/** Words that name a role or a machine: alone (no number), a value of them is a job title, not someone ('Clerk', 'SYSTEM'). */
const ROLE_WORDS = new Set([
  'clerk', 'manager', 'management', 'admin', 'administrator', 'administration', 'system', 'systems', 'batch', 'robot', 'bot', 'auto', 'automatic', 'automated',
  'supervisor', 'assistant', 'officer', 'agent', 'specialist', 'analyst', 'operator', 'nurse', 'doctor', 'physician', 'secretary', 'accountant',
  'auditor', 'engineer', 'technician', 'employee', 'worker', 'lead', 'director', 'approver', 'reviewer', 'requester', 'customer', 'client',
  'applicant', 'sales', 'finance', 'accounting', 'purchasing', 'support', 'service', 'senior', 'junior', 'head', 'chief', 'user', 'expert',
  'of', 'the', 'and', 'a', 'b', 'c', 'd',
]);

/**
 * Whether a resource value reads as a role or group label rather than someone: it holds a group word ('Team A'),
 * or it is made of role words alone, with no number ('Clerk', 'Senior Manager', 'SYSTEM'; 'manager-02' and
 * 'User_1' are numbered individuals). A reading of words: it only ever takes a claim away.
 */
export function readsAsLabel(value: string): boolean {
  const words = wordsOf(value);
  if (words.some((w) => GROUP_WORDS.has(w))) return true;
  return words.length > 0 && !/\d/.test(value) && words.every((w) => ROLE_WORDS.has(w)) && !words.every((w) => w.length === 1);
}

/** Words of an attribute name that say it describes a person's trait, not the case's business. */
const TRAIT_WORDS = new Set([
  'gender', 'sex', 'age', 'aged', 'nationality', 'citizenship', 'ethnicity', 'ethnic', 'race', 'religion', 'religious', 'marital',
  'married', 'disability', 'disabled', 'handicap', 'pregnant', 'pregnancy', 'orientation', 'birth', 'birthdate', 'birthday', 'dob',
  'protected', 'minority', 'immigrant', 'migrant',
]);

/**
 * Whether an attribute's name says it describes a person's trait (gender, age, nationality, religion, marital
 * status, disability, a flag named protected …): what goes with it is a correlation that may reflect bias or a
 * proxy, never a policy the data can state.
 */
export function isPersonalTrait(attribute: string): boolean {
  return wordsOf(attribute.replace(/^case:/, '')).some((w) => TRAIT_WORDS.has(w));
}
