// Wallet sending and receiving: GET /wallet/presend, POST /wallet/send, POST /wallet/receive.
import { posDeviceOf } from '../../engine/designs/redemption.ts';
import { partyInfo, profile, sendableAmount, transfer, transferAndProfileAnswer } from '../http/schemas.ts';
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import {
  dedupIdCharsMax, invitationCodeCharsMax, invitationCodeCharsMin, invitationCodeInputCharsMax, invitationCodeInputCharsMin,
  invitationExpireDaysMax, latitudeDegreesMax, loginCharsMax, longitudeDegreesMax, searchLimitDefault, searchLimitMax, searchOffsetMax,
  searchQueryCharsMax, sendMessageCharsMax, sendMessageSubjectCharsMax, serialNumbersFieldCharsMax,
} from '../../engine/limits.ts';
import { formatMinor } from '../../engine/money.ts';
import { amountField, amountsField, boolField, boundedString, currencyField, intField, stringList } from '../http/fields.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { defineRoute, rateLimited, type RouteDefinition } from '../http/route.ts';
import type { TokenPrincipal } from '../http/principals.ts';
import { raise } from './ledger-errors.ts';

const uidField = boundedString(loginCharsMax, 1);
const serialNumbersField = z.string().max(serialNumbersFieldCharsMax, 'has too many serial numbers');

export async function transferAndProfile(engine: EdgeEngine, token: TokenPrincipal, transferId: string): Promise<{ transfer: Record<string, unknown>; profile: Record<string, unknown> }> {
  const { ledger, profiles } = engine.services;
  const [detail, profile] = await Promise.all([ledger.queries.detail(token.profileId, transferId), engine.services.profileAccess.detail(token.profileId)]);
  if (!detail.ok) raise(detail);
  return { transfer: detail.transfer, profile };
}

const presendInput = z
  .object({
    recipient_uid: uidField,
    sender_uid: uidField.optional(),
    serial_numbers: serialNumbersField.optional(),
  })
  .strict();

const sendInput = z
  .object({
    recipient_uid: uidField,
    amounts: amountsField,
    sender_uid: uidField.optional(),
    serial_numbers: serialNumbersField.optional(),
    private: boolField.optional(),
    accepted_policy: boolField.optional(),
    non_payment: boolField.optional(),
    message: boundedString(sendMessageCharsMax).optional(),
    message_subject: boundedString(sendMessageSubjectCharsMax).optional(),
    message_body: boundedString(sendMessageCharsMax).optional(),
    notify_via: z.enum(['tweet', 'direct', 'tweet direct']).optional(),
    require_recipient_email: boolField.optional(),
    invitation_type: z.enum(['link', 'code_private', 'code_shared']).optional(),
    invitation_code_length: intField(invitationCodeCharsMin, invitationCodeCharsMax).optional(),
    invitation_expire_days: intField(1, invitationExpireDaysMax).optional(),
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
  })
  .strict();

const receiveInput = z
  .object({
    paycode: z.string().regex(/^[0-9 -]{4,40}$/, 'must be a payment code of at least 4 digits'),
    currency: currencyField,
    amount: amountField,
    total_due: amountField.optional(),
    total_tax: amountField.optional(),
  })
  .strict();

export const ledgerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/wallet/presend',
    summary: 'What the wallet can send to a recipient, and how the app must present it.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_cash' },
    input: presendInput,
    response: z.strictObject({ must_accept_policy: z.boolean(), loops: z.array(sendableAmount), any_accepted: z.boolean(), force_private: z.boolean(), support_paycode: z.boolean(), message_split: z.boolean(), recipient_info: partyInfo, sender_can_send_direct: z.boolean().nullable(), recipient_can_send_direct: z.boolean().nullable() }),
    async handler({ engine, token, input }) {
      const { ledger } = engine.services;
      const result = await ledger.queries.presend(
        { senderId: token.profileId, recipientUid: input.recipient_uid, senderUid: input.sender_uid, serialNumbers: input.serial_numbers, closedLoopOnly: token.closedLoopOnly },
        ledger.transfers,
      );
      if (!result.ok) raise(result);
      return result.body;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/send',
    summary: 'Sends cash to a recipient UID (or an invitation, or a transfer waiting for a payment code).',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_cash' },
    errors: [409],
    input: sendInput,
    appdata: true,
    response: transferAndProfileAnswer,
    async handler({ engine, token, input, appdata }) {
      // A split-message recipient reads subject and body; otherwise the plain message.
      const message = input.message_body ?? input.message;
      const result = await engine.services.ledger.transfers.send({
        senderId: token.profileId,
        clientId: token.clientId,
        senderPersonalId: token.personalProfileId,
        recipientUid: input.recipient_uid,
        senderUid: input.sender_uid,
        amounts: input.amounts,
        serialNumbers: input.serial_numbers,
        private: input.private ?? true,
        acceptedPolicy: input.accepted_policy ?? false,
        nonPayment: input.non_payment ?? false,
        message,
        messageSubject: input.message_subject,
        requireRecipientEmail: input.require_recipient_email ?? false,
        invitationType: input.invitation_type,
        invitationCodeLength: input.invitation_code_length,
        invitationExpireDays: input.invitation_expire_days,
        appdata,
        dedupId: input.dedup_id,
        closedLoopOnly: token.closedLoopOnly,
        withDetail: true,
      });
      if (!result.ok) raise(result);
      // A new transfer comes with its answer read in its own transaction; a duplicate is read now.
      return result.detail ?? transferAndProfile(engine, token, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/receive',
    summary: 'Receives cash with a payment code the customer shows.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'receive_cash', acceptSoftExpired: true },
    input: receiveInput,
    response: z.strictObject({ transfer, sender: profile.nullable(), amount_received: z.string() }),
    async handler({ engine, token, input }) {
      const { ledger, profiles } = engine.services;
      const result = await ledger.transfers.receive({
        recipientId: token.profileId, paycode: input.paycode, currency: input.currency, amount: input.amount, totalDue: input.total_due, totalTax: input.total_tax,
        posDevice: posDeviceOf(token), closedLoopOnly: token.closedLoopOnly,
      });
      if (!result.ok) raise(result);
      const transfer = await ledger.queries.summary(result.transferId);
      const sender = await engine.services.profileAccess.get(transfer.sender_id as string);
      return { transfer, sender: sender ? profiles.toPublic(sender) : null, amount_received: formatMinor(result.amountReceived, input.currency) };
    },
  }),
];

const acceptCodeInput = z.object({ code: z.string().trim().min(invitationCodeInputCharsMin, 'must be an invitation code').max(invitationCodeInputCharsMax, 'must be an invitation code') }).strict();

ledgerRoutes.push(
  defineRoute({
    method: 'post',
    path: '/wallet/accept-code',
    summary: 'Accepts a waiting invitation transfer by the invitation code its message carried; the cash moves to this wallet.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'receive_cash' },
    input: acceptCodeInput,
    response: transferAndProfileAnswer,
    errors: [429],
    throttle: ({ token, clientAddress }) => [{ bucket: 'accept_code_token', key: token.tokenId }, { bucket: 'accept_code_address', key: clientAddress }],
    async handler({ engine, token, input, response }) {
      // A wrong code names no invitation (the code is the lookup), so wrong codes are counted
      // per token and per wallet; past the limit every code waits for the window to end.
      const failureKeys = [{ bucket: 'accept_code_failure', key: `token:${token.tokenId}` }, { bucket: 'accept_code_failure', key: `profile:${token.profileId}` }] as const;
      const locked = await engine.rateLimits.check(failureKeys);
      if (!locked.ok) rateLimited(response, locked.retryAfterSeconds);
      const result = await engine.services.ledger.transfers.acceptCode({ callerId: token.profileId, code: input.code });
      if (!result.ok && result.error === 'invitation_code_not_found') await engine.rateLimits.consume(failureKeys);
      if (!result.ok) raise(result);
      return transferAndProfile(engine, token, result.transferId);
    },
  }),
);

const searchInput = z
  .object({
    q: z.string().max(searchQueryCharsMax, `must be at most ${searchQueryCharsMax} characters`),
    uid: uidField.optional(),
    limit: intField(1, searchLimitMax).optional(),
    offset: intField(0, searchOffsetMax).optional(),
    serial_numbers: serialNumbersField.optional(),
    filters: stringList.pipe(z.array(z.enum(['business', 'individual', 'exclude_self']))).optional(),
    latitude: z.coerce.number().min(-latitudeDegreesMax).max(latitudeDegreesMax).optional(),
    longitude: z.coerce.number().min(-longitudeDegreesMax).max(longitudeDegreesMax).optional(),
  })
  .strict()
  .refine((input) => (input.latitude === undefined) === (input.longitude === undefined), { message: 'give latitude and longitude together', path: ['latitude'] });

ledgerRoutes.push(
  defineRoute({
    method: 'get',
    path: '/wallet/search',
    summary: 'Finds people or businesses to send to; closest businesses first when latitude and longitude are given.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'list_friends' },
    input: searchInput,
    response: z.strictObject({ results: z.array(profile.extend({ uid: z.string() })), more: z.boolean() }),
    async handler({ engine, token, input }) {
      const result = await engine.services.ledger.search({
        profileId: token.profileId, q: input.q, uid: input.uid, limit: input.limit ?? searchLimitDefault, offset: input.offset ?? 0,
        serialNumbers: input.serial_numbers, filters: input.filters ?? [], latitude: input.latitude, longitude: input.longitude,
      });
      if (!result.ok) throw httpError(edgeErrors, 'invalid', { invalid: { [result.field]: result.message } });
      return { results: result.results, more: result.more };
    },
  }),
);
