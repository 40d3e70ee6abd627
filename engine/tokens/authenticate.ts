// Resolving a bearer token to its principal; the first use of a newer non-concurrent token ends
// the older ones of its scope.
import { secretHash } from '../ids.ts';
import type { TokenRow } from './store.ts';
import * as store from './store.ts';
import type { TokenCheck, TokenPrincipal, TokensContext, TokenSource } from './types.ts';

const tokenPattern = /^t\d{10}-\d{16}-[A-Za-z0-9_-]{16,64}$/;

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

/** Marks the first use; false when the token was invalidated meanwhile. */
async function firstUse(ctx: TokensContext, row: TokenRow, now: Date): Promise<boolean> {
  // The first use of a newer non-concurrent token ends the older ones of its scope.
  return ctx.core.sql.begin(async (tx) => {
    await store.lockScopeThrough(tx, row);
    const current = await store.selectTokenForUpdate(tx, row.id);
    if (!current || current.invalidated_at) return false;
    if (await store.markFirstUse(tx, row.id, now)) {
      if (!current.concurrent) await store.invalidateOlderInScope(tx, current, now, 'newer_token_used');
    }
    return true;
  });
}

export async function authenticate(ctx: TokensContext, token: string): Promise<TokenCheck> {
  if (!tokenPattern.test(token)) return { ok: false, error: 'token_not_recognized' };
  const now = ctx.core.clock.now();
  const row = await store.selectTokenForAuthentication(ctx.core.database.lookups, secretHash(token));
  if (!row) return { ok: false, error: 'token_not_recognized' };
  if (now.getTime() >= row.hard_expires_at.getTime()) return { ok: false, error: 'token_expired_hard' };
  if (row.invalidated_at) return { ok: false, error: 'token_invalid' };
  // A wallet that is not active acts through no token (docs/decisions.md); unsuspended, the token works again.
  if (!row.wallets_active) return { ok: false, error: 'token_invalid' };
  if (!row.first_used_at && !(await firstUse(ctx, row, now))) return { ok: false, error: 'token_invalid' };
  return { ok: true, principal: toPrincipal(row, now) };
}
