import { simulate } from '../connectors/simulator/index.js';
import { testApp, makeTenant, call } from '../test/api/helpers.js';
const t = testApp();
const a = await makeTenant(t.app, 'x');
const p = `/api/${a.tenantId}/project/${a.projectId}`;
const n = Number(process.argv[2] ?? 20000);
const big = [...simulate({ model: 'order-to-cash', cases: n, seed: 1 })];
for (let i = 0; i < big.length; i += 50_000) { const r = await call(t.app, 'POST', `${p}/events`, a.admin, big.slice(i, i + 50_000)); console.log('ingest', r.status, r.body.accepted); }
const inv = (await call(t.app, 'POST', `${p}/investigation`, a.admin, { name: 'all' })).body;
const nb = (await call(t.app, 'POST', `${p}/investigation/${inv.id}/notebook`, a.admin, { name: 'nb' })).body;
const block = (await call(t.app, 'POST', `${p}/investigation/${inv.id}/notebook/${nb.id}/block`, a.admin, { spec: { type: 'kpi' } })).body;
console.log('block', block.id);
const t0 = performance.now();
const r = await call(t.app, 'POST', `${p}/investigation/${inv.id}/notebook/${nb.id}/block/${block.id}/execute`, a.reader);
console.log(r.status, r.text.slice(0, 300), performance.now() - t0);
await t.close();
