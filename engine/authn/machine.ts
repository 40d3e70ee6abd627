// An authentication attempt: a pure machine that counts proven factors and failures. The service
// checks passwords and codes (argon2, outside the machine) and sends the outcome as an event.
import { and, assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';
import { authnCaptchaAfterFailures, authnExpireAfterFailures } from '../limits.ts';

export type Intent = 'signup' | 'signin' | 'reset' | 'accept' | 'signin-closed' | 'signup-closed' | 'add-uid';
export type FactorType = 'email' | 'phone';

export interface LoginInfo {
  uid: string;
  type: string;
  original: string;
  country: string | null;
}

export interface ProvenFactor {
  original: string;
  country: string | null;
  type: string;
  strong: boolean;
  usedPassword: boolean;
  byCode: boolean;
}

export interface PendingFactor {
  factorId: string;
  uid: string;
  type: FactorType;
  original: string;
  country: string | null;
  /** argon2 hash of the code; null when no code exists (a login without a wallet). */
  codeHash: string | null;
  codeLength: number;
  /** The code is the invitation's code (accept intent). */
  viaInvitation: boolean;
}

export interface SignupData {
  firstName: string;
  lastName: string;
  passwordHash: string | null;
  nameChecked: boolean;
}

export interface AttemptContext {
  intent: Intent;
  clientId: string;
  /** The app's site: new wallets belong to it. */
  site: string;
  deviceUuid: string;
  deviceName: string | null;
  /** Requested permissions (they only limit); null for the default set. */
  permissions: string[] | null;
  closedLoop: boolean;
  secretHash: string;
  login: LoginInfo;
  profileId: string | null;
  profileTitle: string | null;
  /** Distinct factor types (email, phone) the profile has confirmed; bounds what reset can demand. */
  typesAvailable: number;
  inviteId: string | null;
  authenticated: Record<string, ProvenFactor>;
  /**
   * The factors a code may prove now: at most one, except for add-uid, which sends a code to
   * each number a phone parses to. Proving any one of them clears the list.
   */
  pending: PendingFactor[];
  passwordOk: boolean;
  deviceTrusted: boolean;
  signup: SignupData | null;
  failures: number;
  trust30: boolean;
  completedMfa: boolean;
  factorsIssued: number;
  expiresAt: string;
  /** Run by the /authorize pages: the token comes from the authorization code, not the attempt. */
  viaAuthorize?: boolean;
  /** A sign-in under the login guard without a captcha: the password's verdict is not told (service.ts). */
  verdictWithheld?: boolean;
  /**
   * An accept attempt's invitee name: what its answer shows as the sign-up a new wallet would
   * have until a factor is proven, for a registered login too, so the answer tells no one it is.
   */
  inviteeName?: { firstName: string; lastName: string };
}

export type AttemptInput = Omit<AttemptContext, 'failures' | 'completedMfa' | 'trust30' | 'factorsIssued' | 'pending'> & {
  trust30: boolean;
  pending: PendingFactor[];
};

export type AttemptEvent =
  | { type: 'attempt.password'; ok: boolean; login: LoginInfo | null; deviceTrusted: boolean }
  | { type: 'attempt.code'; factorId: string; ok: boolean }
  | { type: 'attempt.factor'; pending: PendingFactor }
  | { type: 'attempt.signup_data'; firstName?: string; lastName?: string; passwordHash?: string }
  | { type: 'attempt.trust'; trust30: boolean }
  | { type: 'attempt.finish'; profileId: string; profileTitle: string }
  | { type: 'attempt.expire' };

/**
 * The pending factors of a context. Snapshots stored before the list held one factor or null;
 * attempts live 30 minutes, so this only bridges a deploy.
 */
export function pendingFactors(context: Pick<AttemptContext, 'pending'>): PendingFactor[] {
  const pending = context.pending as PendingFactor[] | PendingFactor | null;
  if (Array.isArray(pending)) return pending;
  return pending ? [pending] : [];
}

/** The pending factor a code names, if any. */
export function pendingFactor(context: Pick<AttemptContext, 'pending'>, factorId: string): PendingFactor | null {
  return pendingFactors(context).find((factor) => factor.factorId === factorId) ?? null;
}

/** Code-proven factor types. */
export function provenTypes(context: Pick<AttemptContext, 'authenticated'>): Set<string> {
  const types = new Set<string>();
  for (const factor of Object.values(context.authenticated)) if (factor.byCode) types.add(factor.type);
  return types;
}

/**
 * Whether the attempt has every factor it needs. Closed-loop and add-uid: one code. An existing
 * wallet: the password plus one code or a trusted device (reset: codes of two types, or one and
 * a trusted device, bounded by the types the wallet has). A new wallet: an email and a phone code.
 */
export function mfaComplete(context: AttemptContext): boolean {
  const proven = provenTypes(context).size;
  if (context.closedLoop || context.intent === 'add-uid') return proven >= 1;
  if (context.profileId) {
    if (context.intent === 'reset') {
      const needed = Math.min(2, Math.max(1, context.typesAvailable));
      return proven + (context.deviceTrusted ? 1 : 0) >= needed;
    }
    return context.passwordOk && (proven >= 1 || context.deviceTrusted);
  }
  return proven >= 2;
}

export function captchaRequired(context: Pick<AttemptContext, 'failures'>): boolean {
  return context.failures >= authnCaptchaAfterFailures;
}

const withMfa = (context: AttemptContext): AttemptContext => ({ ...context, completedMfa: context.completedMfa || mfaComplete(context) });

/** The context once a pending factor's code is proven (unchanged when no pending factor has that id). */
export function withCodeProven(context: AttemptContext, factorId: string): AttemptContext {
  const factor = pendingFactor(context, factorId);
  if (!factor) return context;
  const previous = context.authenticated[factor.uid];
  const authenticated = {
    ...context.authenticated,
    [factor.uid]: { original: factor.original, country: factor.country, type: factor.type, strong: true, usedPassword: previous?.usedPassword ?? false, byCode: true },
  };
  return withMfa({ ...context, authenticated, pending: [] });
}

/** The context once the wallet's password is proven (for `login`, else the attempt's login). */
export function withPasswordProven(context: AttemptContext, login: LoginInfo | null, deviceTrusted: boolean): AttemptContext {
  const proven = login ?? context.login;
  const previous = context.authenticated[proven.uid];
  const authenticated = {
    ...context.authenticated,
    [proven.uid]: { original: proven.original, country: proven.country, type: proven.type, strong: true, usedPassword: true, byCode: previous?.byCode ?? false },
  };
  return withMfa({ ...context, authenticated, passwordOk: true, deviceTrusted: context.deviceTrusted || deviceTrusted });
}

export const attemptMachine = setup({
  types: {
    context: {} as AttemptContext,
    events: {} as AttemptEvent,
    input: {} as AttemptInput,
  },
  guards: {
    isCurrentFactor: ({ context, event }) => event.type === 'attempt.code' && pendingFactor(context, event.factorId) !== null,
    succeeded: ({ event }) => (event.type === 'attempt.code' || event.type === 'attempt.password') && event.ok,
    failedTooOften: ({ context }) => context.failures + 1 >= authnExpireAfterFailures,
    isSignup: ({ context }) => context.signup !== null && context.profileId === null,
  },
  actions: {
    proveCode: assign(({ context, event }) => (event.type === 'attempt.code' ? withCodeProven(context, event.factorId) : {})),
    provePassword: assign(({ context, event }) => (event.type === 'attempt.password' ? withPasswordProven(context, event.login, event.deviceTrusted) : {})),
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    issueFactor: assign(({ context, event }) => (event.type === 'attempt.factor' ? { pending: [event.pending], factorsIssued: context.factorsIssued + 1 } : {})),
    recordSignupData: assign(({ context, event }) => {
      if (event.type !== 'attempt.signup_data' || !context.signup) return {};
      const signup = { ...context.signup };
      if (event.firstName !== undefined && event.lastName !== undefined) {
        signup.firstName = event.firstName;
        signup.lastName = event.lastName;
        signup.nameChecked = true;
      }
      if (event.passwordHash !== undefined) signup.passwordHash = event.passwordHash;
      return { signup };
    }),
    setTrust: assign({ trust30: ({ context, event }) => (event.type === 'attempt.trust' ? event.trust30 : context.trust30) }),
    recordProfile: assign(({ event }) => (event.type === 'attempt.finish' ? { profileId: event.profileId, profileTitle: event.profileTitle } : {})),
  },
}).createMachine({
  id: 'authn_attempt',
  context: ({ input }) => withMfa({ ...input, failures: 0, completedMfa: false, factorsIssued: input.pending.length }),
  initial: 'active',
  states: {
    active: {
      on: {
        'attempt.code': [
          { guard: and(['isCurrentFactor', 'succeeded']), actions: 'proveCode' },
          { guard: 'failedTooOften', target: 'expired', actions: 'countFailure' },
          { actions: 'countFailure' },
        ],
        'attempt.password': [
          { guard: 'succeeded', actions: 'provePassword' },
          { guard: 'failedTooOften', target: 'expired', actions: 'countFailure' },
          { actions: 'countFailure' },
        ],
        'attempt.factor': { actions: 'issueFactor' },
        'attempt.signup_data': { guard: 'isSignup', actions: 'recordSignupData' },
        'attempt.trust': { actions: 'setTrust' },
        'attempt.finish': { target: 'finished', actions: 'recordProfile' },
        'attempt.expire': { target: 'expired' },
      },
    },
    finished: {
      on: { 'attempt.expire': { target: 'expired' } },
    },
    expired: {},
  },
});
