import { z } from 'zod';
import type { AppContext } from '../context.js';
import { notFound } from '../context.js';
import { ApiError } from '../errors.js';
import { route } from '../route.js';
import { createdGlobalApiKeySchema, expiresAtInput, globalApiKeySchema, guid, listOf, name } from '../schemas.js';

const globalKeyBody = z.object({ name, expiresAt: expiresAtInput.optional() }).strict();
const globalKeyParams = z.object({ id: guid });

/**
 * Global keys, managed with a global key: create (the secret is shown once),
 * list (no secrets), revoke. The configured PCG_GLOBAL_API_KEY and the key
 * file's key are rows here too. The last usable global key cannot be revoked
 * (409): the service would have no key left to manage it with.
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
      handler: ({ body }) => {
        const { info, key } = keys.createGlobalKey(body);
        return { ...info, key };
      },
    }),
    route({
      method: 'GET',
      url: '/admin/global-api-keys',
      summary: 'List the global keys, revoked and expired ones included, without secrets',
      tag: 'admin',
      access: 'global',
      response: listOf(globalApiKeySchema),
      handler: () => ({ items: keys.globalKeys() }),
    }),
    route({
      method: 'DELETE',
      url: '/admin/global-api-keys/:id',
      summary: 'Revoke a global key (409 for the last usable one)',
      tag: 'admin',
      access: 'global',
      params: globalKeyParams,
      status: 204,
      handler: ({ params }) => {
        const result = keys.revokeGlobalKey(params.id);
        if (result === 'not_found') notFound('active global API key');
        if (result === 'last') throw new ApiError('conflict', 'this is the last usable global key; create another before revoking it');
      },
    }),
  ];
}
