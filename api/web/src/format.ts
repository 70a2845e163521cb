/** Numbers and times in words for the page. Pure, so tests run it in Node. */

export function pct(share: number): string {
  const p = share * 100;
  if (p === 0 || p === 100) return `${p} %`;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)} %`;
}

export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A duration given in hours: minutes under an hour, days from two days on. */
export function hours(h: number): string {
  if (!Number.isFinite(h) || h <= 0) return '0';
  if (h < 1 / 60) return `${Math.max(1, Math.round(h * 3600))} s`;
  if (h < 1) return `${Math.round(h * 60)} min`;
  if (h < 48) return `${h < 10 ? h.toFixed(1) : h.toFixed(0)} h`;
  const d = h / 24;
  return `${d < 10 ? d.toFixed(1) : d.toFixed(0)} d`;
}

/** How long ago, from milliseconds. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 2) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ago` : `${Math.floor(h / 24)} d ago`;
}

/**
 * A colour for a wait on a green-amber-red ramp, on a log scale between the
 * shortest and the longest positive wait shown. Zero waits (start, end) are grey.
 */
export function waitColor(h: number, min: number, max: number): string {
  if (!(h > 0) || !(max > 0)) return '#9aa3b0';
  const lo = Math.log(Math.max(min, 1e-6));
  const hi = Math.log(max);
  const t = hi > lo ? Math.min(1, Math.max(0, (Math.log(h) - lo) / (hi - lo))) : 0;
  const stops: [number, number, number][] = [
    [46, 157, 91],
    [240, 173, 0],
    [198, 40, 40],
  ];
  const x = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [stops[i]!, stops[i + 1]!];
  const c = a.map((v, k) => Math.round(v + (b[k]! - v) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** Any plain value of the document as short text (rule conditions are objects). */
export function plainText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(plainText).join(', ');
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('attribute' in o && 'op' in o && 'value' in o) {
      const value = Array.isArray(o.value) ? `[${plainText(o.value)}]` : plainText(o.value);
      return o.op === 'any' ? `${plainText(o.attribute)}: any value` : `${plainText(o.attribute)} ${plainText(o.op)} ${value}`;
    }
    return Object.entries(o)
      .map(([k, x]) => `${k}: ${plainText(x)}`)
      .join('; ');
  }
  return '';
}

/** "1 case", "1,200 cases": a count with its noun in the right number. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${Math.round(n) === 1 ? one : many}`;
}

export const cases = (n: number): string => counted(n, 'case');
export const events = (n: number): string => counted(n, 'event');
