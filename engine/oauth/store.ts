// SQL for the authorization flow: browser flows of the /authorize pages and authorization codes.
import type { Queryable } from '../storage/database.ts';

export interface FlowRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  response_type: 'code' | 'token';
  scope: string[];
  state: string | null;
  device_uuid: string | null;
  device_name: string | null;
  attempt_id: string | null;
  factor_id: string | null;
  profile_id: string | null;
  step: 'signin' | 'code' | 'consent' | 'done';
  expires_at: Date;
  /** The PKCE S256 challenge of the /authorize request, or null without PKCE. */
  code_challenge: string | null;
}

export async function insertFlow(db: Queryable, row: Omit<FlowRow, 'attempt_id' | 'factor_id' | 'profile_id' | 'step'> & { flowHash: string }, now: Date): Promise<void> {
  await db`
    insert into oauth_flows (id, flow_hash, client_id, redirect_uri, response_type, scope, state, device_uuid, device_name, step, expires_at, code_challenge, created_at)
    values (${row.id}, ${row.flowHash}, ${row.client_id}, ${row.redirect_uri}, ${row.response_type}, ${row.scope}, ${row.state},
            ${row.device_uuid}, ${row.device_name}, 'signin', ${row.expires_at}, ${row.code_challenge}, ${now})`;
}

export async function selectFlow(db: Queryable, flowHash: string, now: Date): Promise<FlowRow | null> {
  const rows = await db<FlowRow[]>`
    select id, client_id, redirect_uri, response_type, scope, state, device_uuid, device_name, attempt_id, factor_id, profile_id, step, expires_at, code_challenge
    from oauth_flows where flow_hash = ${flowHash} and expires_at > ${now} and step <> 'done'`;
  return rows[0] ?? null;
}

export async function updateFlow(db: Queryable, id: string, change: { step: FlowRow['step']; attemptId?: string | null; factorId?: string | null; profileId?: string | null }): Promise<void> {
  const result = await db`
    update oauth_flows set step = ${change.step},
      attempt_id = coalesce(${change.attemptId ?? null}, attempt_id),
      factor_id = ${change.factorId ?? null},
      profile_id = coalesce(${change.profileId ?? null}, profile_id)
    where id = ${id}`;
  if (result.count !== 1) throw new Error(`oauth flow ${id} update touched ${result.count} rows`);
}

export interface CodeRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  profile_id: string;
  permissions: string[];
  device_uuid: string | null;
  expires_at: Date;
  used_at: Date | null;
  code_challenge: string | null;
}

export async function insertCode(db: Queryable, row: Omit<CodeRow, 'used_at'> & { codeHash: string }, now: Date): Promise<void> {
  await db`
    insert into oauth_codes (id, code_hash, client_id, redirect_uri, profile_id, permissions, device_uuid, expires_at, code_challenge, created_at)
    values (${row.id}, ${row.codeHash}, ${row.client_id}, ${row.redirect_uri}, ${row.profile_id}, ${row.permissions}, ${row.device_uuid}, ${row.expires_at},
            ${row.code_challenge}, ${now})`;
}

export async function selectCodeForUpdate(db: Queryable, codeHash: string): Promise<CodeRow | null> {
  const rows = await db<CodeRow[]>`
    select id, client_id, redirect_uri, profile_id, permissions, device_uuid, expires_at, used_at, code_challenge
    from oauth_codes where code_hash = ${codeHash} for update`;
  return rows[0] ?? null;
}

export async function markCodeUsed(db: Queryable, id: string, now: Date): Promise<void> {
  const result = await db`update oauth_codes set used_at = ${now} where id = ${id} and used_at is null`;
  if (result.count !== 1) throw new Error(`oauth code ${id} was used twice at once`);
}
