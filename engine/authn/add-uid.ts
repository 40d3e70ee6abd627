// Proving a new UID for a signed-in profile (POST /wallet/add-uid): a one-factor attempt with a
// code to each UID not yet on the wallet, and confirming any one of them.
import type { Unit } from '../actors/command.ts';
import { randomSecret, secretHash } from '../ids.ts';
import { authnAttemptLifetimeMs, authnFactorsPerAttemptMax, authnSecretBytes } from '../limits.ts';
import type { ReadyCode } from '../passwords.ts';
import { checkCodesAhead, codeVerdictFor, peekAttempt } from './ahead.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { authnAttempt, captchaOk, checkCaptcha, onActiveAttempt, send } from './attempts.ts';
import { issueAddConflict, issueCode } from './codes.ts';
import type { AuthnContext } from './context.ts';
import { failure, type AuthnFailure } from './errors.ts';
import { codeTypes, loginInfo, normalizeCode } from './inputs.ts';
import { pendingFactors, type FactorType, type LoginInfo, type PendingFactor } from './machine.ts';
import { decoyHash, makeCode } from './ready-codes.ts';
import type { AuthnService } from './types.ts';

type StartAddUidInput = Parameters<AuthnService['startAddUid']>[0];

export async function startAddUid(ctx: AuthnContext, input: StartAddUidInput): ReturnType<AuthnService['startAddUid']> {
  if (input.uids.length === 0 || input.uids.some((uid) => !codeTypes.has(uid.type))) return failure('invalid', { login: 'must be an email address or a phone number' });
  if (input.uids.length > authnFactorsPerAttemptMax) return failure('invalid', { countries: `match more than ${authnFactorsPerAttemptMax} numbers; send fewer countries` });
  // A code for every UID, made before the command: one another wallet holds gets the decoy instead,
  // after the same argon2 work, so the time taken does not tell which.
  const [decoy, ...codes] = await Promise.all([decoyHash(ctx), ...input.uids.map((uid) => makeCode(uid.type as FactorType))]);
  return ctx.core.commands.run('authn.start.add_uid', [], async (unit: Unit<AuthnFailure>) => {
    const { profiles } = ctx.deps;
    const profile = await profiles.get(unit.tx, input.profileId);
    if (!profile) return unit.reject(failure('invalid', { request: 'the profile is missing' }));
    const targets: { login: LoginInfo; heldElsewhere: boolean; code: ReadyCode }[] = [];
    for (const [index, uid] of input.uids.entries()) {
      const owner = await profiles.findByUid(unit.tx, uid.uid);
      if (owner?.id !== profile.id) targets.push({ login: loginInfo(uid), heldElsewhere: owner !== null, code: codes[index] });
    }
    if (targets.length === 0) return unit.reject(failure('invalid', { login: 'is already confirmed for this wallet' }));
    const pending: PendingFactor[] = [];
    const revealed: string[] = [];
    for (const target of targets) {
      if (target.heldElsewhere) {
        pending.push(issueAddConflict(ctx, unit, target.login, decoy));
        continue;
      }
      const issued = issueCode(ctx, unit, target.login, 'authn-add-ok', target.code);
      pending.push(issued.pending);
      if (issued.revealed) revealed.push(issued.revealed);
    }
    const { id, secret } = await createAddUidAttempt(unit, input, profile, targets[0].login, pending);
    return {
      ok: true as const,
      attemptId: id,
      secret,
      codeLength: pending[0].codeLength,
      unauthenticated: Object.fromEntries(pending.map((factor) => [factor.uid, { original: factor.original, country: factor.country }])),
      ...(ctx.sandbox && revealed.length > 0 ? { revealedCodes: revealed } : {}),
    };
  });
}

async function createAddUidAttempt(unit: Unit<AuthnFailure>, input: StartAddUidInput, profile: ProfileRecord, login: LoginInfo, pending: PendingFactor[]): Promise<{ id: string; secret: string }> {
  const id = await unit.newShortId('authn_attempt');
  const secret = randomSecret(authnSecretBytes);
  const expiresAt = new Date(unit.now.getTime() + authnAttemptLifetimeMs);
  unit.create(authnAttempt, id, {
    intent: 'add-uid',
    clientId: input.clientId,
    site: '',
    deviceUuid: input.deviceUuid ?? '',
    deviceName: null,
    permissions: null,
    closedLoop: false,
    secretHash: secretHash(secret),
    login,
    profileId: profile.id,
    profileTitle: profile.title,
    typesAvailable: 0,
    inviteId: null,
    authenticated: {},
    pending,
    passwordOk: false,
    deviceTrusted: false,
    signup: null,
    trust30: false,
    expiresAt: expiresAt.toISOString(),
  });
  unit.schedule(authnAttempt, id, 'expire', expiresAt, { type: 'attempt.expire' });
  return { id, secret };
}

export async function confirmAddUid(ctx: AuthnContext, input: Parameters<AuthnService['confirmAddUid']>[0], apply: Parameters<AuthnService['confirmAddUid']>[1]): ReturnType<AuthnService['confirmAddUid']> {
  const captchaSolved = await captchaOk(ctx, input.captcha);
  // Every factor is checked (before the command), so the time taken does not tell which number (if any) matched.
  const codeAhead = await checkCodesAhead(await peekAttempt(ctx, input.attemptId, { secret: input.secret }), normalizeCode(input.code));
  return onActiveAttempt(ctx, 'authn.confirm_add_uid', input.attemptId, { secret: input.secret }, async (unit, snapshot) => {
    const before = snapshot.context;
    const factors = pendingFactors(before);
    if (before.intent !== 'add-uid' || before.profileId !== input.profileId || factors.length === 0) return unit.reject(failure('attempt_gone'));
    checkCaptcha(unit, before, captchaSolved);
    const matched: PendingFactor | null = factors.find((factor) => codeVerdictFor(codeAhead, factor)) ?? null;
    const next = send(unit, input.attemptId, { type: 'attempt.code', factorId: (matched ?? factors[0]).factorId, ok: matched !== null });
    if (!next) return unit.reject(failure('attempt_gone'));
    if (!matched) {
      if (next.value === 'expired') return failure('attempt_gone', undefined, 'Too many incorrect codes; start again.');
      return failure('incorrect_code', { code: 'The code is not correct.' });
    }
    await apply(unit, matched.uid);
    send(unit, input.attemptId, { type: 'attempt.finish', profileId: input.profileId, profileTitle: before.profileTitle ?? '' });
    unit.cancelTimer(authnAttempt, input.attemptId, 'expire');
    return { ok: true as const, uid: matched.uid };
  });
}
