// The types of engine/tokens: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/types.ts';
import type { Queryable } from '../storage/database.ts';
import type { RefreshError } from './errors.ts';

export type TokenSource = 'oauth' | 'authn' | 'p_token' | 'select' | 'refresh' | 'offer';

/** The wire AccessTokenInfo (supplement 2.3). */
export interface AccessTokenInfo {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  hard_expires_in: number;
  scope: string;
}

export interface TokenPrincipal {
  tokenId: string;
  clientId: string;
  profileId: string;
  personalProfileId: string;
  deviceId: string | null;
  permissions: ReadonlySet<string>;
  concurrent: boolean;
  softExpired: boolean;
  /** Issued by POST /p/token: closed loop cash only. */
  closedLoopOnly: boolean;
  source: TokenSource;
  oauthCodeId: string | null;
  softExpiresAt: Date;
  hardExpiresAt: Date;
}

export type TokenCheck =
  | { ok: true; principal: TokenPrincipal }
  | { ok: false; error: 'token_not_recognized' | 'token_expired_hard' | 'token_invalid' };

export interface IssueInput {
  clientId: string;
  profileId: string;
  personalProfileId: string;
  permissions: string[];
  deviceUuid?: string | null;
  concurrent?: boolean;
  source: TokenSource;
  oauthCodeId?: string | null;
  now: Date;
  /** An earlier hard expiration than the default (refresh keeps it; select never outlives its parent). */
  hardExpiresAt?: Date;
  /** Defaults to true for POST /p/token. */
  closedLoopOnly?: boolean;
  /** Whether only older tokens of the same device are invalidated; defaults to true for select and /p/token. */
  deviceScoped?: boolean;
}

export type PinCheck = 'match' | 'mismatch' | 'none';

export type PinVerifier = (db: Queryable, input: { profileId: string; personalProfileId: string; deviceUuid: string | null; pin: string }) => Promise<PinCheck>;

export type RefreshResult = { ok: true; token: AccessTokenInfo } | { ok: false; error: RefreshError };

export interface TokensService {
  readonly defaultPermissions: readonly string[];
  readonly closedLoopPermissions: readonly string[];
  issue(db: Queryable, input: IssueInput): Promise<AccessTokenInfo>;
  authenticate(token: string): Promise<TokenCheck>;
  /** Refresh with the personal profile's password or a PIN (device password). */
  refresh(principal: TokenPrincipal, credentials: { password?: string; pin?: string }): Promise<RefreshResult>;
  /** Ends every token of the principal's personal profile and app. */
  logout(principal: TokenPrincipal): Promise<number>;
  /** A reused authorization code invalidates every token it produced (and their refreshes and selections). */
  revokeForOauthCode(db: Queryable, oauthCodeId: string): Promise<number>;
  registerPinVerifier(verifier: PinVerifier): void;
}

export interface TokensContext {
  core: Core;
  profiles: ProfilesService;
  /** Set by the domain that keeps PINs (device passwords); none until then. */
  pinVerifier: PinVerifier;
}
