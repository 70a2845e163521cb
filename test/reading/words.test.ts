import { describe, expect, it } from 'vitest';
import { leaf, node, tau } from '../../engine/mining/index.js';
import { treeFacts } from '../../engine/reading/tree-facts.js';
import { isFinalName, isIdName, isPlaceholder, isVariantName, nameVerdict, nounContexts, nounOf, nounOfColumn, nounOfIds, objectOf, wordsOf } from '../../engine/reading/words.js';
import { CASE_ID_SAMPLE, mergeCaseSample } from '../../engine/store/case-sample.js';

describe('what names say', () => {
  it('splits names into whole words, camelCase and codes included', () => {
    expect(wordsOf('A_DECLINED')).toEqual(['a', 'declined']);
    expect(wordsOf('Request For Payment FINAL_APPROVED by SUPERVISOR')).toEqual(['request', 'for', 'payment', 'final', 'approved', 'by', 'supervisor']);
    expect(wordsOf('setPaymentBlock')).toEqual(['set', 'payment', 'block']);
  });

  it('reads success and failure from whole words only, pending and negated names aside', () => {
    expect(nameVerdict('A_DECLINED')).toBe('failure');
    expect(nameVerdict('Send for Credit Collection')).toBe('failure');
    expect(nameVerdict('Delete Purchase Order Item')).toBe('failure');
    expect(nameVerdict('Payment')).toBe('success');
    expect(nameVerdict('Closed')).toBe('success');
    expect(nameVerdict('offer accepted and hired')).toBe('success');
    // A step towards the goal is not its reaching.
    expect(nameVerdict('Request Payment')).toBeUndefined();
    expect(nameVerdict('Declaration FOR_APPROVAL by SUPERVISOR')).toBeUndefined();
    expect(nameVerdict('Payment Reminder')).toBeUndefined();
    expect(nameVerdict('Not Accepted')).toBe('failure');
    // No fragments: "repayment" is not "payment", "unsuccessfully" no word of the lists.
    expect(nameVerdict('Schedule repayment')).toBeUndefined();
    expect(nameVerdict('Wait')).toBeUndefined();
  });

  it('knows which names end a case whenever it stops there, and which are gates on the way', () => {
    expect(['Close Order', 'Payment', 'Cancelled', 'send rejection'].map(isFinalName)).toEqual([true, true, true, true]);
    expect(['Auto Approval', 'Application Accepted', 'Register', 'Request Payment'].map(isFinalName)).toEqual([false, false, false, false]);
  });

  it('finds the object of "verb object" names, never a status, verb, gerund, quality or code', () => {
    expect(nounOf('Create Fine')).toBe('fine');
    expect(nounOf('register request')).toBe('request');
    // A phrasal verb opens the name: what is handed in is the object.
    expect(objectOf('Hand In Job Application')).toBe('job application');
    expect(nounOf('Declaration SUBMITTED by EMPLOYEE')).toBe('declaration');
    expect(nounOf('Create Purchase Order Item')).toBe('purchase order item');
    expect(nounOf('Request For Payment SUBMITTED by EMPLOYEE')).toBe('request payment');
    expect(nounOf('Request Payment')).toBe('payment');
    expect(nounOf('A_SUBMITTED')).toBeUndefined();
    expect(nounOf('01_HOOFD_010')).toBeUndefined();
    expect(nounOf('Accepted')).toBeUndefined();
    expect(nounOf('Turning & Milling')).toBeUndefined();
    expect(nounOf('Assign seriousness')).toBeUndefined();
    expect(nounOf('Confirmation of receipt')).toBeUndefined();
  });

  it('counts the different ways names act on a noun', () => {
    expect(nounContexts(['Create Fine', 'Send Fine', 'Insert Fine Notification', 'Payment'], 'fine')).toBe(3);
    expect(nounContexts(['Final Inspection', 'Final Inspection Q.C.', 'Packing'], 'inspection')).toBe(1);
  });

  it('reads the phrase case ids share, and nothing from generic or mixed ids', () => {
    expect(nounOfIds(['declaration 1', 'declaration 22', 'declaration 333'])).toBe('declaration');
    expect(nounOfIds(['request for payment 7', 'request for payment 8', 'request for payment 9'])).toBe('request for payment');
    expect(nounOfIds(['order_1', 'order_2', 'order_3', 'order_4'])).toBe('order');
    expect(nounOfIds(['case 1', 'case 2', 'case 3'])).toBeUndefined();
    expect(nounOfIds(['1', '2', '3'])).toBeUndefined();
    expect(nounOfIds(['a1', 'b2', 'c3'])).toBeUndefined();
    expect(nounOfIds(['order 1', 'invoice 2', 'claim 3'])).toBeUndefined();
    expect(nounOfColumn('order_id')).toBe('order');
    expect(nounOfColumn('case:concept:name')).toBeUndefined();
    expect(nounOfColumn('CaseID')).toBeUndefined();
  });

  it('knows identifiers by name and placeholders by value', () => {
    expect(isIdName('case:DeclarationNumber')).toBe(true);
    expect(isIdName('case:Permit BudgetNumber')).toBe(true);
    expect(isIdName('order_id')).toBe(true);
    expect(isIdName('case:Amount')).toBe(false);
    expect(isIdName('priority')).toBe(false);
    for (const v of ['?', 'MISSING', 'UNKNOWN', ' n/a ', '', 'NIL']) expect(isPlaceholder(v)).toBe(true);
    expect(isPlaceholder('Value 1')).toBe(false);
  });

  it('reads a missed or late success as no success', () => {
    expect(nameVerdict('Miss Rent Payment')).toBe('failure');
    expect(nameVerdict('Missed Payment')).toBe('failure');
    expect(nameVerdict('Accept Late Payment')).toBeUndefined();
    expect(nameVerdict('Partial Payment')).toBeUndefined();
    expect(nameVerdict('Pay Rent')).toBe('success');
  });

  it('knows attributes a tool writes from the whole path (its variant) by name', () => {
    for (const n of ['variant:count', 'variant:index', 'variant-index', 'case:Variant', 'VariantCount']) expect(isVariantName(n), n).toBe(true);
    for (const n of ['variance', 'case:Amount', 'invariant check']) expect(isVariantName(n), n).toBe(false);
  });
});

describe('what the mined tree says', () => {
  const tree = node('sequence', [
    leaf('a'),
    node('parallel', [leaf('b'), node('loop', [leaf('c'), tau()])]),
    node('xor', [leaf('d'), node('sequence', [leaf('d2'), leaf('e')])]),
    node('xor', [tau(), leaf('f')]),
    leaf('g'),
  ]);
  const facts = treeFacts(tree);

  it('requires what every trace holds', () => {
    expect([...facts.required!].sort()).toEqual(['a', 'b', 'c', 'g']);
    expect(treeFacts(undefined).required).toBeUndefined();
  });

  it('runs activities concurrently only inside a parallel block', () => {
    expect(facts.concurrent('b', 'c')).toBe(true);
    expect(facts.concurrent('a', 'b')).toBe(false);
    expect(facts.concurrent('d', 'e')).toBe(false);
    expect(facts.concurrent('b', 'b')).toBe(false);
  });
});

describe('the case id sample', () => {
  it('keeps the smallest ids, whatever the arrival order', () => {
    const ids = Array.from({ length: 60 }, (_, i) => `case ${String(i).padStart(2, '0')}`);
    const forward = ids.reduce((s, id) => mergeCaseSample(s, [id]) ?? s, [] as string[]);
    const backward = [...ids].reverse().reduce((s, id) => mergeCaseSample(s, [id]) ?? s, [] as string[]);
    expect(forward).toEqual(ids.slice(0, CASE_ID_SAMPLE));
    expect(backward).toEqual(forward);
    expect(mergeCaseSample(forward, ['case 59', 'case 00'])).toBeUndefined();
  });
});
