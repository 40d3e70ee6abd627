// The types of engine/settings: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { AuthnFailure } from '../authn/errors.ts';
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';

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
