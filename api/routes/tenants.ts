import { z } from 'zod';
import type { AppContext } from '../context.js';
import { notFound } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { byCreation, CREATED, mapPage, pageOf, pageOfList, pageQuery } from '../paging.js';
import { description, guid, membershipSchema, name, permissions, tenantParams, tenantSchema, userSchema } from '../schemas.js';
import type { Membership } from '../catalog/index.js';

const tenantBody = z.object({ name, description: description.optional() }).strict();
const tenantPatch = z.object({ name: name.optional(), description: description.optional() }).strict();
const memberBody = z.object({ userId: guid, permissions }).strict();
const memberParams = z.object({ tenantId: guid, userId: guid });

const membership = (m: Membership) => ({ id: `${m.tenantId}:${m.userId}`, ...m });

/** The global tenant API and tenant membership: global key only. */
export function tenantRoutes(ctx: AppContext) {
  const { identity } = ctx.catalog;
  const tenantOr404 = (id: string) => identity.tenant(id) ?? notFound('tenant');
  return [
    route({ method: 'POST', url: '/api/tenant', summary: 'Create a tenant', tag: 'tenants', access: 'global', body: tenantBody, status: 201, response: tenantSchema, handler: ({ body }) => identity.createTenant(body) }),
    route({ method: 'GET', url: '/api/tenant', summary: 'List tenants, a page at a time', tag: 'tenants', access: 'global', query: pageQuery(ctx.config), response: pageOf(tenantSchema), handler: ({ query }) => pageOfList(identity.tenants(), query, CREATED, byCreation) }),
    route({ method: 'GET', url: '/api/tenant/:tenantId', summary: 'Read a tenant', tag: 'tenants', access: 'global', params: tenantParams, response: tenantSchema, handler: ({ params }) => tenantOr404(params.tenantId) }),
    route({
      method: 'PUT',
      url: '/api/tenant/:tenantId',
      summary: 'Update a tenant',
      tag: 'tenants',
      access: 'global',
      params: tenantParams,
      body: tenantPatch,
      response: tenantSchema,
      handler: ({ params, body }) => identity.updateTenant(params.tenantId, body) ?? notFound('tenant'),
    }),
    route({
      method: 'DELETE',
      url: '/api/tenant/:tenantId',
      summary: 'Delete a tenant with all its projects, records, keys and files',
      tag: 'tenants',
      access: 'global',
      params: tenantParams,
      status: 204,
      handler: ({ params }) => {
        tenantOr404(params.tenantId);
        const projects = ctx.catalog.projects.idsOfTenant(params.tenantId);
        identity.deleteTenant(params.tenantId);
        for (const p of projects) ctx.states.remove(p);
      },
    }),
    route({
      method: 'POST',
      url: '/api/tenant/:tenantId/user',
      summary: 'Add a user to a tenant (or change their permissions)',
      tag: 'tenants',
      access: 'global',
      params: tenantParams,
      body: memberBody,
      status: 201,
      response: membershipSchema,
      handler: ({ params, body }) => {
        tenantOr404(params.tenantId);
        if (!identity.user(body.userId)) notFound('user');
        return membership(identity.putMembership(params.tenantId, body.userId, body.permissions));
      },
    }),
    route({
      method: 'GET',
      url: '/api/tenant/:tenantId/user',
      summary: 'List the members of a tenant, a page at a time',
      tag: 'tenants',
      access: 'global',
      params: tenantParams,
      query: pageQuery(ctx.config),
      response: pageOf(membershipSchema),
      handler: ({ params, query }) => {
        tenantOr404(params.tenantId);
        return mapPage(pageOfList(identity.memberships(params.tenantId), query, CREATED, (m) => [m.createdAt, m.userId]), membership);
      },
    }),
    route({
      method: 'DELETE',
      url: '/api/tenant/:tenantId/user/:userId',
      summary: 'Remove a user from a tenant: their keys there stop working, and the keys they issued there are revoked, down the line',
      tag: 'tenants',
      access: 'global',
      params: memberParams,
      status: 204,
      handler: ({ params }) => {
        if (!identity.deleteMembership(params.tenantId, params.userId)) notFound('membership');
      },
    }),
  ];
}

/** The global user API. */
export function userRoutes(ctx: AppContext) {
  const { identity } = ctx.catalog;
  const userParams = z.object({ userId: guid });
  const email = z.email().max(320);
  return [
    route({
      method: 'POST',
      url: '/api/user',
      summary: 'Create a user',
      tag: 'users',
      access: 'global',
      body: z.object({ email, name: name.optional() }).strict(),
      status: 201,
      response: userSchema,
      handler: ({ body }) => identity.createUser(body) ?? conflict('a user with this email exists'),
    }),
    route({ method: 'GET', url: '/api/user', summary: 'List users, a page at a time', tag: 'users', access: 'global', query: pageQuery(ctx.config), response: pageOf(userSchema), handler: ({ query }) => pageOfList(identity.users(), query, CREATED, byCreation) }),
    route({
      method: 'GET',
      url: '/api/user/:userId',
      summary: 'Read a user',
      tag: 'users',
      access: 'global',
      params: userParams,
      response: userSchema,
      handler: ({ params }) => identity.user(params.userId) ?? notFound('user'),
    }),
    route({
      method: 'PUT',
      url: '/api/user/:userId',
      summary: 'Update a user',
      tag: 'users',
      access: 'global',
      params: userParams,
      body: z.object({ email: email.optional(), name: name.optional() }).strict(),
      response: userSchema,
      handler: ({ params, body }) => {
        const u = identity.updateUser(params.userId, body);
        if (u === 'conflict') conflict('a user with this email exists');
        return u ?? notFound('user');
      },
    }),
    route({
      method: 'DELETE',
      url: '/api/user/:userId',
      summary: 'Delete a user, their memberships and keys; the keys they issued to others are revoked, down the line',
      tag: 'users',
      access: 'global',
      params: userParams,
      status: 204,
      handler: ({ params }) => {
        if (!identity.deleteUser(params.userId)) notFound('user');
      },
    }),
  ];
}

function conflict(message: string): never {
  throw new ApiError('conflict', message);
}
