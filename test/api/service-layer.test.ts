import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A use case is written once (docs/architecture.md, Invariants): the faces
 * (HTTP routes, MCP, the command line) ask api/service/ for the caller's access
 * to a project, the projects a key sees, served graph versions, cases, the live
 * state and block runs, and for the writes: a project's life, events ingested
 * (their cap), datasets and Kafka sources; they never do it by hand beside it. Read as text, as
 * test/engine/layering.test.ts reads imports.
 */
const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const faces = () => [...sources(join(root, 'api', 'routes')), ...sources(join(root, 'api', 'mcp')), ...sources(join(root, 'api', 'cli')), join(root, 'api', 'route.ts'), join(root, 'api', 'context.ts')];

/** What a face may not do itself: each is a use case of api/service/. */
const byHand: [RegExp, string][] = [
  [/\bauthorizeTenant\s*\(|\bauth\.authorize\s*\(/, "authorizes a key (api/service/access.ts' authorize or ProjectAccess.grant)"],
  [/\bprojects\.(get|list)\s*\(/, "reads a project from the catalog (ProjectAccess.grant, projectOf, ProjectDirectory.visible)"],
  [/\[0-9a-f\]\{8\}-/, 'lower-cases GUIDs with a pattern of its own (lowerGuid)'],
  [/\bgraphVersions\.list\s*\(|\bgraphs\.(current|version|inScope)\s*\(/, 'fetches a served graph (ServedGraphs)'],
  [/\btype:\s*'(live|cases)'/, 'reads cases or the live state (CasePages, LiveStates)'],
  [/\brunBlock\s*\(\s*spec\b/, 'runs a block (BlockRuns)'],
  [/(?<!service\.)\b(projects|sources|datasets)\.(create|update|delete|countOf|setPaused)\s*\(/, 'writes a project, source or dataset record (ProjectDirectory, SourceSubscriptions, DatasetFiles)'],
  [/\b(ctx|states|parts)\.ingest\s*\(|\btooManyEvents\s*\(/, 'ingests events or holds their cap (EventIngestion)'],
  [/from\s+'\.\.\/datasets\.js'/, "runs a dataset's import (DatasetFiles)"],
  [/\bpartsOf\s*\(|\bcompileMapping\s*\(|\bsourceStatus\s*\(/, "reads a source's state or dead letters (SourceSubscriptions)"],
];

describe('service layer', () => {
  it('no face checks access, lists projects, fetches graphs, cases or the live state, or runs a block by itself', () => {
    const offenders: string[] = [];
    for (const file of faces()) {
      const text = readFileSync(file, 'utf8');
      for (const [pattern, what] of byHand) if (pattern.test(text)) offenders.push(`${relative(root, file)} ${what}`);
      if (/\bimport\s*\{[^}]*\brunBlock\b[^}]*\}\s*from\s*'[^']*engine\/projects/.test(text)) offenders.push(`${relative(root, file)} runs a block (BlockRuns)`);
    }
    expect(offenders).toEqual([]);
  });

  it('the rule catches a face that does it by hand', () => {
    const samples = [
      'this.parts.auth.authorize(p, p.tenantId, needed, id);',
      "if (!this.parts.catalog.projects.get(p.tenantId, id)) throw new ApiError('not_found', 'x');",
      'const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;',
      'return ctx.catalog.graphVersions.list(params.projectId);',
      "const { result } = await cases.run(projectId, [], { type: 'live' });",
      'const { dataVersion, result } = await runBlock(spec, id, key, [], this.parts.graphs, this.parts.cases);',
      "return withVersion(projects.create(params.tenantId, { name: body.name }));",
      'const created = sources.create(params.tenantId, params.projectId, body);',
      'const result = await ctx.ingest(params.tenantId, params.projectId, { body, ndjson }, abandoned(reply));',
      'if (events.length > max) throw tooManyEvents(events.length, max);',
      "import { DatasetImports, fileError } from '../datasets.js';",
      'for (const { store } of ctx.states.partsOf(params.projectId, r.id)) {',
    ];
    // A face calling the use case is not doing it by hand.
    for (const s of ['service.sources.update(grant, id, body)', 'service.projects.create(principal, tenantId, body)']) expect(byHand.some(([p]) => p.test(s)), s).toBe(false);
    for (const s of samples) expect(byHand.some(([p]) => p.test(s)), s).toBe(true);
    expect(/\bimport\s*\{[^}]*\brunBlock\b[^}]*\}\s*from\s*'[^']*engine\/projects/.test("import { blockSpecSchema, runBlock } from '../../engine/projects/index.js';")).toBe(true);
  });

  it('api/service/ is framework-free and imports no face', () => {
    const offenders = sources(join(root, 'api', 'service')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      // The document views (api/mcp/views.ts, viewer.ts) are pure functions over documents that the service runs.
      return specs
        .filter((s) => /^(fastify|@fastify\/|@modelcontextprotocol\/|pino)/.test(s) || /\/(routes|cli|web)\//.test(s) || /\/route\.js$/.test(s) || (/\/mcp\//.test(s) && !/\/mcp\/(views|viewer)\.js$/.test(s)))
        .map((s) => `${relative(root, file)} imports ${s}`);
    });
    expect(offenders).toEqual([]);
  });
});
