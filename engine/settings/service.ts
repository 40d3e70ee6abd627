// Settings of a signed-in wallet: UIDs (add with a code to each number a phone parses to, remove
// while two factor types remain), password, device passwords, name and profile image. Password
// checks share the guessing guard of sign-in (captcha after repeated failures).
import type { AuthnFailure } from '../authn/errors.ts';
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { image, imageUrls, setImage } from './images.ts';
import { changeName } from './names.ts';
import { changePassword, removeDevicePassword, setDevicePassword } from './passwords.ts';
import { addUid, confirmUid, removeUid } from './uids.ts';

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

export interface SettingsContext {
  core: Core;
  authn: AuthnService;
  profiles: ProfilesService;
}

export function createSettingsService(core: Core, dependencies: { authn: AuthnService; profiles: ProfilesService }): SettingsService {
  const ctx: SettingsContext = { core, authn: dependencies.authn, profiles: dependencies.profiles };
  return {
    addUid: (principal, input) => addUid(ctx, principal, input),
    confirmUid: (profileId, input) => confirmUid(ctx, profileId, input),
    removeUid: (profileId, uid) => removeUid(ctx, profileId, uid),
    changePassword: (profileId, input) => changePassword(ctx, profileId, input),
    setDevicePassword: (principal, input) => setDevicePassword(ctx, principal, input),
    removeDevicePassword: (principal, accessMethod) => removeDevicePassword(ctx, principal, accessMethod),
    changeName: (profileId, input) => changeName(ctx, profileId, input),
    setImage: (profileId, bytes) => setImage(ctx, profileId, bytes),
    image: (profileId, sizePx) => image(ctx, profileId, sizePx),
    imageUrls: (db, profileId) => imageUrls(ctx, db, profileId),
  };
}
