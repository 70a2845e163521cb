import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configEnv } from '../../api/config.js';
import { configurationPage, settingDocs } from '../tools/config-doc.js';

/** docs/configuration.md is written from the configuration schema: a setting added or changed there must reach the page. */
const page = join(import.meta.dirname, '..', '..', 'docs', 'configuration.md');

describe('the configuration page', () => {
  it('is what the schema prints (run `make docs` after changing api/config.ts)', () => {
    expect(readFileSync(page, 'utf8')).toBe(configurationPage());
  });

  it('states every setting: its variable, a description, and the defaults the server uses', () => {
    const docs = settingDocs();
    expect(docs.map((d) => d.variable).sort()).toEqual(Object.values(configEnv).sort());
    const byVariable = new Map(docs.map((d) => [d.variable, d]));
    expect(byVariable.get('PCG_PORT')).toMatchObject({ type: 'whole number, 0–65535', default: '8080' });
    expect(byVariable.get('PCG_BODY_LIMIT_BYTES')!.default).toBe('16777216 (16 MiB)');
    expect(byVariable.get('PCG_RETENTION_DAYS')!.default).toBe('unset');
    expect(byVariable.get('PCG_SOURCES')!.default).toBe('`on`');
    expect(byVariable.get('PCG_BUILD_THREADS')!.default).toBe('one per core the process may use, at least 2');
    for (const d of docs) expect(d.description.length, d.variable).toBeGreaterThan(20);
  });
});
