// Changing whether an attempt's device is trusted for 30 days (also after the attempt finished).
import { captchaOk, checkCaptcha, onActiveAttempt, send } from './attempts.ts';
import { applyTrust, mayTrust } from './completion.ts';
import type { AuthnContext } from './context.ts';
import { failure, type AuthnFailure } from './errors.ts';
import type { AttemptCredential, AuthnService } from './types.ts';

export async function setTrust(ctx: AuthnContext, id: string, credential: AttemptCredential, input: Parameters<AuthnService['setTrust']>[2]): Promise<{ ok: true } | AuthnFailure> {
  const captchaSolved = await captchaOk(ctx, input.captcha);
  return onActiveAttempt(ctx, 'authn.set_trust', id, credential, async (unit, snapshot): Promise<{ ok: true } | AuthnFailure> => {
    const context = snapshot.context;
    checkCaptcha(unit, context, captchaSolved);
    if (input.trust30 && !mayTrust(context)) return unit.reject(failure('invalid', { trust30: 'only a personal mobile device may be trusted (request the mobile_device permission)' }));
    const after = send(unit, id, { type: 'attempt.trust', trust30: input.trust30 });
    if (!after) return unit.reject(failure('attempt_gone'));
    if (after.context.completedMfa && after.context.profileId) await applyTrust(unit, after.context, after.context.profileId);
    return { ok: true };
  }, { allowFinished: true });
}
