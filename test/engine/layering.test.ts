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

// Static imports and re-exports, and dynamic `import('…')` (commands load their modules on demand).
const importsOf = (file: string) => {
  const text = readFileSync(file, 'utf8');
  return [
    ...[...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ];
};

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

  it('connectors/ imports no API code: the direction is api → connectors → engine', () => {
    const offenders = sources(join(root, 'connectors')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /^(fastify|pino)(\/|$)|^@fastify\//.test(spec) || /(^|\/)api\//.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the product never imports pm4py tooling', () => {
    const offenders = ['engine', 'api', 'connectors']
      .flatMap((d) => sources(join(root, d)))
      .filter((f) => importsOf(f).some((s) => s.includes('test/tools') || s.includes('pm4py')));
    expect(offenders).toEqual([]);
  });
});
