// SQL for apps.
import type { Queryable } from '../storage/database.ts';

export interface AppRow {
  client_id: string;
  name: string;
  secret_hash: string;
  site: string;
  permissions: string[];
  redirect_uris: string[];
  is_public: boolean;
  implicit_grant: boolean;
  /** User permissions the app may request beyond the default set (migration 0451). */
  user_permissions: string[];
}

export async function nextShortSequence(db: Queryable): Promise<bigint> {
  const rows = await db<{ value: bigint }[]>`select nextval('ids_short')::bigint as value`;
  return rows[0].value;
}

export async function insertApp(db: Queryable, row: AppRow, now: Date): Promise<void> {
  await db`
    insert into apps (client_id, name, secret_hash, site, permissions, redirect_uris, is_public, implicit_grant, user_permissions, created_at)
    values (${row.client_id}, ${row.name}, ${row.secret_hash}, ${row.site}, ${row.permissions}, ${row.redirect_uris},
            ${row.is_public}, ${row.implicit_grant}, ${row.user_permissions}, ${now})`;
}

export async function selectApp(db: Queryable, clientId: string): Promise<AppRow | null> {
  const rows = await db<AppRow[]>`
    select client_id, name, secret_hash, site, permissions, redirect_uris, is_public, implicit_grant, user_permissions
    from apps where client_id = ${clientId}`;
  return rows[0] ?? null;
}

/** The user permissions the app may request beyond the default set (empty for an unknown app). */
export async function selectUserPermissions(db: Queryable, clientId: string): Promise<string[]> {
  const rows = await db<{ user_permissions: string[] }[]>`select user_permissions from apps where client_id = ${clientId}`;
  return rows[0]?.user_permissions ?? [];
}
