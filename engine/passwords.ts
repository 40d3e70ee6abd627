// Low-entropy secrets (passwords, PINs, one-time codes, device passwords) are stored only as
// argon2id hashes; verification is constant-time inside argon2.
import { hash, verify } from '@node-rs/argon2';

// Argon2id with modest memory: strong enough for codes that also expire, fast enough for tests.
const argonOptions = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, argonOptions);
}

export async function verifySecret(storedHash: string | null | undefined, secret: string): Promise<boolean> {
  if (!storedHash) return false;
  try {
    return await verify(storedHash, secret);
  } catch {
    return false;
  }
}
