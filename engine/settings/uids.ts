// A wallet's UIDs: adding one with a code sent to each number a phone parses to, confirming it
// (optionally in place of another), removing one while two factor types remain.
import { failure, type AuthnFailure } from '../authn/errors.ts';
import { parseEmail, parsePhone, parsePhoneEverywhere, parseUid, type ParsedUid } from '../uids.ts';
import type { SettingsContext, SettingsOutcome } from './types.ts';

const factorTypes = ['email', 'phone'];

type AddUidInput = { login: string; uidType?: 'email' | 'phone'; countries?: string[] };

/** The UIDs a login names (a phone parsed in every given country), or the field's problem. */
function uidsOf(input: AddUidInput): { uids: ParsedUid[] } | AuthnFailure {
  const countries = input.countries ?? [];
  const phoneLike = /^[+\d\s().-]+$/.test(input.login.trim());
  const type = input.uidType ?? (input.login.includes('@') ? 'email' : phoneLike ? 'phone' : null);
  if (!type) return failure('invalid', { login: 'must be an email address or a phone number' });
  if (type === 'phone' && countries.length === 0 && !input.login.trim().startsWith('+')) return failure('invalid', { countries: 'is required for a phone number' });
  // A phone is parsed in every given country; each distinct number gets its own code.
  const email = type === 'email' ? parseEmail(input.login) : null;
  const uids = type === 'email' ? (email ? [email] : []) : parsePhoneEverywhere(input.login, countries);
  if (uids.length === 0) return failure('invalid', { login: `is not ${type === 'email' ? 'an email address' : 'a phone number'}` });
  return { uids };
}

export async function addUid(ctx: SettingsContext, principal: { profileId: string; clientId: string; deviceId: string | null }, input: AddUidInput): Promise<SettingsOutcome> {
  const parsed = uidsOf(input);
  if (!('uids' in parsed)) return parsed;
  const started = await ctx.authn.startAddUid({ profileId: principal.profileId, clientId: principal.clientId, deviceUuid: principal.deviceId, uids: parsed.uids });
  if (!started.ok) return started;
  return {
    ok: true,
    attempt_id: started.attemptId,
    secret: started.secret,
    code_length: started.codeLength,
    unauthenticated: started.unauthenticated,
    ...(started.revealedCodes ? { revealed_codes: started.revealedCodes } : {}),
  };
}

export async function confirmUid(ctx: SettingsContext, profileId: string, input: { attemptId: string; secret: string; code: string; replaceUid?: string; captcha?: string }): Promise<SettingsOutcome> {
  const { profiles } = ctx;
  const replace = input.replaceUid ? parseUid(input.replaceUid) : null;
  if (input.replaceUid && !replace) return failure('invalid', { replace_uid: 'is not a UID' });
  const result = await ctx.authn.confirmAddUid({ profileId, attemptId: input.attemptId, secret: input.secret, code: input.code, captcha: input.captcha }, async (unit, uid) => {
    const confirmed = await profiles.confirmedUids(unit.tx, profileId);
    if (replace && !confirmed.includes(replace.uid)) {
      unit.reject(failure('invalid', { replace_uid: 'is not a confirmed UID of this wallet' }));
    }
    if (!(await profiles.addConfirmedUid(unit.tx, profileId, uid))) {
      unit.reject(failure('uid_taken', { login: 'belongs to another wallet' }));
    }
    if (replace && replace.uid !== uid) await profiles.removeUid(unit.tx, profileId, replace.uid);
  });
  if (!result.ok) return result;
  const confirmed = await profiles.confirmedUids(ctx.core.sql, profileId);
  return { ok: true, uid: result.uid, confirmed_uids: confirmed.map((uid) => ({ uid })) };
}

export async function removeUid(ctx: SettingsContext, profileId: string, text: string): Promise<SettingsOutcome> {
  const { profiles } = ctx;
  const parsed = parseUid(text) ?? parseEmail(text) ?? parsePhone(text);
  if (!parsed) return failure('invalid', { uid: 'is not a UID' });
  return ctx.core.sql.begin(async (tx): Promise<SettingsOutcome> => {
    const confirmed = await profiles.confirmedUids(tx, profileId);
    if (!confirmed.includes(parsed.uid)) return failure('invalid', { uid: 'is not a confirmed UID of this wallet' });
    const remainingTypes = new Set(confirmed.filter((uid) => uid !== parsed.uid).map((uid) => uid.split(':')[0]).filter((type) => factorTypes.includes(type)));
    if (factorTypes.includes(parsed.type) && remainingTypes.size < 2) {
      return failure('invalid', { uid: 'removing it would leave fewer than two factors of different types (an email and a phone)' });
    }
    await profiles.removeUid(tx, profileId, parsed.uid);
    const left = await profiles.confirmedUids(tx, profileId);
    return { ok: true, confirmed_uids: left.map((uid) => ({ uid })) };
  });
}
