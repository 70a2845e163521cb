/**
 * The web page end to end, in a real browser: Debian's chromium driven by
 * playwright-core against `pcg serve`'s app on a free port. Every wait is on
 * a condition the page exposes (its test hook `window.__pcg`, data
 * attributes), never a guessed sleep. Screenshots go to test/web/artifacts/.
 *
 * Without chromium the suite is skipped with a message, unless
 * PCG_REQUIRE_BROWSER is set (.ci/run sets it), then it fails.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type PcgApp } from '../../api/app.js';
import { readConfig } from '../../api/config.js';
import { ensureDemo, type Demo } from '../../api/demo.js';
import { simulate, writeSimulation } from '../../connectors/simulator/index.js';
import type { GraphDocument } from '../../engine/document/types.js';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { renderHtml } from '../../engine/render/html.js';
import { defaultSimplification, hiddenText, simplify, type Simplification } from '../../engine/render/simplify.js';
import { MemoryProject } from '../../engine/store/memory-project.js';
import { browserRequired, CHROMIUM, closeAll, demoApi, ensureBuilt, haveBrowser, openPage, openProject } from './browser.js';

const required = browserRequired;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = join(ROOT, 'test/web/artifacts');

const title = haveBrowser
  ? 'the web page in a real browser'
  : required
    ? `the web page in a real browser — PCG_REQUIRE_BROWSER is set and there is no chromium at ${CHROMIUM}`
    : `the web page in a real browser — SKIPPED: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set PCG_CHROMIUM; PCG_REQUIRE_BROWSER=1 makes this a failure)`;
if (!haveBrowser && !required) console.warn(`test/web/page.test.ts: ${title}`);

const sorted = (xs: readonly string[]) => [...xs].sort();

describe.skipIf(!haveBrowser && !required)(title, () => {
  let dir: string;
  let made: PcgApp;
  let base: string;
  let demo: Demo;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  const api = (method: string, path: string, body?: unknown): Promise<any> => demoApi(base, demo, method, path, body);
  const graphAt = (projectId: string, version: string): Promise<GraphDocument> => api('GET', `/project/${projectId}/graph?version=${version}`);
  const version = () => page.evaluate(() => (globalThis as any).__pcg.version() as string | undefined);
  const drawn = () => page.evaluate(() => (globalThis as any).__pcg.drawn() as { nodes: string[]; edges: string[] });
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, name) });
  /** The map shows the document: whole, or simplified by `view` with the rule of pcg graph --format dot|html. */
  const expectMapIs = async (doc: GraphDocument, view?: Simplification) => {
    const want = view ? simplify(doc, view) : { nodes: doc.nodes.map((n) => n.id), edges: doc.edges.map((e) => e.id) };
    const d = await drawn();
    expect(sorted(d.nodes)).toEqual(sorted(want.nodes));
    expect(sorted(d.edges)).toEqual(sorted(want.edges));
  };
  /** No drawn node lies under the map's tools or its legend (the side panel sits beside the map, never over it). */
  const expectNothingCovered = async () => {
    const boxes: Record<string, { x: number; y: number; w: number; h: number }> = await page.evaluate(() => (globalThis as any).__pcg.nodeBoxes());
    const covers: { x: number; y: number; w: number; h: number }[] = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('#map-tools > *, #legend')]
        .map((e: any) => e.getBoundingClientRect())
        .filter((r: any) => r.width > 0 && r.height > 0)
        .map((r: any) => ({ x: r.x, y: r.y, w: r.width, h: r.height })),
    );
    expect(Object.keys(boxes).length).toBeGreaterThan(0);
    const under = Object.entries(boxes).filter(([, a]) => covers.some((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h));
    expect(under.map(([id]) => id)).toEqual([]);
  };
  /**
   * Where the map opened: the defaults of pcg graph --format dot|html, or fewer activities when those do not fit the
   * window at a legible zoom (map.ts LEGIBLE_ZOOM); the map is what the sliders on screen say.
   */
  const expectOpened = async (doc: GraphDocument): Promise<Simplification> => {
    const defaults = defaultSimplification(doc);
    const view = { activities: Number(await page.inputValue('#activities')), paths: Number(await page.inputValue('#paths')) };
    expect(view.paths).toBe(defaults.paths);
    expect(view.activities).toBeLessThanOrEqual(defaults.activities);
    await expectMapIs(doc, view);
    expect(await page.textContent('#activities-out')).toBe(`${view.activities} %`);
    return view;
  };
  /** Moves both sliders as a user would (an input event each). */
  const setSliders = (activities: number, paths: number) =>
    page.evaluate(
      ([a, p]) => {
        for (const [id, v] of [['activities', a], ['paths', p]] as const) {
          const el = (globalThis as any).document.querySelector(`#${id}`);
          el.value = String(v);
          el.dispatchEvent(new (globalThis as any).Event('input'));
        }
      },
      [activities, paths] as const,
    );

  beforeAll(async () => {
    if (!haveBrowser) throw new Error(`PCG_REQUIRE_BROWSER is set but there is no chromium at ${CHROMIUM}: apt-get install -y chromium`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pcg-web-e2e-'));
    const config = readConfig({}, { dataDir: dir, globalApiKey: 'test-global-key-0123456789abcdef', logLevel: 'silent', rateLimitBurst: 0 });
    made = createApp({ config });
    base = (await made.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
    // The demo tenant and project, fed with simulated events through the API.
    demo = ensureDemo(made.context);
    const records = [...simulate({ model: 'order-to-cash', cases: 160, seed: 15 })];
    await api('POST', `/project/${demo.projectId}/events`, records);

    ({ browser, context, page } = await openPage({ width: 1440, height: 880, timeoutMs: 30_000, problems, acceptDownloads: true }));
    page.on('request', (r) => void requests.push(r.url()));
  }, 180_000);

  afterAll(() => closeAll(browser, made, dir));

  it('signs in, follows the live graph, switches views, highlights a variant, uploads a log', async () => {
    // ---- sign in: a wrong key is refused, the right one opens the demo project
    await page.goto(`${base}/`);
    await page.fill('#tenant', demo.tenantId);
    await page.fill('#key', 'pcgt_not-a-key');
    await page.click('#signin-button');
    await page.waitForFunction(() => /not accepted/.test((globalThis as any).document.querySelector('#signin-error')?.textContent ?? ''));
    // The browser logs the refused request itself: that one is expected.
    problems.splice(0, problems.length, ...problems.filter((p) => !/status of 401/.test(p)));
    await page.fill('#key', demo.key);
    await page.click('#signin-button');
    await page.waitForFunction(() => (globalThis as any).__pcg.version() !== undefined);

    // ---- the map is the document: the same nodes and edges, at the version on screen
    const v1 = (await version())!;
    expect(await page.getAttribute('#live', 'data-version')).toBe(v1);
    const doc1 = await graphAt(demo.projectId, v1);
    expect(doc1.source.events).toBeGreaterThan(1000);
    // It opens simplified as pcg graph --format dot|html opens it: more than 15 activities, so the 15 most frequent, the hidden share said.
    const activities = doc1.nodes.filter((n) => n.kind === 'activity').length;
    expect(activities).toBeGreaterThan(15);
    expect(defaultSimplification(doc1)).toEqual({ activities: Math.ceil(1500 / activities), paths: 20 });
    const opened = await expectOpened(doc1);
    expect((await drawn()).edges.length).toBeLessThan(doc1.edges.length);
    expect(await page.textContent('#map-hidden')).toBe(hiddenText(simplify(doc1, opened)));
    await expectNothingCovered();
    await shot('0-map-opened-simplified.png');
    // Both sliders up: the whole document, and nothing said hidden.
    await setSliders(100, 100);
    await page.waitForFunction((n) => (globalThis as any).__pcg.drawn().edges.length === n, doc1.edges.length);
    await expectMapIs(doc1);
    expect(await page.textContent('#map-hidden')).toBe('');
    await page.waitForFunction((n) => (globalThis as any).document.querySelector('#tabs [data-tab="variants"] .count')?.textContent === n, String(doc1.variants.length));
    await shot('1-map-frequency.png');

    // ---- select a node with a real click on the canvas, move the view
    const target = doc1.nodes.find((n) => n.label === 'Check Credit')!.id;
    const at = await page.evaluate((id) => (globalThis as any).__pcg.position(id), target);
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction((id) => (globalThis as any).__pcg.selection()?.id === id, target);
    expect(await page.textContent('#evidence')).toContain('Check Credit');
    await page.evaluate(() => (globalThis as any).__pcg.setViewport(0.9, { x: 41, y: 27 }));
    const viewport = await page.evaluate(() => (globalThis as any).__pcg.viewport());

    // ---- live: events ingested through the API reach the map without a reload
    const t0 = Date.parse(doc1.source.period_end) + 3_600_000;
    const live = [
      { caseId: 'web-live-1', activity: 'Receive Order', timestamp: new Date(t0).toISOString(), resource: 'sales-01' },
      { caseId: 'web-live-1', activity: 'Check Credit', timestamp: new Date(t0 + 1_800_000).toISOString(), resource: 'finance-01' },
    ];
    const ingested = await api('POST', `/project/${demo.projectId}/events`, live);
    expect(ingested.accepted).toBe(2);
    const v2 = String(ingested.dataVersion);
    await page.waitForFunction((v) => (globalThis as any).document.querySelector('#live')?.getAttribute('data-version') === v, v2);
    expect(await page.textContent('#live-text')).toContain(`v${v2}`);
    await expectMapIs(await graphAt(demo.projectId, v2));
    // zoom, pan and selection survive the update; the touched nodes pulsed
    expect(await page.evaluate(() => (globalThis as any).__pcg.viewport())).toEqual(viewport);
    expect(await page.evaluate(() => (globalThis as any).__pcg.selectedOnMap())).toEqual([target]);
    const pulsed: string[] = await page.evaluate(() => (globalThis as any).__pcg.lastPulse());
    expect(pulsed).toEqual(expect.arrayContaining([target, doc1.nodes.find((n) => n.label === 'Receive Order')!.id]));
    await page.click('#fit');
    await shot('2-live-update.png');

    // ---- performance view: edges coloured by their wait
    await page.click('#view-performance');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#map')?.getAttribute('data-view') === 'performance');
    const colours: Record<string, string> = await page.evaluate(() => (globalThis as any).__pcg.edgeColors());
    expect(new Set(Object.values(colours)).size).toBeGreaterThan(3);
    await page.selectOption('#metric', 'slow');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#map')?.getAttribute('data-metric') === 'slow');
    await shot('3-performance.png');

    // ---- variants: clicking one lights up its path from start to end
    await page.click('#tabs [data-tab="variants"]');
    const doc2 = await graphAt(demo.projectId, v2);
    const variant = doc2.variants[0]!;
    await page.click(`#panel .row[data-type="variant"][data-id="${variant.id}"]`);
    await page.waitForFunction((id) => (globalThis as any).__pcg.selection()?.id === id, variant.id);
    const byLabel = new Map(doc2.nodes.map((n) => [n.label, n.id]));
    const walk = ['start', ...variant.path.map((p) => byLabel.get(String(p))!), 'end'];
    const edgeIds = walk.slice(1).map((to, i) => doc2.edges.find((e) => e.from === walk[i] && e.to === to)!.id);
    const lit = await page.evaluate(() => (globalThis as any).__pcg.highlighted());
    expect(sorted(lit.nodes)).toEqual(sorted([...new Set(walk)]));
    expect(sorted(lit.edges)).toEqual(sorted([...new Set(edgeIds)]));
    expect(await page.textContent('#evidence')).toContain(`${variant.class} variant`);
    await shot('4-variant.png');

    // ---- the raw document, one click away and downloadable
    await page.click('#open-document');
    await page.waitForSelector('#raw-document');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-document')]);
    const saved = join(ARTIFACTS, 'document.json');
    await download.saveAs(saved);
    const downloaded = JSON.parse(readFileSync(saved, 'utf8')) as GraphDocument;
    expect(downloaded.schema).toBe('service.process-context-graph');
    expect(downloaded.source.data_version).toBe(await version());

    // ---- upload a small CSV log into a new project, watch both bars reach done
    const csv = join(dir, 'small.csv');
    await writeSimulation({ model: 'claims', cases: 120, seed: 4 }, 'csv', csv);
    await page.click('#open-upload');
    await page.selectOption('#upload-project', '');
    await page.fill('#upload-new-name', 'Uploaded claims');
    await page.setInputFiles('#upload-file', csv);
    await page.click('#upload-start');
    await page.waitForFunction(() => ['done', 'error'].includes((globalThis as any).document.querySelector('#upload-status')?.getAttribute('data-phase') ?? ''));
    const status = await page.textContent('#upload-status');
    expect(await page.getAttribute('#upload-status', 'data-phase'), status ?? '').toBe('done');
    expect(await page.evaluate(() => (globalThis as any).__pcg.uploadPhases())).toEqual(['idle', 'uploading', 'importing', 'done']);
    expect(await page.evaluate(() => [(globalThis as any).document.querySelector('#upload-bar').value, (globalThis as any).document.querySelector('#import-bar').value])).toEqual([1, 1]);
    expect(status).toMatch(/Imported small\.csv: [\d,]+ events stored of 120 cases \(csv\)/);
    await shot('5-upload.png');

    // ---- and open it: the map follows the new project
    const projects: { items: { id: string; name: string }[] } = await api('GET', '/project');
    const uploaded = projects.items.find((p) => p.name === 'Uploaded claims')!;
    await page.click('#upload-open');
    await page.waitForFunction((id) => (globalThis as any).location.hash === `#project=${id}` && (globalThis as any).__pcg.version() !== undefined, uploaded.id);
    const v3 = (await version())!;
    const doc3 = await graphAt(uploaded.id, v3);
    expect(doc3.source.cases).toBe(120);
    // A newly opened project opens at the defaults again.
    await expectOpened(doc3);
    await shot('6-uploaded-project.png');

    // ---- only the service was asked; the key never left in a URL or a cookie
    const origin = new URL(base).origin;
    const elsewhere = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(requests.filter((u) => u.includes(demo.key))).toEqual([]);
    expect(await context.cookies()).toEqual([]);
    expect(problems).toEqual([]);
    // signing out forgets the key
    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('pcg.session'))).toBeNull();
  }, 180_000);

  it('shows hostile names visibly: a bidi override escaped, a 1 KB name cut on the map and in panels, whole on hover', async () => {
    const bidi = 'safe\u202etxt.exe';
    const kilo = `Long ${'L'.repeat(1019)}`; // 1,024 bytes, the longest name an event may carry
    const tag = '<img src=x onerror=alert(1)>';
    const projectName = `hostile \u202e${'P'.repeat(80)}`;
    const project: { id: string } = await api('POST', '/project', { name: projectName });
    const t0 = Date.UTC(2025, 0, 1);
    const events = Array.from({ length: 12 }, (_, c) =>
      [tag, bidi, kilo].map((activity, i) => ({ caseId: `h-${c}`, activity, timestamp: new Date(t0 + c * 3_600_000 + i * 60_000).toISOString(), resource: `r\u202e${c % 2}` })),
    ).flat();
    expect((await api('POST', `/project/${project.id}/events`, events)).accepted).toBe(36);

    // Signed out by the test before: sign in again, straight into the project.
    await page.goto(`${base}/#project=${project.id}`);
    await page.fill('#tenant', demo.tenantId);
    await page.fill('#key', demo.key);
    await page.click('#signin-button');
    await page.waitForFunction((id) => (globalThis as any).location.hash === `#project=${id}` && (globalThis as any).__pcg.version() !== undefined, project.id);
    const doc = await graphAt(project.id, (await version())!);
    await expectOpened(doc);
    // Three activities: every one is shown, and fitting them does not blow them up past 1.25 times their size.
    expect((await drawn()).nodes).toHaveLength(doc.nodes.length);
    expect((await page.evaluate(() => (globalThis as any).__pcg.viewport())).zoom).toBeLessThanOrEqual(1.25);
    const idOf = new Map(doc.nodes.map((n) => [n.label, n.id]));

    // On the map: the override shown as an escape, the 1 KB name cut at 60 characters, the tag as text.
    const labels: Record<string, { text: string; full: string }> = await page.evaluate(() => (globalThis as any).__pcg.labels());
    const firstLine = (id: string) => labels[id]!.text.split('\n')[0];
    expect(firstLine(idOf.get(bidi)!)).toBe('safe\\u{202E}txt.exe');
    expect(firstLine(idOf.get(kilo)!)).toBe(`Long ${'L'.repeat(54)}…`);
    expect(labels[idOf.get(kilo)!]!.full).toBe(kilo);
    expect(firstLine(idOf.get(tag)!)).toBe(tag);
    for (const l of Object.values(labels)) expect(Array.from(l.text.split('\n')[0]!).length).toBeLessThanOrEqual(60);
    // Hovering the node shows its whole name.
    const at = await page.evaluate((id) => (globalThis as any).__pcg.position(id), idOf.get(kilo)!);
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction((full) => (globalThis as any).document.querySelector('#map')?.getAttribute('title') === full, kilo);
    await shot('7-hostile-names.png');

    // In the panels and the evidence: escapes, never the raw override, never the whole 1 KB name; the whole on hover.
    await page.click('#tabs [data-tab="stages"]');
    await page.waitForSelector('#panel .panel-stages');
    const stages = (await page.textContent('#panel'))!;
    expect(stages).toContain('safe\\u{202E}txt.exe');
    expect(stages).not.toContain('L'.repeat(60));
    expect(await page.locator('#panel [title]').evaluateAll((els) => els.map((e) => e.getAttribute('title')))).toContainEqual(expect.stringContaining(kilo));
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction((id) => (globalThis as any).__pcg.selection()?.id === id, idOf.get(kilo)!);
    expect(await page.textContent('#evidence .sel-title strong')).toBe(`Long ${'L'.repeat(54)}…`);
    expect(await page.getAttribute('#evidence .sel-title strong span', 'title')).toBe(kilo);
    // The project list: the name's override shown, the name cut.
    expect(await page.textContent(`#project option[value="${project.id}"]`)).toBe(`hostile \\u{202E}${'P'.repeat(43)}…`);
    // Nowhere in the page, text or attribute, is a raw override or an element made from data.
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.outerHTML.includes('\u202e'))).toBe(false);
    expect(await page.locator('img').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 120_000);

  it('opens a log of many activities simplified: fewer nodes than activities, every drawn node with an edge, the hidden share said', async () => {
    const project: { id: string } = await api('POST', '/project', { name: 'many activities' });

    // Empty first: the message alone, no start and end circles fitted into giant discs under it.
    await openProject(page, base, demo, project.id);
    await page.waitForFunction((id) => (globalThis as any).location.hash === `#project=${id}` && (globalThis as any).__pcg.version() !== undefined, project.id);
    await page.waitForSelector('#map-empty:not([hidden])');
    expect(await page.textContent('#map-empty')).toContain('No events in this project yet');
    expect(await drawn()).toEqual({ nodes: [], edges: [] });
    await shot('8-empty-project.png');

    // 60 cases along a main path of 8 steps; each also does one of 32 side steps (2 cases each) between steps 4 and 5.
    const t0 = Date.UTC(2025, 0, 1);
    const events = Array.from({ length: 64 }, (_, c) => {
      const path = ['Step 1', 'Step 2', 'Step 3', 'Step 4', `Side ${String(c % 32).padStart(2, '0')}`, 'Step 5', 'Step 6', 'Step 7', 'Step 8'];
      return path.map((activity, i) => ({ caseId: `m-${c}`, activity, timestamp: new Date(t0 + c * 86_400_000 + i * 3_600_000).toISOString() }));
    }).flat();
    const posted = await api('POST', `/project/${project.id}/events`, events);
    expect(posted.accepted).toBe(events.length);

    // The events arrive live: the map follows.
    await page.waitForFunction((v) => (globalThis as any).__pcg.version() === v, String(posted.dataVersion));
    const doc = await graphAt(project.id, (await version())!);
    const activities = doc.nodes.filter((n) => n.kind === 'activity');
    expect(activities).toHaveLength(40);
    expect(defaultSimplification(doc)).toEqual({ activities: 38, paths: 20 });
    await expectOpened(doc);
    const d = await drawn();
    expect(d.nodes.length - 2).toBeLessThan(activities.length);
    // The 8 main steps stay (each done by every case); most side steps are hidden.
    const label = new Map(doc.nodes.map((n) => [n.id, n.label]));
    for (let i = 1; i <= 8; i++) expect(d.nodes.map((id) => label.get(id))).toContain(`Step ${i}`);
    const ends = new Set(doc.edges.filter((e) => d.edges.includes(e.id)).flatMap((e) => [e.from, e.to]));
    expect(d.nodes.filter((id) => !ends.has(id))).toEqual([]);
    expect(await page.textContent('#map-hidden')).toMatch(/^Hidden: \d+ of 40 activities \(/);
    await expectNothingCovered();
    // Every activity, fitted: a tall map (32 side steps in one column) stays clear of the tools and the legend too.
    await setSliders(100, 100);
    await page.waitForFunction((n) => (globalThis as any).__pcg.drawn().edges.length === n, doc.edges.length);
    // The nodes glide to their new places: fitted once they are still (two reads alike).
    await page.waitForFunction(
      () => {
        const g = globalThis as any;
        const now = JSON.stringify(g.__pcg.nodeBoxes());
        const still = now === g.__lastBoxes;
        g.__lastBoxes = now;
        return still;
      },
      undefined,
      { polling: 100 },
    );
    await page.click('#fit');
    await expectNothingCovered();
    await shot('8-many-activities-whole.png');
    await shot('8-many-activities.png');
    expect(problems).toEqual([]);
  }, 120_000);

  it('leaves nothing behind from a failed upload and never shows one that stored nothing as a success', async () => {
    const before: { items: { id: string; name: string }[] } = await api('GET', '/project');
    const rejectedOnly = join(dir, 'rejected-only.csv');
    writeFileSync(rejectedOnly, 'case,activity,time\nc1,a,not-a-time\n');
    const notALog = join(dir, 'not-a-log.csv');
    writeFileSync(notALog, 'just some words\nand no columns a log has\n');
    const failures: string[] = [];
    for (const [file, name] of [
      [rejectedOnly, 'Failed upload one'],
      [notALog, 'Failed upload two'],
    ] as const) {
      if (!(await page.isVisible('#upload-dialog'))) await page.click('#open-upload');
      await page.selectOption('#upload-project', '');
      await page.fill('#upload-new-name', name);
      await page.setInputFiles('#upload-file', file);
      const runs = (await page.evaluate(() => (globalThis as any).__pcg.uploadPhases())).length;
      await page.click('#upload-start');
      await page.waitForFunction(
        (n) => (globalThis as any).__pcg.uploadPhases().length > n && ['done', 'error'].includes((globalThis as any).document.querySelector('#upload-status')?.getAttribute('data-phase') ?? ''),
        runs,
      );
      const status = (await page.textContent('#upload-status'))!;
      expect(await page.getAttribute('#upload-status', 'data-phase'), status).toBe('error');
      expect(status).toContain('The new project was removed.');
      failures.push(status);
    }
    // 0 events and 1 rejected row: said so, with the reason, not in green.
    expect(failures[0]).toMatch(/^Nothing imported from rejected-only\.csv: no event could be stored, 1 record rejected \(.*not-a-time.*\)\. The new project was removed\.$/);
    expect(failures[1]).toMatch(/\(validation_failed\)\. The new project was removed\.$/);
    await shot('9-failed-upload.png');
    const after: { items: { id: string; name: string }[] } = await api('GET', '/project');
    expect(after.items.map((p) => p.name).sort()).toEqual(before.items.map((p) => p.name).sort());

    // Into an existing project: no empty dataset stays behind either.
    const target = after.items.find((p) => p.name === 'many activities')!;
    const datasets = async () => ((await api('GET', `/project/${target.id}/dataset`)) as { items: unknown[] }).items.length;
    const had = await datasets();
    await page.selectOption('#upload-project', target.id);
    await page.setInputFiles('#upload-file', rejectedOnly);
    const runs = (await page.evaluate(() => (globalThis as any).__pcg.uploadPhases())).length;
    await page.click('#upload-start');
    await page.waitForFunction((n) => (globalThis as any).__pcg.uploadPhases().length > n && (globalThis as any).document.querySelector('#upload-status')?.getAttribute('data-phase') === 'error', runs);
    expect(await page.textContent('#upload-status')).toMatch(/^Nothing imported from rejected-only\.csv: no event could be stored, 1 record rejected \(/);
    expect(await datasets()).toBe(had);
    await page.click('#upload-close');
    // The browser logs the refused upload's status itself: expected.
    problems.splice(0, problems.length, ...problems.filter((p) => !/status of 4\d\d/.test(p)));
    expect(problems).toEqual([]);
  }, 120_000);

  it('opens the HTML rendering (pcg graph --format html) simplified, readable and without overlaps, the whole map one click away', async () => {
    const log = join(dir, 'html-order-to-cash.ndjson');
    await writeSimulation({ model: 'order-to-cash', cases: 400, seed: 3 }, 'ndjson', log);
    const project = new MemoryProject();
    await importLog(project, log);
    const doc = buildDocument(project.snapshot()) as GraphDocument;
    const view = defaultSimplification(doc);
    const file = join(dir, 'map.html');
    writeFileSync(file, renderHtml(doc, view));
    await page.goto(`file://${file}`);
    const visible = () =>
      page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('svg.process-map')]
          .filter((svg: any) => (globalThis as any).getComputedStyle(svg).display !== 'none')
          .map((svg: any) => {
            const vb = svg.viewBox.baseVal;
            const boxes = [...svg.querySelectorAll('.node')].map((n: any) => n.getBoundingClientRect()).map((r: any) => ({ x: r.x, y: r.y, w: r.width, h: r.height }));
            return { cls: svg.getAttribute('class'), ids: [...svg.querySelectorAll('.node')].map((n: any) => n.dataset.id), scale: svg.getBoundingClientRect().width / vb.width, boxes };
          }),
      );
    const overlaps = (boxes: { x: number; y: number; w: number; h: number }[]) =>
      boxes.flatMap((a, i) => boxes.slice(i + 1).filter((b) => a.x < b.x + b.w - 1 && b.x < a.x + a.w - 1 && a.y < b.y + b.h - 1 && b.y < a.y + a.h - 1).map(() => i));
    const [opened, ...more] = await visible();
    expect(more).toEqual([]);
    expect(opened!.cls).toBe('process-map simple-map');
    expect(sorted(opened!.ids)).toEqual(sorted(simplify(doc, view).nodes));
    // Labels are 12 px in the drawing: at least 10 px on the screen.
    expect(opened!.scale).toBeGreaterThanOrEqual(10 / 12 - 1e-6);
    expect(overlaps(opened!.boxes)).toEqual([]);
    expect(await page.textContent('#map')).toContain(hiddenText(simplify(doc, view)));
    await page.screenshot({ path: join(ARTIFACTS, '10-html-simplified.png') });

    await page.click('#whole');
    const [whole, ...others] = await visible();
    expect(others).toEqual([]);
    expect(whole!.cls).toBe('process-map whole-map');
    expect(sorted(whole!.ids)).toEqual(sorted(doc.nodes.map((n) => n.id)));
    expect(overlaps(whole!.boxes)).toEqual([]);
    expect(await page.textContent('#whole')).toBe('Show the simplified map');
    expect(problems).toEqual([]);
  }, 120_000);

  it('opens /docs under the same policy as the page: its script runs, nothing is refused', async () => {
    const response = await page.goto(`${base}/docs`);
    expect(response!.headers()['content-security-policy']).toBe((await page.goto(`${base}/`))!.headers()['content-security-policy']);
    await page.goto(`${base}/docs`);
    await page.waitForSelector('#root details summary code.p');
    expect(await page.locator('#root h2').count()).toBeGreaterThan(3);
    expect(problems).toEqual([]);
  }, 60_000);
});
