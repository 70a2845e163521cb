import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSimplification, hiddenText, shown, pathElements, touchedNodes } from '../../api/web/src/filter.js';
import { cases, events, hours, pct, plainText, waitColor } from '../../api/web/src/format.js';
import { SseParser } from '../../api/web/src/sse.js';
import { hoverText, labelText, LABEL_MAX } from '../../api/web/src/text.js';
import { webRoutes } from '../../api/web/serve.js';
import { installErrorBoundary } from '../../api/errors.js';
import { call, testApp } from '../api/helpers.js';

describe('SSE parser (the page reads the graph stream with fetch)', () => {
  it('reads events split anywhere, with CRLF, comments and multi-line data', () => {
    const text = ': keep-alive\r\n\r\nid: 3\r\nevent: version\r\ndata: {"dataVersion":3}\r\n\r\nevent: error\ndata: line one\ndata: line two\n\ndata:x\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      for (const step of [1, 3, 1000]) {
        const p = new SseParser();
        const events = [];
        let rest = text.slice(0, cut);
        events.push(...p.push(rest));
        rest = text.slice(cut);
        for (let i = 0; i < rest.length; i += step) events.push(...p.push(rest.slice(i, i + step)));
        expect(events).toEqual([
          { event: 'version', data: '{"dataVersion":3}', id: '3' },
          { event: 'error', data: 'line one\nline two', id: '3' },
          { event: 'message', data: 'x', id: '3' },
        ]);
      }
    }
  });
});

const node = (id: string, cases: number, kind: 'activity' | 'start' | 'end' = 'activity') => ({ id, kind, label: id.toUpperCase(), cases, events: cases }) as never;
const edge = (from: string, to: string, cases: number) => ({ id: `${from}->${to}`, from, to, cases }) as never;

describe('the map filter (Disco-like sliders)', () => {
  const doc = {
    nodes: [node('start', 10, 'start'), node('a', 10), node('b', 8), node('c', 2), node('d', 1), node('end', 10, 'end')],
    edges: [edge('start', 'a', 10), edge('a', 'b', 8), edge('a', 'c', 2), edge('b', 'end', 7), edge('b', 'b', 3), edge('c', 'end', 2), edge('a', 'd', 1), edge('d', 'end', 1)],
  };

  it('shows the whole document at 100 % and 100 %', () => {
    const s = shown(doc, 100, 100);
    expect(s.nodes).toEqual(doc.nodes.map((n: { id: string }) => n.id));
    expect(s.edges).toEqual(doc.edges.map((e: { id: string }) => e.id));
  });

  it('hides rare activities first and keeps start and end', () => {
    expect(shown(doc, 50, 100).nodes).toEqual(['start', 'a', 'b', 'end']);
    expect(shown(doc, 50, 100).edges).toEqual(['start->a', 'a->b', 'b->end', 'b->b']);
    expect(shown(doc, 50, 100).hidden).toEqual({ activities: 2, ofActivities: 4, eventsShare: 3 / 21, paths: 4, ofPaths: 8, casesShare: 6 / 34 });
    // At 0 % only A is asked for, but cases go on from A to end through B (its widest way): B stays, so A is not cut off.
    expect(shown(doc, 0, 100).nodes).toEqual(['start', 'a', 'b', 'end']);
  });

  it('thins paths but leaves every shown activity its widest way from start and on to end', () => {
    const s = shown(doc, 100, 0);
    expect(s.edges).toEqual(['start->a', 'a->b', 'a->c', 'b->end', 'c->end', 'a->d', 'd->end']);
    expect(s.edges).not.toContain('b->b');
    expect(hiddenText(s)).toBe('Hidden: 1 of 8 paths (8.8% of the cases counted on paths).');
  });

  it('opens where pcg graph --format dot|html opens: every activity up to 15, else the 15 most frequent', () => {
    expect(defaultSimplification(doc)).toEqual({ activities: 100, paths: 20 });
    const thirty = { nodes: Array.from({ length: 30 }, () => node('x', 1)) };
    expect(defaultSimplification(thirty)).toEqual({ activities: 50, paths: 20 });
  });

  it('walks a variant from start to end and finds the nodes a new version touched', () => {
    expect(pathElements(doc, ['A', 'B'])).toEqual({ nodes: ['start', 'a', 'b', 'end'], edges: ['start->a', 'a->b', 'b->end'] });
    const after = { nodes: [node('start', 11, 'start'), node('a', 11), node('b', 8), node('e', 1)] };
    expect(touchedNodes(doc, after)).toEqual(['start', 'a', 'e']);
    expect(touchedNodes(undefined, after)).toEqual([]);
  });
});

describe('formats', () => {
  it('words shares, durations, rule conditions and wait colours', () => {
    expect(pct(0.2166)).toBe('22 %');
    expect(pct(0.013)).toBe('1.3 %');
    expect(pct(1)).toBe('100 %');
    expect(hours(0.5)).toBe('30 min');
    expect(hours(3.57)).toBe('3.6 h');
    expect(hours(100)).toBe('4.2 d');
    expect(plainText({ attribute: 'orderAmount', op: '>=', value: 5000 })).toBe('orderAmount >= 5000');
    expect(plainText({ attribute: 'priority', op: 'in', value: ['high', 'critical'] })).toBe('priority in [high, critical]');
    expect(waitColor(1, 1, 100)).toBe('rgb(46, 157, 91)');
    expect(waitColor(100, 1, 100)).toBe('rgb(198, 40, 40)');
    expect(waitColor(0, 1, 100)).toBe('#9aa3b0');
    expect(cases(1)).toBe('1 case');
    expect(cases(1200)).toBe('1,200 cases');
    expect(events(0)).toBe('0 events');
  });
});

describe('labels (names on the map, in panels and lists)', () => {
  it('shows a right-to-left override and other controls visibly, keeping the visible text', () => {
    expect(labelText('safe\u202etxt.exe')).toBe('safe\\u{202E}txt.exe');
    expect(labelText('title \x1b]0;pwned\x07')).toBe('title \\x1b]0;pwned\\x07');
    expect(labelText('<b>bold</b>\n# heading\tx')).toBe('<b>bold</b>\\n# heading\\tx');
    expect(labelText('\u2066a\u2069 \u200f\u061c \x85\x9b \x7f \u2028')).toBe('\\u{2066}a\\u{2069} \\u{200F}\\u{061C} \\x85\\x9b \\x7f \\u{2028}');
    // Nothing was cut: no hover text is needed.
    expect(hoverText('safe\u202etxt.exe')).toBeUndefined();
    expect(labelText('Create Invoice')).toBe('Create Invoice');
  });

  it('cuts a long name at 60 characters with an ellipsis, the whole (visible) name on hover', () => {
    expect(LABEL_MAX).toBe(60);
    const kilo = `${'L'.repeat(1000)}\u202e${'R'.repeat(23)}`;
    expect(labelText(kilo)).toBe(`${'L'.repeat(59)}…`);
    expect(hoverText(kilo)).toBe(`${'L'.repeat(1000)}\\u{202E}${'R'.repeat(23)}`);
    expect(labelText('x'.repeat(60))).toBe('x'.repeat(60));
    expect(labelText('x'.repeat(61))).toBe(`${'x'.repeat(59)}…`);
    // An escape is never cut in two: it is left out whole when it does not fit.
    expect(labelText(`${'a'.repeat(55)}\u202e${'b'.repeat(10)}`)).toBe(`${'a'.repeat(55)}…`);
    expect(labelText(`${'a'.repeat(50)}\u202e${'b'.repeat(10)}`)).toBe(`${'a'.repeat(50)}\\u{202E}b…`);
  });
});

describe('serving the built page', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const built = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pcg-web-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>pcg</title><script type="module" src="/assets/index-abc.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
    writeFileSync(join(dir, 'secret.txt'), 'not an asset');
    return dir;
  };
  const server = (dir: string) => {
    const app = Fastify();
    installErrorBoundary(app);
    webRoutes(app, dir);
    return app;
  };

  it('answers / with the page under a same-origin-only policy, and hashed assets for a year', async () => {
    const app = server(built());
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.body).toContain('/assets/index-abc.js');
    const js = await app.inject({ method: 'GET', url: '/assets/index-abc.js', headers: { 'accept-encoding': 'gzip' } });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['content-encoding']).toBe('gzip');
    expect(js.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
    await app.close();
  });

  it('serves only files the build wrote into assets/', async () => {
    const app = server(built());
    for (const url of ['/assets/..%2Fsecret.txt', '/assets/secret.txt', '/assets/%2e%2e%2findex.html', '/assets/nope.js']) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(404);
      expect(JSON.parse(r.body).error).toBe('not_found');
    }
    await app.close();
  });

  it('says how to build the page when it is missing', async () => {
    const app = server(join(tmpdir(), 'pcg-web-missing-dir'));
    const r = await app.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(503);
    expect(r.body).toContain('make install');
    await app.close();
  });

  it('is mounted by the service beside /docs and the API', async () => {
    const t = testApp();
    try {
      const root = await call(t.app, 'GET', '/');
      expect([200, 503]).toContain(root.status);
      expect(root.headers['content-type']).toMatch(/text\/html/);
      expect((await call(t.app, 'GET', '/docs')).status).toBe(200);
      expect((await call(t.app, 'POST', '/')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
