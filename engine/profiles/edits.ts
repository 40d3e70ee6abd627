// Operator and owner changes to a profile row that answer a refusal as a value: flags (a taken
// username), renames (the kind must match) and a business's location.
import type { Queryable } from '../storage/database.ts';
import type { ProfileAccessError } from './errors.ts';
import { individualTitle } from './create.ts';
import type { Location } from './location.ts';
import { getProfile, toRecord, type ProfileRecord } from './records.ts';
import * as store from './store.ts';

export interface ProfileFlagsUpdate {
  supportPaycode?: boolean;
  preferredCurrency?: string;
  username?: string | null;
}

export type LocationOutcome =
  | { ok: true; profile: ProfileRecord }
  | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'not_business'> };

/** Operator flags set, or why not. */
export type FlagsOutcome = { ok: true } | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'username_taken'> };

const uniqueViolation = '23505';

export async function setFlags(db: Queryable, profileId: string, flags: ProfileFlagsUpdate): Promise<FlagsOutcome> {
  try {
    const found = await store.updateFlags(db, profileId, {
      support_paycode: flags.supportPaycode,
      preferred_currency: flags.preferredCurrency,
      username: flags.username === undefined ? undefined : flags.username === null ? null : flags.username.toLowerCase(),
    });
    return found ? { ok: true } : { ok: false, error: 'profile_not_found' };
  } catch (error) {
    if ((error as { code?: string }).code === uniqueViolation) return { ok: false, error: 'username_taken' };
    throw error;
  }
}

export function rename(db: Queryable, profileId: string, names: { firstName: string; lastName: string } | { title: string; dba: string | null }): Promise<boolean> {
  return 'firstName' in names
    ? store.updateIndividualName(db, profileId, names.firstName, names.lastName, individualTitle(names.firstName, names.lastName))
    : store.updateBusinessName(db, profileId, names.title, names.dba);
}

export async function setLocation(db: Queryable, profileId: string, location: Location | null): Promise<LocationOutcome> {
  const record = await getProfile(db, profileId);
  if (!record) return { ok: false, error: 'profile_not_found' };
  if (record.isIndividual) return { ok: false, error: 'not_business' };
  const updated = toRecord(await store.updateBusinessLocation(db, profileId, location?.latitude ?? null, location?.longitude ?? null));
  if (updated.location?.latitude !== location?.latitude || updated.location?.longitude !== location?.longitude) {
    throw new Error(`profile ${profileId} location reads back as ${JSON.stringify(updated.location)}, not ${JSON.stringify(location)}`);
  }
  return { ok: true, profile: updated };
}
