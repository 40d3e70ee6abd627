// Starting an attempt (sign in, sign up, reset, accept an invitation; open or closed loop): one
// function per intent decides the first factor, and a shared finish creates the attempt actor.
import type { Unit } from '../actors/command.ts';
import type { AppRecord } from '../apps/service.ts';
import { randomHex, randomSecret, secretHash } from '../ids.ts';
import { authnAttemptLifetimeMs, authnFactorIdBytes, authnLoginCaptchaAfterFailures, authnLoginGuardWindowMs, authnSecretBytes } from '../limits.ts';
import type { CodeTemplate } from '../messages/templates.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { parseLogin, type ParsedUid } from '../uids.ts';
import { authnAttempt, captchaOk, guardTripped, type AttemptSnapshot } from './attempts.ts';
import { issueCode, nextFactor, withheldFactor } from './codes.ts';
import { answerLatest, mayTrust } from './completion.ts';
import type { AuthnContext } from './context.ts';
import { failure, type AuthnFailure } from './errors.ts';
import { codeTypes, loginInfo } from './inputs.ts';
import type { AttemptContext, FactorType, LoginInfo, PendingFactor } from './machine.ts';
import { checkPasswordAhead, verdictStands, type PasswordVerdict } from './password-checks.ts';
import { decoyHash, everyFactorType, makeCodes, takeCode, type ReadyCodes } from './ready-codes.ts';
import type { AuthnOutcome, StartInput } from './types.ts';
import * as store from './store.ts';

/** What a start call knows inside its command, before the attempt exists. */
interface StartRequest {
  input: StartInput;
  app: AppRecord;
  closedLoop: boolean;
  parsed: ParsedUid;
  login: LoginInfo;
  profile: ProfileRecord | null;
  captchaSolved: boolean;
  /** A sign-in's password, verified before the command. */
  passwordAhead: PasswordVerdict;
  /** The codes the command may send, made before it (startCodeTypes), and the decoy factors' hash. */
  codes: ReadyCodes;
  decoyHash: string;
}

/** What an intent decided: the attempt's first factor and what the call has already proven. */
interface Opening {
  pending: PendingFactor | null;
  passwordOk: boolean;
  deviceTrusted: boolean;
  inviteId: string | null;
  signup: AttemptContext['signup'];
  /** Under the login guard without a captcha: no verdict is told; 'right' or 'wrong' is known only here. */
  withheld: 'right' | 'wrong' | null;
  authenticated: AttemptContext['authenticated'];
  revealed: (string | null)[];
  inviteeName?: AttemptContext['inviteeName'];
}

function opening(decided: Partial<Opening>): Opening {
  return { pending: null, passwordOk: false, deviceTrusted: false, inviteId: null, signup: null, withheld: null, authenticated: {}, revealed: [], ...decided };
}

export async function start(ctx: AuthnContext, input: StartInput): Promise<AuthnOutcome> {
  const app = await ctx.deps.apps.get(input.clientId);
  if (!app) return failure('invalid', { client_id: 'is not a known app' });
  const parsed = parseLogin(input.login, input.countries);
  if (!parsed) return failure('invalid', { login: 'must be an email address, a phone number or a username' });
  const closedLoop = input.intent === 'signin-closed' || input.intent === 'signup-closed';
  if (input.intent !== 'signin' && !codeTypes.has(parsed.type)) return failure('invalid', { login: 'must be an email address or a phone number' });
  if (input.trust30 && !mayTrust({ permissions: input.permissions ?? null, closedLoop })) {
    return failure('invalid', { trust30: 'only a personal mobile device may be trusted (request the mobile_device permission)' });
  }
  const lockRefs = input.inviteId ? [{ kind: 'invitation', id: input.inviteId }] : [];
  const captchaSolved = await captchaOk(ctx, input.captcha);
  const passwordAhead = input.intent === 'signin'
    ? await checkPasswordAhead(ctx.core.sql, await ctx.deps.profiles.findByUid(ctx.core.sql, parsed.uid), input.deviceUuid, input.password ?? '')
    : { matchedHash: null };
  const types = await startCodeTypes(ctx, input, parsed, passwordAhead, captchaSolved);
  const spent = await spendMessageBudget(input, types);
  if (spent) return spent;
  const [codes, decoy] = await Promise.all([makeCodes(types), decoyHash(ctx)]);
  return ctx.core.commands.run(`authn.start.${input.intent}`, lockRefs, async (unit: Unit<AuthnFailure>): Promise<AuthnOutcome> => {
    const profile = await ctx.deps.profiles.findByUid(unit.tx, parsed.uid);
    const request: StartRequest = { input, app, closedLoop, parsed, login: loginInfo(parsed), profile, captchaSolved, passwordAhead, codes, decoyHash: decoy };
    const opened = await openIntent(ctx, unit, request);
    // A wrong password (not under the guard) answers without an attempt; its guard count commits.
    if ('ok' in opened) return opened;
    return finishStart(ctx, unit, request, opened);
  });
}

/**
 * The factor types a start's command may send a code to, so each code is made before it. Every
 * intent but sign-in sends one to the login, or none. A sign-in sends the next factor, to a UID of
 * either type, after the right password; a wrong one gets no code, except under the login guard,
 * where the right password's code goes to the login: there a wrong password makes the same codes,
 * so the time taken does not tell the verdict the answer withholds.
 */
async function startCodeTypes(ctx: AuthnContext, input: StartInput, parsed: ParsedUid, passwordAhead: PasswordVerdict, captchaSolved: boolean): Promise<readonly FactorType[]> {
  if (input.intent !== 'signin') return [parsed.type as FactorType];
  if (passwordAhead.matchedHash !== null) return everyFactorType;
  const guarded = !captchaSolved && codeTypes.has(parsed.type) && (await guardTripped(ctx.core.sql, `login:${parsed.uid}`, authnLoginCaptchaAfterFailures, ctx.core.clock.now()));
  return guarded ? everyFactorType : [];
}

/**
 * Only a start that sends a message spends a budget, so malformed calls and wrong passwords spend
 * none. A sign-in's code goes to the wallet's factor after the right password (or, under the
 * guard, right or wrong alike), never at a stranger's request, so it spends the app's and the
 * address's budgets but not the login's: strangers cannot make the owner's right password answer 429.
 */
async function spendMessageBudget(input: StartInput, types: readonly FactorType[]): Promise<AuthnFailure | null> {
  if (!input.messageBudget || types.length === 0) return null;
  const verdict = await input.messageBudget(input.intent !== 'signin');
  if (verdict.ok) return null;
  return { ...failure('rate_limited'), retryAfterSeconds: verdict.retryAfterSeconds };
}

function openIntent(ctx: AuthnContext, unit: Unit<AuthnFailure>, request: StartRequest): Promise<Opening | AuthnFailure> {
  const { intent } = request.input;
  if (intent === 'signin') return startSignin(ctx, unit, request);
  if (intent === 'accept') return startAccept(ctx, unit, request);
  if (intent === 'signup' || intent === 'signup-closed') return startSignup(ctx, unit, request);
  return startWithCode(ctx, unit, request);
}

async function startSignin(ctx: AuthnContext, unit: Unit<AuthnFailure>, { input, parsed, login, profile, captchaSolved, passwordAhead }: StartRequest): Promise<Opening | AuthnFailure> {
  const guardKey = `login:${parsed.uid}`;
  // After repeated wrong passwords for a login, an attempt without a solved captcha is told no
  // verdict: right or wrong, it goes on to a code (a trusted device does not count), and only the
  // right password's code exists. A stranger cannot lock the owner out, nor learn a password.
  const guarded = (await guardTripped(unit.tx, guardKey, authnLoginCaptchaAfterFailures, unit.now)) && !captchaSolved;
  // The code step goes to the login the caller typed, so it shows nothing they did not know;
  // a username login has no code of its own and still needs the captcha.
  if (guarded && !codeTypes.has(parsed.type)) return unit.reject(failure('captcha_required'));
  const ok = await verdictStands(unit.tx, profile, input.deviceUuid, passwordAhead);
  const authenticated = { [login.uid]: { original: login.original, country: login.country, type: login.type, strong: true, usedPassword: true, byCode: false } };
  if (!ok || !profile) {
    await store.countGuardFailure(unit.tx, guardKey, unit.now, new Date(unit.now.getTime() - authnLoginGuardWindowMs));
    if (!guarded) return failure('password_not_matched', { password: 'The login or the password is not correct.' });
    return opening({ withheld: 'wrong', authenticated });
  }
  // The guard clears when the sign-in completes (completeIfSignedIn), not on the password alone.
  if (!guarded) await store.clearGuard(unit.tx, guardKey);
  const deviceTrusted = !guarded && (await store.isDeviceTrusted(unit.tx, profile.id, input.deviceUuid, unit.now));
  return opening({ passwordOk: true, withheld: guarded ? 'right' : null, deviceTrusted, authenticated });
}

/**
 * An invitation is accepted through an app of the site that sent it. Its code proves the login
 * only when the login is one of its addresses and that address was sent a code of its own that no
 * one else was shown: a code proves at most the one address its message went to. Any other login
 * gets a fresh code of its own, as a sign-up does.
 */
async function startAccept(ctx: AuthnContext, unit: Unit<AuthnFailure>, { input, app, login, profile, codes }: StartRequest): Promise<Opening> {
  const invitation = await ctx.deps.invitations.loadForAcceptIn(unit, input.inviteId ?? '');
  const sender = invitation ? await ctx.deps.apps.get(invitation.clientId, unit.tx) : null;
  if (!invitation || sender?.site !== app.site) return unit.reject(failure('attempt_gone', undefined, 'The invitation has expired or is unavailable.'));
  const signup = profile ? null : { firstName: invitation.firstName, lastName: invitation.lastName, passwordHash: null, nameChecked: false };
  const inviteId = input.inviteId ?? null;
  const inviteeName = { firstName: invitation.firstName, lastName: invitation.lastName };
  const ownCode = invitation.addresses.find((address) => address.uid === login.uid)?.codeHash ?? null;
  if (ownCode !== null) {
    const pending: PendingFactor = {
      factorId: randomHex(authnFactorIdBytes),
      uid: login.uid,
      type: login.type as FactorType,
      original: login.original,
      country: login.country,
      codeHash: ownCode,
      codeLength: invitation.codeLength,
      viaInvitation: true,
    };
    return opening({ inviteId, pending, signup, inviteeName });
  }
  const issued = issueCode(ctx, unit, login, profile ? 'authn-invite-existent' : 'authn-invite-nonexistent', takeCode(codes, login.type as FactorType));
  return opening({ inviteId, pending: issued.pending, revealed: [issued.revealed], signup, inviteeName });
}

/**
 * A sign-up sends a code to the login whether or not a wallet has it, and answers alike: the
 * wallet's id and name show only once the code is proven (resultOf), so the start call tells no
 * one who is registered. For a registered login the code signs in (with the password after it).
 */
async function startSignup(ctx: AuthnContext, unit: Unit<AuthnFailure>, { login, profile, codes }: StartRequest): Promise<Opening> {
  const issued = issueCode(ctx, unit, login, profile ? 'authn-signup-existent' : 'authn-signup-nonexistent', takeCode(codes, login.type as FactorType));
  const signup = profile ? null : { firstName: '', lastName: '', passwordHash: null, nameChecked: false };
  return opening({ pending: issued.pending, revealed: [issued.revealed], signup });
}

/** reset and signin-closed: a code to the login; a login without a wallet gets a message without one. */
async function startWithCode(ctx: AuthnContext, unit: Unit<AuthnFailure>, { input, login, profile, codes }: StartRequest): Promise<Opening> {
  const template: CodeTemplate = input.intent === 'reset' ? 'authn-reset-existent' : 'authn-signin-existent';
  const issued = issueCode(ctx, unit, login, template, profile ? takeCode(codes, login.type as FactorType) : null);
  const deviceTrusted = profile !== null && input.intent === 'reset' && (await store.isDeviceTrusted(unit.tx, profile.id, input.deviceUuid, unit.now));
  return opening({ pending: issued.pending, revealed: [issued.revealed], deviceTrusted });
}

/** Creates the attempt, sends its first factor (or the next one the wallet must prove) and answers. */
async function finishStart(ctx: AuthnContext, unit: Unit<AuthnFailure>, request: StartRequest, opened: Opening): Promise<AuthnOutcome> {
  const { input, app, closedLoop, login, profile, codes } = request;
  const id = await unit.newShortId('authn_attempt');
  const secret = randomSecret(authnSecretBytes);
  const expiresAt = new Date(unit.now.getTime() + authnAttemptLifetimeMs);
  const confirmed = profile ? await ctx.deps.profiles.confirmedUids(unit.tx, profile.id) : [];
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
    inviteId: opened.inviteId,
    authenticated: opened.authenticated,
    pending: opened.pending ? [opened.pending] : [],
    passwordOk: opened.passwordOk,
    deviceTrusted: opened.deviceTrusted,
    signup: opened.signup,
    trust30: input.trust30 ?? false,
    expiresAt: expiresAt.toISOString(),
    viaAuthorize: input.viaAuthorize ?? false,
    verdictWithheld: opened.withheld !== null,
    ...(opened.inviteeName ? { inviteeName: opened.inviteeName } : {}),
  }) as AttemptSnapshot;
  unit.schedule(authnAttempt, id, 'expire', expiresAt, { type: 'attempt.expire' });
  const empty = { ...created.context, completedMfa: false };
  const revealed = [...opened.revealed];
  if (opened.withheld === 'wrong') {
    unit.send(authnAttempt, id, { type: 'attempt.factor', pending: withheldFactor(login, request.decoyHash) });
  } else if (opened.withheld === 'right') {
    const issued = issueCode(ctx, unit, login, 'authn-signin-existent', takeCode(codes, login.type as FactorType));
    unit.send(authnAttempt, id, { type: 'attempt.factor', pending: issued.pending });
    revealed.push(issued.revealed);
  } else {
    revealed.push(await nextFactor(ctx, unit, id, created.context, codes));
  }
  return answerLatest(ctx, unit, id, empty, { secret, revealed });
}
