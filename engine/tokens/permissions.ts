// The user permissions a token can carry: every known name, the default and closed loop sets, and
// how a request narrows them (re-exported by service.ts, where callers import them).

/** Every user permission the service knows (spec section Authentication, supplement 5.4). */
export const knownPermissions: readonly string[] = Object.freeze([
  'view_wallet', 'view_history', 'list_friends', 'send_cash', 'send_to_account', 'receive_cash', 'select_profile',
  'change_settings', 'manage_sent', 'manage_received', 'create_design', 'edit_design', 'view_design',
  'view_design_network', 'apply_design', 'manage_design', 'add_agreement', 'activate_agreement', 'deactivate_agreement',
  'remove_agreement', 'preview_offer', 'accept_offer', 'pull_payment', 'process_payment', 'mobile_device', 'offline',
  'view_full_history', 'view', 'edit_account', 'manage_account', 'link_paycard', 'view_paycard',
]);

/** Suitable for sending and receiving cash: the default when a call names no permissions. */
export const defaultPermissions: readonly string[] = Object.freeze([
  'view_wallet', 'view_history', 'list_friends', 'send_cash', 'send_to_account', 'receive_cash', 'select_profile',
  'change_settings', 'manage_sent', 'manage_received', 'preview_offer', 'accept_offer',
]);

/** Closed loop cash rights only: what POST /p/token may grant. */
export const closedLoopPermissions: readonly string[] = Object.freeze([
  'view_wallet', 'view_history', 'send_cash', 'receive_cash', 'manage_sent', 'manage_received', 'change_settings', 'preview_offer',
  'accept_offer', 'apply_design', 'view_design', 'link_paycard', 'view_paycard',
]);

/**
 * Qualifiers any app may request beyond the default set: they describe the device or widen what
 * can be read, never what can be done with cash (supplement 4.2 and 5.4 show them in scopes).
 */
export const requestableQualifiers: readonly string[] = Object.freeze(['mobile_device', 'offline', 'view_full_history', 'view']);

/**
 * What an open loop token gets (the /aa/* start calls' permissions, the authorize endpoint's
 * scope): nothing requested gives the default set; a request gets exactly the names that are both
 * requested and allowed (the default set, the qualifiers and the app's operator-allowed user
 * permissions), in the order requested, never more.
 */
export function grantedPermissions(requested: readonly string[] | null | undefined, appUserPermissions: readonly string[]): string[] {
  if (!requested || requested.length === 0) return [...defaultPermissions];
  const allowed = new Set([...defaultPermissions, ...requestableQualifiers, ...appUserPermissions]);
  return [...new Set(requested)].filter((permission) => allowed.has(permission));
}

/** Permissions in a request only limit: the allowed set, narrowed to the requested names when any are given. */
export function limitPermissions(requested: readonly string[] | null | undefined, allowed: readonly string[]): string[] {
  if (!requested || requested.length === 0) return [...allowed];
  const wanted = new Set(requested);
  return allowed.filter((permission) => wanted.has(permission));
}
