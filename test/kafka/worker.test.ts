import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeTenant, testApp, type TestApp, type World } from '../api/helpers.js';
import { KafkaBroker } from './broker.js';
import { eventually, expectSameDocument, messagesOf, referenceDocument, simulatedLog } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('explore', () => {
  let broker: KafkaBroker;
  beforeAll(async () => { broker = await KafkaBroker.start(); });
  afterAll(async () => { await broker?.stop(); });
  it('timeline', async () => {
    const t = testApp({}, { runSources: false });
    const w = await makeTenant(t.app, 'x');
    const log = simulatedLog(1500, 11);
    const msgs = messagesOf(log, 11, 0.05);
    await broker.createTopic('t1', 4);
    const created = await call(t.app, 'POST', `/api/${w.tenantId}/project/${w.projectId}/source`, w.admin, { brokers: broker.brokers, topic: 't1', format: 'pcg' });
    const url = `/api/${w.tenantId}/project/${w.projectId}/source/${created.body.id}`;
    const t0 = Date.now();
    let last = '';
    const poll = async () => {
      const s = await call(t.app, 'GET', url, w.reader);
      if (s.status !== 200) { console.log(Date.now() - t0, 'GET', s.status, s.text); return undefined; }
      const line = JSON.stringify(s.body.status.partitions.map((p: any) => p.storedOffset)) + ' ' + JSON.stringify(s.body.status.workers.map((x: any) => [x.workerId, x.assigned]));
      if (line !== last) console.log(Date.now() - t0, line);
      last = line;
      return s.body.status;
    };
    const spawnW = () => {
      const child = spawn(process.execPath, ['api/bin.mjs', 'worker', '--data-dir', t.dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (d) => console.log(Date.now() - t0, 'OUT', String(d)));
      child.stderr.on('data', (d) => console.log(Date.now() - t0, 'ERR', String(d)));
      return child;
    };
    await broker.produce('t1', msgs.slice(0, 3000));
    let c = spawnW();
    await eventually(async () => ((await poll())?.partitions.some((p: any) => p.storedOffset !== null) ? true : undefined));
    c.kill('SIGKILL');
    console.log(Date.now() - t0, 'killed 1');
    await broker.produce('t1', msgs.slice(3000, 6000));
    c = spawnW();
    await eventually(async () => ((await poll())?.partitions.reduce((n: number, p: any) => n + (p.storedOffset ?? -1) + 1, 0) > 3000 ? true : undefined));
    c.kill('SIGKILL');
    console.log(Date.now() - t0, 'killed 2');
    await broker.produce('t1', msgs.slice(6000));
    const ends = await broker.endOffsets('t1');
    c = spawnW();
    await eventually(async () => { const s = await poll(); return s?.partitions.every((p: any) => p.storedOffset === ends[p.partition]! - 1) ? true : undefined; }, 60_000);
    c.kill('SIGKILL');
    const g = await call(t.app, 'GET', `/api/${w.tenantId}/project/${w.projectId}/graph`, w.reader);
    expectSameDocument(g.body, referenceDocument(log));
    await t.close();
  }, 120_000);
});
