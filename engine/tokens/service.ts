// Access tokens: `t<client_id>-<id>-<secret>`, stored only as a sha256 hash. A token has a soft
// and a hard expiration; the first use of a newer non-concurrent token invalidates the older ones
// of its scope; logout ends every token of the personal profile and app; refresh extends the soft
// expiration (as a new token) until the fifth failed attempt locks it.
import type { Core } from '../core.ts';
import { randomSecret, secretHash } from '../ids.ts';
import { concurrentTokenHardExpirationMs, refreshFailuresMax, tokenHardExpirationMs, tokenSecretBytes, tokenSoftExpirationMs } from '../limits.ts';
import { verifySecret } from '../passwords.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import type { RefreshError } from './errors.ts';
import * as store from './store.ts';
import type { TokenRow } from './store.ts';

export type TokenSource = 'oauth' | 'authn' | 'p_token' | 'select' | 'refresh' | 'offer';

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

/** The wire AccessTokenInfo (supplement 2.3). */
export interface AccessTokenInfo {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  hard_expires_in: number;
  scope: string;
}

export interface TokenPrincipal {
  tokenId: string;
  clientId: string;
  profileId: string;
  personalProfileId: string;
  deviceId: string | null;
  permissions: ReadonlySet<string>;
  concurrent: boolean;
  softExpired: boolean;
  /** Issued by POST /p/token: closed loop cash only. */
  closedLoopOnly: boolean;
  source: TokenSource;
  oauthCodeId: string | null;
  softExpiresAt: Date;
  hardExpiresAt: Date;
}

export type TokenCheck =
  | { ok: true; principal: TokenPrincipal }
  | { ok: false; error: 'token_not_recognized' | 'token_expired_hard' | 'token_invalid' };

export interface IssueInput {
  clientId: string;
  profileId: string;
  personalProfileId: string;
  permissions: string[];
  deviceUuid?: string | null;
  concurrent?: boolean;
  source: TokenSource;
  oauthCodeId?: string | null;
  now: Date;
  /** An earlier hard expiration than the default (refresh keeps it; select never outlives its parent). */
  hardExpiresAt?: Date;
  /** Defaults to true for POST /p/token. */
  closedLoopOnly?: boolean;
  /** Whether only older tokens of the same device are invalidated; defaults to true for select and /p/token. */
  deviceScoped?: boolean;
}

export type PinCheck = 'match' | 'mismatch' | 'none';
export type PinVerifier = (db: Queryable, input: { profileId: string; personalProfileId: string; deviceUuid: string | null; pin: string }) => Promise<PinCheck>;

export type RefreshResult = { ok: true; token: AccessTokenInfo } | { ok: false; error: RefreshError };

export interface TokensService {
  readonly defaultPermissions: readonly string[];
  readonly closedLoopPermissions: readonly string[];
  issue(db: Queryable, input: IssueInput): Promise<AccessTokenInfo>;
  authenticate(token: string): Promise<TokenCheck>;
  /** Refresh with the personal profile's password or a PIN (device password). */
  refresh(principal: TokenPrincipal, credentials: { password?: string; pin?: string }): Promise<RefreshResult>;
  /** Ends every token of the principal's personal profile and app. */
  logout(principal: TokenPrincipal): Promise<number>;
  /** A reused authorization code invalidates every token it produced (and their refreshes and selections). */
  revokeForOauthCode(db: Queryable, oauthCodeId: string): Promise<number>;
  registerPinVerifier(verifier: PinVerifier): void;
}

const tokenPattern = /^t\d{10}-\d{16}-[A-Za-z0-9_-]{16,64}$/;

/** Whole seconds left, rounded down and one short, so a client never acts a second too late (sample 899 for 15 minutes). */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000) - 1);
}

export function toPrincipal(row: TokenRow, now: Date): TokenPrincipal {
  return {
    tokenId: row.id,
    clientId: row.client_id,
    profileId: row.profile_id,
    personalProfileId: row.personal_profile_id,
    deviceId: row.device_uuid,
    permissions: new Set(row.permissions),
    concurrent: row.concurrent,
    softExpired: now.getTime() >= row.soft_expires_at.getTime(),
    closedLoopOnly: row.closed_loop_only,
    source: row.source as TokenSource,
    oauthCodeId: row.oauth_code_id,
    softExpiresAt: row.soft_expires_at,
    hardExpiresAt: row.hard_expires_at,
  };
}

export function createTokensService(core: Core, dependencies: { profiles: ProfilesService }): TokensService {
  const { sql, clock } = core;
  const { profiles } = dependencies;
  let pinVerifier: PinVerifier = async () => 'none';

  async function issue(db: Queryable, input: IssueInput): Promise<AccessTokenInfo> {
    const concurrent = input.concurrent ?? false;
    const defaultHardMs = concurrent ? concurrentTokenHardExpirationMs : tokenHardExpirationMs;
    let hardExpiresAt = new Date(input.now.getTime() + defaultHardMs);
    if (input.hardExpiresAt && input.hardExpiresAt < hardExpiresAt) hardExpiresAt = input.hardExpiresAt;
    const softMs = Math.min(input.now.getTime() + tokenSoftExpirationMs, hardExpiresAt.getTime());
    const softExpiresAt = new Date(softMs);
    // A full sign-in (password and second factor, or OAuth) proves the person again: the refresh count restarts.
    if (input.source === 'authn' || input.source === 'oauth') await store.clearRefreshGuard(db, input.personalProfileId, input.clientId);
    const sequence = await store.nextTokenSequence(db);
    const id = core.ids.long(sequence, 'token');
    const accessToken = `t${input.clientId}-${id}-${randomSecret(tokenSecretBytes)}`;
    const permissions = [...new Set(input.permissions)];
    await store.insertToken(db, {
      id,
      sequence,
      token_hash: secretHash(accessToken),
      client_id: input.clientId,
      profile_id: input.profileId,
      personal_profile_id: input.personalProfileId,
      device_uuid: input.deviceUuid ?? null,
      device_scoped: input.deviceScoped ?? (input.source === 'select' || input.source === 'p_token'),
      permissions,
      concurrent,
      closed_loop_only: input.closedLoopOnly ?? input.source === 'p_token',
      source: input.source,
      oauth_code_id: input.oauthCodeId ?? null,
      issued_at: input.now,
      soft_expires_at: softExpiresAt,
      hard_expires_at: hardExpiresAt,
    });
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: secondsUntil(softExpiresAt, input.now),
      hard_expires_in: secondsUntil(hardExpiresAt, input.now),
      scope: permissions.join(' '),
    };
  }

  return {
    defaultPermissions,
    closedLoopPermissions,
    issue,

    async authenticate(token) {
      if (!tokenPattern.test(token)) return { ok: false, error: 'token_not_recognized' };
      const now = clock.now();
      const row = await store.selectTokenByHash(core.database.lookups, secretHash(token));
      if (!row) return { ok: false, error: 'token_not_recognized' };
      if (now.getTime() >= row.hard_expires_at.getTime()) return { ok: false, error: 'token_expired_hard' };
      if (row.invalidated_at) return { ok: false, error: 'token_invalid' };
      if (!row.first_used_at) {
        // The first use of a newer non-concurrent token ends the older ones of its scope.
        const stillValid = await sql.begin(async (tx) => {
          await store.lockScopeThrough(tx, row);
          const current = await store.selectTokenForUpdate(tx, row.id);
          if (!current || current.invalidated_at) return false;
          if (await store.markFirstUse(tx, row.id, now)) {
            if (!current.concurrent) await store.invalidateOlderInScope(tx, current, now, 'newer_token_used');
          }
          return true;
        });
        if (!stillValid) return { ok: false, error: 'token_invalid' };
      }
      return { ok: true, principal: toPrincipal(row, now) };
    },

    async refresh(principal, credentials) {
      // Failures count per personal profile and app: a token from /token/select starts no fresh count.
      const before = await store.selectToken(sql, principal.tokenId);
      if (before && before.refresh_failures >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
      if ((await store.refreshGuardFailures(sql, principal.personalProfileId, principal.clientId)) >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
      let verdict: 'match' | 'mismatch' | 'none';
      if (credentials.password !== undefined) {
        const personal = await profiles.get(sql, principal.personalProfileId);
        verdict = (await verifySecret(personal?.passwordHash, credentials.password)) ? 'match' : 'mismatch';
      } else {
        verdict = await pinVerifier(sql, {
          profileId: principal.profileId,
          personalProfileId: principal.personalProfileId,
          deviceUuid: principal.deviceId,
          pin: credentials.pin ?? '',
        });
        if (verdict === 'none') return { ok: false, error: 'pin_not_set' };
      }
      const failure: RefreshError = credentials.password !== undefined ? 'incorrect_password' : 'incorrect_pin';
      return sql.begin(async (tx): Promise<RefreshResult> => {
        const now = clock.now();
        if (before) await store.lockScopeThrough(tx, before);
        const row = await store.selectTokenForUpdate(tx, principal.tokenId);
        if (!row) return { ok: false, error: 'token_invalid' };
        if (now.getTime() >= row.hard_expires_at.getTime()) return { ok: false, error: 'token_expired_hard' };
        if (row.invalidated_at) return { ok: false, error: 'token_invalid' };
        if (row.refresh_failures >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
        // Locked before the verdict is told, so parallel guesses reveal at most refreshFailuresMax verdicts.
        if ((await store.lockRefreshGuard(tx, row.personal_profile_id, row.client_id, now)) >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
        if (verdict !== 'match') {
          await store.incrementRefreshFailures(tx, row.id);
          await store.countRefreshFailure(tx, row.personal_profile_id, row.client_id, now);
          return { ok: false, error: failure };
        }
        await store.clearRefreshGuard(tx, row.personal_profile_id, row.client_id);
        const token = await issue(tx, {
          clientId: row.client_id,
          profileId: row.profile_id,
          personalProfileId: row.personal_profile_id,
          permissions: row.permissions,
          deviceUuid: row.device_uuid,
          concurrent: row.concurrent,
          source: 'refresh',
          oauthCodeId: row.oauth_code_id,
          now,
          hardExpiresAt: row.hard_expires_at,
          closedLoopOnly: row.closed_loop_only,
          deviceScoped: row.device_scoped,
        });
        // The new token keeps the hard expiration; the refreshed token and older ones of the scope end now.
        await store.invalidateToken(tx, row.id, now, 'refreshed');
        const fresh = await store.selectTokenByHash(tx, secretHash(token.access_token));
        if (fresh && !fresh.concurrent) await store.invalidateOlderInScope(tx, fresh, now, 'refreshed');
        return { ok: true, token };
      }) as Promise<RefreshResult>;
    },

    async logout(principal) {
      // Logging out ends every token of the scope, so its refresh count may start again at sign-in.
      return sql.begin(async (tx) => {
        await store.clearRefreshGuard(tx, principal.personalProfileId, principal.clientId);
        return store.invalidatePersonalAppTokens(tx, principal.clientId, principal.personalProfileId, clock.now(), 'logout');
      }) as Promise<number>;
    },

    revokeForOauthCode: (db, oauthCodeId) => store.invalidateOauthCodeTokens(db, oauthCodeId, clock.now()),

    registerPinVerifier(verifier) {
      pinVerifier = verifier;
    },
  };
}
