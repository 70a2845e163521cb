/**
 * The live map in a real browser (chromium, as page.test.ts): the demo
 * project is fed a simulated order-to-cash stream (the simulator's live feed,
 * on a clock the test moves) while the page is open. After every batch the
 * test waits until the page draws that version and the open cases read at it,
 * then measures how far the nodes already on the map moved, and checks that
 * the badges show, per node, the open cases the document counts at that
 * version and the live route reads from the stored events. Every wait is on a
 * condition the page exposes; no timed sleep.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { ensureDemo, type Demo } from '../../api/demo.js';
import { liveFeed } from '../../connectors/simulator/index.js';
import { browserRequired, CHROMIUM, closeAll, demoApi, ensureBuilt, haveBrowser, openPage } from './browser.js';
import type { GraphDocument } from '../../engine/document/types.js';

const required = browserRequired;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = join(ROOT, 'test/web/artifacts');
/** Batches fed while the page is open. */
const UPDATES = 8;
/** A node already on the map may move at most this share of the canvas between updates. */
const MAX_MOVE = 0.05;

const title = haveBrowser ? 'the live map in a real browser' : `the live map in a real browser — SKIPPED: no chromium at ${CHROMIUM}`;

describe.skipIf(!haveBrowser && !required)(title, () => {
  let dir: string;
  let made: PcgApp;
  let base: string;
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const api = (method: string, path: string, body?: unknown): Promise<any> => demoApi(base, demo, method, path, body);
  const hook = <T>(fn: string): Promise<T> => page.evaluate((f) => (globalThis as any).__pcg[f](), fn) as Promise<T>;
  /** End is the map's last node (right of every other), start its first. */
  const expectEndLast = (at: Record<string, { x: number; y: number }>) => {
    const others = Object.entries(at).filter(([id]) => id !== 'end' && id !== 'start');
    for (const [id, p] of others) {
      expect(at.end!.x, `end right of ${id}`).toBeGreaterThan(p.x);
      expect(at.start!.x, `start left of ${id}`).toBeLessThan(p.x);
    }
  };

  beforeAll(async () => {
    if (!haveBrowser) throw new Error(`PCG_REQUIRE_BROWSER is set but there is no chromium at ${CHROMIUM}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pcg-web-live-'));
    const config = readConfig({}, { dataDir: dir, globalApiKey: 'test-global-key-0123456789abcdef', logLevel: 'silent', rateLimitBurst: 0 });
    made = createApp({ config });
    base = (await made.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
    demo = ensureDemo(made.context);
    ({ browser, page } = await openPage({ width: 1440, height: 900, timeoutMs: 60_000, problems }));
  }, 180_000);

  afterAll(() => closeAll(browser, made, dir));

  it('keeps the nodes in place while the stream grows the map, and shows the open cases the stored events hold', async () => {
    // The simulator's live feed on a clock the test moves: every batch is 40 s of the demo's stream (a model day a minute).
    let clock = Date.UTC(2025, 0, 6, 8);
    const feed = liveFeed({ model: 'order-to-cash', seed: 34, casesPerMinute: 40, now: () => (clock += 40_000), intervalMs: 1 })[Symbol.asyncIterator]();
    const next = async (): Promise<unknown[]> => (await feed.next()).value as unknown[];
    let first = await next();
    first = first.concat(await next(), await next());
    const opened = await api('POST', `/project/${demo.projectId}/events`, first);

    await page.goto(`${base}/`);
    await page.fill('#tenant', demo.tenantId);
    await page.fill('#key', demo.key);
    await page.click('#signin-button');
    // Drawn, and still: a node that moves (end, to stay last) glides there.
    const waitDrawn = async (v: number) => {
      await page.waitForFunction((want) => {
        const p = (globalThis as any).__pcg;
        return p.version() === String(want) && p.liveVersion() === want;
      }, v);
      // Still: no node gliding, and the places unchanged over three polls (longer than a glide's 400 ms), counted
      // afresh for each version (a glide may begin a frame after the new node is drawn).
      await page.evaluate(() => {
        (globalThis as any).__lastPositions = undefined;
        (globalThis as any).__stillPolls = 0;
      });
      await page.waitForFunction(
        () => {
          const g = globalThis as any;
          const now = JSON.stringify(g.__pcg.positions());
          g.__stillPolls = now === g.__lastPositions && !g.__pcg.gliding() ? g.__stillPolls + 1 : 0;
          g.__lastPositions = now;
          return g.__stillPolls >= 3;
        },
        undefined,
        { polling: 200 },
      );
    };
    await waitDrawn(opened.dataVersion);
    // The whole map (both sliders up, as a reader would): a setting the reader chose is kept across updates.
    for (const id of ['activities', 'paths']) {
      await page.evaluate((el) => {
        const input = (globalThis as any).document.querySelector(`#${el}`);
        input.value = '100';
        input.dispatchEvent(new (globalThis as any).Event('input'));
      }, id);
    }
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#activities-out')?.textContent === '100 %');

    const canvas = await page.evaluate(() => {
      const r = (globalThis as any).document.querySelector('#map').getBoundingClientRect();
      return { w: r.width, h: r.height };
    });
    let before: Record<string, { x: number; y: number }> = await hook('positions');
    const moves: number[] = [];
    const terminalMoves: number[] = [];
    let grew = 0;
    let badgesSeen = 0;
    for (let i = 0; i < UPDATES; i++) {
      // Halfway, the reader moves the view: from then on it is not re-fitted under them.
      if (i === UPDATES / 2) await page.evaluate(() => (globalThis as any).__pcg.setViewport(0.8, { x: 30, y: 40 }));
      const viewport = await hook<{ zoom: number; pan: { x: number; y: number } }>('viewport');
      const applied = await api('POST', `/project/${demo.projectId}/events`, await next());
      await waitDrawn(applied.dataVersion);
      const after: Record<string, { x: number; y: number }> = await hook('positions');
      const zoom = (await hook<{ zoom: number }>('viewport')).zoom;
      // How far each node that was drawn before moved on the map, at the zoom on screen, as a share of the canvas.
      // Start and end move only to stay first and last (checked apart); every other node stays.
      for (const [id, p] of Object.entries(before)) {
        const q = after[id];
        if (q) (id === 'start' || id === 'end' ? terminalMoves : moves).push(Math.max((Math.abs(q.x - p.x) * zoom) / canvas.w, (Math.abs(q.y - p.y) * zoom) / canvas.h));
      }
      expectEndLast(after);
      grew += Object.keys(after).filter((id) => !before[id]).length;
      if (i >= UPDATES / 2) expect(await hook('viewport')).toEqual(viewport);
      expect(await page.inputValue('#activities')).toBe('100');
      before = after;

      // The badges: per node, the open cases of the document at this version and of the live read of the stored events.
      const v = String(applied.dataVersion);
      const doc: GraphDocument = await api('GET', `/project/${demo.projectId}/graph?version=${v}`);
      const live = await api('GET', `/project/${demo.projectId}/live`);
      expect(live.dataVersion).toBe(applied.dataVersion);
      const idOf = new Map(doc.nodes.map((n) => [n.label, n.id]));
      const fromDocument = Object.fromEntries(doc.outcomes.filter((o) => o.kind === 'open').map((o) => [idOf.get(o.end_activity)!, o.cases]));
      const fromEvents = Object.fromEntries(live.activities.map((a: { activity: string; openCases: number }) => [idOf.get(a.activity)!, a.openCases]));
      const shown: Record<string, number> = await hook('openCounts');
      expect(shown).toEqual(fromEvents);
      expect(shown).toEqual(fromDocument);
      badgesSeen += Object.keys(shown).length;
    }
    // A step past the last one (a case archived after it finished): end moves to stay last, every other node stays put.
    const doc: GraphDocument = await api('GET', `/project/${demo.projectId}/graph?version=${await hook<string>('version')}`);
    const main = doc.variants[0]!.path.map(String);
    const t0 = Date.parse(doc.source.period_end) + 60_000;
    const archived = [...main, 'Archive Order'].map((activity, i) => ({ caseId: 'live-archived-1', activity, timestamp: new Date(t0 + i * 60_000).toISOString() }));
    const held: Record<string, { x: number; y: number }> = await hook('positions');
    const last = await api('POST', `/project/${demo.projectId}/events`, archived);
    await waitDrawn(last.dataVersion);
    const placed: Record<string, { x: number; y: number }> = await hook('positions');
    const archive = (await api('GET', `/project/${demo.projectId}/graph?version=${last.dataVersion}`)).nodes.find((n: { label: string }) => n.label === 'Archive Order').id;
    expect(placed[archive]).toBeDefined();
    expectEndLast(placed);
    expect(placed.end!.x).toBeGreaterThan(placed[archive]!.x);
    for (const [id, p] of Object.entries(held)) if (id !== 'end') expect(placed[id], id).toEqual(p);

    const worst = Math.max(...moves);
    const endWorst = Math.max(...terminalMoves);
    writeFileSync(join(ARTIFACTS, 'live-moves.json'), JSON.stringify({ updates: UPDATES, measured: moves.length, newNodes: grew, worst, terminalsWorst: endWorst, badgesSeen }, null, 2));
    console.log(`live map: ${moves.length} node moves measured over ${UPDATES} updates, ${grew} nodes added, worst ${(worst * 100).toFixed(2)} % of the canvas; start and end moved at most ${(endWorst * 100).toFixed(2)} % to stay first and last`);
    expect(moves.length).toBeGreaterThan(UPDATES * 4);
    expect(worst).toBeLessThanOrEqual(MAX_MOVE);
    expect(badgesSeen).toBeGreaterThan(0);

    // The placed nodes cover no other node.
    const boxes = Object.entries(await hook<Record<string, { x: number; y: number; w: number; h: number }>>('nodeBoxes'));
    const overlapping = boxes.flatMap(([a, p], i) => boxes.slice(i + 1).filter(([, q]) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h).map(([b]) => `${a} ${b}`));
    expect(overlapping).toEqual([]);

    // The waits toggle: badges then read "n · waited / usual".
    await page.click('#open-waits');
    await page.waitForFunction(() => Object.values((globalThis as any).__pcg.labels()).some((l: any) => / · .+ \/ /.test(l.text)));
    await page.screenshot({ path: join(ARTIFACTS, 'live-map.png') });
    expect(problems).toEqual([]);
  }, 240_000);
});
