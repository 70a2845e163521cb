// A pcg command on a thread of its own (see thread.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runCommandThread } = await import('./thread.ts');
await runCommandThread();
