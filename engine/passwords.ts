// Low-entropy secrets (passwords, PINs, one-time codes, device passwords) are stored only as
// argon2id hashes; verification is constant-time inside argon2.
import { hash, verify } from '@node-rs/argon2';
import { currentCommand } from './actors/command.ts';

// Argon2id with modest memory: strong enough for codes that also expire, fast enough for tests.
const argonOptions = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, argonOptions);
}

let verificationsInsideCommands = 0;

/** How many argon2 verifications ran inside a command body (the sign-in and code paths check ahead; tests watch this). */
export function argonVerificationsInsideCommands(): number {
  return verificationsInsideCommands;
}

export async function verifySecret(storedHash: string | null | undefined, secret: string): Promise<boolean> {
  if (currentCommand()) verificationsInsideCommands += 1;
  if (!storedHash) return false;
  try {
    return await verify(storedHash, secret);
  } catch {
    return false;
  }
}
