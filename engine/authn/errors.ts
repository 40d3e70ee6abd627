// Named outcomes of authentication calls; the API maps each once (api/routes/authn.ts).
export type AuthnError =
  | 'invalid'
  | 'unknown_app'
  | 'captcha_required'
  | 'incorrect_code'
  | 'password_not_matched'
  | 'attempt_gone'
  | 'secret_mismatch'
  | 'not_ready'
  | 'uid_taken'
  | 'rate_limited';

export interface AuthnFailure {
  ok: false;
  error: AuthnError;
  invalid?: Record<string, string>;
  description?: string;
  /** rate_limited: seconds until the spent budget allows another message. */
  retryAfterSeconds?: number;
}

export function failure(error: AuthnError, invalid?: Record<string, string>, description?: string): AuthnFailure {
  return { ok: false, error, ...(invalid ? { invalid } : {}), ...(description ? { description } : {}) };
}
