import type { AttributeValue } from '../../../engine/index.js';
import { OcelError } from './errors.js';

/**
 * An object-centric log as every OCEL form reads into it: the common ground of
 * OCEL 1.0 and 2.0 in JSON, XML and SQLite. Times stay raw text here so that a
 * bad one becomes a rejection of its event, not a failure of the file.
 */
export interface OcelEvent {
  id: string;
  type: string;
  /** As written in the file (text, or a number from SQLite). */
  time: string | number;
  attributes: Record<string, AttributeValue>;
}

export interface OcelRelation {
  /** Event id (event-to-object) or source object id (object-to-object). */
  from: string;
  to: string;
  qualifier: string | undefined;
}

export interface OcelLog {
  /** In the form's own order; ties in time keep this order. */
  events: OcelEvent[];
  /** Object id → type. */
  objects: Map<string, string>;
  eventObjects: OcelRelation[];
  objectObjects: OcelRelation[];
  /** Damage found while reading that did not stop the read (truncated XML, say). */
  problems: { location: string; reason: string }[];
  /** Of those, the one that ended the read early: the file is cut off or broken there. */
  fault?: { location: string; reason: string };
}

export function emptyLog(): OcelLog {
  return { events: [], objects: new Map(), eventObjects: [], objectObjects: [], problems: [] };
}

/**
 * Typed attribute text to an engine value. OCEL 2.0 declares a type per
 * attribute (string, integer, float, boolean, time); values the engine cannot
 * hold (objects, lists, non-finite numbers) are kept as their JSON text.
 */
export function attributeValue(value: unknown, declared?: string): AttributeValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'string') return JSON.stringify(value);
  if (declared === 'integer' || declared === 'float') {
    const n = Number(value);
    return value.trim() !== '' && Number.isFinite(n) ? n : value;
  }
  if (declared === 'boolean') {
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  return value;
}

/** A damaged file is kept for what came before the damage, unless that holds no event or no object. */
export function assertSurvivable(log: OcelLog, fault: string): void {
  if (log.events.length === 0) throw new OcelError('ocel_malformed', `${fault}, before any complete event`);
  if (log.objects.size === 0) throw new OcelError('ocel_malformed', `${fault}, before the objects (this file lists them after the events)`);
}
