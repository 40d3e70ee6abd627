// The start of a browser flow (GET /authorize): the app and redirect URI checked, the request's
// parameters checked (errors go back to the app), and a new flow bound to a cookie secret.
import { randomHex, randomSecret, secretHash } from '../ids.ts';
import { deviceNameCharsMax, deviceUuidCharsMax, oauthErrorDescriptionCharsMax, oauthFlowLifetimeMs, oauthFlowSecretBytes, oauthStateCharsMax, pkceChallengeChars } from '../limits.ts';
import { grantedPermissions, knownPermissions } from '../tokens/service.ts';
import { page, withParams } from './pages.ts';
import type { AuthorizeParams, FlowOutcome, OauthContext } from './types.ts';
import * as store from './store.ts';
import type { FlowRow } from './store.ts';

const s256Challenge = new RegExp(`^[A-Za-z0-9_-]{${pkceChallengeChars}}$`);

/**
 * PKCE (RFC 7636) for the code grant: S256 only (a challenge without a method means plain, also
 * refused). The implicit grant ignores it. A code without a challenge can be redeemed only with the
 * app's secret (exchange.ts), so a public client must use it. Null when acceptable.
 */
function pkceProblem(params: AuthorizeParams): [error: string, description: string] | null {
  if (params.responseType !== 'code') return null;
  if (params.codeChallenge === undefined) return params.codeChallengeMethod === undefined ? null : ['invalid_request', 'code_challenge_method needs a code_challenge'];
  if (params.codeChallengeMethod !== 'S256') return ['invalid_request', 'code_challenge_method must be S256 (plain is not supported)'];
  if (!s256Challenge.test(params.codeChallenge)) return ['invalid_request', `code_challenge must be the base64url SHA-256 of the code_verifier (${pkceChallengeChars} characters)`];
  return null;
}

/** The request's problem, as a redirect back to the app; null when the request can start a flow. */
function requestProblem(params: AuthorizeParams, scope: string[], redirectUri: string, app: { implicitGrant: boolean }): FlowOutcome | null {
  const fail = (error: string, description: string): FlowOutcome => ({ kind: 'redirect', location: withParams(redirectUri, { error, error_description: description, state: params.state }) });
  if (params.responseType === undefined) return fail('invalid_request', 'response_type is required');
  if (params.responseType !== 'code' && params.responseType !== 'token') return fail('unsupported_response_type', 'response_type must be code or token');
  if (params.responseType === 'token' && !app.implicitGrant) return fail('unauthorized_client', 'the app is not enabled for the implicit grant');
  const pkce = pkceProblem(params);
  if (pkce) return fail(...pkce);
  const unknown = scope.filter((name) => !knownPermissions.includes(name));
  if (unknown.length > 0) return fail('invalid_scope', `unknown permissions: ${unknown.join(' ')}`.slice(0, oauthErrorDescriptionCharsMax));
  if (params.uuid !== undefined && !new RegExp(`^[0-9A-Za-z_-]{1,${deviceUuidCharsMax}}$`).test(params.uuid)) return fail('invalid_request', 'uuid is not a valid device UUID');
  if (params.state !== undefined && params.state.length > oauthStateCharsMax) return fail('invalid_request', 'state is too long');
  return null;
}

export async function begin(ctx: OauthContext, params: AuthorizeParams): Promise<FlowOutcome> {
  const app = params.clientId ? await ctx.apps.get(params.clientId) : null;
  if (!app) return { kind: 'error', message: 'The app (client_id) is not known.' };
  const redirectUri = params.redirectUri ?? (app.redirectUris.length === 1 ? app.redirectUris[0] : undefined);
  if (!redirectUri || !app.redirectUris.includes(redirectUri)) return { kind: 'error', message: 'The redirect_uri does not match the app configuration.' };
  const scope = (params.scope ?? '').split(/[\s,]+/).filter(Boolean);
  const problem = requestProblem(params, scope, redirectUri, app);
  if (problem) return problem;
  const flowSecret = randomSecret(oauthFlowSecretBytes);
  const now = ctx.core.clock.now();
  const flow: FlowRow = {
    id: randomHex(8),
    client_id: app.clientId,
    redirect_uri: redirectUri,
    // requestProblem let only code and token through.
    response_type: params.responseType as FlowRow['response_type'],
    // What is requested and allowed (the default set without a scope), never more.
    scope: grantedPermissions(scope, app.userPermissions),
    state: params.state ?? null,
    device_uuid: params.uuid ?? null,
    device_name: params.name?.slice(0, deviceNameCharsMax) ?? null,
    attempt_id: null,
    factor_id: null,
    profile_id: null,
    step: 'signin',
    expires_at: new Date(now.getTime() + oauthFlowLifetimeMs),
    // Kept only for the code grant, whose code carries it to POST /token.
    code_challenge: params.responseType === 'code' ? params.codeChallenge ?? null : null,
  };
  await store.insertFlow(ctx.core.sql, { ...flow, flowHash: secretHash(flowSecret) }, now);
  return page(ctx, flowSecret, flow, 'signin');
}
