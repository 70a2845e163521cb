/** Small statistics and number formats shared by the sampler's log lines and the report. */

/** The q-quantile (nearest rank, 0.99 for p99); NaN when there is nothing to rank. */
export const pct = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Least-squares slope of y over x: how fast a figure grows. */
export const slope = (pts: { x: number; y: number }[]) => {
  const mx = mean(pts.map((p) => p.x));
  const my = mean(pts.map((p) => p.y));
  const num = pts.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = pts.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den ? num / den : NaN;
};

// A missing figure prints as '-', not NaN, so the Markdown tables stay readable.
export const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
/** "p50/p99" in ms. */
export const lat = (xs: number[]) => `${f0(pct(xs, 0.5))}/${f0(pct(xs, 0.99))}`;
