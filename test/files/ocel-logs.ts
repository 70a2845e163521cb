/**
 * Small object-centric logs whose truth is stated, for the case-notion and
 * object-type tests: each says which type is the case and why.
 */

/** An OCEL 2.0 JSON log: objects by id → type; events as [activity, ...object ids], an hour apart; o2o as [from, to]. */
export function ocelJson(objects: Record<string, string>, events: [string, ...string[]][], o2o: [string, string][] = []): string {
  const typesOf = (names: string[]) => [...new Set(names)].sort().map((name) => ({ name, attributes: [] }));
  return JSON.stringify({
    objectTypes: typesOf(Object.values(objects)),
    eventTypes: typesOf(events.map((e) => e[0])),
    objects: Object.entries(objects).map(([id, type]) => ({
      id,
      type,
      attributes: [],
      relationships: o2o.filter(([from]) => from === id).map(([, objectId]) => ({ objectId, qualifier: 'has' })),
    })),
    events: events.map(([type, ...ids], i) => ({
      id: `e${i + 1}`,
      type,
      time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
      attributes: [],
      relationships: ids.map((objectId) => ({ objectId, qualifier: '' })),
    })),
  });
}

/**
 * Procure-to-pay in six executions. Each requisition (with two materials)
 * becomes one order, received in two goods receipts that are each inspected
 * and then invoiced together on one invoice, which is paid. The receipts
 * relate to the most events (5 of 9 per execution, the old default) but are
 * two per execution; requisition, order and invoice are one per execution,
 * and the requisition touches the most activities of those (3: create and
 * approve requisition, create order). Materials relate to one event each.
 */
export function p2pLog(): string {
  const objects: Record<string, string> = {};
  const events: [string, ...string[]][] = [];
  for (let i = 1; i <= 6; i++) {
    Object.assign(objects, { [`r${i}`]: 'requisition', [`m${i}a`]: 'material', [`m${i}b`]: 'material', [`p${i}`]: 'order', [`g${i}a`]: 'receipt', [`g${i}b`]: 'receipt', [`v${i}`]: 'invoice' });
    events.push(
      ['create requisition', `r${i}`, `m${i}a`, `m${i}b`],
      ['approve requisition', `r${i}`],
      ['create order', `r${i}`, `p${i}`],
      ['receive goods', `p${i}`, `g${i}a`],
      ['receive goods', `p${i}`, `g${i}b`],
      ['inspect goods', `g${i}a`],
      ['inspect goods', `g${i}b`],
      ['create invoice', `v${i}`, `g${i}a`, `g${i}b`],
      ['pay', `v${i}`],
    );
  }
  return ocelJson(objects, events);
}

/**
 * Twelve orders of three steps each, all handled by one clerk who also
 * clocks in four times, and one invoice per payment: the clerk relates to
 * every event, and would join every order into one execution if it linked.
 */
export function shopLog(): string {
  const objects: Record<string, string> = { k1: 'Clerk' };
  const events: [string, ...string[]][] = [];
  for (let i = 0; i < 4; i++) events.push(['clock in', 'k1']);
  for (let o = 1; o <= 12; o++) {
    objects[`o${o}`] = 'Order';
    objects[`v${o}`] = 'Invoice';
    events.push(['create', `o${o}`, 'k1'], ['pay', `o${o}`, `v${o}`, 'k1'], ['ship', `o${o}`, 'k1']);
  }
  return ocelJson(objects, events);
}

/**
 * Twelve transport documents, each booking two containers that are packed
 * and loaded onto one of four vessels (three documents per vessel), which
 * then departs. Vessels are one per execution only because they join three
 * documents' executions: without a vessel its execution falls into three of
 * document and containers. The document is the case (one per execution once
 * vessels are set apart); containers touch more activities (pack, load,
 * book) but are two per document.
 */
export function shippingLog(): string {
  const objects: Record<string, string> = {};
  const events: [string, ...string[]][] = [];
  for (let v = 1; v <= 4; v++) {
    objects[`s${v}`] = 'vessel';
    for (let k = 1; k <= 3; k++) {
      const d = `d${v}${k}`;
      objects[d] = 'document';
      objects[`${d}a`] = 'container';
      objects[`${d}b`] = 'container';
      events.push(['create document', d], ['book', d, `${d}a`, `${d}b`], ['pack', `${d}a`], ['pack', `${d}b`], ['load', `${d}a`, `s${v}`], ['load', `${d}b`, `s${v}`]);
    }
    events.push(['depart', `s${v}`]);
  }
  return ocelJson(objects, events);
}
