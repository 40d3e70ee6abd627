// Who is calling: the principals the edge resolves before a handler runs.

export interface TokenPrincipal {
  tokenId: string;
  /** The app's client_id. */
  clientId: string;
  profileId: string;
  personalProfileId: string;
  deviceId: string | null;
  permissions: ReadonlySet<string>;
  concurrent: boolean;
  softExpired: boolean;
}

export interface AppPrincipal {
  clientId: string;
  name: string;
  site: string;
  permissions: ReadonlySet<string>;
  isPublic: boolean;
}

export type TokenCheck =
  | { ok: true; principal: TokenPrincipal }
  | { ok: false; error: 'token_not_recognized' | 'token_expired_hard' | 'token_invalid' };

export type AppCheck = { ok: true; app: AppPrincipal } | { ok: false; error: 'app_not_found' | 'app_credentials_changed' };

/** What the edge needs from the engine to resolve callers. */
export interface Authenticators {
  authenticateToken(token: string): Promise<TokenCheck>;
  authenticateApp(clientId: string, clientSecret: string): Promise<AppCheck>;
  operatorKey(): string;
}
