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
  | 'wallet_transition_refused';
