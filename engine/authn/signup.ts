// Creating a wallet from a signup (or accept) attempt: the name and password it will have, then,
// once MFA is complete, the wallet itself and its first token.
import { hashSecret } from '../passwords.ts';
import { onActiveAttempt, resultOf, send } from './attempts.ts';
import { applyTrust, finishAttempt, issueToken } from './completion.ts';
import type { AuthnContext } from './context.ts';
import { failure } from './errors.ts';
import { personNameProblem } from './names.ts';
import { passwordProblem } from './password-checks.ts';
import type { AttemptCredential, AuthnOutcome, AuthnService } from './types.ts';

type SignupDataInput = Parameters<AuthnService['setSignupData']>[2];

function signupDataProblems(input: SignupDataInput): Record<string, string> {
  const invalidFields: Record<string, string> = {};
  if (input.firstName !== undefined || input.lastName !== undefined) {
    if (input.firstName === undefined) invalidFields.first_name = 'is required with last_name';
    if (input.lastName === undefined) invalidFields.last_name = 'is required with first_name';
    const firstProblem = input.firstName !== undefined ? personNameProblem(input.firstName) : null;
    const lastProblem = input.lastName !== undefined ? personNameProblem(input.lastName) : null;
    if (firstProblem) invalidFields.first_name = firstProblem;
    if (lastProblem) invalidFields.last_name = lastProblem;
  }
  const problem = input.password !== undefined ? passwordProblem(input.password) : null;
  if (problem) invalidFields.password = problem;
  return invalidFields;
}

export async function setSignupData(ctx: AuthnContext, id: string, credential: AttemptCredential, input: SignupDataInput): Promise<AuthnOutcome> {
  const invalidFields = signupDataProblems(input);
  if (Object.keys(invalidFields).length > 0) return failure('invalid', invalidFields);
  const passwordHash = input.password !== undefined ? await hashSecret(input.password) : undefined;
  return onActiveAttempt(ctx, 'authn.set_signup_data', id, credential, async (unit): Promise<AuthnOutcome> => {
    const after = send(unit, id, {
      type: 'attempt.signup_data',
      ...(input.firstName !== undefined ? { firstName: input.firstName.trim(), lastName: (input.lastName ?? '').trim() } : {}),
      ...(passwordHash !== undefined ? { passwordHash } : {}),
    });
    if (!after) return unit.reject(failure('invalid', { request: 'this attempt does not create a wallet' }));
    return { ok: true, result: resultOf(ctx, id, after.context) };
  });
}

export async function signupFinish(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['signupFinish']>[2]): Promise<AuthnOutcome> {
  if (!input.agreed) return failure('invalid', { agreed: 'must be true' });
  const { profiles, invitations } = ctx.deps;
  return onActiveAttempt(ctx, 'authn.signup_finish', id, credential, async (unit, snapshot): Promise<AuthnOutcome> => {
    const context = snapshot.context;
    if (!context.signup || context.profileId) return unit.reject(failure('invalid', { request: 'this attempt does not create a wallet' }));
    if (!context.completedMfa) return unit.reject(failure('not_ready', { request: 'multi-factor authentication is not complete' }));
    if (!context.signup.nameChecked) return unit.reject(failure('invalid', { first_name: 'is required (set-signup-data)' }));
    if (!context.closedLoop && !context.signup.passwordHash) return unit.reject(failure('invalid', { password: 'is required (set-signup-data)' }));
    const confirmedUids = Object.entries(context.authenticated).filter(([, factor]) => factor.byCode).map(([uid]) => uid);
    for (const uid of confirmedUids) if (await profiles.findByUid(unit.tx, uid)) return unit.reject(failure('uid_taken', { login: `${uid} belongs to another wallet` }));
    const individual = {
      firstName: context.signup.firstName,
      lastName: context.signup.lastName,
      site: context.site,
      confirmedUids,
      passwordHash: context.signup.passwordHash,
      deviceUuid: context.deviceUuid,
      deviceName: context.deviceName,
    };
    // A profile of this site waiting for the owner of a UID this sign-up proved by a code (a bill's
    // email) becomes the owner's wallet, with its bills; otherwise a new one.
    const { profileId } = (await profiles.takeOverClaimIn(unit, individual)) ?? (await profiles.createIndividualIn(unit, individual));
    await applyTrust(unit, context, profileId);
    if (context.inviteId) await invitations.markAcceptedIn(unit, context.inviteId, profileId);
    const completion = await issueToken(ctx, unit, context, profileId);
    const title = String(completion.profile.title ?? `${context.signup.firstName} ${context.signup.lastName}`);
    return finishAttempt(ctx, unit, id, { profileId, profileTitle: title }, completion);
  });
}
