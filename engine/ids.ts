// Identifiers: decimal-digit strings that are unique by construction (a keyed permutation of a
// database sequence) and not guessable in order, plus random url-safe secrets. The permutation
// key belongs to the installation (created on first start, kept in the database), so two
// installations give different ids; the fixed legacy key stays for installations that issued
// ids before per-installation keys existed, and for unit tests that need no database.
import { createHash, createHmac, createSecretKey, randomBytes, randomInt, timingSafeEqual, type KeyObject } from 'node:crypto';

export const legacyIdPermutationKey = 'cashloop-id-permutation-v1';

export interface IdMinter {
  /** A 10-digit id (profiles, apps, attempts, invitations) from a sequence number. */
  short(sequence: bigint, salt: string): string;
  /** A 16-digit id (transfers, tokens) from a sequence number. */
  long(sequence: bigint, salt: string): string;
}

/** Ids under one permutation key (imported once: a string key would be imported for every round). */
export function createIdMinter(keyText: string): IdMinter {
  const key = createSecretKey(Buffer.from(keyText));
  return {
    short: (sequence, salt) => shortIdFromSequence(sequence, salt, key),
    long: (sequence, salt) => longIdFromSequence(sequence, salt, key),
  };
}

const legacyKey = createSecretKey(Buffer.from(legacyIdPermutationKey));

/** Feistel permutation of [0, 2^bits) with an even bit count; cycle-walked into [0, domain). */
function permute(value: bigint, bits: number, domain: bigint, salt: string, permutationKey: KeyObject): bigint {
  const half = BigInt(bits / 2);
  const mask = (1n << half) - 1n;
  let current = value;
  for (let walk = 0; walk < 1000; walk++) {
    let left = current >> half;
    let right = current & mask;
    for (let round = 0; round < 4; round++) {
      const digest = createHmac('sha256', permutationKey).update(`${salt}:${round}:${right}`).digest();
      const roundValue = digest.readBigUInt64BE(0) & mask;
      [left, right] = [right, left ^ roundValue];
    }
    current = (left << half) | right;
    if (current < domain) return current;
  }
  throw new Error('id permutation failed to cycle-walk into its domain');
}

/** A 10-digit id (profiles, apps, attempts, invitations) from a sequence number. */
export function shortIdFromSequence(sequence: bigint, salt: string, key: KeyObject = legacyKey): string {
  const domain = 9_000_000_000n;
  if (sequence < 0n || sequence >= domain) throw new Error(`sequence ${sequence} out of range`);
  return (1_000_000_000n + permute(sequence, 34, domain, salt, key)).toString();
}

/** A 16-digit id (transfers) from a sequence number. */
export function longIdFromSequence(sequence: bigint, salt: string, key: KeyObject = legacyKey): string {
  const domain = 9_000_000_000_000_000n;
  if (sequence < 0n || sequence >= domain) throw new Error(`sequence ${sequence} out of range`);
  return (1_000_000_000_000_000n + permute(sequence, 54, domain, salt, key)).toString();
}

export function randomSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

export function randomDigits(count: number): string {
  let digits = '';
  for (let index = 0; index < count; index++) digits += String(randomInt(10));
  return digits;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Hash of a high-entropy secret (tokens, app secrets); low-entropy secrets use argon2 instead. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Compares two secrets in time that depends on neither's content nor length: their SHA-256 digests
 * (always 32 bytes) are compared, so a wrong guess does not learn how long the secret is.
 */
export function constantTimeEqual(left: string, right: string): boolean {
  const leftDigest = createHash('sha256').update(left, 'utf8').digest();
  const rightDigest = createHash('sha256').update(right, 'utf8').digest();
  return timingSafeEqual(leftDigest, rightDigest);
}
