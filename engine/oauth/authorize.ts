// The steps of a browser flow after it starts: sign in with an attempt, prove a code, consent. A
// step asked out of turn shows the page the flow stands at.
import { defaultCountries, oauthCodeLifetimeMs, oauthCodeSecretBytes } from '../limits.ts';
import { randomHex, randomSecret, secretHash } from '../ids.ts';
import { afterAttempt, expired, flowFor, page, withParams } from './pages.ts';
import type { FlowOutcome, OauthContext } from './types.ts';
import * as store from './store.ts';
import type { FlowRow } from './store.ts';

export async function signin(ctx: OauthContext, flowSecret: string, login: string, password: string): Promise<FlowOutcome> {
  const flow = await flowFor(ctx, flowSecret);
  if (!flow) return expired;
  if (flow.step !== 'signin') return page(ctx, flowSecret, flow, flow.step as 'code' | 'consent');
  const outcome = await ctx.authn.start({
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
    return page(ctx, flowSecret, flow, 'signin', { message });
  }
  const attemptId = String(outcome.result.attempt_path).split('/')[2];
  await store.updateFlow(ctx.core.sql, flow.id, { step: 'signin', attemptId });
  return afterAttempt(ctx, flowSecret, { ...flow, attempt_id: attemptId }, outcome.result);
}

export async function proveCode(ctx: OauthContext, flowSecret: string, code: string): Promise<FlowOutcome> {
  const flow = await flowFor(ctx, flowSecret);
  if (!flow) return expired;
  if (flow.step !== 'code' || !flow.attempt_id || !flow.factor_id) return page(ctx, flowSecret, flow, flow.step as 'signin' | 'consent');
  const outcome = await ctx.authn.authUid(flow.attempt_id, { internal: true }, { factorId: flow.factor_id, code });
  if (!outcome.ok) {
    if (outcome.error === 'attempt_gone') {
      await store.updateFlow(ctx.core.sql, flow.id, { step: 'signin' });
      return page(ctx, flowSecret, { ...flow, step: 'signin' }, 'signin', { message: 'Too many incorrect codes. Sign in again.' });
    }
    const message = outcome.error === 'captcha_required' ? 'Too many incorrect codes. Sign in again later.' : 'The code is not correct.';
    return page(ctx, flowSecret, flow, 'code', { message });
  }
  return afterAttempt(ctx, flowSecret, flow, outcome.result);
}

/** The implicit grant: the token itself, in the redirect's fragment. */
async function tokenRedirect(ctx: OauthContext, flow: FlowRow & { profile_id: string }, now: Date): Promise<FlowOutcome> {
  const token = await ctx.tokens.issue(ctx.core.sql, {
    clientId: flow.client_id, profileId: flow.profile_id, personalProfileId: flow.profile_id, permissions: flow.scope, deviceUuid: flow.device_uuid, source: 'oauth', now,
  });
  return {
    kind: 'redirect',
    location: withParams(flow.redirect_uri, { access_token: token.access_token, token_type: token.token_type, expires_in: String(token.expires_in), scope: token.scope, state: flow.state }, true),
  };
}

/** The code grant: a one-time code (stored as a hash) for POST /token. */
async function codeRedirect(ctx: OauthContext, flow: FlowRow & { profile_id: string }, now: Date): Promise<FlowOutcome> {
  const code = randomSecret(oauthCodeSecretBytes);
  await store.insertCode(ctx.core.sql, {
    id: randomHex(10), codeHash: secretHash(code), client_id: flow.client_id, redirect_uri: flow.redirect_uri, profile_id: flow.profile_id,
    permissions: flow.scope, device_uuid: flow.device_uuid, expires_at: new Date(now.getTime() + oauthCodeLifetimeMs), code_challenge: flow.code_challenge,
  }, now);
  return { kind: 'redirect', location: withParams(flow.redirect_uri, { code, state: flow.state }) };
}

export async function consent(ctx: OauthContext, flowSecret: string, allow: boolean): Promise<FlowOutcome> {
  const flow = await flowFor(ctx, flowSecret);
  if (!flow) return expired;
  if (flow.step !== 'consent' || !flow.profile_id) return page(ctx, flowSecret, flow, flow.step as 'signin' | 'code');
  await store.updateFlow(ctx.core.sql, flow.id, { step: 'done' });
  if (!allow) return { kind: 'redirect', location: withParams(flow.redirect_uri, { error: 'access_denied', error_description: 'The user denied access.', state: flow.state }) };
  const now = ctx.core.clock.now();
  const granted = { ...flow, profile_id: flow.profile_id };
  return flow.response_type === 'token' ? tokenRedirect(ctx, granted, now) : codeRedirect(ctx, granted, now);
}
