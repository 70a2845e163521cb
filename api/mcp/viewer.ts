import { gunzipSync } from 'node:zlib';
import type { GraphDocument } from '../../engine/document/types.js';
import { documentText, type KeptDocument, type ServedGraph } from '../../engine/projects/index.js';
import { ApiError } from '../errors.js';
import { toWire, unwrap, type ThreadOutcome } from '../thread-errors.js';
import { viewOf, type GraphViewRequest } from './views.js';

/**
 * Where the tools' views of documents are computed (views.ts: a summary, a
 * section page, a diff, a decision read out). Each needs the document parsed,
 * whose cost grows with the project (~40 ms for the 4 MB of a 2,000-activity
 * project): `pcg serve` answers them on its worker threads
 * (api/document-pool.ts), `pcg mcp --data-dir` in process.
 */
export type DocumentViewer = (documents: readonly ServedGraph[], request: GraphViewRequest, projectId?: string) => Promise<Record<string, unknown>>;

export const viewInProcess: DocumentViewer = async (documents, request) =>
  viewOf(
    await Promise.all(
      documents.map(async (d) => {
        const json = await documentText(d);
        return { document: JSON.parse(json) as GraphDocument, chars: json.length };
      }),
    ),
    request,
  );

/** A view task for a thread: the documents as their compressed bytes when they have them (a 45th of the text to copy). */
export interface ViewTask {
  view: GraphViewRequest;
  documents: KeptDocument[];
}

export const viewTask = (documents: readonly ServedGraph[], request: GraphViewRequest): ViewTask => ({
  view: request,
  documents: documents.map((d) => (d.gzip ? { gzip: d.gzip } : { json: d.json! })),
});

/** A view's answer as it crosses back from a thread: a refusal (an ApiError) in the one wire form of errors. */
export type ViewOutcome = ThreadOutcome<Record<string, unknown>>;

/** Runs on the thread. */
export function answerViewTask(task: ViewTask): ViewOutcome {
  try {
    const docs = task.documents.map((d) => {
      const json = d.json ?? gunzipSync(d.gzip!).toString('utf8');
      return { document: JSON.parse(json) as GraphDocument, chars: json.length };
    });
    return { ok: viewOf(docs, task.view) };
  } catch (error) {
    if (error instanceof ApiError) return { error: toWire(error) };
    throw error;
  }
}

/** Back on the caller's thread. */
export function viewAnswer(outcome: ViewOutcome): Record<string, unknown> {
  return unwrap(outcome);
}
