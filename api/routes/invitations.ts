// Invitations: invite, read, re-send and expire (Basic app authentication), and finish-invite.
import { walletInfo } from '../http/schemas.ts';
import { z } from 'zod';
import { personNameProblem } from '../../engine/authn/names.ts';
import type { InvitationError, InvitationFailure } from '../../engine/invitations/errors.ts';
import {
  countriesMax, defaultCountries, inviteEmailCharsMax, inviteExtIdCharsMax, invitePhoneCharsMax, inviteSenderFieldCharsMax,
  inviteUrlTemplateCharsMax,
} from '../../engine/limits.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { boundedString, stringList } from '../http/fields.ts';
import { defineRoute, messageThrottle, type RouteDefinition } from '../http/route.ts';
import { walletInfoHandler } from './profiles.ts';

export const invitationErrors = errorTable<InvitationError>({
  invalid: edgeErrors.invalid,
  invitation_gone: { status: 410, error: 'unavailable', description: 'The invitation has expired or is unavailable.' },
  not_sender: { status: 403, error: 'app_denied', description: 'Only the app that sent the invitation may change it.' },
});

function fail(result: InvitationFailure): never {
  throw httpError(invitationErrors, result.error, { invalid: result.invalid });
}

const nameField = z.string().superRefine((name, context) => {
  const problem = personNameProblem(name);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
const optionalText = (max: number) => boundedString(max).optional();
const countriesField = stringList.pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'must be two-letter uppercase country codes')).max(countriesMax));
const senderFields = {
  sender_url: optionalText(inviteSenderFieldCharsMax),
  sender_image_url: optionalText(inviteSenderFieldCharsMax),
  org_name: optionalText(inviteSenderFieldCharsMax),
  org_url: optionalText(inviteSenderFieldCharsMax),
  org_image_url: optionalText(inviteSenderFieldCharsMax),
};

const inviteInput = z
  .object({
    first_name: nameField,
    last_name: nameField,
    email: optionalText(inviteEmailCharsMax),
    phone: optionalText(invitePhoneCharsMax),
    countries: countriesField.optional(),
    ext_id: optionalText(inviteExtIdCharsMax),
    url_template: boundedString(inviteUrlTemplateCharsMax, 1),
    sender_name: boundedString(inviteSenderFieldCharsMax, 1),
    ...senderFields,
  })
  .strict();

const reinviteInput = z
  .object({
    first_name: nameField.optional(),
    last_name: nameField.optional(),
    email: optionalText(inviteEmailCharsMax),
    phone: optionalText(invitePhoneCharsMax),
    countries: countriesField.optional(),
    ext_id: optionalText(inviteExtIdCharsMax),
    url_template: boundedString(inviteUrlTemplateCharsMax, 1).optional(),
    sender_name: boundedString(inviteSenderFieldCharsMax, 1).optional(),
    ...senderFields,
  })
  .strict();

const empty = z.object({}).strict();
const inviteIdPattern = /^\d{10}$/;

const nullableText = z.string().nullable();
const invitationView = z.strictObject({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  sender_name: z.string(),
  sender_url: nullableText,
  sender_image_url: nullableText,
  org_name: nullableText,
  org_url: nullableText,
  org_image_url: nullableText,
  failures: z.number().int(),
  email: nullableText,
  is_personal: z.boolean(),
});

export const invitationRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/ai/invite',
    summary: 'Invites a person by email and/or phone; the message carries a link and a code.',
    tags: ['invitations'],
    caller: { kind: 'app' },
    input: inviteInput,
    response: z.strictObject({ id: z.string(), revealed_codes: z.array(z.string()).optional().describe('sandbox only') }),
    throttle: ({ input, app, clientAddress }) => messageThrottle([input.email, input.phone], app?.clientId, clientAddress),
    async handler({ input, engine, app }) {
      if (!input.email && !input.phone) throw httpError(invitationErrors, 'invalid', { invalid: { email: 'email or phone is required' } });
      const result = await engine.services.invitations.invite({
        clientId: app.clientId,
        firstName: input.first_name.trim(),
        lastName: input.last_name.trim(),
        email: input.email || null,
        phone: input.phone || null,
        countries: input.countries ?? defaultCountries,
        extId: input.ext_id ?? null,
        urlTemplate: input.url_template,
        senderName: input.sender_name,
        senderUrl: input.sender_url ?? null,
        senderImageUrl: input.sender_image_url ?? null,
        orgName: input.org_name ?? null,
        orgUrl: input.org_url ?? null,
        orgImageUrl: input.org_image_url ?? null,
      });
      if (!result.ok) return fail(result);
      return { id: result.inviteId, ...(result.revealedCodes ? { revealed_codes: result.revealedCodes } : {}) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/ai/:inviteId',
    summary: 'The invitation, as its recipient may read it.',
    tags: ['invitations'],
    caller: { kind: 'none' },
    input: empty,
    response: invitationView,
    errors: [410],
    async handler({ engine, params }) {
      if (!inviteIdPattern.test(params.inviteId)) throw httpError(invitationErrors, 'invalid', { invalid: { invite_id: 'is not an invitation ID' } });
      const result = await engine.services.invitations.get(params.inviteId);
      return result.ok ? result.invitation : fail(result);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/ai/:inviteId/reinvite',
    summary: 'Re-sends the invitation (with a new code) to the given address, or to every earlier one.',
    tags: ['invitations'],
    caller: { kind: 'app' },
    input: reinviteInput,
    response: z.strictObject({ id: z.string(), revealed_codes: z.array(z.string()).optional().describe('sandbox only') }),
    errors: [403, 410],
    throttle: ({ input, app, params, clientAddress }) => messageThrottle(input.email || input.phone ? [input.email, input.phone] : [`invitation:${params.inviteId}`], app?.clientId, clientAddress),
    async handler({ input, engine, app, params }) {
      if (!inviteIdPattern.test(params.inviteId)) throw httpError(invitationErrors, 'invitation_gone');
      const result = await engine.services.invitations.reinvite(app.clientId, params.inviteId, {
        email: input.email || undefined,
        phone: input.phone || undefined,
        countries: input.countries ?? defaultCountries,
        firstName: input.first_name?.trim(),
        lastName: input.last_name?.trim(),
        extId: input.ext_id,
        urlTemplate: input.url_template,
        senderName: input.sender_name,
        senderUrl: input.sender_url,
        senderImageUrl: input.sender_image_url,
        orgName: input.org_name,
        orgUrl: input.org_url,
        orgImageUrl: input.org_image_url,
      });
      if (!result.ok) return fail(result);
      return { id: result.inviteId, ...(result.revealedCodes ? { revealed_codes: result.revealedCodes } : {}) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/ai/:inviteId/expire',
    summary: 'Expires the invitation at once; no messages are sent.',
    tags: ['invitations'],
    caller: { kind: 'app' },
    input: empty,
    response: z.strictObject({ id: z.string(), expired: z.literal(true) }),
    errors: [403, 410],
    async handler({ engine, app, params }) {
      if (!inviteIdPattern.test(params.inviteId)) throw httpError(invitationErrors, 'invitation_gone');
      const result = await engine.services.invitations.expire(app.clientId, params.inviteId);
      return result.ok ? { id: params.inviteId, expired: true } : fail(result);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/wallet/finish-invite',
    summary: 'GET /wallet/info plus invite_id and ext_id of the invitation this wallet accepted; expires it (repeatable).',
    tags: ['invitations'],
    caller: { kind: 'token', permission: 'view_wallet' },
    input: empty,
    alsoPost: true,
    response: walletInfo.extend({ invite_id: z.string().nullable(), ext_id: z.string().nullable() }),
    async handler(context) {
      const info = await walletInfoHandler(context);
      const finished = await context.engine.services.invitations.finish(context.token.personalProfileId, context.token.clientId);
      return { ...info, invite_id: finished.inviteId, ext_id: finished.extId };
    },
  }),
];
