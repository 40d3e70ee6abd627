// Direct authentication: attempts to sign up, sign in, reset a password, accept an invitation and
// sign in (or up) for closed-loop cash only. Each call is one command on the attempt actor; the
// service checks secrets, passwords and codes (argon2) and sends the outcome to the pure machine,
// then issues the next code when the wallet on file must prove another factor. This file holds the
// service's interface and its factory; each flow lives in its own file (start.ts, factors.ts, ...).
import type { Core } from '../core.ts';
import { confirmAddUid, startAddUid } from './add-uid.ts';
import { authnAttempt, captchaOk, captchaSiteKey } from './attempts.ts';
import { createAuthnContext } from './context.ts';
import { addFactor, authPassword, authUid } from './factors.ts';
import { devicePinVerifier, verifyDevicePassword } from './password-checks.ts';
import { resetPassword } from './reset.ts';
import { setSignupData, signupFinish } from './signup.ts';
import { start } from './start.ts';
import { setTrust } from './trust.ts';
import type { AuthnService, AuthnDependencies } from './types.ts';
export type { AuthnResult, AuthnOutcome, StartInput, MessageBudget, AttemptCredential, CaptchaVerifier, AuthnService, AuthnDependencies } from './types.ts';

export { authnAttempt } from './attempts.ts';
export { sandboxCaptchaBypass, sandboxSiteKey } from './context.ts';
export { normalizeCode } from './inputs.ts';

export function createAuthnService(core: Core, dependencies: AuthnDependencies): AuthnService {
  const ctx = createAuthnContext(core, dependencies);
  core.sweeper.register(authnAttempt.kind, async (unit, timer) => {
    const snapshot = await unit.load(authnAttempt, timer.actorId);
    if (snapshot) unit.send(authnAttempt, timer.actorId, timer.event as never);
  });
  dependencies.tokens.registerPinVerifier(devicePinVerifier);
  return {
    start: (input) => start(ctx, input),
    authUid: (id, credential, input) => authUid(ctx, id, credential, input),
    authPassword: (id, credential, input) => authPassword(ctx, id, credential, input),
    addFactor: (id, credential, input) => addFactor(ctx, id, credential, input),
    setSignupData: (id, credential, input) => setSignupData(ctx, id, credential, input),
    signupFinish: (id, credential, input) => signupFinish(ctx, id, credential, input),
    resetPassword: (id, credential, input) => resetPassword(ctx, id, credential, input),
    setTrust: (id, credential, input) => setTrust(ctx, id, credential, input),
    siteKey: () => captchaSiteKey(ctx),
    captchaOk: (response) => captchaOk(ctx, response),
    setCaptchaVerifier: (verifier) => {
      ctx.captcha.verifier = verifier;
    },
    startAddUid: (input) => startAddUid(ctx, input),
    confirmAddUid: (input, apply) => confirmAddUid(ctx, input, apply),
    verifyDevicePassword,
  };
}
