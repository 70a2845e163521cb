import { z } from 'zod';
import type { ProjectRecord } from './catalog/index.js';
import type { RecordTable } from './catalog/records.js';
import { limitName, type Config } from './config.js';
import { ApiError } from './errors.js';

/**
 * Pages of lists. Every list endpoint answers `{items, nextCursor}`: at most
 * `limit` items (default PCG_PAGE_SIZE, at most PCG_PAGE_SIZE_MAX), and the
 * cursor of the page after them (null on the last page), passed back as
 * `cursor`. Without them 2,019 investigations were one 112.9 MB answer. The
 * spec fixes no list format; `items` is the shape the lists had, so a client
 * that reads only `items` sees the first page.
 *
 * A cursor is the sort key of the page's last item (opaque to clients:
 * base64url of a JSON array), and the next page starts after that key, not
 * at an offset: items made or deleted meanwhile move no other item across
 * pages, and a page of records costs an index seek, however deep.
 */

export type SortKey = readonly (string | number)[];
/** The types of a list's sort key, in order: a cursor of another shape is refused. */
export type KeyShape = readonly ('string' | 'number')[];

export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The query of a list endpoint (to extend with the list's own parameters). */
export function pageQuery(config: Pick<Config, 'pageSize' | 'pageSizeMax'>) {
  return z
    .object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(config.pageSizeMax, `must be at most ${config.pageSizeMax} (${limitName('pageSizeMax')})`)
        .default(config.pageSize)
        .describe(`items per page (default ${config.pageSize}, at most ${config.pageSizeMax})`),
      cursor: z.string().min(1).max(1024).optional().describe("the previous page's nextCursor; omitted: the first page"),
    })
    .strict();
}

/** The answer of a list endpoint. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page') });

export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key a cursor carries, of the list's shape; 400 for anything else. */
export function decodeCursor(text: string | undefined, shape: KeyShape): SortKey | undefined {
  if (text === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== shape.length || !key.every((v, i) => typeof v === shape[i] && (typeof v !== 'number' || Number.isFinite(v)))) {
    throw new ApiError('validation_failed', 'query.cursor: not a cursor of this list (pass the nextCursor of its previous page)');
  }
  return key as SortKey;
}

/** Sort keys in order: element by element (keys of one list have one shape; the texts compared are ASCII: times, GUIDs, names). */
export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/**
 * A page of rows read with `limit + 1` (the extra row says a page follows): what a query that seeks past
 * the cursor's key gives.
 */
export function pageOfRows<T>(rows: T[], limit: number, keyOf: (t: T) => SortKey): Page<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(keyOf(items[items.length - 1]!)) };
}

/** A page of a list read whole, already in the order of `keyOf` (short lists: clusters, a project's sources, kept versions). */
export function pageOfList<T>(all: readonly T[], query: PageQuery, shape: KeyShape, keyOf: (t: T) => SortKey): Page<T> {
  const after = decodeCursor(query.cursor, shape);
  let start = 0;
  if (after) {
    start = all.findIndex((t) => compareKeys(keyOf(t), after) > 0);
    if (start < 0) start = all.length;
  }
  return pageOfRows(all.slice(start, start + query.limit + 1), query.limit, keyOf);
}

/** The usual key: creation time, then id. */
export const CREATED: KeyShape = ['string', 'string'];
export const byCreation = (t: { createdAt: string; id: string }): SortKey => [t.createdAt, t.id];

/** The key of a project's records (datasets, investigations, notebooks, blocks, dashboards): their list order. */
export const RECORD: KeyShape = ['number', 'string', 'string'];

/** A page of one kind of a project's records, read from the catalog past the cursor. */
export function recordPage(table: RecordTable, tenantId: string, projectId: string, parentId: string | null, query: PageQuery): Page<ProjectRecord> {
  const rows = table.page(tenantId, projectId, parentId, decodeCursor(query.cursor, RECORD), query.limit + 1);
  return pageOfRows(rows, query.limit, (r) => [r.position, r.createdAt, r.id]);
}

/** A page with its items shown as the route answers them. */
export const mapPage = <T, U>(page: Page<T>, view: (t: T) => U): Page<U> => ({ items: page.items.map(view), nextCursor: page.nextCursor });
