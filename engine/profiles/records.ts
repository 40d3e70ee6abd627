// A profile as the engine passes it around (ProfileRecord), read from its row: by id, by any of its
// UIDs, or as the businesses a person manages.
import type { Queryable } from '../storage/database.ts';
import { storedLocation, type Location } from './location.ts';
import * as store from './store.ts';
import type { ProfileRow } from './store.ts';

/** An address as stored and as given on the wire (the same shape). */
export type Address = store.AddressRow;

export interface ProfileRecord {
  id: string;
  isIndividual: boolean;
  firstName: string;
  lastName: string;
  title: string;
  username: string | null;
  site: string;
  passwordHash: string | null;
  businessName: string | null;
  dba: string | null;
  webSite: string | null;
  descriptionHtml: string | null;
  phone: string;
  phonePublic: boolean;
  businessAddress: Address | null;
  mailAddress: Address | null;
  homeAddress: Address | null;
  preferredCurrency: string;
  supportPaycode: boolean;
  /** Bumped on each image upload; null when the profile has no image. */
  imageVersion: number | null;
  /** A business's location, set by the operator; null when unknown (always for an individual). */
  location: Location | null;
  createdAt: Date;
}

export function toRecord(row: ProfileRow): ProfileRecord {
  return {
    id: row.id,
    isIndividual: row.is_individual,
    firstName: row.first_name,
    lastName: row.last_name,
    title: row.title,
    username: row.username,
    site: row.site,
    passwordHash: row.password_hash,
    businessName: row.business_name,
    dba: row.dba,
    webSite: row.web_site,
    descriptionHtml: row.description_html,
    phone: row.phone,
    phonePublic: row.phone_public,
    businessAddress: row.business_address,
    mailAddress: row.mail_address,
    homeAddress: row.home_address,
    preferredCurrency: row.preferred_currency,
    supportPaycode: row.support_paycode,
    imageVersion: row.image_version,
    location: storedLocation(row.id, row.latitude, row.longitude),
    createdAt: row.created_at,
  };
}

export async function getProfile(db: Queryable, profileId: string): Promise<ProfileRecord | null> {
  if (!/^\d{10}$/.test(profileId)) return null;
  const row = await store.selectProfile(db, profileId);
  return row ? toRecord(row) : null;
}

/** Finds a profile by canonical UID: service:<id>, username:<name>, email:, phone: and external types. */
export async function findByUid(db: Queryable, canonicalUid: string): Promise<ProfileRecord | null> {
  const colon = canonicalUid.indexOf(':');
  if (colon <= 0) return null;
  const type = canonicalUid.slice(0, colon);
  const value = canonicalUid.slice(colon + 1);
  let row: ProfileRow | null;
  if (type === 'service') row = /^\d{10}$/.test(value) ? await store.selectProfile(db, value) : null;
  else if (type === 'username') row = await store.selectProfileByUsername(db, value.toLowerCase());
  else row = await store.selectProfileByUid(db, canonicalUid);
  return row ? toRecord(row) : null;
}

export async function managedBy(db: Queryable, personalProfileId: string): Promise<ProfileRecord[]> {
  return (await store.selectManagedProfiles(db, personalProfileId)).map(toRecord);
}
