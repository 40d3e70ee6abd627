// SQL for profiles, their UIDs, managers, features and devices.
import type { Queryable } from '../storage/database.ts';
import { businessManagersListMax, confirmedUidsMax, managedProfilesListMax, profileDevicesListMax, profileFeaturesListMax } from '../limits.ts';

export interface AddressRow {
  public?: boolean;
  line1?: string;
  line2?: string;
  suite?: string;
  apartment?: string;
  city?: string;
  country?: string;
  state?: string;
  zip?: string;
}

export interface ProfileRow {
  id: string;
  is_individual: boolean;
  first_name: string;
  last_name: string;
  title: string;
  business_name: string | null;
  dba: string | null;
  web_site: string | null;
  description_html: string | null;
  username: string | null;
  site: string;
  password_hash: string | null;
  phone: string;
  phone_public: boolean;
  business_address: AddressRow | null;
  mail_address: AddressRow | null;
  home_address: AddressRow | null;
  preferred_currency: string;
  support_paycode: boolean;
  image_version: number | null;
  /** numeric(8,6) and numeric(9,6) as text, e.g. "41.878100"; both null or both set. */
  latitude: string | null;
  longitude: string | null;
  accepted_policy: boolean;
  weekly_offers: boolean;
  created_at: Date;
}

export type NewProfileRow = Omit<ProfileRow, 'created_at' | 'image_version' | 'latitude' | 'longitude'>;

export async function insertProfile(db: Queryable, row: NewProfileRow, now: Date): Promise<void> {
  await db`
    insert into profiles (id, is_individual, first_name, last_name, title, business_name, dba, web_site, description_html,
      username, site, password_hash, phone, phone_public, business_address, mail_address, home_address,
      preferred_currency, support_paycode, accepted_policy, weekly_offers, created_at)
    values (${row.id}, ${row.is_individual}, ${row.first_name}, ${row.last_name}, ${row.title}, ${row.business_name},
      ${row.dba}, ${row.web_site}, ${row.description_html}, ${row.username}, ${row.site}, ${row.password_hash},
      ${row.phone}, ${row.phone_public}, ${row.business_address ? db.json(row.business_address as never) : null},
      ${row.mail_address ? db.json(row.mail_address as never) : null}, ${row.home_address ? db.json(row.home_address as never) : null},
      ${row.preferred_currency}, ${row.support_paycode}, ${row.accepted_policy}, ${row.weekly_offers}, ${now})`;
}

const profileColumns = (db: Queryable) => db`
  id, is_individual, first_name, last_name, title, business_name, dba, web_site, description_html, username, site,
  password_hash, phone, phone_public, business_address, mail_address, home_address, preferred_currency, support_paycode,
  image_version, latitude, longitude, accepted_policy, weekly_offers, created_at`;

export async function selectProfile(db: Queryable, id: string): Promise<ProfileRow | null> {
  const rows = await db<ProfileRow[]>`select ${profileColumns(db)} from profiles where id = ${id}`;
  return rows[0] ?? null;
}

export async function selectProfileByUsername(db: Queryable, username: string): Promise<ProfileRow | null> {
  const rows = await db<ProfileRow[]>`select ${profileColumns(db)} from profiles where username = ${username}`;
  return rows[0] ?? null;
}

export async function selectProfileByUid(db: Queryable, uid: string): Promise<ProfileRow | null> {
  const rows = await db<ProfileRow[]>`
    select ${profileColumns(db)} from profiles
    where id = (select profile_id from profile_uids where uid = ${uid})`;
  return rows[0] ?? null;
}

export async function selectUids(db: Queryable, profileId: string): Promise<string[]> {
  const rows = await db<{ uid: string }[]>`select uid from profile_uids where profile_id = ${profileId} order by created_at, uid limit ${confirmedUidsMax}`;
  return rows.map((row) => row.uid);
}

/** Adds a UID; false when another profile already holds it. */
export async function insertUid(db: Queryable, profileId: string, uid: string, now: Date): Promise<boolean> {
  const rows = await db<{ profile_id: string }[]>`
    insert into profile_uids (uid, profile_id, created_at) values (${uid}, ${profileId}, ${now})
    on conflict (uid) do update set uid = excluded.uid where profile_uids.profile_id = ${profileId}
    returning profile_id`;
  return rows.length === 1;
}

export async function deleteUid(db: Queryable, profileId: string, uid: string): Promise<boolean> {
  const rows = await db`delete from profile_uids where profile_id = ${profileId} and uid = ${uid} returning uid`;
  return rows.length === 1;
}

export async function updatePasswordHash(db: Queryable, profileId: string, hash: string | null): Promise<boolean> {
  const rows = await db`update profiles set password_hash = ${hash} where id = ${profileId} returning id`;
  return rows.length === 1;
}

export interface ProfileFlags {
  support_paycode?: boolean;
  preferred_currency?: string;
  username?: string | null;
}

/** Updates the operator-settable flags; false when the profile is missing. Throws on a taken username. */
export async function updateFlags(db: Queryable, profileId: string, flags: ProfileFlags): Promise<boolean> {
  const rows = await db`
    update profiles set
      support_paycode = coalesce(${flags.support_paycode ?? null}::boolean, support_paycode),
      preferred_currency = coalesce(${flags.preferred_currency ?? null}::text, preferred_currency),
      username = case when ${flags.username !== undefined} then ${flags.username ?? null}::text else username end
    where id = ${profileId}
    returning id`;
  return rows.length === 1;
}

export async function insertManager(db: Queryable, businessId: string, managerId: string, now: Date): Promise<void> {
  await db`insert into profile_managers (business_id, manager_id, created_at) values (${businessId}, ${managerId}, ${now})
    on conflict do nothing`;
}

export async function selectManagerIds(db: Queryable, businessId: string): Promise<string[]> {
  const rows = await db<{ manager_id: string }[]>`
    select manager_id from profile_managers where business_id = ${businessId} order by created_at, manager_id limit ${businessManagersListMax}`;
  return rows.map((row) => row.manager_id);
}

export async function selectManagedProfiles(db: Queryable, managerId: string): Promise<ProfileRow[]> {
  return db<ProfileRow[]>`
    select ${profileColumns(db)} from profiles
    where id in (select business_id from profile_managers where manager_id = ${managerId})
    order by title, id limit ${managedProfilesListMax}`;
}

export async function isManager(db: Queryable, businessId: string, managerId: string): Promise<boolean> {
  const rows = await db`select 1 from profile_managers where business_id = ${businessId} and manager_id = ${managerId}`;
  return rows.length === 1;
}

export async function selectFeatures(db: Queryable, profileId: string): Promise<string[]> {
  const rows = await db<{ feature: string }[]>`select feature from profile_features where profile_id = ${profileId} order by feature limit ${profileFeaturesListMax}`;
  return rows.map((row) => row.feature);
}

export async function insertFeature(db: Queryable, profileId: string, feature: string, now: Date): Promise<void> {
  await db`insert into profile_features (profile_id, feature, created_at) values (${profileId}, ${feature}, ${now}) on conflict do nothing`;
}

export async function deleteFeature(db: Queryable, profileId: string, feature: string): Promise<boolean> {
  const rows = await db`delete from profile_features where profile_id = ${profileId} and feature = ${feature} returning feature`;
  return rows.length === 1;
}

export async function upsertDevice(db: Queryable, profileId: string, deviceUuid: string, deviceName: string | null, now: Date): Promise<void> {
  await db`
    insert into profile_devices (profile_id, device_uuid, device_name, created_at) values (${profileId}, ${deviceUuid}, ${deviceName}, ${now})
    on conflict (profile_id, device_uuid) do update set device_name = coalesce(excluded.device_name, profile_devices.device_name)`;
}

export async function selectDevices(db: Queryable, profileId: string): Promise<{ device_uuid: string; device_name: string | null }[]> {
  return db<{ device_uuid: string; device_name: string | null }[]>`
    select device_uuid, device_name from profile_devices where profile_id = ${profileId} order by created_at limit ${profileDevicesListMax}`;
}

export async function selectWalletState(db: Queryable, profileId: string): Promise<string | null> {
  const rows = await db<{ state: string }[]>`select state from actors where kind = 'wallet' and id = ${profileId}`;
  return rows[0]?.state ?? null;
}

/** Bumps the image version after new renditions are stored; returns the new version. */
export async function bumpImageVersion(db: Queryable, profileId: string): Promise<number> {
  const rows = await db<{ image_version: number }[]>`
    update profiles set image_version = coalesce(image_version, 0) + 1 where id = ${profileId} returning image_version`;
  if (rows.length !== 1) throw new Error(`profile ${profileId} image version update touched ${rows.length} rows`);
  return rows[0].image_version;
}

export async function updateIndividualName(db: Queryable, profileId: string, firstName: string, lastName: string, title: string): Promise<boolean> {
  const result = await db`
    update profiles set first_name = ${firstName}, last_name = ${lastName}, title = ${title}
    where id = ${profileId} and is_individual`;
  return result.count === 1;
}

export async function updateBusinessName(db: Queryable, profileId: string, title: string, dba: string | null): Promise<boolean> {
  const result = await db`
    update profiles set title = ${title}, business_name = ${title}, dba = ${dba}
    where id = ${profileId} and not is_individual`;
  return result.count === 1;
}

/** Sets (or with nulls clears) a business's location; returns the updated row. */
export async function updateBusinessLocation(db: Queryable, profileId: string, latitude: string | null, longitude: string | null): Promise<ProfileRow> {
  const rows = await db<ProfileRow[]>`
    update profiles set latitude = ${latitude}::numeric, longitude = ${longitude}::numeric
    where id = ${profileId} and not is_individual
    returning ${profileColumns(db)}`;
  if (rows.length !== 1) throw new Error(`profile ${profileId} location update touched ${rows.length} rows`);
  return rows[0];
}

/** Records an unproved UID's claim on a new profile; false when the UID already has a claim on the site. */
export async function insertClaim(db: Queryable, profileId: string, site: string, uid: string, now: Date): Promise<boolean> {
  const rows = await db`insert into profile_claims (profile_id, site, uid, created_at) values (${profileId}, ${site}, ${uid}, ${now}) on conflict do nothing returning profile_id`;
  return rows.length === 1;
}

export async function selectClaimedProfileId(db: Queryable, site: string, uid: string): Promise<string | null> {
  const rows = await db<{ profile_id: string }[]>`select profile_id from profile_claims where site = ${site} and uid = ${uid}`;
  return rows[0]?.profile_id ?? null;
}

export async function hasClaim(db: Queryable, profileId: string): Promise<boolean> {
  const rows = await db`select 1 from profile_claims where profile_id = ${profileId}`;
  return rows.length === 1;
}

/** Ends the claim on one of these UIDs on the site; the profile it was on, or null when none (or another call ended it first). */
export async function deleteClaim(db: Queryable, site: string, uids: string[]): Promise<string | null> {
  if (uids.length === 0) return null;
  const rows = await db<{ profile_id: string }[]>`
    delete from profile_claims where profile_id = (select profile_id from profile_claims where site = ${site} and uid = any(${uids}::text[]) order by created_at limit 1)
    returning profile_id`;
  return rows[0]?.profile_id ?? null;
}
