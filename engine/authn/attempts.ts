// The attempt actor and the plumbing every attempt call shares: captcha checks (before and inside
// the command), running a command on an attempt, loading it, sending it events and answering.
import type { Unit } from '../actors/command.ts';
import { assertOutsideCommand } from '../actors/command.ts';
import { defineActorKind } from '../actors/actor.ts';
import { constantTimeEqual, secretHash } from '../ids.ts';
import { authnLoginGuardWindowMs } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { AccessTokenInfo } from '../tokens/service.ts';
import { sandboxCaptchaBypass, type AuthnContext } from './context.ts';
import { failure, type AuthnFailure } from './errors.ts';
import { attemptMachine, captchaRequired, pendingFactors, type AttemptContext } from './machine.ts';
import type { AttemptCredential, AuthnOutcome, AuthnResult } from './types.ts';
import * as store from './store.ts';

export const authnAttempt = defineActorKind('authn_attempt', attemptMachine);
export type AttemptSnapshot = ReturnType<typeof attemptMachine.resolveState>;

/** Verifies a captcha response (a network call with reCAPTCHA): before a command, never inside one. */
export async function captchaOk(ctx: AuthnContext, response: string | undefined): Promise<boolean> {
  assertOutsideCommand('a captcha check');
  if (!response) return false;
  if (ctx.sandbox && constantTimeEqual(response, sandboxCaptchaBypass)) return true;
  return ctx.captcha.verifier(response);
}

export function captchaSiteKey(ctx: AuthnContext): { sitekey: string; captcha_bypass?: string } {
  return ctx.sandbox ? { sitekey: ctx.captcha.siteKey, captcha_bypass: sandboxCaptchaBypass } : { sitekey: ctx.captcha.siteKey };
}

/** `solved`: the request's captcha, verified before the command. */
export function checkCaptcha(unit: Unit<AuthnFailure>, context: Pick<AttemptContext, 'failures'>, solved: boolean): void {
  if (captchaRequired(context) && !solved) unit.reject(failure('captcha_required'));
}

/** Whether a guard (per login) has counted `after` failures in its window: it then wants a solved captcha. */
export async function guardTripped(db: Queryable, key: string, after: number, now: Date): Promise<boolean> {
  const guard = await store.selectGuard(db, key);
  return Boolean(guard && now.getTime() - guard.window_started_at.getTime() < authnLoginGuardWindowMs && guard.failures >= after);
}

/** Counts a failed guess against the guard of `key`; a window that has passed starts again. */
export function countGuardFailure(db: Queryable, key: string, now: Date): Promise<void> {
  return store.countGuardFailure(db, key, now, new Date(now.getTime() - authnLoginGuardWindowMs));
}

/** Clears the guard of `key` after a right guess. */
export function clearGuard(db: Queryable, key: string): Promise<void> {
  return store.clearGuard(db, key);
}

export async function checkGuardCaptcha(unit: Unit<AuthnFailure>, key: string, after: number, solved: boolean): Promise<void> {
  if ((await guardTripped(unit.tx, key, after, unit.now)) && !solved) unit.reject(failure('captcha_required'));
}

async function loadActive(unit: Unit<AuthnFailure>, id: string, credential: AttemptCredential, options: { allowFinished?: boolean } = {}): Promise<AttemptSnapshot | 'expired_now'> {
  const snapshot = (await unit.load(authnAttempt, id)) as AttemptSnapshot | null;
  if (!snapshot) return unit.reject(failure('attempt_gone'));
  if ('secret' in credential && !constantTimeEqual(secretHash(credential.secret), snapshot.context.secretHash)) return unit.reject(failure('secret_mismatch'));
  if (snapshot.value === 'active' && unit.now.getTime() >= Date.parse(snapshot.context.expiresAt)) {
    unit.send(authnAttempt, id, { type: 'attempt.expire' });
    unit.cancelTimer(authnAttempt, id, 'expire');
    return 'expired_now';
  }
  if (snapshot.value === 'expired' || (snapshot.value === 'finished' && !options.allowFinished)) return unit.reject(failure('attempt_gone'));
  return snapshot;
}

/** Runs an attempt command; a command that expired the attempt commits, then answers 410. */
export async function onAttempt<R>(ctx: AuthnContext, name: string, id: string, body: (unit: Unit<AuthnFailure>) => Promise<R>): Promise<R | AuthnFailure> {
  if (!/^\d{10}$/.test(id)) return failure('attempt_gone');
  return ctx.core.commands.run(name, [{ kind: authnAttempt.kind, id }], body);
}

/** Runs a command on the attempt the credential opens while it is active (see loadActive). */
export async function onActiveAttempt<R>(ctx: AuthnContext, name: string, id: string, credential: AttemptCredential, body: (unit: Unit<AuthnFailure>, snapshot: AttemptSnapshot) => Promise<R>, options: { allowFinished?: boolean } = {}): Promise<R | AuthnFailure> {
  return onAttempt(ctx, name, id, async (unit): Promise<R | AuthnFailure> => {
    const snapshot = await loadActive(unit, id, credential, options);
    if (snapshot === 'expired_now') return failure('attempt_gone');
    return body(unit, snapshot);
  });
}

export function send(unit: Unit, id: string, event: Parameters<Unit['send']>[2]): AttemptSnapshot | null {
  return unit.send(authnAttempt, id, event as never) as AttemptSnapshot | null;
}

/** A wrong code or password: 410 once the attempt has expired of too many, else the field's error. */
export function wrongAnswer(unit: Unit, id: string, next: AttemptSnapshot, kind: 'code' | 'password'): AuthnOutcome {
  if (next.value === 'expired') {
    unit.cancelTimer(authnAttempt, id, 'expire');
    return failure('attempt_gone', undefined, `Too many incorrect ${kind}s; start again.`);
  }
  return kind === 'code' ? failure('incorrect_code', { code: 'The code is not correct.' }) : failure('password_not_matched', { password: 'The password is not correct.' });
}

/** The sign-up an unproven attempt shows for a registered login: the one a new login would have (none for a reset or a closed-loop sign-in). */
function shownSignup(context: AttemptContext): AttemptContext['signup'] {
  const blank = { firstName: '', lastName: '', passwordHash: null, nameChecked: false };
  if (context.intent === 'signup' || context.intent === 'signup-closed') return blank;
  if (context.intent === 'accept' && context.inviteeName) return { ...blank, ...context.inviteeName };
  return null;
}

export function resultOf(ctx: AuthnContext, id: string, context: AttemptContext, extras: { secret?: string; revealed?: (string | null)[]; token?: AccessTokenInfo; profile?: Record<string, unknown> } = {}): AuthnResult {
  const result: AuthnResult = { attempt_path: `/aa/${id}/` };
  if (extras.secret) result.secret = extras.secret;
  const pending = pendingFactors(context);
  if (pending.length > 0) {
    result.factor_id = pending[0].factorId;
    result.code_length = pending[0].codeLength;
    result.unauthenticated = Object.fromEntries(pending.map((factor) => [factor.uid, { original: factor.original, country: factor.country }]));
  }
  const revealed = (extras.revealed ?? []).filter((item): item is string => item !== null);
  if (ctx.sandbox && revealed.length > 0) result.revealed_codes = revealed;
  result.completed_mfa = context.completedMfa;
  result.authenticated = Object.fromEntries(
    Object.entries(context.authenticated).map(([uid, factor]) => [uid, { original: factor.original, country: factor.country, strong: factor.strong, used_password: factor.usedPassword }]),
  );
  // Whose wallet the login is stays hidden until the caller proves something: a factor, or the
  // password (a sign-in, which answers a wrong one at once), unless a withheld verdict hides it
  // until MFA completes. Every start call (sign-up, reset, accept, closed-loop sign-in) thus
  // answers a registered login as it answers a new one.
  const unproven = context.intent !== 'add-uid' && !context.passwordOk && Object.keys(context.authenticated).length === 0;
  const hidden = (context.verdictWithheld === true && !context.completedMfa) || unproven;
  result.profile_id = hidden ? null : context.profileId;
  result.profile_title = hidden ? null : context.profileTitle;
  const signup = hidden && !context.signup ? shownSignup(context) : context.signup;
  result.signup = signup && (!context.profileId || hidden)
    ? { first_name: signup.firstName, last_name: signup.lastName, has_password: signup.passwordHash !== null, name_checked: signup.nameChecked }
    : null;
  result.invite_id = context.inviteId;
  result.captcha_required = captchaRequired(context);
  result.trust30 = context.trust30;
  if (extras.token) result.token = extras.token;
  if (extras.profile) result.profile = extras.profile;
  return result;
}
