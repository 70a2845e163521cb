import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzipSync } from 'node:zlib';
import { buildDocument } from '../document/index.js';
import type { ProjectSnapshot } from '../store/project-store.js';
import type { ProjectRegistry } from './registry.js';
import { scopedSnapshot, type Scope } from './scope.js';

/**
 * What a build reads: a snapshot taken where the builder runs, or, for a project's full graph, the project's
 * state files (its own store, then its partition states), so that a builder on another thread takes the
 * snapshot there. A cold snapshot reads every counter row (270 ms for a 2,000-activity project in the soak),
 * and a partition state written by another thread or process is cold after each of its writes.
 */
export interface BuildSource {
  /** Whose document (a builder on another thread queues its work by project and tenant). */
  projectId?: string;
  snapshot(): ProjectSnapshot;
  files?(): string[];
  /** With files: the build is of this scoped view of them (scopedSnapshot), taken where the builder runs. */
  scopes?: readonly Scope[];
}

/** A document as JSON text and gzip-compressed (what is kept and sent to clients that take gzip), with the data version its snapshot was taken at. */
export interface BuiltDocument {
  json: string;
  gzip: Uint8Array;
  dataVersion: number;
}

/** The document of a snapshot, both ways: compressing costs about 1 % of building (46 ms for 4 MB of JSON that packs to 90 KB). */
export function builtDocument(snapshot: ProjectSnapshot): BuiltDocument {
  const json = JSON.stringify(buildDocument(snapshot));
  const packed = gzipSync(json);
  // A plain Uint8Array view, as it arrives from a build thread (structured cloning makes a Buffer one).
  return { json, gzip: new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength), dataVersion: snapshot.dataVersion };
}

/**
 * Builds a document. In-process by default; the server hands in one that builds
 * (and snapshots) on worker threads, so a large project's build never holds the
 * event loop every tenant's requests share.
 */
export type DocumentBuilder = (source: BuildSource) => Promise<BuiltDocument>;

export const buildInProcess: DocumentBuilder = async (source) => builtDocument(source.snapshot());

/** A kept document: compressed, or (kept before documents were compressed) as text. */
export type KeptDocument = { gzip: Uint8Array; json?: undefined } | { json: string; gzip?: undefined };

/** Where served documents are kept by data version (the API keeps them in its catalog). */
export interface GraphVersionStore {
  get(projectId: string, dataVersion: number): KeptDocument | undefined;
  /** The newest kept document of the project, with its version (served stale while a newer one builds). */
  latest?(projectId: string): ({ dataVersion: number } & KeptDocument) | undefined;
  put(projectId: string, dataVersion: number, json: string, gzip: Uint8Array): void;
}

/**
 * A document as served: serialized once, then sent as is (compressed to clients that take gzip), with its version as
 * ETag. `stale` is the project's current data version when an older document is served while the current one builds.
 */
export type ServedGraph = { dataVersion: number; etag: string; stale?: number } & ({ json: string; gzip: Uint8Array } | KeptDocument);

const gunzip = promisify(gunzipCallback);

/** A served document's JSON text (a kept one is decompressed on libuv's threads, not the caller's). */
export async function documentText(served: ServedGraph): Promise<string> {
  return served.json ?? (await gunzip(served.gzip!)).toString('utf8');
}

const SCOPED_CACHE = 64;

/**
 * The graph documents a project serves. The full graph is built once per
 * data_version and kept in the version store (so `?version=V` answers the same
 * bytes later); scoped graphs are rebuilt from the filtered events and cached in memory.
 */
export class Graphs {
  private readonly scoped = new Map<string, ServedGraph>();
  /** The full build under way per project (one at a time), so concurrent requests for one new version build it once. */
  private readonly underway = new Map<string, { version: number; built: Promise<ServedGraph> }>();
  constructor(
    private readonly projects: ProjectRegistry,
    private readonly versions: GraphVersionStore,
    private readonly build: DocumentBuilder = buildInProcess,
  ) {}

  /**
   * The project's current document, built once per data version. One full build per project runs at a time: a
   * request for a newer version than the one building waits for it, then builds its own. With `stale`, a request
   * that finds the project busy (a build running or waiting for a thread) is answered at once with the newest kept
   * document, marked with the current version in `stale`, while the one build goes on; the first build of a project
   * is always waited for.
   */
  async current(projectId: string, options: { stale?: boolean } = {}): Promise<ServedGraph> {
    for (;;) {
      const state = this.projects.state(projectId);
      const version = state.dataVersion;
      const kept = this.versions.get(projectId, version);
      if (kept !== undefined) return { dataVersion: version, etag: `"${version}"`, ...kept };
      const under = this.underway.get(projectId);
      if (!under) return this.startBuild(projectId, version, state.warm, () => state.snapshot());
      if (under.version === version) return under.built;
      if (options.stale) {
        const older = this.versions.latest?.(projectId);
        if (older !== undefined && older.dataVersion < version) return { ...older, etag: `"${older.dataVersion}"`, stale: version };
        // Nothing kept yet: the build under way is the freshest answer there will be soon.
        const built = await under.built;
        return built.dataVersion < version ? { ...built, stale: version } : built;
      }
      await under.built.catch(() => undefined);
    }
  }

  private startBuild(projectId: string, version: number, warm: boolean, snapshot: () => ProjectSnapshot): Promise<ServedGraph> {
    const built = (async (): Promise<ServedGraph> => {
      // Held in memory, the counted state is a cheap snapshot here; else a builder on another thread reads the files.
      const doc = await this.build(warm ? { projectId, snapshot } : { projectId, snapshot, files: () => this.projects.filesOf(projectId) });
      this.versions.put(projectId, doc.dataVersion, doc.json, doc.gzip);
      return { dataVersion: doc.dataVersion, etag: `"${doc.dataVersion}"`, json: doc.json, gzip: doc.gzip };
    })();
    const entry = { version, built };
    this.underway.set(projectId, entry);
    const done = () => {
      if (this.underway.get(projectId) === entry) this.underway.delete(projectId);
    };
    built.then(done, done);
    return built;
  }

  /** Whether a full build of the project is running or waiting for a thread. */
  building(projectId: string): boolean {
    return this.underway.has(projectId);
  }

  version(projectId: string, dataVersion: number): ServedGraph | undefined {
    const kept = this.versions.get(projectId, dataVersion);
    return kept === undefined ? undefined : { dataVersion, etag: `"${dataVersion}"`, ...kept };
  }

  /** The graph of an investigation's scope (plus any extra scopes a notebook's filter blocks add). */
  async inScope(projectId: string, key: string, scopes: readonly Scope[]): Promise<ServedGraph> {
    const state = this.projects.state(projectId);
    const version = state.dataVersion;
    const tag = createHash('sha256').update(JSON.stringify(scopes)).digest('hex').slice(0, 12);
    const etag = `"${version}-${tag}"`;
    // One entry per project and scope, its latest version: older versions of a busy scope would crowd out the others.
    const cacheKey = `${projectId}:${key}`;
    const hit = this.scoped.get(cacheKey);
    if (hit?.etag === etag) return hit;
    // A scoped snapshot replays every kept case's events, whatever is in memory: a builder on another thread reads them from the files.
    const built = await this.build({ projectId, snapshot: () => scopedSnapshot(state, scopes), files: () => this.projects.filesOf(projectId), scopes });
    // The version the events were read at (a writer may have gone on since the version above was read).
    const served = { dataVersion: built.dataVersion, etag: `"${built.dataVersion}-${tag}"`, json: built.json, gzip: built.gzip };
    this.scoped.delete(cacheKey);
    this.scoped.set(cacheKey, served);
    if (this.scoped.size > SCOPED_CACHE) this.scoped.delete(this.scoped.keys().next().value!);
    return served;
  }
}
