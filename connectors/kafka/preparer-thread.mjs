// The chunk preparer's thread (see preparer.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { runPreparer } = await import('./preparer.ts');
runPreparer();
