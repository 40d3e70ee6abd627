// Codes made before the command that issues them, so argon2 never hashes while a command holds its
// locks and a pooled connection: the caller makes a code for each factor type the command may send
// one to, and the command takes the one of the type it sends (a code no one is sent is dropped).
import { randomDigits, randomSecret } from '../ids.ts';
import { authnEmailCodeDigits, authnFactorsPerAttemptMax, authnSecretBytes, authnSmsCodeDigits } from '../limits.ts';
import { hashSecret, readyCode, type ReadyCode } from '../passwords.ts';
import type { AuthnContext } from './context.ts';
import type { AttemptContext, FactorType } from './machine.ts';

export type ReadyCodes = Partial<Record<FactorType, ReadyCode>>;

/** A next factor goes to whichever confirmed UID the wallet has not proven, of either type. */
export const everyFactorType: readonly FactorType[] = ['email', 'phone'];

export function codeLengthOf(type: FactorType): number {
  return type === 'email' ? authnEmailCodeDigits : authnSmsCodeDigits;
}

export function makeCode(type: FactorType): Promise<ReadyCode> {
  return readyCode(randomDigits(codeLengthOf(type)));
}

/** One code for each type, hashed side by side. */
export async function makeCodes(types: readonly FactorType[]): Promise<ReadyCodes> {
  const made = await Promise.all(types.map(makeCode));
  return Object.fromEntries(types.map((type, index) => [type, made[index]]));
}

/** Inside the command: the code made for this type. A missing one is a bug in what the caller made ahead. */
export function takeCode(codes: ReadyCodes, type: FactorType): ReadyCode {
  const code = codes[type];
  if (!code) throw new Error(`no ${type} code was made before the command`);
  return code;
}

/**
 * The hash decoy factors carry (a withheld verdict's, an address held by another wallet): of a
 * random secret no one is told, so checking a guess costs the argon2 work of a real code and always
 * fails. Nothing tells one decoy from another, so one hash per engine serves them all, made before
 * the first command that needs it.
 */
export function decoyHash(ctx: AuthnContext): Promise<string> {
  ctx.decoyHash ??= hashSecret(randomSecret(authnSecretBytes));
  return ctx.decoyHash;
}

/**
 * The codes for the next factor a command may send after a success, judged on the attempt as read
 * before it with that success applied (`after`; null when nothing can succeed): none when the
 * attempt has no wallet, has issued its last factor or is then complete. Proofs and issued factors
 * only accumulate and an active attempt keeps its wallet, so the command cannot find the attempt
 * further from done than this, and never needs a code this did not make.
 */
export function codesForNextFactor(after: AttemptContext | null): Promise<ReadyCodes> {
  const mayFollow = after !== null && after.profileId !== null && !after.completedMfa && after.factorsIssued < authnFactorsPerAttemptMax;
  return makeCodes(mayFollow ? everyFactorType : []);
}
