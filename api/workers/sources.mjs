// The stream sources' thread of `pcg serve`: consuming and applying batches
// here keeps the request event loop free. tsx is registered as in bin.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { hostSources } = await import('../source-host.ts');

const host = hostSources({
  dataDir: workerData.dataDir,
  sourceSecretKey: workerData.sourceSecretKey,
  // The event limits of the server's configuration: Kafka messages are held to them as HTTP events are.
  limits: workerData.limits,
  maxOpen: workerData.maxOpen,
  // Applied chunks are told to the API's thread, which announces the new version to graph streams and counts them.
  observe: (projectId, store, result, seconds) =>
    parentPort.postMessage({ type: 'applied', projectId, store, seconds, result: { applied: result.applied, accepted: result.accepted, duplicates: result.duplicates, rejected: result.rejected, rejections: [], dataVersion: result.dataVersion } }),
  log: (level, message, extra) => parentPort.postMessage({ type: 'log', level, message, extra: JSON.parse(JSON.stringify(extra)) }),
});
parentPort.on('message', async (m) => {
  if (m.type === 'reconcile') await host.supervisor.reconcile();
  if (m.type === 'stop') {
    await host.close();
    parentPort.postMessage({ type: 'stopped' });
    parentPort.close();
  }
});
parentPort.postMessage({ type: 'started', workerId: host.workerId });
