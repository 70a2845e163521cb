import { createHash } from 'node:crypto';
import { buildDocument } from '../document/index.js';
import type { ProjectSnapshot } from '../store/project-store.js';
import type { ProjectRegistry } from './registry.js';
import { scopedSnapshot, type Scope } from './scope.js';

/**
 * Builds a snapshot's document as JSON text. In-process by default; the server
 * hands in one that builds on worker threads, so a large project's build never
 * holds the event loop every tenant's requests share.
 */
export type DocumentBuilder = (snapshot: ProjectSnapshot) => Promise<string>;

export const buildInProcess: DocumentBuilder = async (snapshot) => JSON.stringify(buildDocument(snapshot));

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
        const snapshot = state.snapshot();
        const json = await this.build(snapshot);
        this.versions.put(projectId, snapshot.dataVersion, json);
        return { dataVersion: snapshot.dataVersion, etag: `"${snapshot.dataVersion}"`, json };
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
    const json = await this.build(scopedSnapshot(state, scopes));
    const served = { dataVersion: version, etag, json };
    this.scoped.delete(cacheKey);
    this.scoped.set(cacheKey, served);
    if (this.scoped.size > SCOPED_CACHE) this.scoped.delete(this.scoped.keys().next().value!);
    return served;
  }
}
