// Named outcomes of token calls (mapped to HTTP once, in api/routes/tokens.ts).
export type RefreshError = 'incorrect_password' | 'incorrect_pin' | 'pin_not_set' | 'refresh_locked' | 'token_expired_hard' | 'token_invalid';

export type TokenCallError = RefreshError | 'credentials_required';
