// SQL for authentication: login guards (failed password guesses), trusted devices and device
// passwords. Attempts themselves are actors and live in the actors table.
import type { Queryable } from '../storage/database.ts';
import { devicePasswordHashesMax } from '../limits.ts';

export interface GuardRow {
  failures: number;
  window_started_at: Date;
}

export async function selectGuard(db: Queryable, key: string): Promise<GuardRow | null> {
  const rows = await db<GuardRow[]>`select failures, window_started_at from authn_login_guards where guard_key = ${key}`;
  return rows[0] ?? null;
}

/** Counts one failure, starting a new window when the old one has passed. */
export async function countGuardFailure(db: Queryable, key: string, now: Date, windowStartedAfter: Date): Promise<void> {
  await db`
    insert into authn_login_guards (guard_key, failures, window_started_at) values (${key}, 1, ${now})
    on conflict (guard_key) do update set
      failures = case when authn_login_guards.window_started_at > ${windowStartedAfter} then authn_login_guards.failures + 1 else 1 end,
      window_started_at = case when authn_login_guards.window_started_at > ${windowStartedAfter} then authn_login_guards.window_started_at else ${now} end`;
}

export async function clearGuard(db: Queryable, key: string): Promise<void> {
  await db`delete from authn_login_guards where guard_key = ${key}`;
}

export async function isDeviceTrusted(db: Queryable, profileId: string, deviceUuid: string, now: Date): Promise<boolean> {
  const rows = await db`select 1 from authn_trusted_devices where profile_id = ${profileId} and device_uuid = ${deviceUuid} and trusted_until > ${now}`;
  return rows.length === 1;
}

export async function trustDevice(db: Queryable, profileId: string, deviceUuid: string, until: Date, now: Date): Promise<void> {
  await db`
    insert into authn_trusted_devices (profile_id, device_uuid, trusted_until, created_at) values (${profileId}, ${deviceUuid}, ${until}, ${now})
    on conflict (profile_id, device_uuid) do update set trusted_until = excluded.trusted_until`;
}

export async function distrustDevice(db: Queryable, profileId: string, deviceUuid: string): Promise<void> {
  await db`delete from authn_trusted_devices where profile_id = ${profileId} and device_uuid = ${deviceUuid}`;
}

export async function upsertDevicePassword(db: Queryable, profileId: string, deviceUuid: string, accessMethod: string, hash: string, now: Date): Promise<void> {
  await db`
    insert into authn_device_passwords (profile_id, device_uuid, access_method, password_hash, created_at)
    values (${profileId}, ${deviceUuid}, ${accessMethod}, ${hash}, ${now})
    on conflict (profile_id, device_uuid, access_method) do update set password_hash = excluded.password_hash, created_at = excluded.created_at`;
}

export async function deleteDevicePassword(db: Queryable, profileId: string, deviceUuid: string, accessMethod: string): Promise<boolean> {
  const result = await db`delete from authn_device_passwords where profile_id = ${profileId} and device_uuid = ${deviceUuid} and access_method = ${accessMethod}`;
  return result.count === 1;
}

export async function devicePasswordHashes(db: Queryable, profileId: string, deviceUuid: string): Promise<string[]> {
  const rows = await db<{ password_hash: string }[]>`
    select password_hash from authn_device_passwords where profile_id = ${profileId} and device_uuid = ${deviceUuid} order by access_method limit ${devicePasswordHashesMax}`;
  return rows.map((row) => row.password_hash);
}
