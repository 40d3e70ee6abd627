// The types of engine/authn: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { Unit } from '../actors/command.ts';
import type { AppsService } from '../apps/service.ts';
import type { InvitationsService } from '../invitations/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import type { TokensService } from '../tokens/service.ts';
import type { ParsedUid } from '../uids.ts';
import type { AuthnFailure } from './errors.ts';
import type { Intent } from './machine.ts';

export type AuthnResult = Record<string, unknown>;

export type AuthnOutcome = { ok: true; result: AuthnResult } | AuthnFailure;

export interface StartInput {
  intent: Exclude<Intent, 'add-uid'>;
  /** The app: from client_id (open calls) or Basic credentials (closed-loop calls). */
  clientId: string;
  deviceUuid: string;
  deviceName: string | null;
  login: string;
  countries: readonly string[];
  password?: string;
  inviteId?: string;
  trust30?: boolean;
  captcha?: string;
  permissions?: string[] | null;
  /** The /authorize pages run the attempt; no token is issued by it. */
  viaAuthorize?: boolean;
  /**
   * Takes one message from the caller's budgets (app, client address, and the login's when the
   * message goes to the login typed), asked only when the start sends a message. Absent: no limit.
   */
  messageBudget?: MessageBudget;
}

/** The edge's rate limits as the start call sees them; `toLogin` counts against the login's budget too. */
export type MessageBudget = (toLogin: boolean) => Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;

/** How an attempt call proves it belongs to the attempt: its secret, or the server's own flow. */
export type AttemptCredential = { secret: string } | { internal: true };

export type CaptchaVerifier = (response: string) => Promise<boolean>;

export interface AuthnService {
  start(input: StartInput): Promise<AuthnOutcome>;
  authUid(id: string, credential: AttemptCredential, input: { factorId: string; code: string; captcha?: string }): Promise<AuthnOutcome>;
  authPassword(id: string, credential: AttemptCredential, input: { password: string; captcha?: string }): Promise<AuthnOutcome>;
  addFactor(id: string, credential: AttemptCredential, input: { login: string; countries: readonly string[] }): Promise<AuthnOutcome>;
  setSignupData(id: string, credential: AttemptCredential, input: { firstName?: string; lastName?: string; password?: string }): Promise<AuthnOutcome>;
  signupFinish(id: string, credential: AttemptCredential, input: { agreed: boolean }): Promise<AuthnOutcome>;
  resetPassword(id: string, credential: AttemptCredential, input: { password: string }): Promise<AuthnOutcome>;
  setTrust(id: string, credential: AttemptCredential, input: { trust30: boolean; captcha?: string }): Promise<{ ok: true } | AuthnFailure>;
  siteKey(): { sitekey: string; captcha_bypass?: string };
  captchaOk(response: string | undefined): Promise<boolean>;
  setCaptchaVerifier(verifier: CaptchaVerifier): void;
  /**
   * Starts a one-factor attempt that proves a new UID for a signed-in profile (POST /wallet/add-uid):
   * a code to each of the UIDs (the numbers one phone parses to, or one email) that is not yet on
   * the wallet. A UID another wallet holds gets the authn-add-conflict message and a code that
   * never works; the answer looks the same.
   */
  startAddUid(input: { profileId: string; clientId: string; deviceUuid: string | null; uids: ParsedUid[] }): Promise<{ ok: true; attemptId: string; secret: string; codeLength: number; unauthenticated: Record<string, unknown>; revealedCodes?: string[] } | AuthnFailure>;
  /** Proves the code of any one UID of an add-uid attempt; in the same command, runs apply with that UID (apply may reject). */
  confirmAddUid(input: { profileId: string; attemptId: string; secret: string; code: string; captcha?: string }, apply: (unit: Unit<AuthnFailure>, uid: string) => Promise<void>): Promise<{ ok: true; uid: string } | AuthnFailure>;
  /** Whether a password is one of the device passwords of (profile, device). */
  verifyDevicePassword(db: Queryable, profileId: string, deviceUuid: string | null, password: string): Promise<boolean>;
}

export interface AuthnDependencies {
  apps: AppsService;
  profiles: ProfilesService;
  tokens: TokensService;
  messages: MessagesService;
  invitations: InvitationsService;
}
