// A worker thread for reads whose cost grows with a project (document builds, queries over every case).
// tsx is registered here as in bin.mjs, so the worker runs the engine's TypeScript sources as the main thread does.
import { register } from 'tsx/esm/api';

register();
const { builtDocument, StateFiles } = await import('../../engine/projects/index.ts');
const { answerViewTask } = await import('../mcp/viewer.ts');

/** The project stores this thread has read, kept open between tasks (their counted state stays in memory). */
const files = new StateFiles();

/**
 * A build task is a snapshot (structured-cloned) or the project's state files, whose snapshot (or a scoped
 * view's, with scopes) is taken here, off the request loop. The document leaves as JSON text and
 * gzip-compressed (compressed here, off the loop too) with its snapshot's data version. A query task
 * (`query`) reads the cases of the files' scoped view and answers with the version it read; a view task
 * (`view`) parses documents for an MCP tool's view of them (api/mcp/viewer.ts).
 */
export default function run(task) {
  if (task.view) return answerViewTask(task);
  if (task.query) return files.read(task.files, task.scopes ?? [], task.query);
  const snapshot = task.files ? (task.scopes ? files.scopedSnapshot(task.files, task.scopes) : files.snapshot(task.files)) : task.snapshot;
  return builtDocument(snapshot);
}
