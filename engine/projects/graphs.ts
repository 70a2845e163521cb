import { createHash } from 'node:crypto';
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
  snapshot(): ProjectSnapshot;
  files?(): string[];
  /** With files: the build is of this scoped view of them (scopedSnapshot), taken where the builder runs. */
  scopes?: readonly Scope[];
}

/** A document as JSON text, with the data version its snapshot was taken at. */
export interface BuiltDocument {
  json: string;
  dataVersion: number;
}

/**
 * Builds a document. In-process by default; the server hands in one that builds
 * (and snapshots) on worker threads, so a large project's build never holds the
 * event loop every tenant's requests share.
 */
export type DocumentBuilder = (source: BuildSource) => Promise<BuiltDocument>;

export const buildInProcess: DocumentBuilder = async (source) => {
  const snapshot = source.snapshot();
  return { json: JSON.stringify(buildDocument(snapshot)), dataVersion: snapshot.dataVersion };
};

/** Where served documents are kept by data version (the API keeps them in its catalog). */
export interface GraphVersionStore {
  get(projectId: string, dataVersion: number): string | undefined;
  put(projectId: string, dataVersion: number, document: string): void;
}

export interface ServedGraph {
  dataVersion: number;
  etag: string;
  /** The document, serialized once and served as is. */
  json: string;
}

const SCOPED_CACHE = 64;

/**
 * The graph documents a project serves. The full graph is built once per
 * data_version and kept in the version store (so `?version=V` answers the same
 * bytes later); scoped graphs are rebuilt from the filtered events and cached in memory.
 */
export class Graphs {
  private readonly scoped = new Map<string, ServedGraph>();
  /** Builds under way, so concurrent requests for one new version build it once. */
  private readonly building = new Map<string, Promise<ServedGraph>>();
  constructor(
    private readonly projects: ProjectRegistry,
    private readonly versions: GraphVersionStore,
    private readonly build: DocumentBuilder = buildInProcess,
  ) {}

  async current(projectId: string): Promise<ServedGraph> {
    const state = this.projects.state(projectId);
    const version = state.dataVersion;
    const kept = this.versions.get(projectId, version);
    if (kept !== undefined) return { dataVersion: version, etag: `"${version}"`, json: kept };
    const key = `${projectId}:${version}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = (async () => {
        // Held in memory, the counted state is a cheap snapshot here; else a builder on another thread reads the files.
        const built = await this.build(state.warm ? { snapshot: () => state.snapshot() } : { snapshot: () => state.snapshot(), files: () => this.projects.filesOf(projectId) });
        this.versions.put(projectId, built.dataVersion, built.json);
        return { dataVersion: built.dataVersion, etag: `"${built.dataVersion}"`, json: built.json };
      })().finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  version(projectId: string, dataVersion: number): ServedGraph | undefined {
    const json = this.versions.get(projectId, dataVersion);
    return json === undefined ? undefined : { dataVersion, etag: `"${dataVersion}"`, json };
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
    const built = await this.build({ snapshot: () => scopedSnapshot(state, scopes), files: () => this.projects.filesOf(projectId), scopes });
    // The version the events were read at (a writer may have gone on since the version above was read).
    const served = { dataVersion: built.dataVersion, etag: `"${built.dataVersion}-${tag}"`, json: built.json };
    this.scoped.delete(cacheKey);
    this.scoped.set(cacheKey, served);
    if (this.scoped.size > SCOPED_CACHE) this.scoped.delete(this.scoped.keys().next().value!);
    return served;
  }
}
