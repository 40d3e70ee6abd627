// SQL for the operator's lists: apps, profiles and registered bank accounts, newest first, bounded.
import type { Queryable } from '../storage/database.ts';

export interface AppListRow {
  client_id: string;
  name: string;
  site: string;
  permissions: string[];
  is_public: boolean;
  created_at: Date;
}

export interface ProfileListRow {
  id: string;
  is_individual: boolean;
  title: string;
  username: string | null;
  site: string;
  created_at: Date;
}

export interface AccountListRow {
  id: string;
  profile_id: string;
  rdfi_name: string;
  routing_number: string;
  account_number: string;
  ach_type: string;
  currency: string;
  alias: string;
  created_at: Date;
}

export async function selectApps(db: Queryable, limit: number): Promise<AppListRow[]> {
  return db<AppListRow[]>`
    select client_id, name, site, permissions, is_public, created_at
    from apps order by created_at desc, client_id limit ${limit}`;
}

export async function selectProfiles(db: Queryable, filter: { site?: string; kind?: 'individual' | 'business' }, limit: number): Promise<ProfileListRow[]> {
  const site = filter.site ?? null;
  const individual = filter.kind === undefined ? null : filter.kind === 'individual';
  return db<ProfileListRow[]>`
    select id, is_individual, title, username, site, created_at
    from profiles
    where (${site}::text is null or site = ${site}::text)
      and (${individual}::boolean is null or is_individual = ${individual}::boolean)
    order by created_at desc, id limit ${limit}`;
}

export async function selectRegisteredAccounts(db: Queryable, profileId: string | undefined, limit: number): Promise<AccountListRow[]> {
  const owner = profileId ?? null;
  return db<AccountListRow[]>`
    select id, profile_id, rdfi_name, routing_number, account_number, ach_type, currency, alias, created_at
    from dfi_accounts
    where registered and (${owner}::text is null or profile_id = ${owner}::text)
    order by created_at desc, id limit ${limit}`;
}
