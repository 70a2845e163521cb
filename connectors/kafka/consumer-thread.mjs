// The consumer thread (see consumer-thread.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runConsumerThread } = await import('./consumer-thread.ts');
runConsumerThread();
