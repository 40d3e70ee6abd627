// Access tokens: `t<client_id>-<id>-<secret>`, stored only as a sha256 hash. A token has a soft
// and a hard expiration; the first use of a newer non-concurrent token invalidates the older ones
// of its scope; logout ends every token of the personal profile and app; refresh extends the soft
// expiration (as a new token) until the fifth failed attempt locks it.
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { authenticate } from './authenticate.ts';
import { issue } from './issue.ts';
import { closedLoopPermissions, defaultPermissions } from './permissions.ts';
import { refresh, registerPinVerifier } from './refresh.ts';
import { logout, revokeForOauthCode } from './revocation.ts';
import type { TokensService, TokensContext } from './types.ts';
export type { TokenSource, AccessTokenInfo, TokenPrincipal, TokenCheck, IssueInput, PinCheck, PinVerifier, RefreshResult, TokensService, TokensContext } from './types.ts';

export { closedLoopPermissions, defaultPermissions, grantedPermissions, knownPermissions, limitPermissions, requestableQualifiers } from './permissions.ts';
export { secondsUntil } from './issue.ts';
export { toPrincipal } from './authenticate.ts';

export function createTokensService(core: Core, dependencies: { profiles: ProfilesService }): TokensService {
  const ctx: TokensContext = { core, profiles: dependencies.profiles, pinVerifier: async () => 'none' };
  return {
    defaultPermissions,
    closedLoopPermissions,
    issue: (db, input) => issue(ctx, db, input),
    authenticate: (token) => authenticate(ctx, token),
    refresh: (principal, credentials) => refresh(ctx, principal, credentials),
    logout: (principal) => logout(ctx, principal),
    revokeForOauthCode: (db, oauthCodeId) => revokeForOauthCode(ctx, db, oauthCodeId),
    registerPinVerifier: (verifier) => registerPinVerifier(ctx, verifier),
  };
}
