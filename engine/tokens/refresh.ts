// Refresh: extends the soft expiration (as a new token) when the personal profile's password or a
// PIN matches; failures count per token and per personal profile and app, and lock at the fifth.
import { secretHash } from '../ids.ts';
import { refreshFailuresMax } from '../limits.ts';
import { verifySecret } from '../passwords.ts';
import type { Queryable } from '../storage/database.ts';
import type { RefreshError } from './errors.ts';
import { issue } from './issue.ts';
import type { PinCheck, PinVerifier, RefreshResult, TokenPrincipal, TokensContext } from './types.ts';
import * as store from './store.ts';
import type { TokenRow } from './store.ts';

type Credentials = { password?: string; pin?: string };

export function registerPinVerifier(ctx: TokensContext, verifier: PinVerifier): void {
  ctx.pinVerifier = verifier;
}

/** Whether the password or the PIN matches; 'none' when no PIN is set. */
async function verdictOf(ctx: TokensContext, principal: TokenPrincipal, credentials: Credentials): Promise<PinCheck> {
  const { sql } = ctx.core;
  if (credentials.password !== undefined) {
    const personal = await ctx.profiles.get(sql, principal.personalProfileId);
    return (await verifySecret(personal?.passwordHash, credentials.password)) ? 'match' : 'mismatch';
  }
  return ctx.pinVerifier(sql, {
    profileId: principal.profileId,
    personalProfileId: principal.personalProfileId,
    deviceUuid: principal.deviceId,
    pin: credentials.pin ?? '',
  });
}

/** The new token: the refreshed one's scope and hard expiration; it and older ones of the scope end now. */
async function replace(ctx: TokensContext, tx: Queryable, row: TokenRow, now: Date): Promise<RefreshResult> {
  await store.clearRefreshGuard(tx, row.personal_profile_id, row.client_id);
  const token = await issue(ctx, tx, {
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
}

/** The locked part: the token still refreshable, the guard counted, then the verdict told. */
async function settle(ctx: TokensContext, principal: TokenPrincipal, before: TokenRow | null, verdict: PinCheck, failure: RefreshError): Promise<RefreshResult> {
  return ctx.core.sql.begin(async (tx): Promise<RefreshResult> => {
    const now = ctx.core.clock.now();
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
    return replace(ctx, tx, row, now);
  }) as Promise<RefreshResult>;
}

export async function refresh(ctx: TokensContext, principal: TokenPrincipal, credentials: Credentials): Promise<RefreshResult> {
  const { sql } = ctx.core;
  // Failures count per personal profile and app: a token from /token/select starts no fresh count.
  const before = await store.selectToken(sql, principal.tokenId);
  if (before && before.refresh_failures >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
  if ((await store.refreshGuardFailures(sql, principal.personalProfileId, principal.clientId)) >= refreshFailuresMax) return { ok: false, error: 'refresh_locked' };
  const verdict = await verdictOf(ctx, principal, credentials);
  if (credentials.password === undefined && verdict === 'none') return { ok: false, error: 'pin_not_set' };
  const failure: RefreshError = credentials.password !== undefined ? 'incorrect_password' : 'incorrect_pin';
  return settle(ctx, principal, before, verdict, failure);
}
