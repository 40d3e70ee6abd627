// Proving factors of an attempt: a code sent to a UID, the wallet's password, and adding another
// UID to send a code to.
import { authnCodeCaptchaAfterFailures, authnFactorsPerAttemptMax, authnLoginGuardWindowMs } from '../limits.ts';
import type { CodeTemplate } from '../messages/templates.ts';
import { parseLogin } from '../uids.ts';
import { captchaOk, checkCaptcha, checkGuardCaptcha, onActiveAttempt, resultOf, send, wrongAnswer } from './attempts.ts';
import { issueCode, nextFactor } from './codes.ts';
import { answerLatest } from './completion.ts';
import type { AuthnContext } from './context.ts';
import { failure } from './errors.ts';
import { codeTypes, loginInfo, normalizeCode } from './inputs.ts';
import { pendingFactor, pendingFactors, provenTypes, withCodeProven, withPasswordProven, type FactorType } from './machine.ts';
import { checkCodesAhead, checkInvitationCodeAhead, codeVerdictFor, peekAttempt } from './ahead.ts';
import { checkPasswordAhead, verdictStands } from './password-checks.ts';
import { codesForNextFactor, makeCode } from './ready-codes.ts';
import type { AttemptCredential, AuthnOutcome, AuthnService } from './types.ts';
import * as store from './store.ts';

export async function authUid(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['authUid']>[2]): Promise<AuthnOutcome> {
  const { invitations } = ctx.deps;
  const captchaSolved = await captchaOk(ctx, input.captcha);
  const peeked = await peekAttempt(ctx, id, credential);
  const code = normalizeCode(input.code);
  const [codeAhead, invitationAhead] = await Promise.all([checkCodesAhead(peeked, code, input.factorId), checkInvitationCodeAhead(ctx, peeked, code, input.factorId)]);
  const mayBeRight = codeAhead.some((verdict) => verdict.ok) || invitationAhead?.ok === true;
  const codes = await codesForNextFactor(peeked && mayBeRight ? withCodeProven(peeked, input.factorId) : null);
  return onActiveAttempt(ctx, 'authn.auth_uid', id, credential, async (unit, snapshot): Promise<AuthnOutcome> => {
    const before = snapshot.context;
    checkCaptcha(unit, before, captchaSolved);
    const factors = pendingFactors(before);
    if (factors.length === 0) return unit.reject(failure('invalid', { factor_id: 'no code is expected now' }));
    // Wrong codes count per login across attempts too, so new attempts give no fresh guesses.
    const codeGuardKey = `code:${before.login.uid}`;
    await checkGuardCaptcha(unit, codeGuardKey, authnCodeCaptchaAfterFailures, captchaSolved);
    const pending = pendingFactor(before, input.factorId);
    let ok = false;
    if (pending) {
      ok = pending.viaInvitation
        ? await invitations.codeStandsIn(unit, before.inviteId ?? '', pending.uid, invitationAhead)
        : codeVerdictFor(codeAhead, pending);
    }
    const next = send(unit, id, { type: 'attempt.code', factorId: input.factorId, ok });
    if (!next) return unit.reject(failure('attempt_gone'));
    if (ok) await store.clearGuard(unit.tx, codeGuardKey);
    else await store.countGuardFailure(unit.tx, codeGuardKey, unit.now, new Date(unit.now.getTime() - authnLoginGuardWindowMs));
    if (!ok) {
      if (factors.some((factor) => factor.viaInvitation) && before.inviteId) await invitations.recordFailureIn(unit, before.inviteId);
      return wrongAnswer(unit, id, next, 'code');
    }
    const revealed = await nextFactor(ctx, unit, id, next.context, codes);
    return answerLatest(ctx, unit, id, before, { revealed: [revealed] });
  });
}

export async function authPassword(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['authPassword']>[2]): Promise<AuthnOutcome> {
  const captchaSolved = await captchaOk(ctx, input.captcha);
  const peeked = await peekAttempt(ctx, id, credential);
  const profileAhead = peeked?.profileId ? await ctx.deps.profiles.get(ctx.core.sql, peeked.profileId) : null;
  const passwordAhead = await checkPasswordAhead(ctx.core.sql, profileAhead, peeked?.deviceUuid ?? null, input.password);
  // The device's trust is read in the command; leaving it out here can only make more codes.
  const codes = await codesForNextFactor(peeked && passwordAhead.matchedHash !== null ? withPasswordProven(peeked, null, false) : null);
  return onActiveAttempt(ctx, 'authn.auth_password', id, credential, async (unit, snapshot): Promise<AuthnOutcome> => {
    const before = snapshot.context;
    checkCaptcha(unit, before, captchaSolved);
    if (!before.profileId) return unit.reject(failure('invalid', { password: 'no password is expected now' }));
    const profile = await ctx.deps.profiles.get(unit.tx, before.profileId);
    const ok = await verdictStands(unit.tx, profile, before.deviceUuid, passwordAhead);
    const deviceTrusted = ok && (await store.isDeviceTrusted(unit.tx, before.profileId, before.deviceUuid, unit.now));
    const next = send(unit, id, { type: 'attempt.password', ok, login: null, deviceTrusted });
    if (!next) return unit.reject(failure('attempt_gone'));
    if (!ok) return wrongAnswer(unit, id, next, 'password');
    const revealed = await nextFactor(ctx, unit, id, next.context, codes);
    return answerLatest(ctx, unit, id, before, { revealed: [revealed] });
  });
}

export async function addFactor(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['addFactor']>[2]): Promise<AuthnOutcome> {
  const parsed = parseLogin(input.login, input.countries);
  if (!parsed || !codeTypes.has(parsed.type)) return failure('invalid', { login: 'must be an email address or a phone number' });
  const code = await makeCode(parsed.type as FactorType);
  return onActiveAttempt(ctx, 'authn.add_factor', id, credential, async (unit, snapshot): Promise<AuthnOutcome> => {
    const context = snapshot.context;
    if (context.completedMfa) return unit.reject(failure('invalid', { login: 'no other factor is needed' }));
    if (context.factorsIssued >= authnFactorsPerAttemptMax) return unit.reject(failure('invalid', { login: 'too many factors in one attempt; start again' }));
    if (context.authenticated[parsed.uid]?.byCode) return unit.reject(failure('invalid', { login: 'is already confirmed in this attempt' }));
    if (!context.profileId && provenTypes(context).has(parsed.type)) {
      return unit.reject(failure('invalid', { login: `a factor of another type is needed (not ${parsed.type})` }));
    }
    const owner = await ctx.deps.profiles.findByUid(unit.tx, parsed.uid);
    if (owner && owner.id !== context.profileId) return unit.reject(failure('uid_taken', { login: 'belongs to another wallet' }));
    const template: CodeTemplate = context.profileId ? 'authn-signin-existent' : 'authn-signup-nonexistent';
    const { pending, revealed } = issueCode(ctx, unit, loginInfo(parsed), template, code);
    const next = send(unit, id, { type: 'attempt.factor', pending });
    if (!next) return unit.reject(failure('attempt_gone'));
    return { ok: true, result: resultOf(ctx, id, next.context, { revealed: [revealed] }) };
  });
}
