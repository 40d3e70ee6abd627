// What every authentication flow works with: the core, the services it calls, whether this is the
// sandbox, the captcha settings (the verifier is replaced by setCaptchaVerifier, so it lives here)
// and the decoy factors' hash, made once.
import type { Core } from '../core.ts';
import { createRecaptchaVerifier } from './captcha.ts';
import type { AuthnDependencies, CaptchaVerifier } from './types.ts';

/** The sandbox captcha site key and the value that passes for a solved captcha there. */
export const sandboxSiteKey = 'cashloop-sandbox-sitekey';
export const sandboxCaptchaBypass = 'cashloop-sandbox-captcha-bypass';

export interface AuthnContext {
  core: Core;
  deps: AuthnDependencies;
  sandbox: boolean;
  captcha: { verifier: CaptchaVerifier; siteKey: string };
  /** The hash every decoy factor carries, made once before the first command that needs it (ready-codes.ts). */
  decoyHash: Promise<string> | null;
}

export function createAuthnContext(core: Core, deps: AuthnDependencies): AuthnContext {
  const { config } = core;
  const verifier: CaptchaVerifier = config.recaptchaSecret
    ? createRecaptchaVerifier({ secret: config.recaptchaSecret, verifyUrl: config.recaptchaVerifyUrl })
    : async () => false;
  return { core, deps, sandbox: config.mode === 'sandbox', captcha: { verifier, siteKey: config.recaptchaSiteKey ?? sandboxSiteKey }, decoyHash: null };
}
