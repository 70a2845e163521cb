import type { AttributeValue, Event, ObjectRef } from '../event.js';

/**
 * The body column of an event row: what the row's own columns (key, case,
 * time, digest) do not already hold, as compact JSON.
 */
type Body = [activity: string, resource: string | null, attributes: Record<string, AttributeValue> | 0, objects: ObjectRef[] | 0];

export function packBody(e: Event): string {
  const body: Body = [
    e.activity,
    e.resource ?? null,
    Object.keys(e.attributes).length ? (e.attributes as Record<string, AttributeValue>) : 0,
    e.objects.length ? (e.objects as ObjectRef[]) : 0,
  ];
  return JSON.stringify(body);
}

export interface EventRow {
  key: string;
  case_id: string;
  time: number;
  digest: string;
  body: string;
}

export function unpackRow(row: EventRow): Event {
  const [activity, resource, attributes, objects] = JSON.parse(row.body) as Body;
  return {
    key: row.key,
    digest: row.digest,
    caseId: row.case_id,
    activity,
    time: row.time,
    attributes: attributes || {},
    objects: objects || [],
    ...(resource !== null ? { resource } : {}),
  };
}
