/**
 * Every page the service serves answers under the same security headers
 * (api/page-headers.ts): `/`, `/docs` and its script. Every response, JSON
 * and errors included, says nosniff.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../api/page-headers.js';
import { call, testApp, type TestApp } from './helpers.js';

describe('security headers', () => {
  let t: TestApp;
  beforeAll(() => {
    t = testApp();
  });
  afterAll(() => t.close());

  it('/docs, /docs.js and / carry the one policy: same origin only, never framed, no referrer', async () => {
    for (const url of ['/docs', '/docs.js', '/']) {
      const r = await call(t.app, 'GET', url);
      // / is 503 with a "run make install" page when the web page is not built: the same headers either way.
      expect([200, 503], url).toContain(r.status);
      expect(r.headers['content-security-policy'], url).toBe(PAGE_CSP);
      expect(r.headers['x-frame-options'], url).toBe('DENY');
      expect(r.headers['x-content-type-options'], url).toBe('nosniff');
      expect(r.headers['referrer-policy'], url).toBe('no-referrer');
    }
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).toContain("frame-ancestors 'none'");
  });

  it('/docs runs no inline script and builds its page without HTML strings', async () => {
    const page = (await call(t.app, 'GET', '/docs')).text;
    // Every <script> has a src: the policy (script-src 'self') would block an inline one.
    expect(page.match(/<script\b[^>]*>/g)).toEqual(['<script src="docs.js">']);
    expect(page).not.toMatch(/\son[a-z]+=/i);
    const script = (await call(t.app, 'GET', '/docs.js')).text;
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('says nosniff on JSON, on errors and on unknown routes', async () => {
    for (const [method, url] of [
      ['GET', '/openapi.json'],
      ['GET', '/api/Action/ping'],
      ['GET', '/api/no-such-route'],
      ['GET', `/api/${crypto.randomUUID()}/project`],
      ['POST', '/docs'],
    ] as const) {
      const r = await call(t.app, method, url);
      expect(r.headers['x-content-type-options'], `${method} ${url} (${r.status})`).toBe('nosniff');
    }
  });
});
