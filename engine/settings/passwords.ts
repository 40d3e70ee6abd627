// The main password and device passwords of a wallet. Password checks share the guessing guard
// of sign-in (captcha after repeated failures).
import { failure, type AuthnFailure } from '../authn/errors.ts';
import { clearGuard, countGuardFailure, guardTripped } from '../authn/attempts.ts';
import { forgetDevicePassword, keepDevicePassword } from '../authn/password-checks.ts';
import { randomSecret } from '../ids.ts';
import { authnLoginCaptchaAfterFailures, devicePasswordBytes, passwordCharsMax, passwordCharsMin } from '../limits.ts';
import { hashSecret, verifySecret } from '../passwords.ts';
import type { SettingsContext, SettingsOutcome } from './types.ts';

/** Checks the main password under the guessing guard; counts a failure. */
async function checkPassword(ctx: SettingsContext, profileId: string, password: string, captcha: string | undefined): Promise<AuthnFailure | null> {
  const key = `profile:${profileId}`;
  const now = ctx.core.clock.now();
  // The captcha is verified before the transaction: a network call never holds a connection.
  const captchaSolved = await ctx.authn.captchaOk(captcha);
  // So is the password (argon2); the transaction confirms the hash it matched is still the profile's.
  const before = await ctx.profiles.get(ctx.core.sql, profileId);
  const matchedHash = before?.passwordHash && (await verifySecret(before.passwordHash, password)) ? before.passwordHash : null;
  return ctx.core.sql.begin(async (tx) => {
    if ((await guardTripped(tx, key, authnLoginCaptchaAfterFailures, now)) && !captchaSolved) return failure('captcha_required');
    const profile = await ctx.profiles.get(tx, profileId);
    if (!profile || matchedHash === null || profile.passwordHash !== matchedHash) {
      await countGuardFailure(tx, key, now);
      return failure('password_not_matched', { current_password: 'The password is not correct.' });
    }
    await clearGuard(tx, key);
    return null;
  });
}

export async function changePassword(ctx: SettingsContext, profileId: string, input: { currentPassword: string; newPassword: string; captcha?: string }): Promise<SettingsOutcome> {
  if (input.newPassword.length < passwordCharsMin || input.newPassword.length > passwordCharsMax) {
    return failure('invalid', { new_password: `must be ${passwordCharsMin} to ${passwordCharsMax} characters` });
  }
  const problem = await checkPassword(ctx, profileId, input.currentPassword, input.captcha);
  if (problem) return problem;
  await ctx.profiles.setPasswordHash(ctx.core.sql, profileId, await hashSecret(input.newPassword));
  return { ok: true };
}

export async function setDevicePassword(
  ctx: SettingsContext,
  principal: { profileId: string; personalProfileId: string; deviceId: string | null },
  input: { currentPassword: string; accessMethod: string; captcha?: string },
): Promise<SettingsOutcome> {
  if (!principal.deviceId) return failure('invalid', { request: 'this access token is not tied to a device (device_uuid)' });
  const problem = await checkPassword(ctx, principal.personalProfileId, input.currentPassword, input.captcha);
  if (problem) return problem;
  const devicePassword = randomSecret(devicePasswordBytes);
  await keepDevicePassword(ctx.core.sql, principal.personalProfileId, principal.deviceId, input.accessMethod, await hashSecret(devicePassword), ctx.core.clock.now());
  return { ok: true, access_method: input.accessMethod, device_password: devicePassword };
}

export async function removeDevicePassword(ctx: SettingsContext, principal: { personalProfileId: string; deviceId: string | null }, accessMethod: string): Promise<SettingsOutcome> {
  if (!principal.deviceId) return failure('invalid', { request: 'this access token is not tied to a device (device_uuid)' });
  const removed = await forgetDevicePassword(ctx.core.sql, principal.personalProfileId, principal.deviceId, accessMethod);
  return { ok: true, removed };
}
