// A thread reading part of a XES log (see xes-part.ts, xes-parts.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runPartThread } = await import('./xes-part.ts');
runPartThread();
