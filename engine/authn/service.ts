// Direct authentication: attempts to sign up, sign in, reset a password, accept an invitation and
// sign in (or up) for closed-loop cash only. Each call is one command on the attempt actor; the
// service checks secrets, passwords and codes (argon2) and sends the outcome to the pure machine,
// then issues the next code when the wallet on file must prove another factor.
import type { Unit } from '../actors/command.ts';
import { assertOutsideCommand } from '../actors/command.ts';
import { defineActorKind } from '../actors/actor.ts';
import type { AppsService } from '../apps/service.ts';
import type { Core } from '../core.ts';
import { constantTimeEqual, randomDigits, randomHex, randomSecret, secretHash } from '../ids.ts';
import {
  authnAttemptLifetimeMs,
  authnCodeCaptchaAfterFailures,
  authnEmailCodeDigits,
  authnFactorIdBytes,
  authnFactorsPerAttemptMax,
  authnLoginCaptchaAfterFailures,
  authnLoginGuardWindowMs,
  authnSecretBytes,
  authnSmsCodeDigits,
  passwordCharsMax,
  passwordCharsMin,
  trustedDeviceMs,
} from '../limits.ts';
import { hashSecret, verifySecret } from '../passwords.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { AccessTokenInfo, TokensService } from '../tokens/service.ts';
import { grantedPermissions, limitPermissions } from '../tokens/service.ts';
import type { Queryable } from '../storage/database.ts';
import { parseLogin, type ParsedUid } from '../uids.ts';
import type { MessagesService } from '../messages/service.ts';
import { addConflictMessage, codeMessage, type CodeTemplate } from '../messages/templates.ts';
import type { InvitationsService } from '../invitations/service.ts';
import { failure, type AuthnFailure } from './errors.ts';
import { createRecaptchaVerifier } from './captcha.ts';
import { attemptMachine, captchaRequired, pendingFactor, pendingFactors, provenTypes, type AttemptContext, type FactorType, type Intent, type LoginInfo, type PendingFactor } from './machine.ts';
import { personNameProblem } from './names.ts';
import * as store from './store.ts';

export const authnAttempt = defineActorKind('authn_attempt', attemptMachine);
type AttemptSnapshot = ReturnType<typeof attemptMachine.resolveState>;

/** The sandbox captcha site key and the value that passes for a solved captcha there. */
export const sandboxSiteKey = 'cashloop-sandbox-sitekey';
export const sandboxCaptchaBypass = 'cashloop-sandbox-captcha-bypass';

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
}

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

const codeTypes = new Set(['email', 'phone']);

function passwordProblem(password: string): string | null {
  if (password.length < passwordCharsMin) return `must be at least ${passwordCharsMin} characters`;
  if (password.length > passwordCharsMax) return `must be at most ${passwordCharsMax} characters`;
  return null;
}

function addressOf(uid: string): string {
  return uid.slice(uid.indexOf(':') + 1);
}

function loginInfo(parsed: ParsedUid): LoginInfo {
  return { uid: parsed.uid, type: parsed.type, original: parsed.original, country: parsed.country };
}

export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

export function createAuthnService(core: Core, dependencies: AuthnDependencies): AuthnService {
  const { commands, config } = core;
  const { apps, profiles, tokens, messages, invitations } = dependencies;
  const sandbox = config.mode === 'sandbox';
  let captchaVerifier: CaptchaVerifier = config.recaptchaSecret
    ? createRecaptchaVerifier({ secret: config.recaptchaSecret, verifyUrl: config.recaptchaVerifyUrl })
    : async () => false;
  const siteKey = config.recaptchaSiteKey ?? sandboxSiteKey;

  /** Verifies a captcha response (a network call with reCAPTCHA): before a command, never inside one. */
  async function captchaOk(response: string | undefined): Promise<boolean> {
    assertOutsideCommand('a captcha check');
    if (!response) return false;
    if (sandbox && constantTimeEqual(response, sandboxCaptchaBypass)) return true;
    return captchaVerifier(response);
  }

  /** Creates a code for a UID, queues its message and returns the pending factor and the sandbox reveal. */
  async function issueCode(unit: Unit, target: LoginInfo, template: CodeTemplate, hasWallet: boolean): Promise<{ pending: PendingFactor; revealed: string | null }> {
    const type = target.type as FactorType;
    const codeLength = type === 'email' ? authnEmailCodeDigits : authnSmsCodeDigits;
    const code = hasWallet ? randomDigits(codeLength) : null;
    const content = codeMessage(hasWallet ? template : (template.replace('-existent', '-nonexistent') as CodeTemplate), code, type === 'email' ? 'email' : 'sms');
    messages.queue(unit, { channel: type === 'email' ? 'email' : 'sms', to: addressOf(target.uid), template, ...content });
    const pending: PendingFactor = {
      factorId: randomHex(authnFactorIdBytes),
      uid: target.uid,
      type,
      original: target.original,
      country: target.country,
      codeHash: code ? await hashSecret(code) : null,
      codeLength,
      viaInvitation: false,
    };
    return { pending, revealed: code && sandbox ? `${code} => ${target.uid}` : null };
  }

  /**
   * Tells the owner of an address that someone tried to add it to another wallet, and returns a
   * pending factor shaped like a real one whose code no one is told: verifying a guess costs the
   * same argon2 work as for a real code and always fails.
   */
  async function issueAddConflict(unit: Unit, target: LoginInfo): Promise<PendingFactor> {
    const type = target.type as FactorType;
    const channel = type === 'email' ? 'email' : 'sms';
    messages.queue(unit, { channel, to: addressOf(target.uid), template: 'authn-add-conflict', ...addConflictMessage(channel) });
    return {
      factorId: randomHex(authnFactorIdBytes),
      uid: target.uid,
      type,
      original: target.original,
      country: target.country,
      codeHash: await hashSecret(randomSecret(authnSecretBytes)),
      codeLength: type === 'email' ? authnEmailCodeDigits : authnSmsCodeDigits,
      viaInvitation: false,
    };
  }

  function resultOf(id: string, context: AttemptContext, extras: { secret?: string; revealed?: (string | null)[]; token?: AccessTokenInfo; profile?: Record<string, unknown> } = {}): AuthnResult {
    const result: AuthnResult = { attempt_path: `/aa/${id}/` };
    if (extras.secret) result.secret = extras.secret;
    const pending = pendingFactors(context);
    if (pending.length > 0) {
      result.factor_id = pending[0].factorId;
      result.code_length = pending[0].codeLength;
      result.unauthenticated = Object.fromEntries(pending.map((factor) => [factor.uid, { original: factor.original, country: factor.country }]));
    }
    const revealed = (extras.revealed ?? []).filter((item): item is string => item !== null);
    if (sandbox && revealed.length > 0) result.revealed_codes = revealed;
    result.completed_mfa = context.completedMfa;
    result.authenticated = Object.fromEntries(
      Object.entries(context.authenticated).map(([uid, factor]) => [uid, { original: factor.original, country: factor.country, strong: factor.strong, used_password: factor.usedPassword }]),
    );
    // A withheld verdict hides whose wallet the login is until the code proves the caller.
    const hidden = context.verdictWithheld === true && !context.completedMfa;
    result.profile_id = hidden ? null : context.profileId;
    result.profile_title = hidden ? null : context.profileTitle;
    result.signup = context.signup && !context.profileId
      ? { first_name: context.signup.firstName, last_name: context.signup.lastName, has_password: context.signup.passwordHash !== null, name_checked: context.signup.nameChecked }
      : null;
    result.invite_id = context.inviteId;
    result.captcha_required = captchaRequired(context);
    result.trust30 = context.trust30;
    if (extras.token) result.token = extras.token;
    if (extras.profile) result.profile = extras.profile;
    return result;
  }

  /** Closed loop attempts keep the closed loop set; others get what is requested and the app is allowed. */
  async function tokenPermissions(db: Queryable, context: AttemptContext): Promise<string[]> {
    if (context.closedLoop) return limitPermissions(context.permissions, tokens.closedLoopPermissions);
    // Asked for by name: the app's allowed extras, and a merchant terminal's pull_payment (the pull
    // still needs a business with the pull_payment feature and the customer's consent).
    return grantedPermissions(context.permissions, [...(await apps.userPermissions(db, context.clientId)), 'pull_payment']);
  }

  /** Personal mobile devices only: the app declares one by requesting the mobile_device permission. */
  function mayTrust(context: Pick<AttemptContext, 'permissions' | 'closedLoop'>): boolean {
    return Boolean(context.permissions?.includes('mobile_device'));
  }

  async function applyTrust(unit: Unit, context: AttemptContext, profileId: string): Promise<void> {
    if (context.trust30 && mayTrust(context)) {
      await store.trustDevice(unit.tx, profileId, context.deviceUuid, new Date(unit.now.getTime() + trustedDeviceMs), unit.now);
    } else if (!context.trust30) {
      await store.distrustDevice(unit.tx, profileId, context.deviceUuid);
    }
  }

  async function issueToken(unit: Unit, context: AttemptContext, profileId: string): Promise<{ token: AccessTokenInfo; profile: Record<string, unknown> }> {
    await profiles.attachDevice(unit.tx, profileId, context.deviceUuid, context.deviceName);
    const token = await tokens.issue(unit.tx, {
      clientId: context.clientId,
      profileId,
      personalProfileId: profileId,
      permissions: await tokenPermissions(unit.tx, context),
      deviceUuid: context.deviceUuid,
      source: 'authn',
      now: unit.now,
      closedLoopOnly: context.closedLoop,
    });
    const record = await profiles.get(unit.tx, profileId);
    if (!record) throw new Error(`profile ${profileId} vanished during authentication`);
    return { token, profile: profiles.toPublic(record) };
  }

  /** The UID the next code goes to: a confirmed email or phone not yet proven (the login last at sign-in). */
  async function nextTarget(unit: Unit, context: AttemptContext): Promise<LoginInfo | null> {
    if (!context.profileId) return null;
    const proven = provenTypes(context);
    const confirmed = (await profiles.confirmedUids(unit.tx, context.profileId)).filter((uid) => codeTypes.has(uid.split(':')[0]) && !proven.has(uid.split(':')[0]));
    if (confirmed.length === 0) return null;
    const loginFirst = context.intent === 'reset' || context.closedLoop;
    const ordered = [...confirmed].sort((left, right) => {
      const leftIsLogin = left === context.login.uid ? 0 : 1;
      const rightIsLogin = right === context.login.uid ? 0 : 1;
      return loginFirst ? leftIsLogin - rightIsLogin : rightIsLogin - leftIsLogin;
    });
    const uid = ordered[0];
    const parsed = parseLogin(uid);
    return parsed ? loginInfo(parsed) : { uid, type: uid.split(':')[0], original: addressOf(uid), country: null };
  }

  /**
   * A pending factor shaped like a real one whose code no one is told and no message carries: under
   * the login guard a wrong password's attempt looks like the right one's, and fails at the code.
   */
  async function withheldFactor(target: LoginInfo): Promise<PendingFactor> {
    const type: FactorType = target.type === 'phone' ? 'phone' : 'email';
    return {
      factorId: randomHex(authnFactorIdBytes),
      uid: target.uid,
      type,
      original: target.original,
      country: target.country,
      codeHash: await hashSecret(randomSecret(authnSecretBytes)),
      codeLength: type === 'email' ? authnEmailCodeDigits : authnSmsCodeDigits,
      viaInvitation: false,
    };
  }

  /** The wallet on file must prove another factor: send the next code to a UID not yet proven. */
  async function nextFactor(unit: Unit, id: string, context: AttemptContext): Promise<string | null> {
    if (context.completedMfa || pendingFactors(context).length > 0 || !context.profileId) return null;
    const needsPasswordFirst = !context.closedLoop && context.intent !== 'reset' && !context.passwordOk;
    if (needsPasswordFirst || context.factorsIssued >= authnFactorsPerAttemptMax) return null;
    const target = await nextTarget(unit, context);
    if (!target) return null;
    const template: CodeTemplate = context.intent === 'reset' ? 'authn-reset-existent' : 'authn-signin-existent';
    const { pending, revealed } = await issueCode(unit, target, template, true);
    unit.send(authnAttempt, id, { type: 'attempt.factor', pending });
    return revealed;
  }

  /** After MFA completes for an existing wallet (signin and its kin), the token and profile. */
  async function completeIfSignedIn(unit: Unit, id: string, before: AttemptContext, after: AttemptContext) {
    if (before.completedMfa || !after.completedMfa || !after.profileId) return {};
    if (after.intent === 'reset' || after.intent === 'add-uid') return {};
    await store.clearGuard(unit.tx, `login:${after.login.uid}`);
    await applyTrust(unit, after, after.profileId);
    if (after.inviteId) await invitations.markAcceptedIn(unit, after.inviteId, after.profileId);
    if (after.viaAuthorize) return {};
    return issueToken(unit, after, after.profileId);
  }

  async function loadActive(unit: Unit<AuthnFailure>, id: string, credential: AttemptCredential, options: { allowFinished?: boolean } = {}): Promise<AttemptSnapshot | 'expired_now'> {
    const snapshot = (await unit.load(authnAttempt, id)) as AttemptSnapshot | null;
    if (!snapshot) return unit.reject(failure('attempt_gone'));
    if ('secret' in credential && !constantTimeEqual(secretHash(credential.secret), snapshot.context.secretHash)) return unit.reject(failure('secret_mismatch'));
    if (snapshot.value === 'active' && unit.now.getTime() >= Date.parse(snapshot.context.expiresAt)) {
      unit.send(authnAttempt, id, { type: 'attempt.expire' });
      unit.cancelTimer(authnAttempt, id, 'expire');
      return 'expired_now';
    }
    if (snapshot.value === 'expired' || (snapshot.value === 'finished' && !options.allowFinished)) return unit.reject(failure('attempt_gone'));
    return snapshot;
  }

  /** Runs an attempt command; a command that expired the attempt commits, then answers 410. */
  async function onAttempt<R>(name: string, id: string, body: (unit: Unit<AuthnFailure>) => Promise<R>): Promise<R | AuthnFailure> {
    if (!/^\d{10}$/.test(id)) return failure('attempt_gone');
    return commands.run(name, [{ kind: authnAttempt.kind, id }], body);
  }

  function send(unit: Unit, id: string, event: Parameters<Unit['send']>[2]): AttemptSnapshot | null {
    return unit.send(authnAttempt, id, event as never) as AttemptSnapshot | null;
  }

  /** `solved`: the request's captcha, verified before the command. */
  function checkCaptcha(unit: Unit<AuthnFailure>, context: Pick<AttemptContext, 'failures'>, solved: boolean): void {
    if (captchaRequired(context) && !solved) unit.reject(failure('captcha_required'));
  }

  /** A guard (per login) that has counted `after` failures in its window wants a solved captcha. */
  async function checkGuardCaptcha(unit: Unit<AuthnFailure>, key: string, after: number, solved: boolean): Promise<void> {
    const guard = await store.selectGuard(unit.tx, key);
    const windowOpen = guard && unit.now.getTime() - guard.window_started_at.getTime() < authnLoginGuardWindowMs;
    if (windowOpen && guard.failures >= after && !solved) unit.reject(failure('captcha_required'));
  }

  async function verifyDevicePassword(db: Queryable, profileId: string, deviceUuid: string | null, password: string): Promise<boolean> {
    if (!deviceUuid) return false;
    for (const hash of await store.devicePasswordHashes(db, profileId, deviceUuid)) if (await verifySecret(hash, password)) return true;
    return false;
  }

  const service: AuthnService = {
    async start(input) {
      const app = await apps.get(input.clientId);
      if (!app) return failure('invalid', { client_id: 'is not a known app' });
      const parsed = parseLogin(input.login, input.countries);
      if (!parsed) return failure('invalid', { login: 'must be an email address, a phone number or a username' });
      const closedLoop = input.intent === 'signin-closed' || input.intent === 'signup-closed';
      if (input.intent !== 'signin' && !codeTypes.has(parsed.type)) return failure('invalid', { login: 'must be an email address or a phone number' });
      if (input.trust30 && !mayTrust({ permissions: input.permissions ?? null, closedLoop })) {
        return failure('invalid', { trust30: 'only a personal mobile device may be trusted (request the mobile_device permission)' });
      }
      const guardKey = `login:${parsed.uid}`;
      const lockRefs = input.inviteId ? [{ kind: 'invitation', id: input.inviteId }] : [];
      const captchaSolved = await captchaOk(input.captcha);
      return commands.run(`authn.start.${input.intent}`, lockRefs, async (unit: Unit<AuthnFailure>): Promise<AuthnOutcome> => {
        const profile = await profiles.findByUid(unit.tx, parsed.uid);
        const login = loginInfo(parsed);
        const revealed: (string | null)[] = [];
        let pending: PendingFactor | null = null;
        let passwordOk = false;
        let deviceTrusted = false;
        let inviteId: string | null = null;
        let signup: AttemptContext['signup'] = null;
        /** Under the login guard without a captcha: no verdict is told; 'right' or 'wrong' is known only here. */
        let withheld: 'right' | 'wrong' | null = null;
        const authenticated: AttemptContext['authenticated'] = {};

        if (input.intent === 'signin') {
          // After repeated wrong passwords for a login, an attempt without a solved captcha is told no
          // verdict: right or wrong, it goes on to a code (a trusted device does not count), and only the
          // right password's code exists. A stranger cannot lock the owner out, nor learn a password.
          const guard = await store.selectGuard(unit.tx, guardKey);
          const windowOpen = guard && unit.now.getTime() - guard.window_started_at.getTime() < authnLoginGuardWindowMs;
          const guarded = Boolean(windowOpen && guard.failures >= authnLoginCaptchaAfterFailures) && !captchaSolved;
          // The code step goes to the login the caller typed, so it shows nothing they did not know;
          // a username login has no code of its own and still needs the captcha.
          if (guarded && !codeTypes.has(parsed.type)) return unit.reject(failure('captcha_required'));
          const password = input.password ?? '';
          const ok = profile !== null && ((await verifySecret(profile.passwordHash, password)) || (await verifyDevicePassword(unit.tx, profile.id, input.deviceUuid, password)));
          if (!ok || !profile) {
            await store.countGuardFailure(unit.tx, guardKey, unit.now, new Date(unit.now.getTime() - authnLoginGuardWindowMs));
            if (!guarded) return failure('incorrect_password', { password: 'The login or the password is not correct.' });
            withheld = 'wrong';
          } else {
            passwordOk = true;
            // The guard clears when the sign-in completes (completeIfSignedIn), not on the password alone.
            if (!guarded) await store.clearGuard(unit.tx, guardKey);
            else withheld = 'right';
            deviceTrusted = !guarded && (await store.isDeviceTrusted(unit.tx, profile.id, input.deviceUuid, unit.now));
          }
          authenticated[login.uid] = { original: login.original, country: login.country, type: login.type, strong: true, usedPassword: true, byCode: false };
        } else if (input.intent === 'accept') {
          const invitation = await invitations.loadForAcceptIn(unit, input.inviteId ?? '');
          if (!invitation) return unit.reject(failure('attempt_gone', undefined, 'The invitation has expired or is unavailable.'));
          inviteId = input.inviteId ?? null;
          if (invitation.addresses.includes(login.uid)) {
            pending = {
              factorId: randomHex(authnFactorIdBytes),
              uid: login.uid,
              type: login.type as FactorType,
              original: login.original,
              country: login.country,
              codeHash: invitation.codeHash,
              codeLength: invitation.codeLength,
              viaInvitation: true,
            };
          } else {
            const issued = await issueCode(unit, login, profile ? 'authn-invite-existent' : 'authn-invite-nonexistent', true);
            pending = issued.pending;
            revealed.push(issued.revealed);
          }
          if (!profile) signup = { firstName: invitation.firstName, lastName: invitation.lastName, passwordHash: null, nameChecked: false };
        } else if (input.intent === 'signup' || input.intent === 'signup-closed') {
          if (!profile) {
            const issued = await issueCode(unit, login, 'authn-signup-nonexistent', true);
            pending = issued.pending;
            revealed.push(issued.revealed);
            signup = { firstName: '', lastName: '', passwordHash: null, nameChecked: false };
          }
        } else {
          // reset and signin-closed: a code to the login; a login without a wallet gets a message without one.
          const template: CodeTemplate = input.intent === 'reset' ? 'authn-reset-existent' : 'authn-signin-existent';
          const issued = await issueCode(unit, login, template, profile !== null);
          pending = issued.pending;
          revealed.push(issued.revealed);
          if (profile) deviceTrusted = input.intent === 'reset' && (await store.isDeviceTrusted(unit.tx, profile.id, input.deviceUuid, unit.now));
        }

        const id = await unit.newShortId('authn_attempt');
        const secret = randomSecret(authnSecretBytes);
        const expiresAt = new Date(unit.now.getTime() + authnAttemptLifetimeMs);
        const confirmed = profile ? await profiles.confirmedUids(unit.tx, profile.id) : [];
        const typesAvailable = new Set(confirmed.map((uid) => uid.split(':')[0]).filter((type) => codeTypes.has(type))).size;
        const created = unit.create(authnAttempt, id, {
          intent: input.intent,
          clientId: app.clientId,
          site: app.site,
          deviceUuid: input.deviceUuid,
          deviceName: input.deviceName,
          permissions: input.permissions && input.permissions.length > 0 ? [...input.permissions] : null,
          closedLoop,
          secretHash: secretHash(secret),
          login,
          profileId: profile?.id ?? null,
          profileTitle: profile?.title ?? null,
          typesAvailable,
          inviteId,
          authenticated,
          pending: pending ? [pending] : [],
          passwordOk,
          deviceTrusted,
          signup,
          trust30: input.trust30 ?? false,
          expiresAt: expiresAt.toISOString(),
          viaAuthorize: input.viaAuthorize ?? false,
          verdictWithheld: withheld !== null,
        }) as AttemptSnapshot;
        unit.schedule(authnAttempt, id, 'expire', expiresAt, { type: 'attempt.expire' });
        const empty = { ...created.context, completedMfa: false };
        if (withheld === 'wrong') {
          unit.send(authnAttempt, id, { type: 'attempt.factor', pending: await withheldFactor(login) });
        } else if (withheld === 'right') {
          const issued = await issueCode(unit, login, 'authn-signin-existent', true);
          unit.send(authnAttempt, id, { type: 'attempt.factor', pending: issued.pending });
          revealed.push(issued.revealed);
        } else {
          revealed.push(await nextFactor(unit, id, created.context));
        }
        const latest = ((await unit.load(authnAttempt, id)) as AttemptSnapshot).context;
        const completion = await completeIfSignedIn(unit, id, empty, latest);
        return { ok: true, result: resultOf(id, latest, { secret, revealed, ...completion }) };
      });
    },

    async authUid(id, credential, input) {
      const captchaSolved = await captchaOk(input.captcha);
      return onAttempt('authn.auth_uid', id, async (unit): Promise<AuthnOutcome> => {
        const snapshot = await loadActive(unit, id, credential);
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const before = snapshot.context;
        checkCaptcha(unit, before, captchaSolved);
        const factors = pendingFactors(before);
        if (factors.length === 0) return unit.reject(failure('invalid', { factor_id: 'no code is expected now' }));
        // Wrong codes count per login across attempts too, so new attempts give no fresh guesses.
        const codeGuardKey = `code:${before.login.uid}`;
        await checkGuardCaptcha(unit, codeGuardKey, authnCodeCaptchaAfterFailures, captchaSolved);
        const pending = pendingFactor(before, input.factorId);
        let ok = false;
        if (pending) {
          ok = pending.viaInvitation
            ? await invitations.verifyCodeIn(unit, before.inviteId ?? '', normalizeCode(input.code))
            : await verifySecret(pending.codeHash, normalizeCode(input.code));
        }
        const next = send(unit, id, { type: 'attempt.code', factorId: input.factorId, ok });
        if (!next) return unit.reject(failure('attempt_gone'));
        if (ok) await store.clearGuard(unit.tx, codeGuardKey);
        else await store.countGuardFailure(unit.tx, codeGuardKey, unit.now, new Date(unit.now.getTime() - authnLoginGuardWindowMs));
        if (!ok) {
          if (factors.some((factor) => factor.viaInvitation) && before.inviteId) await invitations.recordFailureIn(unit, before.inviteId);
          if (next.value === 'expired') {
            unit.cancelTimer(authnAttempt, id, 'expire');
            return failure('attempt_gone', undefined, 'Too many incorrect codes; start again.');
          }
          return failure('incorrect_code', { code: 'The code is not correct.' });
        }
        const revealed = await nextFactor(unit, id, next.context);
        const latest = ((await unit.load(authnAttempt, id)) as AttemptSnapshot).context;
        const completion = await completeIfSignedIn(unit, id, before, latest);
        return { ok: true, result: resultOf(id, latest, { revealed: [revealed], ...completion }) };
      });
    },

    async authPassword(id, credential, input) {
      const captchaSolved = await captchaOk(input.captcha);
      return onAttempt('authn.auth_password', id, async (unit): Promise<AuthnOutcome> => {
        const snapshot = await loadActive(unit, id, credential);
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const before = snapshot.context;
        checkCaptcha(unit, before, captchaSolved);
        if (!before.profileId) return unit.reject(failure('invalid', { password: 'no password is expected now' }));
        const profile = await profiles.get(unit.tx, before.profileId);
        const ok = profile !== null && ((await verifySecret(profile.passwordHash, input.password)) || (await verifyDevicePassword(unit.tx, profile.id, before.deviceUuid, input.password)));
        const deviceTrusted = ok && (await store.isDeviceTrusted(unit.tx, before.profileId, before.deviceUuid, unit.now));
        const next = send(unit, id, { type: 'attempt.password', ok, login: null, deviceTrusted });
        if (!next) return unit.reject(failure('attempt_gone'));
        if (!ok) {
          if (next.value === 'expired') {
            unit.cancelTimer(authnAttempt, id, 'expire');
            return failure('attempt_gone', undefined, 'Too many incorrect passwords; start again.');
          }
          return failure('incorrect_password', { password: 'The password is not correct.' });
        }
        const revealed = await nextFactor(unit, id, next.context);
        const latest = ((await unit.load(authnAttempt, id)) as AttemptSnapshot).context;
        const completion = await completeIfSignedIn(unit, id, before, latest);
        return { ok: true, result: resultOf(id, latest, { revealed: [revealed], ...completion }) };
      });
    },

    async addFactor(id, credential, input) {
      const parsed = parseLogin(input.login, input.countries);
      if (!parsed || !codeTypes.has(parsed.type)) return failure('invalid', { login: 'must be an email address or a phone number' });
      return onAttempt('authn.add_factor', id, async (unit): Promise<AuthnOutcome> => {
        const snapshot = await loadActive(unit, id, credential);
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const context = snapshot.context;
        if (context.completedMfa) return unit.reject(failure('invalid', { login: 'no other factor is needed' }));
        if (context.factorsIssued >= authnFactorsPerAttemptMax) return unit.reject(failure('invalid', { login: 'too many factors in one attempt; start again' }));
        if (context.authenticated[parsed.uid]?.byCode) return unit.reject(failure('invalid', { login: 'is already confirmed in this attempt' }));
        if (!context.profileId && provenTypes(context).has(parsed.type)) {
          return unit.reject(failure('invalid', { login: `a factor of another type is needed (not ${parsed.type})` }));
        }
        const owner = await profiles.findByUid(unit.tx, parsed.uid);
        if (owner && owner.id !== context.profileId) return unit.reject(failure('uid_taken', { login: 'belongs to another wallet' }));
        const template: CodeTemplate = context.profileId ? 'authn-signin-existent' : 'authn-signup-nonexistent';
        const { pending, revealed } = await issueCode(unit, loginInfo(parsed), template, true);
        const next = send(unit, id, { type: 'attempt.factor', pending });
        if (!next) return unit.reject(failure('attempt_gone'));
        return { ok: true, result: resultOf(id, next.context, { revealed: [revealed] }) };
      });
    },

    async setSignupData(id, credential, input) {
      const invalidFields: Record<string, string> = {};
      if (input.firstName !== undefined || input.lastName !== undefined) {
        if (input.firstName === undefined) invalidFields.first_name = 'is required with last_name';
        if (input.lastName === undefined) invalidFields.last_name = 'is required with first_name';
        const firstProblem = input.firstName !== undefined ? personNameProblem(input.firstName) : null;
        const lastProblem = input.lastName !== undefined ? personNameProblem(input.lastName) : null;
        if (firstProblem) invalidFields.first_name = firstProblem;
        if (lastProblem) invalidFields.last_name = lastProblem;
      }
      const problem = input.password !== undefined ? passwordProblem(input.password) : null;
      if (problem) invalidFields.password = problem;
      if (Object.keys(invalidFields).length > 0) return failure('invalid', invalidFields);
      const passwordHash = input.password !== undefined ? await hashSecret(input.password) : undefined;
      return onAttempt('authn.set_signup_data', id, async (unit): Promise<AuthnOutcome> => {
        if ((await loadActive(unit, id, credential)) === 'expired_now') return failure('attempt_gone');
        const after = send(unit, id, {
          type: 'attempt.signup_data',
          ...(input.firstName !== undefined ? { firstName: input.firstName.trim(), lastName: (input.lastName ?? '').trim() } : {}),
          ...(passwordHash !== undefined ? { passwordHash } : {}),
        });
        if (!after) return unit.reject(failure('invalid', { request: 'this attempt does not create a wallet' }));
        return { ok: true, result: resultOf(id, after.context) };
      });
    },

    async signupFinish(id, credential, input) {
      if (!input.agreed) return failure('invalid', { agreed: 'must be true' });
      return onAttempt('authn.signup_finish', id, async (unit): Promise<AuthnOutcome> => {
        const snapshot = await loadActive(unit, id, credential);
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const context = snapshot.context;
        if (!context.signup || context.profileId) return unit.reject(failure('invalid', { request: 'this attempt does not create a wallet' }));
        if (!context.completedMfa) return unit.reject(failure('not_ready', { request: 'multi-factor authentication is not complete' }));
        if (!context.signup.nameChecked) return unit.reject(failure('invalid', { first_name: 'is required (set-signup-data)' }));
        if (!context.closedLoop && !context.signup.passwordHash) return unit.reject(failure('invalid', { password: 'is required (set-signup-data)' }));
        const confirmedUids = Object.entries(context.authenticated).filter(([, factor]) => factor.byCode).map(([uid]) => uid);
        for (const uid of confirmedUids) if (await profiles.findByUid(unit.tx, uid)) return unit.reject(failure('uid_taken', { login: `${uid} belongs to another wallet` }));
        const { profileId } = await profiles.createIndividualIn(unit, {
          firstName: context.signup.firstName,
          lastName: context.signup.lastName,
          site: context.site,
          confirmedUids,
          passwordHash: context.signup.passwordHash,
          deviceUuid: context.deviceUuid,
          deviceName: context.deviceName,
        });
        await applyTrust(unit, context, profileId);
        if (context.inviteId) await invitations.markAcceptedIn(unit, context.inviteId, profileId);
        const completion = await issueToken(unit, context, profileId);
        const title = String(completion.profile.title ?? `${context.signup.firstName} ${context.signup.lastName}`);
        const after = send(unit, id, { type: 'attempt.finish', profileId, profileTitle: title });
        if (!after) throw new Error('an active attempt refused attempt.finish');
        unit.cancelTimer(authnAttempt, id, 'expire');
        return { ok: true, result: resultOf(id, after.context, completion) };
      });
    },

    async resetPassword(id, credential, input) {
      const problem = passwordProblem(input.password);
      if (problem) return failure('invalid', { password: problem });
      const passwordHash = await hashSecret(input.password);
      return onAttempt('authn.reset_password', id, async (unit): Promise<AuthnOutcome> => {
        const snapshot = await loadActive(unit, id, credential);
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const context = snapshot.context;
        if (context.intent !== 'reset' || !context.profileId) return unit.reject(failure('invalid', { request: 'this attempt does not reset a password' }));
        if (!context.completedMfa) return unit.reject(failure('not_ready', { request: 'multi-factor authentication is not complete' }));
        await profiles.setPasswordHash(unit.tx, context.profileId, passwordHash);
        await store.clearGuard(unit.tx, `login:${context.login.uid}`);
        await applyTrust(unit, context, context.profileId);
        const completion = await issueToken(unit, context, context.profileId);
        const after = send(unit, id, { type: 'attempt.finish', profileId: context.profileId, profileTitle: context.profileTitle ?? '' });
        if (!after) throw new Error('an active attempt refused attempt.finish');
        unit.cancelTimer(authnAttempt, id, 'expire');
        return { ok: true, result: resultOf(id, after.context, completion) };
      });
    },

    async setTrust(id, credential, input) {
      const captchaSolved = await captchaOk(input.captcha);
      return onAttempt('authn.set_trust', id, async (unit): Promise<{ ok: true } | AuthnFailure> => {
        const snapshot = await loadActive(unit, id, credential, { allowFinished: true });
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const context = snapshot.context;
        checkCaptcha(unit, context, captchaSolved);
        if (input.trust30 && !mayTrust(context)) return unit.reject(failure('invalid', { trust30: 'only a personal mobile device may be trusted (request the mobile_device permission)' }));
        const after = send(unit, id, { type: 'attempt.trust', trust30: input.trust30 });
        if (!after) return unit.reject(failure('attempt_gone'));
        if (after.context.completedMfa && after.context.profileId) await applyTrust(unit, after.context, after.context.profileId);
        return { ok: true };
      });
    },

    siteKey() {
      return sandbox ? { sitekey: siteKey, captcha_bypass: sandboxCaptchaBypass } : { sitekey: siteKey };
    },
    captchaOk,
    setCaptchaVerifier(verifier) {
      captchaVerifier = verifier;
    },

    async startAddUid(input) {
      if (input.uids.length === 0 || input.uids.some((uid) => !codeTypes.has(uid.type))) return failure('invalid', { login: 'must be an email address or a phone number' });
      if (input.uids.length > authnFactorsPerAttemptMax) return failure('invalid', { countries: `match more than ${authnFactorsPerAttemptMax} numbers; send fewer countries` });
      return commands.run('authn.start.add_uid', [], async (unit: Unit<AuthnFailure>) => {
        const profile = await profiles.get(unit.tx, input.profileId);
        if (!profile) return unit.reject(failure('invalid', { request: 'the profile is missing' }));
        const targets: { login: LoginInfo; heldElsewhere: boolean }[] = [];
        for (const uid of input.uids) {
          const owner = await profiles.findByUid(unit.tx, uid.uid);
          if (owner?.id !== profile.id) targets.push({ login: loginInfo(uid), heldElsewhere: owner !== null });
        }
        if (targets.length === 0) return unit.reject(failure('invalid', { login: 'is already confirmed for this wallet' }));
        const pending: PendingFactor[] = [];
        const revealed: string[] = [];
        for (const target of targets) {
          if (target.heldElsewhere) {
            pending.push(await issueAddConflict(unit, target.login));
            continue;
          }
          const issued = await issueCode(unit, target.login, 'authn-add-ok', true);
          pending.push(issued.pending);
          if (issued.revealed) revealed.push(issued.revealed);
        }
        const id = await unit.newShortId('authn_attempt');
        const secret = randomSecret(authnSecretBytes);
        const expiresAt = new Date(unit.now.getTime() + authnAttemptLifetimeMs);
        unit.create(authnAttempt, id, {
          intent: 'add-uid',
          clientId: input.clientId,
          site: '',
          deviceUuid: input.deviceUuid ?? '',
          deviceName: null,
          permissions: null,
          closedLoop: false,
          secretHash: secretHash(secret),
          login: targets[0].login,
          profileId: profile.id,
          profileTitle: profile.title,
          typesAvailable: 0,
          inviteId: null,
          authenticated: {},
          pending,
          passwordOk: false,
          deviceTrusted: false,
          signup: null,
          trust30: false,
          expiresAt: expiresAt.toISOString(),
        });
        unit.schedule(authnAttempt, id, 'expire', expiresAt, { type: 'attempt.expire' });
        return {
          ok: true as const,
          attemptId: id,
          secret,
          codeLength: pending[0].codeLength,
          unauthenticated: Object.fromEntries(pending.map((factor) => [factor.uid, { original: factor.original, country: factor.country }])),
          ...(sandbox && revealed.length > 0 ? { revealedCodes: revealed } : {}),
        };
      });
    },

    async confirmAddUid(input, apply) {
      const captchaSolved = await captchaOk(input.captcha);
      return onAttempt('authn.confirm_add_uid', input.attemptId, async (unit) => {
        const snapshot = await loadActive(unit, input.attemptId, { secret: input.secret });
        if (snapshot === 'expired_now') return failure('attempt_gone');
        const before = snapshot.context;
        const factors = pendingFactors(before);
        if (before.intent !== 'add-uid' || before.profileId !== input.profileId || factors.length === 0) return unit.reject(failure('attempt_gone'));
        checkCaptcha(unit, before, captchaSolved);
        // Every factor is checked, so the time taken does not tell which number (if any) matched.
        const code = normalizeCode(input.code);
        let matched: PendingFactor | null = null;
        for (const factor of factors) if ((await verifySecret(factor.codeHash, code)) && !matched) matched = factor;
        const next = send(unit, input.attemptId, { type: 'attempt.code', factorId: (matched ?? factors[0]).factorId, ok: matched !== null });
        if (!next) return unit.reject(failure('attempt_gone'));
        if (!matched) {
          if (next.value === 'expired') return failure('attempt_gone', undefined, 'Too many incorrect codes; start again.');
          return failure('incorrect_code', { code: 'The code is not correct.' });
        }
        await apply(unit, matched.uid);
        send(unit, input.attemptId, { type: 'attempt.finish', profileId: input.profileId, profileTitle: before.profileTitle ?? '' });
        unit.cancelTimer(authnAttempt, input.attemptId, 'expire');
        return { ok: true as const, uid: matched.uid };
      });
    },

    verifyDevicePassword,
  };

  core.sweeper.register(authnAttempt.kind, async (unit, timer) => {
    const snapshot = await unit.load(authnAttempt, timer.actorId);
    if (snapshot) unit.send(authnAttempt, timer.actorId, timer.event as never);
  });
  tokens.registerPinVerifier(async (db, input) => {
    if (!input.deviceUuid) return 'none';
    const hashes = await store.devicePasswordHashes(db, input.personalProfileId, input.deviceUuid);
    if (hashes.length === 0) return 'none';
    for (const hash of hashes) if (await verifySecret(hash, input.pin)) return 'match';
    return 'mismatch';
  });

  return service;
}

