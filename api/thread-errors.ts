import { PcgError, fromWire, registerWireError, toWire, unwrap, type ThreadOutcome, type WireError } from '../engine/error-base.js';

/**
 * The API's threads use the one wire form (engine/error-base.ts): `toWire` on the thread, `fromWire` (or `unwrap`)
 * back on the request loop, where the error boundary (api/errors.ts, toApiError) maps it as if thrown there.
 */
export { fromWire, toWire, unwrap, type ThreadOutcome, type WireError };

/**
 * A batch past the room its tenant's quota leaves: nothing applied; the request loop asks the quota again with its
 * count (api/ingestion.ts). Not an answer of its own, so its code is the API layer's internal one.
 */
export class OverQuota extends PcgError<'over_quota'> {
  override name = 'OverQuota';
  constructor(readonly events: number) {
    super('over_quota', `${events} events pass the tenant's quota`);
  }
  override wireFields() {
    return { events: this.events };
  }
}
registerWireError('OverQuota', OverQuota, (w) => new OverQuota(Number(w.fields?.events)));

/**
 * Whether a thread sends an error back as an answer: pcg's own and the foreign ones the error boundary maps by code
 * (SQLite's busy). Anything else, a bug, is thrown on the thread, and its pool carries it as a fault (a 500).
 */
export function answerable(error: unknown): boolean {
  return error instanceof PcgError || /^SQLITE_/.test(String((error as { code?: unknown } | null)?.code));
}
