import type { AttributeValue, Event, ObjectRef } from '../event.js';

/** Compact JSON of a case's trace: the case id is the row's, so events leave it out. */
type Packed = [key: string, digest: string, activity: string, time: number, resource: string | null, attributes: Record<string, AttributeValue> | 0, objects: ObjectRef[] | 0];

export function packTrace(trace: readonly Event[]): string {
  return JSON.stringify(
    trace.map((e): Packed => [
      e.key,
      e.digest,
      e.activity,
      e.time,
      e.resource ?? null,
      Object.keys(e.attributes).length ? (e.attributes as Record<string, AttributeValue>) : 0,
      e.objects.length ? (e.objects as ObjectRef[]) : 0,
    ]),
  );
}

export function unpackTrace(caseId: string, text: string): Event[] {
  return (JSON.parse(text) as Packed[]).map(([key, digest, activity, time, resource, attributes, objects]) => ({
    key,
    digest,
    caseId,
    activity,
    time,
    attributes: attributes || {},
    objects: objects || [],
    ...(resource !== null ? { resource } : {}),
  }));
}
