// A retraction's thread (see api/retract-thread.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runRetraction } = await import('../retract-thread.ts');
runRetraction();
