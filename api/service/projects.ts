import type { ProjectRegistry } from '../../engine/projects/index.js';
import type { Principal } from '../auth.js';
import type { Catalog, Project } from '../catalog/index.js';
import { retentionDaysOf, type Config } from '../config.js';
import { authorize } from './access.js';

/** A project as every face answers it: the retention in force and the current data version beside the catalog's fields. */
export type ProjectView = Omit<Project, 'retention'> & { retentionDays: number | null; dataVersion: number };

/**
 * The projects a key sees, and how a project is answered: HTTP's project
 * routes and MCP's `list_projects` both call these.
 */
export class ProjectDirectory {
  constructor(
    private readonly catalog: Pick<Catalog, 'projects'>,
    private readonly states: Pick<ProjectRegistry, 'state'>,
    private readonly config: Pick<Config, 'retentionDays'>,
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
}
