// Claims: a UID typed for a new profile by someone who did not prove it (a bill's
// profile_creation_data.email) confirms nothing. The profile waits on its site; the owner who
// proves the UID by a code while signing up on that site takes it over (its bills and cash with
// it) instead of getting a new wallet. Until then no app can take a token for it (POST /p/token).
import type { Unit } from '../actors/command.ts';
import type { Queryable } from '../storage/database.ts';
import { individualTitle, insertConfirmedUidsIn, type CreateIndividualInput } from './create.ts';
import * as store from './store.ts';

/** The profile of the site waiting for the owner of this UID, or null. */
export function claimedProfileId(db: Queryable, site: string, uid: string): Promise<string | null> {
  return store.selectClaimedProfileId(db, site, uid);
}

/** Whether the profile still waits for its owner to prove a claimed UID. */
export function claimPending(db: Queryable, profileId: string): Promise<boolean> {
  return store.hasClaim(db, profileId);
}

/**
 * A sign-up whose confirmed UIDs (each proved by a code) include a claimed one on its site takes the
 * waiting profile over: the claim ends, the profile gets the sign-up's names, password, UIDs and
 * device. Null when no claim waits (the caller creates a new profile).
 */
export async function takeOverClaimIn(unit: Unit, input: CreateIndividualInput): Promise<{ profileId: string } | null> {
  const profileId = await store.deleteClaim(unit.tx, input.site, input.confirmedUids);
  if (!profileId) return null;
  const firstName = input.firstName.trim();
  const lastName = input.lastName.trim();
  if (!(await store.updateIndividualName(unit.tx, profileId, firstName, lastName, individualTitle(firstName, lastName)))) throw new Error(`claimed profile ${profileId} is not an individual`);
  await store.updatePasswordHash(unit.tx, profileId, input.passwordHash ?? null);
  await insertConfirmedUidsIn(unit, profileId, input.confirmedUids);
  if (input.deviceUuid) await store.upsertDevice(unit.tx, profileId, input.deviceUuid, input.deviceName ?? null, unit.now);
  return { profileId };
}
