import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { now, type Db } from './database.js';
import type { Keys } from './keys.js';

export type Permission = 'read' | 'write' | 'admin';

export interface Tenant {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}
export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}
export interface Membership {
  tenantId: string;
  userId: string;
  permissions: Permission[];
  createdAt: string;
  updatedAt: string;
}

const tenantCols = 'id, name, description, created_at AS createdAt, updated_at AS updatedAt';
const userCols = 'id, email, name, created_at AS createdAt, updated_at AS updatedAt';
const memberCols = 'tenant_id AS tenantId, user_id AS userId, permissions, created_at AS createdAt, updated_at AS updatedAt';

type MemberRow = Omit<Membership, 'permissions'> & { permissions: string };
const member = (r: MemberRow | undefined): Membership | undefined => r && { ...r, permissions: JSON.parse(r.permissions) as Permission[] };

/** Tenants, users and who belongs where: the global API's records. */
export class Identity {
  /**
   * 'change' after a membership is changed or removed, or a user or tenant
   * deleted: open streams re-check the key they were opened with.
   */
  readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly q;
  constructor(
    private readonly db: Db,
    private readonly keys: Keys,
  ) {
    this.q = {
      insertTenant: db.prepare('INSERT INTO tenant (id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
      tenant: db.prepare<[string], Tenant>(`SELECT ${tenantCols} FROM tenant WHERE id = ?`),
      tenants: db.prepare<[], Tenant>(`SELECT ${tenantCols} FROM tenant ORDER BY created_at, id`),
      updateTenant: db.prepare('UPDATE tenant SET name = ?, description = ?, updated_at = ? WHERE id = ?'),
      deleteTenant: db.prepare('DELETE FROM tenant WHERE id = ?'),
      insertUser: db.prepare('INSERT INTO user (id, email, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
      user: db.prepare<[string], User>(`SELECT ${userCols} FROM user WHERE id = ?`),
      userByEmail: db.prepare<[string], User>(`SELECT ${userCols} FROM user WHERE email = ?`),
      users: db.prepare<[], User>(`SELECT ${userCols} FROM user ORDER BY created_at, id`),
      updateUser: db.prepare('UPDATE user SET email = ?, name = ?, updated_at = ? WHERE id = ?'),
      deleteUser: db.prepare('DELETE FROM user WHERE id = ?'),
      putMember: db.prepare(
        'INSERT INTO membership (tenant_id, user_id, permissions, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET permissions = excluded.permissions, updated_at = excluded.updated_at',
      ),
      member: db.prepare<[string, string], MemberRow>(`SELECT ${memberCols} FROM membership WHERE tenant_id = ? AND user_id = ?`),
      members: db.prepare<[string], MemberRow>(`SELECT ${memberCols} FROM membership WHERE tenant_id = ? ORDER BY created_at, user_id`),
      deleteMember: db.prepare('DELETE FROM membership WHERE tenant_id = ? AND user_id = ?'),
    };
  }

  createTenant(input: { name: string; description?: string | undefined }): Tenant {
    const t = now();
    const id = randomUUID();
    this.q.insertTenant.run(id, input.name, input.description ?? '', t, t);
    return this.tenant(id)!;
  }
  tenant(id: string): Tenant | undefined {
    return this.q.tenant.get(id);
  }
  tenants(): Tenant[] {
    return this.q.tenants.all();
  }
  updateTenant(id: string, input: { name?: string | undefined; description?: string | undefined }): Tenant | undefined {
    const old = this.tenant(id);
    if (!old) return undefined;
    this.q.updateTenant.run(input.name ?? old.name, input.description ?? old.description, now(), id);
    return this.tenant(id);
  }
  deleteTenant(id: string): boolean {
    return this.changed(this.q.deleteTenant.run(id).changes > 0);
  }

  /** Undefined when the email is taken. */
  createUser(input: { email: string; name?: string | undefined }): User | undefined {
    if (this.q.userByEmail.get(input.email)) return undefined;
    const t = now();
    const id = randomUUID();
    this.q.insertUser.run(id, input.email, input.name ?? input.email, t, t);
    return this.user(id);
  }
  user(id: string): User | undefined {
    return this.q.user.get(id);
  }
  userByEmail(email: string): User | undefined {
    return this.q.userByEmail.get(email);
  }
  users(): User[] {
    return this.q.users.all();
  }
  /** 'conflict' when the new email belongs to someone else. */
  updateUser(id: string, input: { email?: string | undefined; name?: string | undefined }): User | 'conflict' | undefined {
    const old = this.user(id);
    if (!old) return undefined;
    if (input.email && input.email !== old.email && this.q.userByEmail.get(input.email)) return 'conflict';
    this.q.updateUser.run(input.email ?? old.email, input.name ?? old.name, now(), id);
    return this.user(id);
  }
  /** Deletes a user with their memberships and keys; the keys they issued to others are revoked, down the line. */
  deleteUser(id: string): boolean {
    const done = this.db
      .transaction(() => {
        if (!this.user(id)) return false;
        this.keys.revokeIssuedByUser(id, null);
        return this.q.deleteUser.run(id).changes > 0;
      })
      .immediate();
    return this.changed(done);
  }

  putMembership(tenantId: string, userId: string, permissions: Permission[]): Membership {
    const t = now();
    this.q.putMember.run(tenantId, userId, JSON.stringify(normalizePermissions(permissions)), t, t);
    this.changed(true);
    return this.membership(tenantId, userId)!;
  }
  membership(tenantId: string, userId: string): Membership | undefined {
    return member(this.q.member.get(tenantId, userId));
  }
  memberships(tenantId: string): Membership[] {
    return this.q.members.all(tenantId).map((r) => member(r)!);
  }
  /** Removes a user from a tenant; the keys they issued there are revoked, down the line (their own keys are left with no rights). */
  deleteMembership(tenantId: string, userId: string): boolean {
    const done = this.db
      .transaction(() => {
        if (!this.membership(tenantId, userId)) return false;
        this.keys.revokeIssuedByUser(userId, tenantId);
        return this.q.deleteMember.run(tenantId, userId).changes > 0;
      })
      .immediate();
    return this.changed(done);
  }

  private changed(done: boolean): boolean {
    if (done) this.changes.emit('change');
    return done;
  }
}

const order: Permission[] = ['read', 'write', 'admin'];
export function normalizePermissions(p: readonly Permission[]): Permission[] {
  return order.filter((x) => p.includes(x));
}

/** admin implies write, write implies read. */
export function grants(held: readonly Permission[], needed: Permission): boolean {
  const rank = Math.max(...held.map((p) => order.indexOf(p)));
  return rank >= order.indexOf(needed);
}

/**
 * What a key may do under its user's membership: the permissions both grant
 * (with admin ⊇ write ⊇ read), so a downgraded membership caps a key rather
 * than voiding it. Each side is closed downwards first: a key issued ['write']
 * under a membership downgraded to ['read'] keeps ['read'].
 */
export function effectivePermissions(key: readonly Permission[], membership: readonly Permission[]): Permission[] {
  return order.filter((p) => grants(key, p) && grants(membership, p));
}
