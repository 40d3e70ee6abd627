// Settings of a signed-in wallet: UIDs (add with a code to each number a phone parses to, remove
// while two factor types remain), password, device passwords, name and profile image. Password
// checks share the guessing guard of sign-in (captcha after repeated failures).
import type { AuthnService } from '../authn/service.ts';
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { image, imageUrls, setImage } from './images.ts';
import { changeName } from './names.ts';
import { changePassword, removeDevicePassword, setDevicePassword } from './passwords.ts';
import { addUid, confirmUid, removeUid } from './uids.ts';
import type { SettingsService, SettingsContext } from './types.ts';
export type { SettingsOutcome, SettingsService, SettingsContext } from './types.ts';

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
