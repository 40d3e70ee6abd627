// The OAuth 2 authorization flow: /authorize pages (sign in with an attempt, prove a code,
// consent) and POST /token. A browser flow is bound to a secret held in an HttpOnly cookie and
// echoed by every form (double submit). Authorization codes are stored only as hashes, expire
// after 10 minutes and work once; a second use revokes the tokens the first one produced. PKCE
// (S256) binds a code to its verifier; RFC 8414 metadata lets a library configure itself.
import type { AppsService } from '../apps/service.ts';
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import type { TokensService } from '../tokens/service.ts';
import { consent, proveCode, signin } from './authorize.ts';
import { begin } from './begin.ts';
import { exchange } from './exchange.ts';
import { metadata } from './metadata.ts';
import type { OauthService, OauthContext } from './types.ts';
export type { AuthorizeParams, FlowOutcome, OauthService, OauthContext } from './types.ts';

export function createOauthService(core: Core, dependencies: { apps: AppsService; authn: AuthnService; tokens: TokensService }): OauthService {
  const ctx: OauthContext = { core, apps: dependencies.apps, authn: dependencies.authn, tokens: dependencies.tokens, sandbox: core.config.mode === 'sandbox' };
  return {
    begin: (params) => begin(ctx, params),
    signin: (flowSecret, login, password) => signin(ctx, flowSecret, login, password),
    proveCode: (flowSecret, code) => proveCode(ctx, flowSecret, code),
    consent: (flowSecret, allow) => consent(ctx, flowSecret, allow),
    exchange: (input) => exchange(ctx, input),
    metadata: (origin) => metadata(ctx, origin),
  };
}
