// The operator's lists (Bearer operator key): apps, profiles and registered bank accounts, newest
// first. `cashloop app list`, `profile list` and `account list` are their clients.
import { z } from 'zod';
import { appSiteCharsMax, operatorListMax } from '../../engine/limits.ts';
import { intField } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';

const limitField = intField(1, operatorListMax).optional();

const appItem = z.object({ client_id: z.string(), name: z.string(), site: z.string(), permissions: z.array(z.string()), public: z.boolean(), created_at: z.string() });
const profileItem = z.object({ id: z.string(), kind: z.enum(['individual', 'business']), title: z.string(), username: z.string(), site: z.string(), created_at: z.string() });
const accountItem = z.object({
  account_id: z.string(), profile_id: z.string(), rdfi_name: z.string(), routing_number: z.string(), account_number_last4: z.string(),
  ach_type: z.string(), currency: z.string(), alias: z.string(), created_at: z.string(),
});

export const operatorListRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/admin/apps',
    summary: 'Lists apps, newest first (never their secrets).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ limit: limitField }).strict(),
    response: z.object({ apps: z.array(appItem) }),
    async handler({ engine, input }) {
      const rows = await engine.services.operatorLists.apps(input.limit);
      return {
        apps: rows.map((row) => ({ client_id: row.client_id, name: row.name, site: row.site, permissions: row.permissions, public: row.is_public, created_at: row.created_at.toISOString() })),
      };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/profiles',
    summary: 'Lists profiles, newest first; filter by site or kind.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ limit: limitField, site: z.string().max(appSiteCharsMax).optional(), kind: z.enum(['individual', 'business']).optional() }).strict(),
    response: z.object({ profiles: z.array(profileItem) }),
    async handler({ engine, input }) {
      const rows = await engine.services.operatorLists.profiles({ site: input.site, kind: input.kind }, input.limit);
      return {
        profiles: rows.map((row) => ({
          id: row.id, kind: row.is_individual ? ('individual' as const) : ('business' as const), title: row.title, username: row.username ?? '', site: row.site, created_at: row.created_at.toISOString(),
        })),
      };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/ledger/accounts',
    summary: 'Lists registered bank (DFI) accounts, newest first; filter by owner. Account numbers show their last four digits only.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ limit: limitField, profile_id: z.string().regex(/^[0-9]{10}$/, 'must be a profile id').optional() }).strict(),
    response: z.object({ accounts: z.array(accountItem) }),
    async handler({ engine, input }) {
      const rows = await engine.services.operatorLists.accounts(input.profile_id, input.limit);
      return {
        accounts: rows.map((row) => ({
          account_id: row.id, profile_id: row.profile_id, rdfi_name: row.rdfi_name, routing_number: row.routing_number, account_number_last4: row.account_number.slice(-4),
          ach_type: row.ach_type, currency: row.currency, alias: row.alias, created_at: row.created_at.toISOString(),
        })),
      };
    },
  }),
];
