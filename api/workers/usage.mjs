// The thread that measures what tenants' projects keep (see api/usage-thread.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { serveMeasurements } = await import('../usage-thread.ts');
serveMeasurements();
