// Issuing codes and factors: a code to a UID (with its message), the decoy factors whose code no
// one is told, and the next factor a wallet on file must prove. Every code and hash arrives made
// (ready-codes.ts): these run inside a command, where argon2 does not.
import type { Unit } from '../actors/command.ts';
import { randomHex } from '../ids.ts';
import { authnFactorIdBytes, authnFactorsPerAttemptMax } from '../limits.ts';
import { addConflictMessage, codeMessage, type CodeTemplate } from '../messages/templates.ts';
import type { ReadyCode } from '../passwords.ts';
import { parseLogin } from '../uids.ts';
import { authnAttempt } from './attempts.ts';
import type { AuthnContext } from './context.ts';
import { addressOf, codeTypes, loginInfo } from './inputs.ts';
import { pendingFactors, provenTypes, type AttemptContext, type FactorType, type LoginInfo, type PendingFactor } from './machine.ts';
import { codeLengthOf, takeCode, type ReadyCodes } from './ready-codes.ts';

/**
 * Sends a UID its code, made before the command, and returns the pending factor and the sandbox
 * reveal. A login without a wallet (`code` null) is told so in a message without a code.
 */
export function issueCode(ctx: AuthnContext, unit: Unit, target: LoginInfo, template: CodeTemplate, code: ReadyCode | null): { pending: PendingFactor; revealed: string | null } {
  const type = target.type as FactorType;
  const codeLength = codeLengthOf(type);
  if (code && code.code.length !== codeLength) throw new Error(`a ${type} code has ${codeLength} digits, not ${code.code.length}`);
  const content = codeMessage(code ? template : (template.replace('-existent', '-nonexistent') as CodeTemplate), code?.code ?? null, type === 'email' ? 'email' : 'sms');
  ctx.deps.messages.queue(unit, { channel: type === 'email' ? 'email' : 'sms', to: addressOf(target.uid), template, ...content });
  const pending: PendingFactor = {
    factorId: randomHex(authnFactorIdBytes),
    uid: target.uid,
    type,
    original: target.original,
    country: target.country,
    codeHash: code?.codeHash ?? null,
    codeLength,
    viaInvitation: false,
  };
  return { pending, revealed: code && ctx.sandbox ? `${code.code} => ${target.uid}` : null };
}

/** A pending factor whose code is a random secret no one is told (the two decoys below); `decoyHash` is its hash. */
function decoyFactor(target: LoginInfo, type: FactorType, decoyHash: string): PendingFactor {
  return {
    factorId: randomHex(authnFactorIdBytes),
    uid: target.uid,
    type,
    original: target.original,
    country: target.country,
    codeHash: decoyHash,
    codeLength: codeLengthOf(type),
    viaInvitation: false,
  };
}

/**
 * Tells the owner of an address that someone tried to add it to another wallet, and returns a
 * pending factor shaped like a real one whose code no one is told: verifying a guess costs the
 * same argon2 work as for a real code and always fails.
 */
export function issueAddConflict(ctx: AuthnContext, unit: Unit, target: LoginInfo, decoyHash: string): PendingFactor {
  const type = target.type as FactorType;
  const channel = type === 'email' ? 'email' : 'sms';
  ctx.deps.messages.queue(unit, { channel, to: addressOf(target.uid), template: 'authn-add-conflict', ...addConflictMessage(channel) });
  return decoyFactor(target, type, decoyHash);
}

/**
 * A pending factor shaped like a real one whose code no one is told and no message carries: under
 * the login guard a wrong password's attempt looks like the right one's, and fails at the code.
 */
export function withheldFactor(target: LoginInfo, decoyHash: string): PendingFactor {
  return decoyFactor(target, target.type === 'phone' ? 'phone' : 'email', decoyHash);
}

/** The UID the next code goes to: a confirmed email or phone not yet proven (the login last at sign-in). */
async function nextTarget(ctx: AuthnContext, unit: Unit, context: AttemptContext): Promise<LoginInfo | null> {
  if (!context.profileId) return null;
  const proven = provenTypes(context);
  const confirmed = (await ctx.deps.profiles.confirmedUids(unit.tx, context.profileId)).filter((uid) => codeTypes.has(uid.split(':')[0]) && !proven.has(uid.split(':')[0]));
  if (confirmed.length === 0) return null;
  const loginFirst = context.intent === 'reset' || context.closedLoop;
  const ordered = [...confirmed].sort((left, right) => {
    const leftIsLogin = left === context.login.uid ? 0 : 1;
    const rightIsLogin = right === context.login.uid ? 0 : 1;
    return loginFirst ? leftIsLogin - rightIsLogin : rightIsLogin - leftIsLogin;
  });
  const uid = ordered[0];
  const parsed = parseLogin(uid);
  return parsed ? loginInfo(parsed) : { uid, type: uid.split(':')[0], original: addressOf(uid), country: null };
}

/**
 * The wallet on file must prove another factor: send the next code to a UID not yet proven.
 * `codes` holds one made for each type (codesForNextFactor in ready-codes.ts makes them).
 */
export async function nextFactor(ctx: AuthnContext, unit: Unit, id: string, context: AttemptContext, codes: ReadyCodes): Promise<string | null> {
  if (context.completedMfa || pendingFactors(context).length > 0 || !context.profileId) return null;
  const needsPasswordFirst = !context.closedLoop && context.intent !== 'reset' && !context.passwordOk;
  if (needsPasswordFirst || context.factorsIssued >= authnFactorsPerAttemptMax) return null;
  const target = await nextTarget(ctx, unit, context);
  if (!target) return null;
  const template: CodeTemplate = context.intent === 'reset' ? 'authn-reset-existent' : 'authn-signin-existent';
  const { pending, revealed } = issueCode(ctx, unit, target, template, takeCode(codes, target.type as FactorType));
  unit.send(authnAttempt, id, { type: 'attempt.factor', pending });
  return revealed;
}
