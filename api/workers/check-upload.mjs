// A thread checking dataset uploads (see api/upload-checks.ts). tsx is registered as in api/bin.mjs.
import { register } from 'tsx/esm/api';

register();
const { checkTask } = await import('../../connectors/files/check-task.ts');

/** One upload's check: the staged file read whole, its facts or the reason it cannot be imported. */
export default function run(task) {
  return checkTask(task);
}
