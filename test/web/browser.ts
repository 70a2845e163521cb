import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { PcgApp } from '../../api/app.js';
import type { Demo } from '../../api/demo.js';

/** Debian's chromium, which `.ci/run` installs; PCG_CHROMIUM names another, PCG_REQUIRE_BROWSER makes its absence a failure. */
export const CHROMIUM = process.env.PCG_CHROMIUM ?? '/usr/bin/chromium';
export const haveBrowser = existsSync(CHROMIUM);
export const browserRequired = Boolean(process.env.PCG_REQUIRE_BROWSER);

/** A chromium page of one viewport whose console errors and uncaught page errors are pushed to `problems`. */
export async function openPage(options: { width: number; height: number; timeoutMs: number; problems: string[]; acceptDownloads?: boolean }): Promise<{ browser: Browser; context: BrowserContext; page: Page }> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height }, acceptDownloads: options.acceptDownloads ?? false });
  const page = await context.newPage();
  page.setDefaultTimeout(options.timeoutMs);
  page.on('console', (m) => void (m.type() === 'error' && options.problems.push(`console: ${m.text()}`)));
  page.on('pageerror', (e) => void options.problems.push(`page error: ${e.message}`));
  return { browser, context, page };
}

/** What a browser test leaves: the browser, the service and its data directory (each if it was made). */
export async function closeAll(browser: Browser | undefined, made: PcgApp | undefined, dir: string | undefined): Promise<void> {
  await browser?.close();
  await made?.app.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** The demo tenant's API under the service at `base`, with its key: the JSON answer, the status expected ok. */
export async function demoApi(base: string, demo: Demo, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}/api/${demo.tenantId}${path}`, {
    method,
    headers: { authorization: `Bearer ${demo.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(r.ok, `${method} ${path}: ${r.status}`).toBe(true);
  return r.json();
}

const WEB = fileURLToPath(new URL('../../api/web', import.meta.url));

/** Builds the page when the build is missing or older than any of its sources (make install normally has). */
export async function ensureBuilt(): Promise<void> {
  const index = join(WEB, 'dist/index.html');
  const sources = [join(WEB, 'index.html'), join(WEB, 'vite.config.ts'), ...readdirSync(join(WEB, 'src')).map((f) => join(WEB, 'src', f))];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (existsSync(index) && statSync(index).mtimeMs >= newest) return;
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
}

/** Opens a project's map (`#project=`), signing in with the demo's key the first time the page asks. */
export async function openProject(page: Page, base: string, demo: Demo, projectId: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${base}/#project=${projectId}`);
  await page.waitForFunction(() => {
    const d = (globalThis as any).document;
    return !d.querySelector('#signin')?.hidden || !d.querySelector('#app')?.hidden;
  });
  if (await page.isVisible('#signin')) {
    await page.fill('#tenant', demo.tenantId);
    await page.fill('#key', demo.key);
    await page.click('#signin-button');
  }
}
