import { describe, expect, it } from 'vitest';
import { buildDocument, validateDocument } from '../../engine/document/index.js';
import { importLog } from '../../connectors/files/index.js';
import { scratch } from './helpers.js';
import { p2pLog } from './ocel-logs.js';

/** Every type of the procure-to-pay log with the activities whose events relate to its objects, over all its events. */
const WHOLE = [
  { id: 'ot-invoice', name: 'invoice', count: 6, activities: ['create invoice', 'pay'] },
  { id: 'ot-material', name: 'material', count: 12, activities: ['create requisition'] },
  { id: 'ot-order', name: 'order', count: 6, activities: ['create order', 'receive goods'] },
  { id: 'ot-receipt', name: 'receipt', count: 12, activities: ['create invoice', 'inspect goods', 'receive goods'] },
  { id: 'ot-requisition', name: 'requisition', count: 6, activities: ['approve requisition', 'create order', 'create requisition'] },
];

/** Per activity, the types it touches: what WHOLE says, read the other way round. */
const touching = (activity: string) => WHOLE.filter((t) => t.activities.includes(activity)).map((t) => t.name);

describe('object types in the document of an OCEL import', () => {
  it('list the activities of the whole log, not only of the events the case notion keeps, also when the project is opened again', async () => {
    const s = scratch();
    const path = s.file('p2p.jsonocel', p2pLog());
    const store = s.store('p2p.sqlite');
    await importLog(store, path);
    const doc = buildDocument(store.snapshot());
    expect(validateDocument(doc).ok).toBe(true);
    expect(doc.source.case_notion).toBe('requisition');
    // The requisition's cases hold three activities; receipts and invoices relate to none of their events.
    expect(doc.nodes.filter((n) => n.kind === 'activity').map((n) => [n.label, n.object_types])).toEqual(
      ['approve requisition', 'create order', 'create requisition'].map((a) => [a, touching(a)]),
    );
    expect(doc.object_types).toEqual(WHOLE);
    store.close();

    const reopened = s.store('p2p.sqlite');
    expect(buildDocument(reopened.snapshot()).object_types).toEqual(WHOLE);
  });

  it('are the same whatever the case notion', async () => {
    const s = scratch();
    const path = s.file('p2p.jsonocel', p2pLog());
    for (const caseNotion of ['receipt', 'invoice', 'material']) {
      const store = s.store(`${caseNotion}.sqlite`);
      await importLog(store, path, { caseNotion });
      const doc = buildDocument(store.snapshot());
      expect(doc.source.case_notion).toBe(caseNotion);
      expect(doc.object_types).toEqual(WHOLE);
      for (const n of doc.nodes.filter((x) => x.kind === 'activity')) expect(n.object_types).toEqual(touching(n.label));
    }
  });
});
