// Settings (permission change_settings): UIDs, password, device passwords, name and image; and
// the public GET of profile image renditions.
import { addUidAnswer, confirmedUids, emptyResponse, profile } from '../http/schemas.ts';
import { z } from 'zod';
import type { AuthnFailure } from '../../engine/authn/errors.ts';
import {
  accessMethodCharsMax, authnAttemptSecretCharsMax, authnCodeCharsMax, captchaResponseCharsMax, changeNameBusinessFieldCharsMax,
  changeNamePersonFieldCharsMax, countriesMax, idCharsMax, imageVersionCharsMax, loginCharsMax, passwordFieldCharsMax, profileImageCacheSeconds,
  profileImageRenditionsPx, uidCharsMax,
} from '../../engine/limits.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { boundedString, stringList } from '../http/fields.ts';
import { defineRoute, messageThrottle, RawResponse, uploadThrottle, withUploadRoom, type RouteDefinition } from '../http/route.ts';
import { authnFailure } from './authn.ts';

const caller = { kind: 'token', permission: 'change_settings' } as const;
const captchaField = boundedString(captchaResponseCharsMax).optional();
const passwordInput = boundedString(passwordFieldCharsMax, 1);

function answer(result: ({ ok: true } & Record<string, unknown>) | AuthnFailure): Record<string, unknown> {
  if (!result.ok) return authnFailure(result);
  const { ok: _ok, ...body } = result;
  return body;
}

const imageUrls = z.strictObject({ image24: z.string().nullable(), image25: z.string().nullable(), image48: z.string().nullable(), image50: z.string().nullable(), image73: z.string().nullable() });

export const settingsRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/wallet/add-uid',
    summary: 'Sends a code to an email, or to each number a phone parses to in the given countries, to add it to the wallet.',
    tags: ['settings'],
    caller,
    input: z
      .object({
        login: boundedString(loginCharsMax, 1),
        uid_type: z.enum(['email', 'phone']).optional(),
        countries: stringList.pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'must be capitalised two-letter codes')).max(countriesMax)).optional(),
      })
      .strict(),
    response: addUidAnswer,
    throttle: ({ input, token, clientAddress }) => messageThrottle([input.login], token?.clientId, clientAddress),
    async handler({ input, engine, token }) {
      const result = await engine.services.settings.addUid(token, { login: input.login, uidType: input.uid_type, countries: input.countries });
      return answer(result);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/add-uid-confirm',
    summary: 'Confirms the added UID with its code; replace_uid is removed on success.',
    tags: ['settings'],
    caller,
    input: z
      .object({
        attempt_id: boundedString(idCharsMax, 1),
        secret: boundedString(authnAttemptSecretCharsMax, 1),
        code: boundedString(authnCodeCharsMax, 1),
        replace_uid: boundedString(uidCharsMax).optional(),
        'g-recaptcha-response': captchaField,
      })
      .strict(),
    response: z.strictObject({ uid: z.string(), confirmed_uids: confirmedUids }),
    errors: [410],
    async handler({ input, engine, token }) {
      const result = await engine.services.settings.confirmUid(token.profileId, {
        attemptId: input.attempt_id, secret: input.secret, code: input.code, replaceUid: input.replace_uid, captcha: input['g-recaptcha-response'],
      });
      return answer(result);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/remove-uid',
    summary: 'Removes a confirmed UID while an email and a phone remain.',
    tags: ['settings'],
    caller,
    input: z.object({ uid: boundedString(uidCharsMax, 1) }).strict(),
    response: z.strictObject({ confirmed_uids: confirmedUids }),
    async handler({ input, engine, token }) {
      return answer(await engine.services.settings.removeUid(token.profileId, input.uid));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/change-password',
    summary: 'Changes the password (8 to 100 characters) given the current one.',
    tags: ['settings'],
    caller,
    input: z.object({ current_password: passwordInput, new_password: boundedString(passwordFieldCharsMax, 1), 'g-recaptcha-response': captchaField }).strict(),
    response: emptyResponse,
    async handler({ input, engine, token }) {
      return answer(await engine.services.settings.changePassword(token.personalProfileId, { currentPassword: input.current_password, newPassword: input.new_password, captcha: input['g-recaptcha-response'] }));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/set-device-password',
    summary: 'Generates a password for this device and access method (biometric unlock); only its hash is kept.',
    tags: ['settings'],
    caller,
    input: z
      .object({
        current_password: passwordInput,
        access_method: z.string().regex(new RegExp(`^[A-Za-z0-9_]{1,${accessMethodCharsMax}}$`), `must be 1 to ${accessMethodCharsMax} ASCII letters, digits or underscores`),
        'g-recaptcha-response': captchaField,
      })
      .strict(),
    response: z.strictObject({ access_method: z.string(), device_password: z.string() }),
    async handler({ input, engine, token }) {
      return answer(await engine.services.settings.setDevicePassword(token, { currentPassword: input.current_password, accessMethod: input.access_method, captcha: input['g-recaptcha-response'] }));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/remove-device-password',
    summary: 'Removes the device password of this device and access method.',
    tags: ['settings'],
    caller,
    input: z.object({ access_method: z.string().regex(new RegExp(`^[A-Za-z0-9_]{1,${accessMethodCharsMax}}$`), `must be 1 to ${accessMethodCharsMax} ASCII letters, digits or underscores`) }).strict(),
    response: z.strictObject({ removed: z.boolean() }),
    async handler({ input, engine, token }) {
      return answer(await engine.services.settings.removeDevicePassword(token, input.access_method));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/change-name',
    summary: 'Changes the name: first_name and last_name (individual) or title and dba (business).',
    tags: ['settings'],
    caller,
    input: z
      .object({ first_name: boundedString(changeNamePersonFieldCharsMax).optional(), last_name: boundedString(changeNamePersonFieldCharsMax).optional(), title: boundedString(changeNameBusinessFieldCharsMax).optional(), dba: boundedString(changeNameBusinessFieldCharsMax).optional() })
      .strict(),
    response: z.strictObject({ profile }),
    async handler({ input, engine, token }) {
      return answer(await engine.services.settings.changeName(token.profileId, { firstName: input.first_name, lastName: input.last_name, title: input.title, dba: input.dba }));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/wallet/image',
    summary: 'Sets the profile image (PNG, JPEG or GIF, at least 250 px wide); square renditions of 24, 48 and 73 px.',
    tags: ['settings'],
    caller,
    input: z.object({}).strict(),
    binaryBody: true,
    throttle: uploadThrottle,
    errors: [429],
    response: imageUrls,
    async handler({ engine, token, request, response }) {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return answer(await withUploadRoom(response, () => engine.services.settings.setImage(token.profileId, body)));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/image/profile/:profileId/:size',
    summary: 'A square profile image rendition (24, 48 or 73 px; 25 and 50 are deprecated aliases).',
    tags: ['settings'],
    caller: { kind: 'none' },
    input: z.object({ v: z.string().max(imageVersionCharsMax).optional() }).strict(),
    rawResponse: { contentTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'], description: 'The image rendition.' },
    operationId: 'getProfileImage',
    errors: [404],
    async handler({ engine, params }) {
      const aliases: Record<string, number> = { '25': 24, '50': 48 };
      const size = aliases[params.size] ?? Number(params.size);
      if (!/^\d{10}$/.test(params.profileId) || !(profileImageRenditionsPx as readonly number[]).includes(size)) throw httpError(edgeErrors, 'route_not_found');
      const image = await engine.services.settings.image(params.profileId, size);
      if (!image) throw httpError(edgeErrors, 'route_not_found', { description: 'This profile has no image.' });
      return new RawResponse(200, image.contentType, image.bytes, { 'cache-control': `public, max-age=${profileImageCacheSeconds}`, 'x-content-type-options': 'nosniff' });
    },
  }),
];
