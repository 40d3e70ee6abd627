// The types of engine/oauth: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { AppsService } from '../apps/service.ts';
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import type { TokensService } from '../tokens/service.ts';
import type { AccessTokenInfo } from '../tokens/service.ts';
import type { TokenEndpointError } from './errors.ts';
import type { FlowRow } from './store.ts';

export interface AuthorizeParams {
  responseType?: string;
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
  uuid?: string;
  name?: string;
  /** PKCE (RFC 7636): the S256 challenge and its method. */
  codeChallenge?: string;
  codeChallengeMethod?: string;
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
  exchange(input: ExchangeInput): Promise<ExchangeOutcome>;
  /** RFC 8414 server metadata; the issuer is the configured public URL, else `origin` (the request's). */
  metadata(origin: string): Record<string, unknown>;
}

export interface OauthContext {
  core: Core;
  apps: AppsService;
  authn: AuthnService;
  tokens: TokensService;
  /** A sandbox reveals the code it sent on the code page. */
  sandbox: boolean;
}

/** A POST /token request, as read from its form. */
export type ExchangeInput = { grantType?: string; code?: string; redirectUri?: string; clientId?: string; clientSecret?: string; scope?: string; codeVerifier?: string };
/** The token endpoint's answer: a token, or an RFC 6749 error and its description. */
export type ExchangeOutcome = { ok: true; token: AccessTokenInfo } | { ok: false; error: TokenEndpointError; description: string };
