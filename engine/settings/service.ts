// Settings of a signed-in wallet: UIDs (add with a code to each number a phone parses to, remove
// while two factor types remain), password, device passwords, name and profile image. Password
// checks share the guessing guard of sign-in (captcha after repeated failures).
import sharp, { type Metadata } from 'sharp';
import { failure, type AuthnFailure } from '../authn/errors.ts';
import { personNameProblem } from '../authn/names.ts';
import type { AuthnService } from '../authn/service.ts';
import * as authnStore from '../authn/store.ts';
import type { Core } from '../core.ts';
import { randomSecret } from '../ids.ts';
import {
  authnLoginCaptchaAfterFailures,
  authnLoginGuardWindowMs,
  businessNameCharsMax,
  dbaCharsMax,
  devicePasswordBytes,
  imageBodyBytesMax,
  passwordCharsMax,
  passwordCharsMin,
  profileImageRenditionsPx,
  profileImageWidthPxMin,
  imageInputPixelsMax,
} from '../limits.ts';
import { hashSecret, verifySecret } from '../passwords.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { parseEmail, parsePhone, parsePhoneEverywhere, parseUid } from '../uids.ts';
import * as store from './store.ts';

export type SettingsOutcome<T = Record<string, unknown>> = ({ ok: true } & T) | AuthnFailure;

export interface SettingsService {
  addUid(principal: { profileId: string; clientId: string; deviceId: string | null }, input: { login: string; uidType?: 'email' | 'phone'; countries?: string[] }): Promise<SettingsOutcome>;
  confirmUid(profileId: string, input: { attemptId: string; secret: string; code: string; replaceUid?: string; captcha?: string }): Promise<SettingsOutcome>;
  removeUid(profileId: string, uid: string): Promise<SettingsOutcome>;
  changePassword(profileId: string, input: { currentPassword: string; newPassword: string; captcha?: string }): Promise<SettingsOutcome>;
  setDevicePassword(principal: { profileId: string; personalProfileId: string; deviceId: string | null }, input: { currentPassword: string; accessMethod: string; captcha?: string }): Promise<SettingsOutcome>;
  removeDevicePassword(principal: { personalProfileId: string; deviceId: string | null }, accessMethod: string): Promise<SettingsOutcome>;
  changeName(profileId: string, input: { firstName?: string; lastName?: string; title?: string; dba?: string }): Promise<SettingsOutcome>;
  setImage(profileId: string, image: Buffer): Promise<SettingsOutcome>;
  image(profileId: string, sizePx: number): Promise<{ contentType: string; bytes: Buffer } | null>;
  imageUrls(db: Queryable, profileId: string): Promise<Record<string, string | null>>;
}

const factorTypes = ['email', 'phone'];

export function createSettingsService(core: Core, dependencies: { authn: AuthnService; profiles: ProfilesService }): SettingsService {
  const { sql, clock, config } = core;
  const { authn, profiles } = dependencies;

  /** Checks the main password under the guessing guard; counts a failure. */
  async function checkPassword(profileId: string, password: string, captcha: string | undefined): Promise<AuthnFailure | null> {
    const key = `profile:${profileId}`;
    const now = clock.now();
    // The captcha is verified before the transaction: a network call never holds a connection.
    const captchaSolved = await authn.captchaOk(captcha);
    return sql.begin(async (tx) => {
      const guard = await authnStore.selectGuard(tx, key);
      const windowOpen = guard && now.getTime() - guard.window_started_at.getTime() < authnLoginGuardWindowMs;
      if (windowOpen && guard.failures >= authnLoginCaptchaAfterFailures && !captchaSolved) return failure('captcha_required');
      const profile = await profiles.get(tx, profileId);
      if (!profile || !(await verifySecret(profile.passwordHash, password))) {
        await authnStore.countGuardFailure(tx, key, now, new Date(now.getTime() - authnLoginGuardWindowMs));
        return failure('incorrect_password', { current_password: 'The password is not correct.' });
      }
      await authnStore.clearGuard(tx, key);
      return null;
    });
  }

  async function imageUrls(db: Queryable, profileId: string): Promise<Record<string, string | null>> {
    const record = await profiles.get(db, profileId);
    if (!record) throw new Error(`profile ${profileId} does not exist`);
    return profiles.imageUrls(record);
  }

  return {
    async addUid(principal, input) {
      const countries = input.countries ?? [];
      const phoneLike = /^[+\d\s().-]+$/.test(input.login.trim());
      const type = input.uidType ?? (input.login.includes('@') ? 'email' : phoneLike ? 'phone' : null);
      if (!type) return failure('invalid', { login: 'must be an email address or a phone number' });
      if (type === 'phone' && countries.length === 0 && !input.login.trim().startsWith('+')) return failure('invalid', { countries: 'is required for a phone number' });
      // A phone is parsed in every given country; each distinct number gets its own code.
      const email = type === 'email' ? parseEmail(input.login) : null;
      const uids = type === 'email' ? (email ? [email] : []) : parsePhoneEverywhere(input.login, countries);
      if (uids.length === 0) return failure('invalid', { login: `is not ${type === 'email' ? 'an email address' : 'a phone number'}` });
      const started = await authn.startAddUid({ profileId: principal.profileId, clientId: principal.clientId, deviceUuid: principal.deviceId, uids });
      if (!started.ok) return started;
      return {
        ok: true,
        attempt_id: started.attemptId,
        secret: started.secret,
        code_length: started.codeLength,
        unauthenticated: started.unauthenticated,
        ...(started.revealedCodes ? { revealed_codes: started.revealedCodes } : {}),
      };
    },

    async confirmUid(profileId, input) {
      const replace = input.replaceUid ? parseUid(input.replaceUid) : null;
      if (input.replaceUid && !replace) return failure('invalid', { replace_uid: 'is not a UID' });
      const result = await authn.confirmAddUid({ profileId, attemptId: input.attemptId, secret: input.secret, code: input.code, captcha: input.captcha }, async (unit, uid) => {
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
      const confirmed = await profiles.confirmedUids(sql, profileId);
      return { ok: true, uid: result.uid, confirmed_uids: confirmed.map((uid) => ({ uid })) };
    },

    async removeUid(profileId, text) {
      const parsed = parseUid(text) ?? parseEmail(text) ?? parsePhone(text);
      if (!parsed) return failure('invalid', { uid: 'is not a UID' });
      return sql.begin(async (tx): Promise<SettingsOutcome> => {
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
    },

    async changePassword(profileId, input) {
      if (input.newPassword.length < passwordCharsMin || input.newPassword.length > passwordCharsMax) {
        return failure('invalid', { new_password: `must be ${passwordCharsMin} to ${passwordCharsMax} characters` });
      }
      const problem = await checkPassword(profileId, input.currentPassword, input.captcha);
      if (problem) return problem;
      await profiles.setPasswordHash(sql, profileId, await hashSecret(input.newPassword));
      return { ok: true };
    },

    async setDevicePassword(principal, input) {
      if (!principal.deviceId) return failure('invalid', { request: 'this access token is not tied to a device (device_uuid)' });
      const problem = await checkPassword(principal.personalProfileId, input.currentPassword, input.captcha);
      if (problem) return problem;
      const devicePassword = randomSecret(devicePasswordBytes);
      await authnStore.upsertDevicePassword(sql, principal.personalProfileId, principal.deviceId, input.accessMethod, await hashSecret(devicePassword), clock.now());
      return { ok: true, access_method: input.accessMethod, device_password: devicePassword };
    },

    async removeDevicePassword(principal, accessMethod) {
      if (!principal.deviceId) return failure('invalid', { request: 'this access token is not tied to a device (device_uuid)' });
      const removed = await authnStore.deleteDevicePassword(sql, principal.personalProfileId, principal.deviceId, accessMethod);
      return { ok: true, removed };
    },

    async changeName(profileId, input) {
      const profile = await profiles.get(sql, profileId);
      if (!profile) return failure('invalid', { request: 'the profile is missing' });
      if (profile.isIndividual) {
        const invalidFields: Record<string, string> = {};
        const firstProblem = input.firstName === undefined ? 'is required' : personNameProblem(input.firstName);
        const lastProblem = input.lastName === undefined ? 'is required' : personNameProblem(input.lastName);
        if (firstProblem) invalidFields.first_name = firstProblem;
        if (lastProblem) invalidFields.last_name = lastProblem;
        if (input.title !== undefined || input.dba !== undefined) invalidFields.title = 'is for businesses; an individual has first_name and last_name';
        if (Object.keys(invalidFields).length > 0) return failure('invalid', invalidFields);
        await profiles.rename(sql, profileId, { firstName: input.firstName!.trim(), lastName: input.lastName!.trim() });
      } else {
        const title = input.title?.trim() ?? '';
        if (!title) return failure('invalid', { title: 'is required' });
        if ([...title].length > businessNameCharsMax) return failure('invalid', { title: `must be at most ${businessNameCharsMax} characters` });
        if (input.dba !== undefined && [...input.dba].length > dbaCharsMax) return failure('invalid', { dba: `must be at most ${dbaCharsMax} characters` });
        if (input.firstName !== undefined || input.lastName !== undefined) return failure('invalid', { first_name: 'is for individuals; a business has title and dba' });
        await profiles.rename(sql, profileId, { title, dba: input.dba?.trim() || null });
      }
      const updated = await profiles.get(sql, profileId);
      return { ok: true, profile: profiles.toPublic(updated!) };
    },

    async setImage(profileId, image) {
      if (image.length === 0 || image.length > imageBodyBytesMax) return failure('invalid', { image: 'send a PNG, JPEG or GIF image' });
      let metadata: Metadata;
      try {
        metadata = await sharp(image, { animated: false, limitInputPixels: imageInputPixelsMax }).metadata();
      } catch {
        return failure('invalid', { image: 'is not a PNG, JPEG or GIF image' });
      }
      if (!['png', 'jpeg', 'gif'].includes(metadata.format ?? '')) return failure('invalid', { image: 'must be PNG, JPEG or GIF' });
      if ((metadata.width ?? 0) < profileImageWidthPxMin) return failure('invalid', { image: `must be at least ${profileImageWidthPxMin} px wide` });
      // A header can read well while the pixels are truncated or corrupt: decoding is where that shows.
      let renditions: { size: number; bytes: Buffer }[];
      try {
        renditions = await Promise.all(
          profileImageRenditionsPx.map(async (size) => ({ size, bytes: await sharp(image, { animated: false, limitInputPixels: imageInputPixelsMax }).rotate().resize(size, size, { fit: 'cover', position: 'attention' }).png().toBuffer() })),
        );
      } catch {
        return failure('invalid', { image: 'is truncated or corrupt' });
      }
      const now = clock.now();
      await sql.begin(async (tx) => {
        for (const rendition of renditions) await store.upsertImage(tx, profileId, rendition.size, 'image/png', rendition.bytes, now);
        await profiles.bumpImageVersion(tx, profileId);
      });
      return { ok: true, ...(await imageUrls(sql, profileId)) };
    },

    async image(profileId, sizePx) {
      const row = await store.selectImage(sql, profileId, sizePx);
      return row ? { contentType: row.content_type, bytes: Buffer.from(row.bytes) } : null;
    },

    imageUrls,
  };
}
