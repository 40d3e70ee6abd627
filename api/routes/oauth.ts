// The OAuth 2 authorization pages (GET /authorize and its form posts) and POST /token.
// Pages are small server-rendered HTML with every value escaped; each form post must carry the
// flow secret that also sits in an HttpOnly SameSite cookie (double submit against CSRF).
import { accessTokenInfo, oauthServerMetadata } from '../http/schemas.ts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { TokenEndpointError } from '../../engine/oauth/errors.ts';
import type { FlowOutcome } from '../../engine/oauth/service.ts';
import {
  authnCodeCharsMax, deviceNameCharsMax, idCharsMax, loginCharsMax, oauthAuthorizeUuidCharsMax, oauthFlagCharsMax, oauthFlowFieldCharsMax,
  oauthFlowLifetimeSeconds, oauthResponseTypeCharsMax, oauthScopeCharsMax, oauthStateCharsMax, oauthTokenFieldCharsMax, oauthTokenSecretCharsMax,
  passwordFieldCharsMax, pkceMethodCharsMax, pkceVerifierCharsMax, redirectUriCharsMax,
} from '../../engine/limits.ts';
import { readBasicCredentials } from '../http/credentials.ts';
import { errorTable, httpError } from '../http/errors.ts';
import { boundedString } from '../http/fields.ts';
import { defineRoute, RawResponse, type RouteDefinition } from '../http/route.ts';

export const tokenEndpointErrors = errorTable<TokenEndpointError | 'invalid_basic_client'>({
  invalid_request: { status: 400, description: 'The request is missing a parameter or is malformed.' },
  invalid_client: { status: 400, description: 'The client credentials are not valid.' },
  // RFC 6749 5.2: a client that authenticated with HTTP Basic gets 401 and a WWW-Authenticate challenge.
  invalid_basic_client: { status: 401, error: 'invalid_client', description: 'The client credentials are not valid.' },
  invalid_grant: { status: 400, description: 'The authorization code is not valid.' },
  unauthorized_client: { status: 400, description: 'The app may not use this grant.' },
  unsupported_grant_type: { status: 400, description: 'Only the authorization_code grant is supported.' },
  invalid_scope: { status: 400, description: 'The scope is not valid.' },
});

const cookieName = 'cashloop_authorize';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);
}

const securityHeaders = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.2rem;font-size:1rem}.message{color:#a00}.sandbox{background:#ffd;padding:.5rem}</style>
</head><body><h1>Cashloop</h1>${body}</body></html>`;
}

function render(outcome: FlowOutcome, secure: boolean): RawResponse {
  if (outcome.kind === 'redirect') {
    return new RawResponse(302, null, '', { location: outcome.location, 'cache-control': 'no-store', 'set-cookie': `${cookieName}=; Path=/authorize; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}` });
  }
  if (outcome.kind === 'error') {
    return new RawResponse(400, 'text/html; charset=utf-8', layout('Cannot sign in', `<p class="message" id="error">${escapeHtml(outcome.message)}</p>`), securityHeaders);
  }
  const flow = `<input type="hidden" name="flow" value="${escapeHtml(outcome.flowSecret)}">`;
  const message = outcome.message ? `<p class="message" id="message">${escapeHtml(outcome.message)}</p>` : '';
  const app = escapeHtml(outcome.appName);
  let body: string;
  if (outcome.page === 'signin') {
    body = `<p>Sign in to continue to <strong>${app}</strong>.</p>${message}
<form method="post" action="/authorize/signin">${flow}
<label for="login">Email, phone or username</label><input type="text" id="login" name="login" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" id="signin">Sign in</button></form>`;
  } else if (outcome.page === 'code') {
    const reveal = outcome.revealedCode ? `<p class="sandbox">Sandbox: the code is <code id="revealed-code">${escapeHtml(outcome.revealedCode)}</code></p>` : '';
    body = `<p>We sent a code to confirm it is you.</p>${message}${reveal}
<form method="post" action="/authorize/code">${flow}
<label for="code">Code</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit" id="verify">Continue</button></form>`;
  } else {
    const permissions = outcome.flow.scope.map((name) => `<li>${escapeHtml(name)}</li>`).join('');
    body = `<p><strong>${app}</strong> asks for access to your wallet:</p><ul id="permissions">${permissions}</ul>${message}
<form method="post" action="/authorize/consent">${flow}
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button></form>`;
  }
  const cookie = `${cookieName}=${outcome.flowSecret}; Path=/authorize; HttpOnly; SameSite=Lax; Max-Age=${oauthFlowLifetimeSeconds}${secure ? '; Secure' : ''}`;
  return new RawResponse(200, 'text/html; charset=utf-8', layout('Sign in', body), { ...securityHeaders, 'set-cookie': cookie });
}

function cookieFlow(request: Request): string | undefined {
  const header = request.get('cookie') ?? '';
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === cookieName) return rest.join('=');
  }
  return undefined;
}

/** The form's flow secret must equal the cookie's, and a cross-site Origin is refused. */
function checkedFlow(request: Request, flow: string): string | null {
  const cookie = cookieFlow(request);
  const origin = request.get('origin');
  if (origin && origin !== 'null' && new URL(origin).host !== request.get('host')) return null;
  if (!cookie || cookie.length !== flow.length || cookie !== flow) return null;
  return flow;
}

const forbidden = new RawResponse(403, 'text/html; charset=utf-8', layout('Cannot sign in', '<p class="message">This form has expired or was not sent from this site. Start again from the app.</p>'), securityHeaders);

const flowField = boundedString(oauthFlowFieldCharsMax, 1);

/**
 * Basic credentials at /token are form-encoded before base64 (RFC 6749 2.3.1: `-` may arrive as
 * `%2D`, a space as `+`); Cashloop's own ids and secrets decode to themselves, so a client that
 * does not encode still works.
 */
function tokenBasicCredentials(request: Request): { clientId: string; clientSecret: string } | 'malformed' | undefined {
  const raw = readBasicCredentials(request);
  if (!raw) return undefined;
  try {
    const decode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    return { clientId: decode(raw.clientId), clientSecret: decode(raw.clientSecret) };
  } catch {
    return 'malformed';
  }
}

/** RFC 6749 5.2: a client that used HTTP Basic is refused with 401 and a Basic challenge. */
function basicRefusal(response: Response, description: string) {
  response.setHeader('www-authenticate', 'Basic realm="token", charset="UTF-8"');
  return httpError(tokenEndpointErrors, 'invalid_basic_client', { description });
}

export const oauthRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/authorize',
    summary: 'OAuth 2 authorization page (response_type code or token): sign in, prove a code, consent.',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z
      .object({
        response_type: boundedString(oauthResponseTypeCharsMax).optional(),
        client_id: boundedString(idCharsMax).optional(),
        redirect_uri: boundedString(redirectUriCharsMax).optional(),
        scope: boundedString(oauthScopeCharsMax).optional(),
        state: boundedString(oauthStateCharsMax).optional(),
        uuid: boundedString(oauthAuthorizeUuidCharsMax).optional(),
        name: boundedString(deviceNameCharsMax).optional(),
        force_login: boundedString(oauthFlagCharsMax).optional(),
        code_challenge: boundedString(pkceVerifierCharsMax).optional(),
        code_challenge_method: boundedString(pkceMethodCharsMax).optional(),
      })
      // RFC 6749 3.1: unrecognized parameters are ignored (dropped here), not refused.
      .strip(),
    rawResponse: { contentTypes: ['text/html'], description: 'The sign-in page.', redirect: 'Back to the redirect URI, with the code (or token) or the error.' },
    async handler({ input, engine, request }) {
      // Every visit signs in afresh (there is no browser session to reuse), so force_login always holds.
      const outcome = await engine.services.oauth.begin({
        responseType: input.response_type, clientId: input.client_id, redirectUri: input.redirect_uri, scope: input.scope, state: input.state, uuid: input.uuid, name: input.name,
        codeChallenge: input.code_challenge, codeChallengeMethod: input.code_challenge_method,
      });
      return render(outcome, request.secure);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/authorize/signin',
    summary: 'Authorization page: the sign-in form.',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z.object({ flow: flowField, login: boundedString(loginCharsMax, 1), password: boundedString(passwordFieldCharsMax, 1) }).strict(),
    rawResponse: { contentTypes: ['text/html'], description: 'The next page of the flow.', redirect: 'Back to the redirect URI, with the code (or token) or the error.' },
    errors: [403],
    async handler({ input, engine, request }) {
      const flow = checkedFlow(request, input.flow);
      if (!flow) return forbidden;
      return render(await engine.services.oauth.signin(flow, input.login, input.password), request.secure);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/authorize/code',
    summary: 'Authorization page: the code form.',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z.object({ flow: flowField, code: boundedString(authnCodeCharsMax, 1) }).strict(),
    rawResponse: { contentTypes: ['text/html'], description: 'The next page of the flow.', redirect: 'Back to the redirect URI, with the code (or token) or the error.' },
    errors: [403],
    async handler({ input, engine, request }) {
      const flow = checkedFlow(request, input.flow);
      if (!flow) return forbidden;
      return render(await engine.services.oauth.proveCode(flow, input.code), request.secure);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/authorize/consent',
    summary: 'Authorization page: the consent form.',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z.object({ flow: flowField, decision: z.enum(['allow', 'deny']) }).strict(),
    rawResponse: { contentTypes: ['text/html'], description: 'The next page of the flow.', redirect: 'Back to the redirect URI, with the code (or token) or the error.' },
    errors: [403],
    async handler({ input, engine, request }) {
      const flow = checkedFlow(request, input.flow);
      if (!flow) return forbidden;
      return render(await engine.services.oauth.consent(flow, input.decision === 'allow'), request.secure);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/token',
    summary: 'Exchanges an authorization code for an access token (app credentials by Basic or form).',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z
      .object({
        grant_type: z.string().max(oauthTokenFieldCharsMax).optional(),
        code: z.string().max(oauthTokenSecretCharsMax).optional(),
        redirect_uri: z.string().max(redirectUriCharsMax).optional(),
        client_id: z.string().max(oauthTokenFieldCharsMax).optional(),
        client_secret: z.string().max(oauthTokenSecretCharsMax).optional(),
        scope: z.string().max(oauthScopeCharsMax).optional(),
        code_verifier: z.string().max(pkceVerifierCharsMax).optional(),
      })
      // RFC 6749 3.2: unrecognized parameters are ignored (dropped here), not refused.
      .strip(),
    // RFC 6749 5.1: token answers (and their errors) are never cached.
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
    errors: [401],
    invalidInput: (invalid) =>
      httpError(tokenEndpointErrors, 'invalid_request', {
        description: `Invalid parameters: ${Object.keys(invalid).join(', ')}.`,
        invalid,
      }),
    response: accessTokenInfo,
    async handler({ input, engine, request, response }) {
      const basic = tokenBasicCredentials(request);
      if (basic === 'malformed') throw basicRefusal(response, 'The Basic credentials are not form-encoded as RFC 6749 2.3.1 asks.');
      if (basic && (input.client_secret !== undefined || (input.client_id !== undefined && input.client_id !== basic.clientId))) {
        throw httpError(tokenEndpointErrors, 'invalid_request', { description: 'Give the client credentials one way only.' });
      }
      const result = await engine.services.oauth.exchange({
        grantType: input.grant_type,
        code: input.code,
        redirectUri: input.redirect_uri,
        clientId: basic?.clientId ?? input.client_id,
        clientSecret: basic?.clientSecret ?? input.client_secret,
        scope: input.scope,
        codeVerifier: input.code_verifier,
      });
      if (!result.ok && result.error === 'invalid_client' && basic) throw basicRefusal(response, result.description);
      if (!result.ok) throw httpError(tokenEndpointErrors, result.error, { description: result.description });
      return result.token;
    },
  }),

  defineRoute({
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    summary: 'OAuth 2 authorization server metadata (RFC 8414): endpoints, grant and response types, PKCE methods, scopes.',
    tags: ['oauth'],
    caller: { kind: 'none' },
    input: z.object({}).strip(),
    response: oauthServerMetadata,
    async handler({ engine, request }) {
      return engine.services.oauth.metadata(`${request.protocol}://${request.get('host')}`);
    },
  }),
];
