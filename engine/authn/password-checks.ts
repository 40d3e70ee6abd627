// Passwords in authentication: the rules for a new one, and checking one against the wallet's
// password or the device passwords (PINs) of (profile, device).
import { passwordCharsMax, passwordCharsMin } from '../limits.ts';
import { verifySecret } from '../passwords.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import type { PinVerifier } from '../tokens/service.ts';
import * as store from './store.ts';

export function passwordProblem(password: string): string | null {
  if (password.length < passwordCharsMin) return `must be at least ${passwordCharsMin} characters`;
  if (password.length > passwordCharsMax) return `must be at most ${passwordCharsMax} characters`;
  return null;
}

/** Whether a password is one of the device passwords of (profile, device). */
export async function verifyDevicePassword(db: Queryable, profileId: string, deviceUuid: string | null, password: string): Promise<boolean> {
  if (!deviceUuid) return false;
  for (const hash of await store.devicePasswordHashes(db, profileId, deviceUuid)) if (await verifySecret(hash, password)) return true;
  return false;
}

/** Whether a password is the wallet's own or one of its device passwords on this device. */
export async function passwordMatches(db: Queryable, profile: ProfileRecord | null, deviceUuid: string | null, password: string): Promise<boolean> {
  return profile !== null && ((await verifySecret(profile.passwordHash, password)) || (await verifyDevicePassword(db, profile.id, deviceUuid, password)));
}

/** The tokens service asks this whether a PIN is a device password of the token's device. */
export const devicePinVerifier: PinVerifier = async (db, input) => {
  if (!input.deviceUuid) return 'none';
  const hashes = await store.devicePasswordHashes(db, input.personalProfileId, input.deviceUuid);
  if (hashes.length === 0) return 'none';
  for (const hash of hashes) if (await verifySecret(hash, input.pin)) return 'match';
  return 'mismatch';
};
