import { z } from 'zod';
import type { AppContext } from '../context.js';
import { notFound } from '../context.js';
import { issuerOf } from '../auth.js';
import { cappedExpiry } from '../catalog/index.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { byCreation, CREATED, pageOf, pageOfList, pageQuery } from '../paging.js';
import { apiKeySchema, createdGlobalApiKeySchema, expiresAtInput, globalApiKeySchema, guid, name } from '../schemas.js';

const globalKeyBody = z.object({ name, expiresAt: expiresAtInput.optional() }).strict();
const globalKeyParams = z.object({ id: guid });

/**
 * Global keys, managed with a global key: create (the secret is shown once;
 * it never outlives the key that makes it), list (no secrets, each with its
 * issuer), the keys one issued, revoke. The configured PCG_GLOBAL_API_KEY and
 * the key file's key are rows here too. The last usable global key cannot be
 * revoked (409): the service would have no key left to manage it with.
 */
export function adminRoutes(ctx: AppContext) {
  const { keys } = ctx.catalog;
  return [
    route({
      method: 'POST',
      url: '/admin/global-api-keys',
      summary: 'Create a global key (the secret is shown only here)',
      tag: 'admin',
      access: 'global',
      body: globalKeyBody,
      status: 201,
      response: createdGlobalApiKeySchema,
      handler: ({ body, principal }) => {
        const issuer = issuerOf(keys, principal);
        if (cappedExpiry(body.expiresAt, issuer) === 'later') throw new ApiError('validation_failed', `body.expiresAt: a key cannot outlive the key that issues it (that one expires at ${issuer!.expiresAt})`);
        const { info, key } = keys.createGlobalKey({ ...body, issuer });
        return { ...info, key };
      },
    }),
    route({
      method: 'GET',
      url: '/admin/global-api-keys',
      summary: 'List the global keys, revoked and expired ones included, without secrets, a page at a time',
      tag: 'admin',
      access: 'global',
      query: pageQuery(ctx.config),
      response: pageOf(globalApiKeySchema),
      handler: ({ query }) => pageOfList(keys.globalKeys(), query, CREATED, byCreation),
    }),
    route({
      method: 'GET',
      url: '/admin/global-api-keys/:id/issued',
      summary: 'The keys a global key issued that are not revoked: they outlive its revocation unless it is revoked with withIssued=true',
      tag: 'admin',
      access: 'global',
      params: globalKeyParams,
      response: z.object({ globalKeys: z.array(globalApiKeySchema), tenantKeys: z.array(apiKeySchema) }).meta({ id: 'IssuedKeys' }),
      handler: ({ params }) => {
        if (!keys.globalKey(params.id)) notFound('global API key');
        return keys.issuedBy(params.id);
      },
    }),
    route({
      method: 'DELETE',
      url: '/admin/global-api-keys/:id',
      summary:
        'Revoke a global key (409 when no usable global key would be left). The keys it issued stay (rotation: make the next key with this one, then revoke it) and are listed at …/issued; withIssued=true revokes them too, down the line',
      tag: 'admin',
      access: 'global',
      params: globalKeyParams,
      query: z.object({ withIssued: z.enum(['true', 'false']).default('false') }).strict(),
      status: 204,
      handler: ({ params, query }) => {
        const result = keys.revokeGlobalKey(params.id, query.withIssued === 'true');
        if (result === 'not_found') notFound('active global API key');
        if (result === 'last') throw new ApiError('conflict', 'this is the last usable global key; create another before revoking it');
      },
    }),
  ];
}
