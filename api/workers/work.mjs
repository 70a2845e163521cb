// A work thread of `pcg serve` (api/work-threads.ts): ingestion bodies parsed and applied, document builds, queries
// over every case and views of documents, each handed in by the fair queue (api/fair-queue.ts).
// tsx is registered here as in bin.mjs, so the worker runs the engine's TypeScript sources as the main thread does.
import { register } from 'tsx/esm/api';

register();
const { runWork } = await import('../work-thread.ts');

export default runWork;
