import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { Principal } from '../auth.js';
import type { Catalog, Project } from '../catalog/index.js';
import { limitName, retentionDaysOf, type Config } from '../config.js';
import { ApiError } from '../errors.js';
import { authorize, type ProjectGrant } from './access.js';

/** A project as every face answers it: the retention in force and the current data version beside the catalog's fields. */
export type ProjectView = Omit<Project, 'retention'> & { retentionDays: number | null; dataVersion: number };

/** What a caller may set on a project; `retentionDays` null keeps every event, absent leaves it as it is (or unset). */
export interface ProjectInput {
  name?: string | undefined;
  description?: string | undefined;
  retentionDays?: number | null | undefined;
}

/**
 * The projects a key sees, how a project is answered, and its life (create,
 * update, delete): HTTP's project routes and MCP's `list_projects` call these.
 */
export class ProjectDirectory {
  constructor(
    private readonly catalog: Pick<Catalog, 'projects'>,
    private readonly states: Pick<ProjectRegistry, 'state' | 'remove'>,
    private readonly config: Pick<Config, 'retentionDays' | 'limitProjectsPerTenant'>,
  ) {}

  /** The projects of the tenant the key may read, in the catalog's order: all of them, or those of a scoped key (403 otherwise). */
  visible(principal: Principal, tenantId: string): Project[] {
    const caller = authorize(principal, tenantId, 'read');
    const scope = caller.projectIds;
    return this.catalog.projects.list(tenantId).filter((p) => !scope || scope.includes(p.id));
  }

  /**
   * The project answered: the retention days in force (the project's own, else the server's default) and its data
   * version (its store is opened: call it for the projects of one page only).
   */
  view({ retention, ...p }: Project): ProjectView {
    return { ...p, retentionDays: retentionDaysOf(this.config, retention), dataVersion: this.states.state(p.id).dataVersion };
  }

  /**
   * A new project of the tenant (write permission; a project-scoped key may not, 403), within
   * PCG_LIMIT_PROJECTS_PER_TENANT (422 `limit_exceeded` past it).
   */
  create(principal: Principal, tenantId: string, input: ProjectInput & { name: string }): ProjectView {
    const caller = authorize(principal, tenantId, 'write');
    if (caller.kind === 'tenant' && caller.projectIds) throw new ApiError('forbidden', 'a project-scoped key cannot create projects');
    const max = this.config.limitProjectsPerTenant;
    if (this.catalog.projects.countOf(tenantId) >= max) {
      throw new ApiError('limit_exceeded', `limit ${limitName('limitProjectsPerTenant')}: a tenant may have at most ${max} projects`);
    }
    return this.view(this.catalog.projects.create(tenantId, { name: input.name, description: input.description, retention: stored(input.retentionDays) }));
  }

  /** The project with the fields given changed (the grant's `write`); 404 when it went meanwhile. */
  update(grant: ProjectGrant, input: ProjectInput): ProjectView {
    const updated = this.catalog.projects.update(grant.tenantId, grant.projectId, { name: input.name, description: input.description, retention: stored(input.retentionDays) });
    return this.view(updated ?? notFound());
  }

  /** The project gone: its records (the catalog's cascade), its event state and files (the grant's `write`). */
  remove(grant: ProjectGrant): void {
    if (!this.catalog.projects.delete(grant.tenantId, grant.projectId)) notFound();
    this.states.remove(grant.projectId);
  }
}

/** A project's retention as the catalog keeps it: null (keep every event) is 0 there, NULL meaning never set. */
const stored = (days: number | null | undefined) => (days === undefined ? undefined : (days ?? 0));

function notFound(): never {
  throw new ApiError('not_found', 'project not found');
}
