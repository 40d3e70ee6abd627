// Low-entropy secrets (passwords, PINs, one-time codes, device passwords) are stored only as
// argon2id hashes; verification is constant-time inside argon2.
import { hash, verify } from '@node-rs/argon2';
import { currentCommand } from './actors/command.ts';

// Argon2id with modest memory (OWASP's minimum): strong enough for codes that also expire.
export const standardArgonOptions = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
// Test suites hash thousands of codes: the cheapest cost argon2 allows (memory in KiB).
export const testArgonOptions = { memoryCost: 64, timeCost: 1, parallelism: 1 } as const;

let argonOptions: typeof standardArgonOptions | typeof testArgonOptions = standardArgonOptions;

/** Chooses the cost of new hashes (config.passwordHashCost); hashes made before still verify. */
export function setPasswordHashCost(cost: 'standard' | 'test'): void {
  argonOptions = cost === 'test' ? testArgonOptions : standardArgonOptions;
}

let hashesInsideCommands = 0;
let verificationsInsideCommands = 0;

export function hashSecret(secret: string): Promise<string> {
  if (currentCommand()) hashesInsideCommands += 1;
  return hash(secret, argonOptions);
}

/** A code made before the command that sends it, with its argon2 hash: the command stores the hash and sends the code. */
export interface ReadyCode {
  code: string;
  codeHash: string;
}

export async function readyCode(code: string): Promise<ReadyCode> {
  return { code, codeHash: await hashSecret(code) };
}

/** How many argon2 hashes ran inside a command body (codes are made before the command that sends them; tests watch this). */
export function argonHashesInsideCommands(): number {
  return hashesInsideCommands;
}

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
