// A document-build worker thread. tsx is registered here as in bin.mjs, so the
// worker runs the engine's TypeScript sources as the main thread does.
import { register } from 'tsx/esm/api';

register();
const { builtDocument, StateFiles } = await import('../../engine/projects/index.ts');

/** The project stores this thread has read, kept open between builds (their counted state stays in memory). */
const files = new StateFiles();

/**
 * A task is a snapshot (structured-cloned) or the project's state files, whose snapshot (or a scoped view's, with
 * scopes) is taken here, off the request loop. The document leaves as JSON text and gzip-compressed (compressed
 * here, off the loop too) with its snapshot's data version.
 */
export default function build(task) {
  const snapshot = task.files ? (task.scopes ? files.scopedSnapshot(task.files, task.scopes) : files.snapshot(task.files)) : task.snapshot;
  return builtDocument(snapshot);
}
