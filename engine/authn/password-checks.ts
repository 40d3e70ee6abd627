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

/**
 * A password checked before the command, so argon2 never runs while a command holds its locks and
 * a connection: the stored hash it matched (the wallet's password or a device password), or null.
 */
export interface PasswordVerdict {
  matchedHash: string | null;
}

export async function checkPasswordAhead(db: Queryable, profile: ProfileRecord | null, deviceUuid: string | null, password: string): Promise<PasswordVerdict> {
  if (!profile) return { matchedHash: null };
  if (profile.passwordHash && (await verifySecret(profile.passwordHash, password))) return { matchedHash: profile.passwordHash };
  if (!deviceUuid) return { matchedHash: null };
  for (const hash of await store.devicePasswordHashes(db, profile.id, deviceUuid)) if (await verifySecret(hash, password)) return { matchedHash: hash };
  return { matchedHash: null };
}

/**
 * Inside the command: the verdict stands while the hash it matched is still the wallet's password
 * or one of this device's passwords (a string comparison, no argon2). A password changed in
 * between counts as wrong.
 */
export async function verdictStands(db: Queryable, profile: ProfileRecord | null, deviceUuid: string | null, verdict: PasswordVerdict): Promise<boolean> {
  if (!profile || verdict.matchedHash === null) return false;
  if (profile.passwordHash === verdict.matchedHash) return true;
  if (!deviceUuid) return false;
  return (await store.devicePasswordHashes(db, profile.id, deviceUuid)).includes(verdict.matchedHash);
}

/** The tokens service asks this whether a PIN is a device password of the token's device. */
export const devicePinVerifier: PinVerifier = async (db, input) => {
  if (!input.deviceUuid) return 'none';
  const hashes = await store.devicePasswordHashes(db, input.personalProfileId, input.deviceUuid);
  if (hashes.length === 0) return 'none';
  for (const hash of hashes) if (await verifySecret(hash, input.pin)) return 'match';
  return 'mismatch';
};

/** Keeps a device password (its hash) for (profile, device, access method), replacing one kept before. */
export function keepDevicePassword(db: Queryable, profileId: string, deviceUuid: string, accessMethod: string, hash: string, now: Date): Promise<void> {
  return store.upsertDevicePassword(db, profileId, deviceUuid, accessMethod, hash, now);
}

/** Forgets the device password of (profile, device, access method); whether there was one. */
export function forgetDevicePassword(db: Queryable, profileId: string, deviceUuid: string, accessMethod: string): Promise<boolean> {
  return store.deleteDevicePassword(db, profileId, deviceUuid, accessMethod);
}
