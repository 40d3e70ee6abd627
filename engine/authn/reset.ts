// Setting a new password at the end of a reset attempt whose MFA is complete.
import { hashSecret } from '../passwords.ts';
import { onActiveAttempt } from './attempts.ts';
import { applyTrust, finishAttempt, issueToken } from './completion.ts';
import type { AuthnContext } from './context.ts';
import { failure } from './errors.ts';
import { passwordProblem } from './password-checks.ts';
import type { AttemptCredential, AuthnOutcome, AuthnService } from './types.ts';
import * as store from './store.ts';

export async function resetPassword(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['resetPassword']>[2]): Promise<AuthnOutcome> {
  const problem = passwordProblem(input.password);
  if (problem) return failure('invalid', { password: problem });
  const passwordHash = await hashSecret(input.password);
  return onActiveAttempt(ctx, 'authn.reset_password', id, credential, async (unit, snapshot): Promise<AuthnOutcome> => {
    const context = snapshot.context;
    if (context.intent !== 'reset' || !context.profileId) return unit.reject(failure('invalid', { request: 'this attempt does not reset a password' }));
    if (!context.completedMfa) return unit.reject(failure('not_ready', { request: 'multi-factor authentication is not complete' }));
    await ctx.deps.profiles.setPasswordHash(unit.tx, context.profileId, passwordHash);
    await store.clearGuard(unit.tx, `login:${context.login.uid}`);
    await applyTrust(unit, context, context.profileId);
    const completion = await issueToken(ctx, unit, context, context.profileId);
    return finishAttempt(ctx, unit, id, { profileId: context.profileId, profileTitle: context.profileTitle ?? '' }, completion);
  });
}
