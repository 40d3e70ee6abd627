// Apps: a client_id (10 digits), a secret kept only as a sha256 hash, app permissions granted
// for one site, redirect URIs and the public and implicit-grant flags.
import type { Core } from '../core.ts';
import { constantTimeEqual, randomSecret, secretHash } from '../ids.ts';
import { appSecretBytes } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import { knownPermissions } from '../tokens/service.ts';
import type { AppCheckError } from './errors.ts';
import * as store from './store.ts';

/** App permissions (profile access, granted for the app's own site). */
export const appPermissionNames = ['create_profile', 'get_profile', 'control_profile', 'get_fund_proxy'] as const;

export interface AppRecord {
  clientId: string;
  name: string;
  site: string;
  permissions: string[];
  redirectUris: string[];
  isPublic: boolean;
  implicitGrant: boolean;
  /** User permissions the app may request beyond the default set (operator-allowed). */
  userPermissions: string[];
}

export interface AppPrincipal {
  clientId: string;
  name: string;
  site: string;
  permissions: ReadonlySet<string>;
  isPublic: boolean;
}

export type AppCheck = { ok: true; app: AppPrincipal } | { ok: false; error: AppCheckError };

export interface CreateAppInput {
  name: string;
  permissions: string[];
  redirectUris: string[];
  site: string;
  isPublic: boolean;
  implicitGrant: boolean;
  /** User permissions the app may request beyond the default set; each a known permission. */
  userPermissions?: string[];
}

export interface AppsService {
  create(input: CreateAppInput): Promise<{ clientId: string; clientSecret: string }>;
  /** The app, read in db when given (a transaction's own: PGlite serves one connection), else the pool. */
  get(clientId: string, db?: Queryable): Promise<AppRecord | null>;
  authenticate(clientId: string, clientSecret: string): Promise<AppCheck>;
  /** The user permissions the app may request beyond the default set, read in db (a transaction's own). */
  userPermissions(db: Queryable, clientId: string): Promise<string[]>;
}

function toRecord(row: store.AppRow): AppRecord {
  return {
    clientId: row.client_id,
    name: row.name,
    site: row.site,
    permissions: [...row.permissions],
    redirectUris: [...row.redirect_uris],
    isPublic: row.is_public,
    implicitGrant: row.implicit_grant,
    userPermissions: [...row.user_permissions],
  };
}

const clientIdPattern = /^\d{10}$/;

export function createAppsService(core: Core): AppsService {
  const { sql, clock } = core;
  return {
    async create(input) {
      const unknown = input.permissions.filter((permission) => !(appPermissionNames as readonly string[]).includes(permission));
      if (unknown.length > 0) throw new Error(`unknown app permissions: ${unknown.join(', ')}`);
      const userPermissions = [...new Set(input.userPermissions ?? [])];
      const unknownUser = userPermissions.filter((permission) => !knownPermissions.includes(permission));
      if (unknownUser.length > 0) throw new Error(`unknown user permissions: ${unknownUser.join(', ')}`);
      const clientSecret = randomSecret(appSecretBytes);
      const clientId = await sql.begin(async (tx) => {
        const id = core.ids.short(await store.nextShortSequence(tx), 'app');
        await store.insertApp(
          tx,
          {
            client_id: id,
            name: input.name,
            secret_hash: secretHash(clientSecret),
            site: input.site,
            permissions: [...new Set(input.permissions)],
            redirect_uris: input.redirectUris,
            is_public: input.isPublic,
            implicit_grant: input.implicitGrant,
            user_permissions: userPermissions,
          },
          clock.now(),
        );
        return id;
      });
      return { clientId: clientId as string, clientSecret };
    },
    async get(clientId, db = sql) {
      if (!clientIdPattern.test(clientId)) return null;
      const row = await store.selectApp(db, clientId);
      return row ? toRecord(row) : null;
    },
    async userPermissions(db, clientId) {
      if (!clientIdPattern.test(clientId)) return [];
      return store.selectUserPermissions(db, clientId);
    },
    async authenticate(clientId, clientSecret) {
      if (!clientIdPattern.test(clientId)) return { ok: false, error: 'app_not_found' };
      const row = await store.selectApp(sql, clientId);
      if (!row) return { ok: false, error: 'app_not_found' };
      if (!constantTimeEqual(secretHash(clientSecret), row.secret_hash)) return { ok: false, error: 'app_credentials_changed' };
      return {
        ok: true,
        app: { clientId: row.client_id, name: row.name, site: row.site, permissions: new Set(row.permissions), isPublic: row.is_public },
      };
    },
  };
}
