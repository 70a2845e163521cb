import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The layering rule, checked: engine/ is pure TypeScript over SQLite. */
const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);

describe('layering', () => {
  it('engine/ imports no framework, API or connector code', () => {
    const offenders: string[] = [];
    for (const file of sources(join(root, 'engine'))) {
      for (const spec of importsOf(file)) {
        if (/^(fastify|kafkajs|pino)(\/|$)|^@fastify\//.test(spec) || /\/(api|connectors)\//.test(`/${spec}`) || spec.includes('../api') || spec.includes('../connectors')) {
          offenders.push(`${relative(root, file)} imports ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the product never imports pm4py tooling', () => {
    const offenders = ['engine', 'api', 'connectors']
      .flatMap((d) => sources(join(root, d)))
      .filter((f) => importsOf(f).some((s) => s.includes('test/tools') || s.includes('pm4py')));
    expect(offenders).toEqual([]);
  });
});
