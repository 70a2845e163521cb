import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLog } from '../../connectors/files/index.js';
import { buildDocument } from '../../engine/document/index.js';
import { ProjectStore } from '../../engine/index.js';
import { auditDocument, report, SECTIONS, sectionOf, STRICT_SECTIONS, type Audit } from '../document/audit.js';
import { realLogs } from '../tools/pm4py.js';
import { manifestLogs, optionsFor, storeName } from './manifest.js';

/**
 * The self-consistency audit (test/document/audit.ts) on every shared log,
 * OCEL ones included (read with the default case notion): each section is its
 * own test, strict when STRICT_SECTIONS lists it (the one list, shared with
 * test/document/audit.test.ts), else its differences are printed. Every log
 * of both manifests (manifest.ts: each with its import options), the large
 * tier included: the audit must hold on every shared log.
 */

// Made only when the suite runs: a skipped file runs no afterAll.
const work = realLogs ? mkdtempSync(join(tmpdir(), 'pcg-real-audit-')) : '';
afterAll(() => rmSync(work, { recursive: true, force: true }));

const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);

describe.skipIf(!realLogs)('audit of the real logs', () => {
  describe.each(manifestLogs({ all: true }).map((r) => r.file))('%s', (file) => {
    let audit: Audit;
    beforeAll(async () => {
      const path = join(work, storeName(file));
      const store = ProjectStore.open(path);
      try {
        const t0 = performance.now();
        await importLog(store, join(realLogs!, file), optionsFor(file));
        const t1 = performance.now();
        const doc = buildDocument(store.snapshot());
        const t2 = performance.now();
        audit = auditDocument(doc, store.traces());
        const t3 = performance.now();
        console.log(`[audit] ${file}: ${doc.source.cases} cases, ${doc.source.events} events; import ${seconds(t0, t1)} s, document ${seconds(t1, t2)} s, audit ${seconds(t2, t3)} s`);
      } finally {
        store.close();
        // The largest logs' state runs to hundreds of MB: freed log by log.
        rmSync(path, { force: true });
        rmSync(`${path}-wal`, { force: true });
        rmSync(`${path}-shm`, { force: true });
      }
    }, 900_000);

    for (const section of SECTIONS) {
      const strict = STRICT_SECTIONS.includes(section);
      it(`${section}: ${strict ? 'every figure matches the events' : 'not strict yet, differences printed'}`, () => {
        const lines = audit.filter((l) => sectionOf(l) === section);
        if (strict) expect(lines).toEqual([]);
        else if (lines.length) console.log(report(file, section, lines));
      });
    }

    it('every line belongs to an audited section; what was skipped is printed', () => {
      expect(audit.filter((l) => !(SECTIONS as readonly string[]).includes(sectionOf(l)))).toEqual([]);
      if (audit.skipped.length) console.log(report(file, 'skipped', audit.skipped));
    });
  });
});
