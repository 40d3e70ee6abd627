// POST /token: an authorization code exchanged for an access token, once. A second use of a code
// revokes the tokens the first one produced. A code issued with a PKCE challenge needs its
// verifier (RFC 7636). A public client (an app flagged public that sends its client_id without a
// secret) may redeem only a code issued with PKCE: the verifier stands in for the secret.
import { createHash } from 'node:crypto';
import { constantTimeEqual, secretHash } from '../ids.ts';
import { pkceVerifierCharsMax, pkceVerifierCharsMin } from '../limits.ts';
import type { TokenEndpointError } from './errors.ts';
import type { ExchangeInput, ExchangeOutcome, OauthContext } from './types.ts';
import * as store from './store.ts';
import type { CodeRow } from './store.ts';


const verifierPattern = new RegExp(`^[A-Za-z0-9._~-]{${pkceVerifierCharsMin},${pkceVerifierCharsMax}}$`);

/** The request's problem before any credential is checked, or null. */
function requestProblem(input: ExchangeInput): ExchangeOutcome | null {
  if (!input.grantType) return { ok: false, error: 'invalid_request', description: 'grant_type is required' };
  if (input.grantType !== 'authorization_code') return { ok: false, error: 'unsupported_grant_type', description: 'only authorization_code is supported' };
  if (!input.code || !input.redirectUri) return { ok: false, error: 'invalid_request', description: 'code and redirect_uri are required' };
  if (input.codeVerifier !== undefined && !verifierPattern.test(input.codeVerifier)) {
    return { ok: false, error: 'invalid_request', description: `code_verifier must be ${pkceVerifierCharsMin} to ${pkceVerifierCharsMax} characters of A-Z a-z 0-9 - . _ ~` };
  }
  if (!input.clientId) return { ok: false, error: 'invalid_client', description: 'client credentials are required' };
  return null;
}

/** The app of the request: checked by its secret, or a public app named by client_id alone (it must prove PKCE). */
async function clientOf(ctx: OauthContext, clientId: string, clientSecret: string | undefined): Promise<{ clientId: string; secretChecked: boolean } | null> {
  if (clientSecret !== undefined) {
    const check = await ctx.apps.authenticate(clientId, clientSecret);
    return check.ok ? { clientId: check.app.clientId, secretChecked: true } : null;
  }
  const app = await ctx.apps.get(clientId);
  return app?.isPublic ? { clientId: app.clientId, secretChecked: false } : null;
}

/** RFC 7636 4.6: BASE64URL(SHA256(code_verifier)) must equal the stored S256 challenge. Null when it holds. */
function verifierProblem(row: CodeRow, verifier: string | undefined, secretChecked: boolean): string | null {
  if (row.code_challenge === null) {
    if (verifier !== undefined) return 'code_verifier was sent but the authorization request had no code_challenge';
    return secretChecked ? null : 'a code redeemed without the client secret needs PKCE: the authorization request had no code_challenge';
  }
  if (verifier === undefined) return 'code_verifier is required: the authorization request had a code_challenge';
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return constantTimeEqual(computed, row.code_challenge) ? null : 'code_verifier does not match the code_challenge';
}

/** Redeems the code for the authenticated app, in one transaction with the code row locked. */
async function redeem(ctx: OauthContext, client: { clientId: string; secretChecked: boolean }, input: ExchangeInput & { code: string }, requested: string[] | null): Promise<ExchangeOutcome> {
  const codeHash = secretHash(input.code);
  const now = ctx.core.clock.now();
  const refuse = (error: TokenEndpointError, description: string) => ({ ok: false as const, error, description });
  return ctx.core.sql.begin(async (tx) => {
    const row = await store.selectCodeForUpdate(tx, codeHash);
    if (!row) return refuse('invalid_grant', 'the code is not recognized');
    if (!constantTimeEqual(row.client_id, client.clientId)) return refuse('unauthorized_client', 'the code was issued to another app');
    if (row.used_at) {
      await ctx.tokens.revokeForOauthCode(tx, row.id);
      return refuse('invalid_grant', 'the code was already used; its tokens are revoked');
    }
    if (row.expires_at.getTime() <= now.getTime()) return refuse('invalid_grant', 'the code has expired');
    if (row.redirect_uri !== input.redirectUri) return refuse('invalid_grant', 'redirect_uri differs from the authorization request');
    const pkce = verifierProblem(row, input.codeVerifier, client.secretChecked);
    if (pkce) return refuse('invalid_grant', pkce);
    if (requested && requested.some((name) => !row.permissions.includes(name))) return refuse('invalid_scope', 'scope exceeds what was authorized');
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
  const client = await clientOf(ctx, input.clientId!, input.clientSecret);
  if (!client) return { ok: false, error: 'invalid_client', description: input.clientSecret === undefined ? 'client credentials are required' : 'the client credentials are not valid' };
  const requested = input.scope ? input.scope.split(/[\s,]+/).filter(Boolean) : null;
  return redeem(ctx, client, { ...input, code: input.code! }, requested);
}
