// Named outcomes of profile access (mapped to HTTP once, in api/routes/profiles.ts).
export type ProfileAccessError =
  | 'profile_not_found'
  | 'uid_not_found'
  | 'manager_required'
  | 'manager_not_found'
  | 'not_manager'
  | 'not_available'
  | 'app_denied'
  | 'username_taken'
  | 'unknown_feature'
  | 'not_business'
  | 'wallet_transition_refused'
  | 'uid_invalid'
  | 'uid_in_use';

/** A refusal, with the request field it is about where there is one. */
export interface AccessRefusal {
  ok: false;
  error: ProfileAccessError;
  invalid?: Record<string, string>;
}
export type Access<T> = ({ ok: true } & T) | AccessRefusal;

export function refuse(error: ProfileAccessError, invalid?: Record<string, string>): AccessRefusal {
  return invalid ? { ok: false, error, invalid } : { ok: false, error };
}
