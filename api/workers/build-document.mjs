// A document-build worker thread. tsx is registered here as in bin.mjs, so the
// worker runs the engine's TypeScript sources as the main thread does.
import { register } from 'tsx/esm/api';

register();
const { buildDocument } = await import('../../engine/document/index.ts');

/** The snapshot arrives structured-cloned; the document leaves as JSON text (one string to copy back). */
export default function build(snapshot) {
  return JSON.stringify(buildDocument(snapshot));
}
