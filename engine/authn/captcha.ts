// Verifies a reCAPTCHA response with the provider's siteverify endpoint. Any failure to get a
// clear "success" (network, timeout, bad answer) counts as not solved.
import { captchaVerifyTimeoutMs } from '../limits.ts';
import type { CaptchaVerifier } from './types.ts';

export function createRecaptchaVerifier(options: { secret: string; verifyUrl: string }): CaptchaVerifier {
  return async (response) => {
    try {
      const answer = await fetch(options.verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: options.secret, response }).toString(),
        signal: AbortSignal.timeout(captchaVerifyTimeoutMs),
      });
      if (!answer.ok) return false;
      const body = (await answer.json()) as { success?: unknown };
      return body.success === true;
    } catch {
      return false;
    }
  };
}
