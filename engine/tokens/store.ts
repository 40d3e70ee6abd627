// SQL for access tokens.
import type { Queryable } from '../storage/database.ts';

export interface TokenRow {
  id: string;
  sequence: bigint;
  client_id: string;
  profile_id: string;
  personal_profile_id: string;
  device_uuid: string | null;
  device_scoped: boolean;
  permissions: string[];
  concurrent: boolean;
  closed_loop_only: boolean;
  source: string;
  oauth_code_id: string | null;
  issued_at: Date;
  soft_expires_at: Date;
  hard_expires_at: Date;
  first_used_at: Date | null;
  invalidated_at: Date | null;
  invalidated_reason: string | null;
  refresh_failures: number;
}

export type NewTokenRow = Omit<TokenRow, 'first_used_at' | 'invalidated_at' | 'invalidated_reason' | 'refresh_failures'> & { token_hash: string };

const tokenColumns = (db: Queryable) => db`
  id, sequence, client_id, profile_id, personal_profile_id, device_uuid, device_scoped, permissions, concurrent,
  closed_loop_only, source, oauth_code_id, issued_at, soft_expires_at, hard_expires_at, first_used_at, invalidated_at,
  invalidated_reason, refresh_failures`;

export async function nextTokenSequence(db: Queryable): Promise<bigint> {
  const rows = await db<{ value: bigint }[]>`select nextval('access_token_sequence')::bigint as value`;
  return rows[0].value;
}

export async function insertToken(db: Queryable, row: NewTokenRow): Promise<void> {
  await db`
    insert into access_tokens (id, sequence, token_hash, client_id, profile_id, personal_profile_id, device_uuid, device_scoped,
      permissions, concurrent, closed_loop_only, source, oauth_code_id, issued_at, soft_expires_at, hard_expires_at)
    values (${row.id}, ${row.sequence}, ${row.token_hash}, ${row.client_id}, ${row.profile_id}, ${row.personal_profile_id},
      ${row.device_uuid}, ${row.device_scoped}, ${row.permissions}, ${row.concurrent}, ${row.closed_loop_only}, ${row.source},
      ${row.oauth_code_id}, ${row.issued_at}, ${row.soft_expires_at}, ${row.hard_expires_at})`;
}

export async function selectTokenByHash(db: Queryable, tokenHash: string): Promise<TokenRow | null> {
  const rows = await db<TokenRow[]>`select ${tokenColumns(db)} from access_tokens where token_hash = ${tokenHash}`;
  return rows[0] ?? null;
}

/**
 * A token by its hash for authentication, with whether its profile's and its personal profile's
 * wallets are both active (a suspended or closed wallet's tokens do not authenticate).
 */
export async function selectTokenForAuthentication(db: Queryable, tokenHash: string): Promise<(TokenRow & { wallets_active: boolean }) | null> {
  const rows = await db<(TokenRow & { wallets_active: boolean })[]>`
    select ${tokenColumns(db)},
      not exists (
        select 1 from actors where kind = 'wallet' and id in (access_tokens.profile_id, access_tokens.personal_profile_id) and state <> 'active'
      ) as wallets_active
    from access_tokens where token_hash = ${tokenHash}`;
  return rows[0] ?? null;
}

export async function selectToken(db: Queryable, id: string): Promise<TokenRow | null> {
  const rows = await db<TokenRow[]>`select ${tokenColumns(db)} from access_tokens where id = ${id}`;
  return rows[0] ?? null;
}

export async function selectTokenForUpdate(db: Queryable, id: string): Promise<TokenRow | null> {
  const rows = await db<TokenRow[]>`select ${tokenColumns(db)} from access_tokens where id = ${id} for update`;
  return rows[0] ?? null;
}

/**
 * Locks the live tokens of a token's scope (app, profile, personal profile) up to and including it,
 * in sequence order. Every writer that ends older tokens of a scope takes this first, so two first
 * uses (or a refresh) of one scope wait for each other instead of deadlocking.
 */
export async function lockScopeThrough(db: Queryable, row: Pick<TokenRow, 'client_id' | 'profile_id' | 'personal_profile_id' | 'sequence'>): Promise<void> {
  await db`
    select id from access_tokens
    where client_id = ${row.client_id} and profile_id = ${row.profile_id} and personal_profile_id = ${row.personal_profile_id}
      and sequence <= ${row.sequence} and invalidated_at is null
    order by sequence for update`;
}

/** Marks the first use; true only for the caller that marked it. */
export async function markFirstUse(db: Queryable, id: string, now: Date): Promise<boolean> {
  const rows = await db`update access_tokens set first_used_at = ${now} where id = ${id} and first_used_at is null returning id`;
  return rows.length === 1;
}

/**
 * Invalidates the non-concurrent tokens issued before `newer` in its scope: same app, profile and
 * personal profile, and the same device when the newer token is device scoped.
 */
export async function invalidateOlderInScope(db: Queryable, newer: TokenRow, now: Date, reason: string): Promise<number> {
  const rows = await db`
    update access_tokens set invalidated_at = ${now}, invalidated_reason = ${reason}
    where client_id = ${newer.client_id} and profile_id = ${newer.profile_id}
      and personal_profile_id = ${newer.personal_profile_id}
      and sequence < ${newer.sequence} and not concurrent and invalidated_at is null
      and (not ${newer.device_scoped}::boolean or device_uuid is not distinct from ${newer.device_uuid})
    returning id`;
  return rows.length;
}

export async function invalidateToken(db: Queryable, id: string, now: Date, reason: string): Promise<boolean> {
  const rows = await db`
    update access_tokens set invalidated_at = ${now}, invalidated_reason = ${reason}
    where id = ${id} and invalidated_at is null returning id`;
  return rows.length === 1;
}

export async function invalidatePersonalAppTokens(db: Queryable, clientId: string, personalProfileId: string, now: Date, reason: string): Promise<number> {
  // Rows are locked in (profile, sequence) order, the order lockScopeThrough takes within a scope.
  const rows = await db`
    with locked as (
      select id from access_tokens
      where client_id = ${clientId} and personal_profile_id = ${personalProfileId} and invalidated_at is null
      order by profile_id, sequence for update
    )
    update access_tokens set invalidated_at = ${now}, invalidated_reason = ${reason}
    where id in (select id from locked)
    returning id`;
  return rows.length;
}

export async function invalidateOauthCodeTokens(db: Queryable, oauthCodeId: string, now: Date): Promise<number> {
  const rows = await db`
    update access_tokens set invalidated_at = ${now}, invalidated_reason = 'oauth_code_reused'
    where oauth_code_id = ${oauthCodeId} and invalidated_at is null returning id`;
  return rows.length;
}

export async function incrementRefreshFailures(db: Queryable, id: string): Promise<number> {
  const rows = await db<{ refresh_failures: number }[]>`
    update access_tokens set refresh_failures = refresh_failures + 1 where id = ${id} returning refresh_failures`;
  return rows[0].refresh_failures;
}

/** Failed refreshes of a personal profile and app, with the row locked until the transaction ends. */
export async function lockRefreshGuard(tx: Queryable, personalProfileId: string, clientId: string, now: Date): Promise<number> {
  await tx`
    insert into token_refresh_guards (personal_profile_id, client_id, failures, updated_at) values (${personalProfileId}, ${clientId}, 0, ${now})
    on conflict (personal_profile_id, client_id) do nothing`;
  const rows = await tx<{ failures: number }[]>`
    select failures from token_refresh_guards where personal_profile_id = ${personalProfileId} and client_id = ${clientId} for update`;
  return rows[0].failures;
}

export async function refreshGuardFailures(db: Queryable, personalProfileId: string, clientId: string): Promise<number> {
  const rows = await db<{ failures: number }[]>`
    select failures from token_refresh_guards where personal_profile_id = ${personalProfileId} and client_id = ${clientId}`;
  return rows[0]?.failures ?? 0;
}

export async function countRefreshFailure(tx: Queryable, personalProfileId: string, clientId: string, now: Date): Promise<void> {
  const result = await tx`
    update token_refresh_guards set failures = failures + 1, updated_at = ${now}
    where personal_profile_id = ${personalProfileId} and client_id = ${clientId}`;
  if (result.count !== 1) throw new Error(`refresh guard of ${personalProfileId}/${clientId} is missing`);
}

export async function clearRefreshGuard(db: Queryable, personalProfileId: string, clientId: string): Promise<void> {
  await db`delete from token_refresh_guards where personal_profile_id = ${personalProfileId} and client_id = ${clientId}`;
}
