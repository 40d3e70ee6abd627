// POST /token: an authorization code exchanged for an access token, once. A second use of a code
// revokes the tokens the first one produced.
import { constantTimeEqual, secretHash } from '../ids.ts';
import type { AccessTokenInfo } from '../tokens/service.ts';
import type { TokenEndpointError } from './errors.ts';
import type { OauthContext } from './service.ts';
import * as store from './store.ts';

type ExchangeInput = { grantType?: string; code?: string; redirectUri?: string; clientId?: string; clientSecret?: string; scope?: string };
type ExchangeOutcome = { ok: true; token: AccessTokenInfo } | { ok: false; error: TokenEndpointError; description: string };

/** The request's problem before any credential is checked, or null. */
function requestProblem(input: ExchangeInput): ExchangeOutcome | null {
  if (!input.grantType) return { ok: false, error: 'invalid_request', description: 'grant_type is required' };
  if (input.grantType !== 'authorization_code') return { ok: false, error: 'unsupported_grant_type', description: 'only authorization_code is supported' };
  if (!input.code || !input.redirectUri) return { ok: false, error: 'invalid_request', description: 'code and redirect_uri are required' };
  if (!input.clientId || input.clientSecret === undefined) return { ok: false, error: 'invalid_client', description: 'client credentials are required' };
  return null;
}

/** Redeems the code for the authenticated app, in one transaction with the code row locked. */
async function redeem(ctx: OauthContext, clientId: string, input: ExchangeInput & { code: string }, requested: string[] | null): Promise<ExchangeOutcome> {
  const codeHash = secretHash(input.code);
  const now = ctx.core.clock.now();
  return ctx.core.sql.begin(async (tx) => {
    const row = await store.selectCodeForUpdate(tx, codeHash);
    if (!row) return { ok: false as const, error: 'invalid_grant' as const, description: 'the code is not recognized' };
    if (!constantTimeEqual(row.client_id, clientId)) return { ok: false as const, error: 'unauthorized_client' as const, description: 'the code was issued to another app' };
    if (row.used_at) {
      await ctx.tokens.revokeForOauthCode(tx, row.id);
      return { ok: false as const, error: 'invalid_grant' as const, description: 'the code was already used; its tokens are revoked' };
    }
    if (row.expires_at.getTime() <= now.getTime()) return { ok: false as const, error: 'invalid_grant' as const, description: 'the code has expired' };
    if (row.redirect_uri !== input.redirectUri) return { ok: false as const, error: 'invalid_grant' as const, description: 'redirect_uri differs from the authorization request' };
    if (requested && requested.some((name) => !row.permissions.includes(name))) return { ok: false as const, error: 'invalid_scope' as const, description: 'scope exceeds what was authorized' };
    await store.markCodeUsed(tx, row.id, now);
    const token = await ctx.tokens.issue(tx, {
      clientId: row.client_id, profileId: row.profile_id, personalProfileId: row.profile_id, permissions: requested ?? row.permissions,
      deviceUuid: row.device_uuid, source: 'oauth', oauthCodeId: row.id, now,
    });
    return { ok: true as const, token };
  });
}

export async function exchange(ctx: OauthContext, input: ExchangeInput): Promise<ExchangeOutcome> {
  const problem = requestProblem(input);
  if (problem) return problem;
  const check = await ctx.apps.authenticate(input.clientId!, input.clientSecret!);
  if (!check.ok) return { ok: false, error: 'invalid_client', description: 'the client credentials are not valid' };
  const requested = input.scope ? input.scope.split(/[\s,]+/).filter(Boolean) : null;
  return redeem(ctx, check.app.clientId, { ...input, code: input.code! }, requested);
}
