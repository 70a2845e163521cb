// A log's reader thread (see reader-thread.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runReader } = await import('./reader-thread.ts');
await runReader();
