// Ending tokens on request: logout (every token of the personal profile and app) and a reused
// authorization code (every token it produced).
import type { Queryable } from '../storage/database.ts';
import type { TokenPrincipal, TokensContext } from './types.ts';
import * as store from './store.ts';

export async function logout(ctx: TokensContext, principal: TokenPrincipal): Promise<number> {
  // Logging out ends every token of the scope, so its refresh count may start again at sign-in.
  return ctx.core.sql.begin(async (tx) => {
    await store.clearRefreshGuard(tx, principal.personalProfileId, principal.clientId);
    return store.invalidatePersonalAppTokens(tx, principal.clientId, principal.personalProfileId, ctx.core.clock.now(), 'logout');
  }) as Promise<number>;
}

export function revokeForOauthCode(ctx: TokensContext, db: Queryable, oauthCodeId: string): Promise<number> {
  return store.invalidateOauthCodeTokens(db, oauthCodeId, ctx.core.clock.now());
}
