/**
 * The map of real logs as it opens, in a real browser (chromium at 1440×900,
 * as page.test.ts): three shared logs of different size (PCG_REAL_LOGS; skipped
 * without it) are uploaded through the API, each opened on the page, and the
 * default view is read from the page itself: it opens simplified with the
 * hidden share stated, every node label is drawn at 11 CSS px or more and
 * every edge label at 10 or more, no node box covers another, and no node or
 * edge label lies under the map's tools, its legend or the side panel (nor
 * outside the map). An empty project draws only its message. Screenshots go to
 * a temporary folder (printed; never committed).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { ensureDemo, type Demo } from '../../api/demo.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { simplify } from '../../engine/render/simplify.js';
import { optionsFor } from '../real-logs/manifest.js';
import { realLogs } from '../tools/pm4py.js';
import { browserRequired, CHROMIUM, closeAll, demoApi, ensureBuilt, haveBrowser, openPage, openProject } from './browser.js';

/** A small log (11 activities), receipt.csv (27) and one of 398 activities. */
const LOGS = [
  { file: 'pm4py/roadtraffic100traces.csv', activities: [5, 15] },
  { file: 'pm4py/receipt.csv', activities: [20, 40] },
  { file: 'simod/BPIC15_1.csv.gz', activities: [101, 1000] },
] as const;
/** Node labels at the default zoom, in CSS px. */
const MIN_NODE_FONT = 11;
/** Edge labels (case counts) at the default zoom. */
const MIN_EDGE_FONT = 10;

type Rect = { x: number; y: number; w: number; h: number };
const meets = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const inside = (a: Rect, b: Rect) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.w <= b.x + b.w + 0.5 && a.y + a.h <= b.y + b.h + 0.5;

describe.skipIf(!realLogs || (!haveBrowser && !browserRequired))('the map of real logs as it opens, in a real browser', () => {
  let dir: string;
  let shots: string;
  let made: PcgApp;
  let base: string;
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const api = (method: string, path: string, body?: unknown): Promise<any> => demoApi(base, demo, method, path, body);
  const hook = <T>(fn: string): Promise<T> => page.evaluate((f) => (globalThis as any).__pcg[f](), fn) as Promise<T>;

  beforeAll(async () => {
    if (!haveBrowser) throw new Error(`PCG_REQUIRE_BROWSER is set but there is no chromium at ${CHROMIUM}`);
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pcg-web-real-'));
    shots = mkdtempSync(join(tmpdir(), 'pcg-web-real-shots-'));
    const config = readConfig({}, { dataDir: dir, globalApiKey: 'test-global-key-0123456789abcdef', logLevel: 'silent', rateLimitBurst: 0 });
    made = createApp({ config });
    base = (await made.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
    demo = ensureDemo(made.context);
    ({ browser, page } = await openPage({ width: 1440, height: 900, timeoutMs: 120_000, problems }));
    console.log(`real-log map screenshots: ${shots}`);
  }, 180_000);

  afterAll(() => closeAll(browser, made, dir));

  /** Opens a project on the page (signing in the first time) and waits until its version and live state are drawn. */
  async function open(projectId: string, version: number): Promise<void> {
    await openProject(page, base, demo, projectId);
    await page.waitForFunction(
      ([id, v]) => {
        const p = (globalThis as any).__pcg;
        return (globalThis as any).location.hash === `#project=${id}` && p.version() === String(v) && (v === 0 || p.liveVersion() === v);
      },
      [projectId, version] as const,
    );
  }

  async function upload(file: string): Promise<{ projectId: string; version: number }> {
    const project: { id: string } = await api('POST', '/project', { name: file });
    const query = new URLSearchParams({ name: file, ...(optionsFor(file) as Record<string, string>) });
    const r = await fetch(`${base}/api/${demo.tenantId}/project/${project.id}/dataset?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/octet-stream' },
      body: readFileSync(join(realLogs!, file)),
    });
    expect(r.status, await r.clone().text()).toBe(201);
    const p: { dataVersion: number } = await api('GET', `/project/${project.id}`);
    return { projectId: project.id, version: p.dataVersion };
  }

  it('draws only its message for an empty project', async () => {
    const project: { id: string } = await api('POST', '/project', { name: 'empty' });
    await open(project.id, 0);
    await page.waitForSelector('#map-empty:not([hidden])');
    expect(await page.textContent('#map-empty')).toContain('No events in this project yet');
    expect(await hook('drawn')).toEqual({ nodes: [], edges: [] });
    await page.screenshot({ path: join(shots, '0-empty.png') });
  }, 120_000);

  for (const { file, activities } of LOGS) {
    it(`opens ${file} simplified, readable, and clear of the legend, the tools and the panel`, async () => {
      const { projectId, version } = await upload(file);
      await open(projectId, version);
      const doc: GraphDocument = await api('GET', `/project/${projectId}/graph?version=${version}`);
      const total = doc.nodes.filter((n) => n.kind === 'activity').length;
      expect(total).toBeGreaterThanOrEqual(activities[0]);
      expect(total).toBeLessThanOrEqual(activities[1]);

      // Simplified by the sliders on screen with the one rule, the hidden share said beside them.
      const sliders = { activities: Number(await page.inputValue('#activities')), paths: Number(await page.inputValue('#paths')) };
      const want = simplify(doc, sliders);
      const drawn = await hook<{ nodes: string[]; edges: string[] }>('drawn');
      expect([...drawn.nodes].sort()).toEqual([...want.nodes].sort());
      const hidden = (await page.textContent('#map-hidden')) ?? '';
      if (want.hidden.activities + want.hidden.paths > 0) expect(hidden).toMatch(/^Hidden: /);
      if (total > 15) {
        expect(want.hidden.activities).toBeGreaterThan(0);
        expect(hidden).toContain(`of ${total} activities`);
      }

      const labels = await hook<({ id: string; kind: 'node' | 'edge'; font: number } & Rect)[]>('labelBoxes');
      const nodes = labels.filter((l) => l.kind === 'node');
      expect(nodes.length).toBe(drawn.nodes.length);
      // Readable at the default zoom.
      const small = labels.filter((l) => l.font < (l.kind === 'node' ? MIN_NODE_FONT : MIN_EDGE_FONT)).map((l) => `${l.kind} ${l.id} ${l.font.toFixed(1)} px`);
      // No node covers another.
      const overlapping = nodes.flatMap((a, i) => nodes.slice(i + 1).filter((b) => meets(a, b)).map((b) => `${a.id} ${b.id}`));
      // Nothing under the tools, the legend or the panel, and nothing cut off at the map's edge.
      const covers: Rect[] = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('#map-tools > *, #legend, aside')]
          .map((e: any) => e.getBoundingClientRect())
          .filter((r: any) => r.width > 0 && r.height > 0)
          .map((r: any) => ({ x: r.x, y: r.y, w: r.width, h: r.height })),
      );
      const mapRect: Rect = await page.evaluate(() => {
        const r = (globalThis as any).document.querySelector('#map').getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height };
      });
      const under = labels.filter((l) => covers.some((c) => meets(l, c))).map((l) => `${l.kind} ${l.id}`);
      const outside = labels.filter((l) => !inside(l, mapRect)).map((l) => `${l.kind} ${l.id}`);
      await page.screenshot({ path: join(shots, `${file.replace(/[^a-z0-9]+/gi, '_')}.png`) });
      const zoom = (await hook<{ zoom: number }>('viewport')).zoom;
      console.log(`${file}: ${total} activities, ${drawn.nodes.length - 2} drawn at ${sliders.activities} % / ${sliders.paths} %, zoom ${zoom.toFixed(2)}; ${hidden}`);
      expect({ small, overlapping, under, outside }).toEqual({ small: [], overlapping: [], under: [], outside: [] });

      if (want.hidden.activities > 0) {
        // Panels hidden, sliders untouched: the wider map opens again with at least as many activities, as legible.
        await page.click('#toggle-panels');
        await page.waitForFunction(() => (globalThis as any).document.body.classList.contains('panels-hidden'));
        await page.waitForFunction(
          () => {
            const g = globalThis as any;
            const now = JSON.stringify([g.__pcg.drawn(), g.__pcg.nodeBoxes()]);
            const still = now === g.__lastWide;
            g.__lastWide = now;
            return still;
          },
          undefined,
          { polling: 300 },
        );
        const wide = Number(await page.inputValue('#activities'));
        const wideLabels = await hook<({ id: string; kind: 'node' | 'edge'; font: number } & Rect)[]>('labelBoxes');
        const wideMap: Rect = await page.evaluate(() => {
          const r = (globalThis as any).document.querySelector('#map').getBoundingClientRect();
          return { x: r.x, y: r.y, w: r.width, h: r.height };
        });
        await page.screenshot({ path: join(shots, `${file.replace(/[^a-z0-9]+/gi, '_')}-panels-hidden.png`) });
        console.log(`${file}: panels hidden: ${(await hook<{ nodes: string[] }>('drawn')).nodes.length - 2} drawn at ${wide} %`);
        expect(wide).toBeGreaterThanOrEqual(sliders.activities);
        expect(wideLabels.filter((l) => l.font < (l.kind === 'node' ? MIN_NODE_FONT : MIN_EDGE_FONT))).toEqual([]);
        expect(wideLabels.filter((l) => !inside(l, wideMap)).map((l) => l.id)).toEqual([]);
        await page.click('#toggle-panels');
      }
      expect(problems).toEqual([]);
    }, 300_000);
  }
});
