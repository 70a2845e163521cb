import { publicTls, type ClusterConnection, type ClusterInput, type ConfiguredCluster, type Credentials, type SecretBox } from '../../connectors/kafka/index.js';
import { now, type Db } from './database.js';

/** A cluster as the API shows it: no secret, who it is granted to. */
export interface ClusterInfo {
  name: string;
  origin: 'config' | 'api';
  brokers: string[];
  credentials: Credentials;
  groupPrefix: string;
  sasl: { mechanism: string; username: string } | null;
  tls: ReturnType<typeof publicTls>;
  /** Every tenant may use it (configuration's `"*"`). */
  allTenants: boolean;
  /** The tenants it is granted to, by configuration or by the global key. */
  tenants: string[];
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export interface TopicAccess {
  topic: string;
  tenantId: string;
  how: 'claimed' | 'granted';
  createdAt: string;
}

interface Row {
  name: string;
  origin: 'config' | 'api';
  body: string;
  secret: string;
  tenants: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
}
type Body = Omit<ClusterInput, 'sasl' | 'tls'> & { sasl?: { mechanism: string; username: string }; tls?: ClusterInput['tls'] };
interface Secrets {
  password?: string;
  key?: string;
}

const cols = 'name, origin, body, secret, tenants, revision, created_at AS createdAt, updated_at AS updatedAt';

/**
 * Kafka clusters, their grants to tenants and the topics tenants hold on them
 * (connectors/kafka/cluster.ts says why). The operator's side (configuration,
 * the global key) declares and grants; a tenant's source only names a cluster
 * it was granted, and on a cluster pcg reads with its own credentials it
 * claims its topic, or is refused one another tenant holds.
 */
export class Clusters {
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly box: () => SecretBox,
  ) {
    this.q = {
      get: db.prepare<[string], Row>(`SELECT ${cols} FROM kafka_cluster WHERE name = ?`),
      list: db.prepare<[], Row>(`SELECT ${cols} FROM kafka_cluster ORDER BY name`),
      insert: db.prepare('INSERT INTO kafka_cluster (name, origin, body, secret, tenants, revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)'),
      update: db.prepare('UPDATE kafka_cluster SET origin = ?, body = ?, secret = ?, tenants = ?, revision = revision + 1, updated_at = ? WHERE name = ?'),
      delete: db.prepare('DELETE FROM kafka_cluster WHERE name = ?'),
      grants: db.prepare<[string], { tenantId: string }>('SELECT tenant_id AS tenantId FROM kafka_grant WHERE cluster = ? ORDER BY tenant_id'),
      granted: db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM kafka_grant WHERE cluster = ? AND tenant_id = ?'),
      grant: db.prepare('INSERT INTO kafka_grant (cluster, tenant_id, created_at) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM tenant WHERE id = ?) ON CONFLICT DO NOTHING'),
      ungrant: db.prepare('DELETE FROM kafka_grant WHERE cluster = ? AND tenant_id = ?'),
      forgetGrants: db.prepare('DELETE FROM kafka_grant WHERE cluster = ?'),
      topics: db.prepare<[string], TopicAccess>('SELECT topic, tenant_id AS tenantId, how, created_at AS createdAt FROM kafka_topic WHERE cluster = ? ORDER BY topic, created_at, tenant_id'),
      holders: db.prepare<[string, string], { tenantId: string }>('SELECT tenant_id AS tenantId FROM kafka_topic WHERE cluster = ? AND topic = ?'),
      hold: db.prepare('INSERT INTO kafka_topic (cluster, topic, tenant_id, how, created_at) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM tenant WHERE id = ?) ON CONFLICT DO UPDATE SET how = excluded.how'),
      release: db.prepare('DELETE FROM kafka_topic WHERE cluster = ? AND topic = ? AND tenant_id = ?'),
      forgetTopics: db.prepare('DELETE FROM kafka_topic WHERE cluster = ?'),
    };
  }

  /**
   * Makes the configuration's clusters the rows of origin 'config' (a name the global key declared too becomes
   * the configuration's). A configured cluster that is gone from the configuration is deleted; its grants and
   * topic claims stay, for when it comes back.
   */
  syncConfigured(list: readonly ConfiguredCluster[]): { declared: string[]; removed: string[] } {
    return this.db
      .transaction(() => {
        const names = new Set(list.map((c) => c.name));
        const removed: string[] = [];
        for (const r of this.q.list.all()) {
          if (r.origin === 'config' && !names.has(r.name)) {
            this.q.delete.run(r.name);
            removed.push(r.name);
          }
        }
        for (const { name, tenants, ...input } of list) this.write(name, 'config', input, tenants);
        return { declared: [...names], removed };
      })
      .immediate();
  }

  /** Declares (or changes) a cluster with the global key; one the configuration declares is not the API's to change. */
  put(name: string, input: ClusterInput): 'created' | 'updated' | 'configured' {
    return this.db
      .transaction(() => {
        const old = this.q.get.get(name);
        if (old?.origin === 'config') return 'configured';
        this.write(name, 'api', input, old ? (JSON.parse(old.tenants) as '*' | string[]) : []);
        return old ? 'updated' : 'created';
      })
      .immediate();
  }

  /** Deletes a cluster the global key declared, with its grants and topic claims (its sources stop). */
  delete(name: string): 'deleted' | 'not_found' | 'configured' {
    return this.db
      .transaction(() => {
        const old = this.q.get.get(name);
        if (!old) return 'not_found';
        if (old.origin === 'config') return 'configured';
        this.q.delete.run(name);
        this.q.forgetGrants.run(name);
        this.q.forgetTopics.run(name);
        return 'deleted';
      })
      .immediate();
  }

  get(name: string): ClusterInfo | undefined {
    const r = this.q.get.get(name);
    return r && this.info(r);
  }

  list(): ClusterInfo[] {
    return this.q.list.all().map((r) => this.info(r));
  }

  /** The clusters a tenant may name. */
  grantedTo(tenantId: string): ClusterInfo[] {
    return this.q.list.all().filter((r) => this.isGrantedRow(r, tenantId)).map((r) => this.info(r));
  }

  isGranted(name: string, tenantId: string): boolean {
    const r = this.q.get.get(name);
    return r !== undefined && this.isGrantedRow(r, tenantId);
  }

  /** False when the tenant does not exist. */
  grant(name: string, tenantId: string): boolean {
    return this.q.grant.run(name, tenantId, now(), tenantId).changes > 0 || this.q.granted.get(name, tenantId)!.n > 0;
  }

  ungrant(name: string, tenantId: string): boolean {
    return this.q.ungrant.run(name, tenantId).changes > 0;
  }

  /** The granted cluster that every one of `brokers` belongs to (a source that names brokers instead of a cluster). */
  byBrokers(tenantId: string, brokers: readonly string[]): string | undefined {
    const wanted = brokers.map((b) => b.toLowerCase());
    for (const r of this.q.list.all()) {
      if (!this.isGrantedRow(r, tenantId)) continue;
      const own = new Set((JSON.parse(r.body) as Body).brokers.map((b) => b.toLowerCase()));
      if (wanted.every((b) => own.has(b))) return r.name;
    }
    return undefined;
  }

  topics(name: string): TopicAccess[] {
    return this.q.topics.all(name);
  }

  /**
   * Whether the tenant may read the topic: always on a cluster whose ACLs decide (credentials 'tenant');
   * else when it holds the topic, or nobody does yet and `claim` is set (it claims it now).
   */
  mayRead(name: string, topic: string, tenantId: string, claim: boolean): boolean {
    const r = this.q.get.get(name);
    if (!r) return false;
    if ((JSON.parse(r.body) as Body).credentials === 'tenant') return true;
    const holders = this.q.holders.all(name, topic);
    if (holders.some((h) => h.tenantId === tenantId)) return true;
    if (holders.length > 0 || !claim) return false;
    this.q.hold.run(name, topic, tenantId, 'claimed', now(), tenantId);
    return true;
  }

  /** The global key lets a tenant read a topic another tenant claimed (false: no such tenant). */
  grantTopic(name: string, topic: string, tenantId: string): boolean {
    return this.q.hold.run(name, topic, tenantId, 'granted', now(), tenantId).changes > 0;
  }

  releaseTopic(name: string, topic: string, tenantId: string): boolean {
    return this.q.release.run(name, topic, tenantId).changes > 0;
  }

  /** Where the cluster is and how pcg logs in there, secrets in clear (for the runners only). */
  connection(name: string): ClusterConnection | undefined {
    const r = this.q.get.get(name);
    if (!r) return undefined;
    const body = JSON.parse(r.body) as Body;
    const secrets = r.secret ? (JSON.parse(this.box().open(r.secret)) as Secrets) : {};
    return {
      name: r.name,
      brokers: body.brokers,
      credentials: body.credentials,
      groupPrefix: body.groupPrefix,
      ...(body.sasl ? { sasl: { ...body.sasl, password: secrets.password ?? '' } as ClusterConnection['sasl'] } : {}),
      ...(body.tls === undefined ? {} : { tls: typeof body.tls === 'object' && secrets.key ? { ...body.tls, key: secrets.key } : body.tls }),
      revision: r.revision,
    };
  }

  private write(name: string, origin: 'config' | 'api', input: ClusterInput, tenants: '*' | string[]): void {
    const secrets: Secrets = {};
    if (input.sasl) secrets.password = input.sasl.password;
    if (typeof input.tls === 'object' && input.tls.key) secrets.key = input.tls.key;
    const body: Body = {
      brokers: input.brokers,
      credentials: input.credentials,
      groupPrefix: input.groupPrefix,
      ...(input.sasl ? { sasl: { mechanism: input.sasl.mechanism, username: input.sasl.username } } : {}),
      ...(input.tls === undefined ? {} : { tls: typeof input.tls === 'object' ? { ...input.tls, key: undefined } : input.tls }),
    };
    const text = JSON.stringify(body);
    const grants = JSON.stringify(tenants);
    const old = this.q.get.get(name);
    // Sealing is randomised: an unchanged declaration keeps its sealed text, and its revision (its sources do not restart).
    const sameSecrets = old !== undefined && (old.secret ? this.box().open(old.secret) : '{}') === JSON.stringify(secrets);
    const sealed = sameSecrets ? old.secret : Object.keys(secrets).length ? this.box().seal(JSON.stringify(secrets)) : '';
    const t = now();
    if (!old) this.q.insert.run(name, origin, text, sealed, grants, t, t);
    else if (old.origin !== origin || old.body !== text || old.secret !== sealed || old.tenants !== grants) this.q.update.run(origin, text, sealed, grants, t, name);
  }

  private isGrantedRow(r: Row, tenantId: string): boolean {
    const tenants = JSON.parse(r.tenants) as '*' | string[];
    return tenants === '*' || tenants.includes(tenantId) || this.q.granted.get(r.name, tenantId)!.n > 0;
  }

  private info(r: Row): ClusterInfo {
    const body = JSON.parse(r.body) as Body;
    const tenants = JSON.parse(r.tenants) as '*' | string[];
    const granted = this.q.grants.all(r.name).map((g) => g.tenantId);
    return {
      name: r.name,
      origin: r.origin,
      brokers: body.brokers,
      credentials: body.credentials,
      groupPrefix: body.groupPrefix,
      sasl: body.sasl ? { mechanism: body.sasl.mechanism, username: body.sasl.username } : null,
      tls: publicTls(body.tls, r.secret !== '' && typeof body.tls === 'object' && this.hasKey(r.secret)),
      allTenants: tenants === '*',
      tenants: [...new Set([...(tenants === '*' ? [] : tenants), ...granted])].sort(),
      revision: r.revision,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private hasKey(sealed: string): boolean {
    try {
      return (JSON.parse(this.box().open(sealed)) as Secrets).key !== undefined;
    } catch {
      return false;
    }
  }
}
