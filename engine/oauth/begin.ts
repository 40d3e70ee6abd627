// The start of a browser flow (GET /authorize): the app and redirect URI checked, the request's
// parameters checked (errors go back to the app), and a new flow bound to a cookie secret.
import { randomHex, randomSecret, secretHash } from '../ids.ts';
import { deviceNameCharsMax, deviceUuidCharsMax, oauthErrorDescriptionCharsMax, oauthFlowLifetimeMs, oauthFlowSecretBytes, oauthStateCharsMax } from '../limits.ts';
import { grantedPermissions, knownPermissions } from '../tokens/service.ts';
import { page, withParams } from './pages.ts';
import type { AuthorizeParams, FlowOutcome, OauthContext } from './service.ts';
import * as store from './store.ts';
import type { FlowRow } from './store.ts';

/** The request's problem, as a redirect back to the app; null when the request can start a flow. */
function requestProblem(params: AuthorizeParams, scope: string[], redirectUri: string, implicitGrant: boolean): FlowOutcome | null {
  const fail = (error: string, description: string): FlowOutcome => ({ kind: 'redirect', location: withParams(redirectUri, { error, error_description: description, state: params.state }) });
  if (params.responseType !== 'code' && params.responseType !== 'token') return fail('unsupported_response_type', 'response_type must be code or token');
  if (params.responseType === 'token' && !implicitGrant) return fail('unauthorized_client', 'the app is not enabled for the implicit grant');
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
  const problem = requestProblem(params, scope, redirectUri, app.implicitGrant);
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
  };
  await store.insertFlow(ctx.core.sql, { ...flow, flowHash: secretHash(flowSecret) }, now);
  return page(ctx, flowSecret, flow, 'signin');
}
