// The OAuth 2 authorization flow: /authorize pages (sign in with an attempt, prove a code,
// consent) and POST /token. A browser flow is bound to a secret held in an HttpOnly cookie and
// echoed by every form (double submit). Authorization codes are stored only as hashes, expire
// after 10 minutes and work once; a second use revokes the tokens the first one produced.
import type { AppsService } from '../apps/service.ts';
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import { constantTimeEqual, randomHex, randomSecret, secretHash } from '../ids.ts';
import {
  defaultCountries, deviceNameCharsMax, deviceUuidCharsMax, oauthCodeLifetimeMs, oauthCodeSecretBytes, oauthErrorDescriptionCharsMax,
  oauthFlowLifetimeMs, oauthFlowSecretBytes, oauthStateCharsMax,
} from '../limits.ts';
import type { AccessTokenInfo, TokensService } from '../tokens/service.ts';
import { grantedPermissions, knownPermissions } from '../tokens/service.ts';
import type { TokenEndpointError } from './errors.ts';
import * as store from './store.ts';
import type { FlowRow } from './store.ts';

export interface AuthorizeParams {
  responseType?: string;
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
  uuid?: string;
  name?: string;
}

/** Where the flow stands: a page to render, or a redirect back to the app. */
export type FlowOutcome =
  | { kind: 'page'; page: 'signin' | 'code' | 'consent'; flowSecret: string; flow: FlowRow; appName: string; message?: string; revealedCode?: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'error'; message: string };

export interface OauthService {
  begin(params: AuthorizeParams): Promise<FlowOutcome>;
  signin(flowSecret: string, login: string, password: string): Promise<FlowOutcome>;
  proveCode(flowSecret: string, code: string): Promise<FlowOutcome>;
  consent(flowSecret: string, allow: boolean): Promise<FlowOutcome>;
  exchange(input: { grantType?: string; code?: string; redirectUri?: string; clientId?: string; clientSecret?: string; scope?: string }): Promise<{ ok: true; token: AccessTokenInfo } | { ok: false; error: TokenEndpointError; description: string }>;
}

function withParams(uri: string, params: Record<string, string | null | undefined>, fragment = false): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, value);
  if (fragment) return `${uri.split('#')[0]}#${search.toString()}`;
  return `${uri}${uri.includes('?') ? '&' : '?'}${search.toString()}`;
}

export function createOauthService(core: Core, dependencies: { apps: AppsService; authn: AuthnService; tokens: TokensService }): OauthService {
  const { sql, clock } = core;
  const { apps, authn, tokens } = dependencies;
  const sandbox = core.config.mode === 'sandbox';

  async function flowFor(flowSecret: string): Promise<FlowRow | null> {
    if (!flowSecret) return null;
    return store.selectFlow(sql, secretHash(flowSecret), clock.now());
  }

  async function page(flowSecret: string, flow: FlowRow, pageName: 'signin' | 'code' | 'consent', extras: { message?: string; revealedCode?: string } = {}): Promise<FlowOutcome> {
    const app = await apps.get(flow.client_id);
    return { kind: 'page', page: pageName, flowSecret, flow, appName: app?.name ?? 'An app', ...extras };
  }

  const expired: FlowOutcome = { kind: 'error', message: 'This sign-in page has expired. Go back to the app and start again.' };

  /** After the attempt completes: consent. */
  async function afterAttempt(flowSecret: string, flow: FlowRow, result: Record<string, unknown>): Promise<FlowOutcome> {
    if (result.completed_mfa === true && typeof result.profile_id === 'string') {
      await store.updateFlow(sql, flow.id, { step: 'consent', profileId: result.profile_id });
      return page(flowSecret, { ...flow, step: 'consent', profile_id: result.profile_id }, 'consent');
    }
    if (typeof result.factor_id === 'string') {
      await store.updateFlow(sql, flow.id, { step: 'code', factorId: result.factor_id });
      const revealed = sandbox && Array.isArray(result.revealed_codes) ? String(result.revealed_codes[0] ?? '').split(' => ')[0] : undefined;
      return page(flowSecret, { ...flow, step: 'code', factor_id: result.factor_id }, 'code', { revealedCode: revealed || undefined });
    }
    return { kind: 'error', message: 'This wallet cannot sign in here yet. Use the app to finish setting it up.' };
  }

  return {
    async begin(params) {
      const app = params.clientId ? await apps.get(params.clientId) : null;
      if (!app) return { kind: 'error', message: 'The app (client_id) is not known.' };
      const redirectUri = params.redirectUri ?? (app.redirectUris.length === 1 ? app.redirectUris[0] : undefined);
      if (!redirectUri || !app.redirectUris.includes(redirectUri)) return { kind: 'error', message: 'The redirect_uri does not match the app configuration.' };
      const fail = (error: string, description: string): FlowOutcome => ({ kind: 'redirect', location: withParams(redirectUri, { error, error_description: description, state: params.state }) });
      if (params.responseType !== 'code' && params.responseType !== 'token') return fail('unsupported_response_type', 'response_type must be code or token');
      if (params.responseType === 'token' && !app.implicitGrant) return fail('unauthorized_client', 'the app is not enabled for the implicit grant');
      const scope = (params.scope ?? '').split(/[\s,]+/).filter(Boolean);
      const unknown = scope.filter((name) => !knownPermissions.includes(name));
      if (unknown.length > 0) return fail('invalid_scope', `unknown permissions: ${unknown.join(' ')}`.slice(0, oauthErrorDescriptionCharsMax));
      if (params.uuid !== undefined && !new RegExp(`^[0-9A-Za-z_-]{1,${deviceUuidCharsMax}}$`).test(params.uuid)) return fail('invalid_request', 'uuid is not a valid device UUID');
      if (params.state !== undefined && params.state.length > oauthStateCharsMax) return fail('invalid_request', 'state is too long');
      const flowSecret = randomSecret(oauthFlowSecretBytes);
      const now = clock.now();
      const flow: FlowRow = {
        id: randomHex(8),
        client_id: app.clientId,
        redirect_uri: redirectUri,
        response_type: params.responseType,
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
      await store.insertFlow(sql, { ...flow, flowHash: secretHash(flowSecret) }, now);
      return page(flowSecret, flow, 'signin');
    },

    async signin(flowSecret, login, password) {
      const flow = await flowFor(flowSecret);
      if (!flow) return expired;
      if (flow.step !== 'signin') return page(flowSecret, flow, flow.step as 'code' | 'consent');
      const outcome = await authn.start({
        intent: 'signin',
        clientId: flow.client_id,
        deviceUuid: flow.device_uuid ?? `browser-${flow.id}`,
        deviceName: flow.device_name,
        login,
        countries: defaultCountries,
        password,
        permissions: flow.scope,
        viaAuthorize: true,
      });
      if (!outcome.ok) {
        const message = outcome.error === 'captcha_required' ? 'Too many incorrect passwords. Try again later.' : 'The login or the password is not correct.';
        return page(flowSecret, flow, 'signin', { message });
      }
      const attemptId = String(outcome.result.attempt_path).split('/')[2];
      await store.updateFlow(sql, flow.id, { step: 'signin', attemptId });
      return afterAttempt(flowSecret, { ...flow, attempt_id: attemptId }, outcome.result);
    },

    async proveCode(flowSecret, code) {
      const flow = await flowFor(flowSecret);
      if (!flow) return expired;
      if (flow.step !== 'code' || !flow.attempt_id || !flow.factor_id) return page(flowSecret, flow, flow.step as 'signin' | 'consent');
      const outcome = await authn.authUid(flow.attempt_id, { internal: true }, { factorId: flow.factor_id, code });
      if (!outcome.ok) {
        if (outcome.error === 'attempt_gone') {
          await store.updateFlow(sql, flow.id, { step: 'signin' });
          return page(flowSecret, { ...flow, step: 'signin' }, 'signin', { message: 'Too many incorrect codes. Sign in again.' });
        }
        const message = outcome.error === 'captcha_required' ? 'Too many incorrect codes. Sign in again later.' : 'The code is not correct.';
        return page(flowSecret, flow, 'code', { message });
      }
      return afterAttempt(flowSecret, flow, outcome.result);
    },

    async consent(flowSecret, allow) {
      const flow = await flowFor(flowSecret);
      if (!flow) return expired;
      if (flow.step !== 'consent' || !flow.profile_id) return page(flowSecret, flow, flow.step as 'signin' | 'code');
      await store.updateFlow(sql, flow.id, { step: 'done' });
      const state = flow.state;
      if (!allow) return { kind: 'redirect', location: withParams(flow.redirect_uri, { error: 'access_denied', error_description: 'The user denied access.', state }) };
      const now = clock.now();
      if (flow.response_type === 'token') {
        const token = await tokens.issue(sql, {
          clientId: flow.client_id, profileId: flow.profile_id, personalProfileId: flow.profile_id, permissions: flow.scope, deviceUuid: flow.device_uuid, source: 'oauth', now,
        });
        return {
          kind: 'redirect',
          location: withParams(flow.redirect_uri, { access_token: token.access_token, token_type: token.token_type, expires_in: String(token.expires_in), scope: token.scope, state }, true),
        };
      }
      const code = randomSecret(oauthCodeSecretBytes);
      await store.insertCode(sql, {
        id: randomHex(10), codeHash: secretHash(code), client_id: flow.client_id, redirect_uri: flow.redirect_uri, profile_id: flow.profile_id,
        permissions: flow.scope, device_uuid: flow.device_uuid, expires_at: new Date(now.getTime() + oauthCodeLifetimeMs),
      }, now);
      return { kind: 'redirect', location: withParams(flow.redirect_uri, { code, state }) };
    },

    async exchange(input) {
      if (!input.grantType) return { ok: false, error: 'invalid_request', description: 'grant_type is required' };
      if (input.grantType !== 'authorization_code') return { ok: false, error: 'unsupported_grant_type', description: 'only authorization_code is supported' };
      if (!input.code || !input.redirectUri) return { ok: false, error: 'invalid_request', description: 'code and redirect_uri are required' };
      if (!input.clientId || input.clientSecret === undefined) return { ok: false, error: 'invalid_client', description: 'client credentials are required' };
      const check = await apps.authenticate(input.clientId, input.clientSecret);
      if (!check.ok) return { ok: false, error: 'invalid_client', description: 'the client credentials are not valid' };
      const requested = input.scope ? input.scope.split(/[\s,]+/).filter(Boolean) : null;
      const codeHash = secretHash(input.code);
      const now = clock.now();
      return sql.begin(async (tx) => {
        const row = await store.selectCodeForUpdate(tx, codeHash);
        if (!row) return { ok: false as const, error: 'invalid_grant' as const, description: 'the code is not recognized' };
        if (!constantTimeEqual(row.client_id, check.app.clientId)) return { ok: false as const, error: 'unauthorized_client' as const, description: 'the code was issued to another app' };
        if (row.used_at) {
          await tokens.revokeForOauthCode(tx, row.id);
          return { ok: false as const, error: 'invalid_grant' as const, description: 'the code was already used; its tokens are revoked' };
        }
        if (row.expires_at.getTime() <= now.getTime()) return { ok: false as const, error: 'invalid_grant' as const, description: 'the code has expired' };
        if (row.redirect_uri !== input.redirectUri) return { ok: false as const, error: 'invalid_grant' as const, description: 'redirect_uri differs from the authorization request' };
        if (requested && requested.some((name) => !row.permissions.includes(name))) return { ok: false as const, error: 'invalid_scope' as const, description: 'scope exceeds what was authorized' };
        await store.markCodeUsed(tx, row.id, now);
        const token = await tokens.issue(tx, {
          clientId: row.client_id, profileId: row.profile_id, personalProfileId: row.profile_id, permissions: requested ?? row.permissions,
          deviceUuid: row.device_uuid, source: 'oauth', oauthCodeId: row.id, now,
        });
        return { ok: true as const, token };
      });
    },
  };
}
