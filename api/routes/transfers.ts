// Transfers: history, history_sync, GET /t/<id>, and the calls that change a waiting transfer
// (retract, skip, change_paycode_expiration, accept, refuse, resend).
import { transfer, transferDetail, transferDetailAnswer } from '../http/schemas.ts';
import { z } from 'zod';
import {
  historyAppdataFilterCharsMax, historyLimitDefault, historyLimitMax, historyOffsetMax, paycodeExpirySecondsMax, retractReasonCharsMax,
  syncLimitDefault, syncLimitMax,
} from '../../engine/limits.ts';
import { appdataChars } from '../../engine/transfers/service.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { boolField, intField, timestampField } from '../http/fields.ts';
import { defineRoute, messageThrottle, type RouteContext, type RouteDefinition, type TokenCaller } from '../http/route.ts';
import { raise } from './ledger-errors.ts';

const empty = z.object({}).strict();
const transferIdPattern = /^[0-9]{4,20}$/;

/** Transfer ids may arrive hyphenated in groups of four. */
export function transferIdOf(params: Record<string, string>): string {
  const id = params.transferId.replace(/-/g, '');
  if (!transferIdPattern.test(id)) throw httpError(edgeErrors, 'invalid', { invalid: { transfer_id: 'must be a transfer id' } });
  return id;
}

/** The { transfer: TransferDetail } answer of the calls that change a transfer, as the caller sees it. */
export async function transferDetailFor(context: Pick<RouteContext<unknown, TokenCaller>, 'engine' | 'token'>, transferId: string) {
  const detail = await context.engine.services.ledger.queries.detail(context.token.profileId, transferId);
  if (!detail.ok) raise(detail);
  return { transfer: detail.transfer };
}

function parseUtc(text: string): Date {
  return new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
}

const historyInput = z
  .object({
    offset: intField(0, historyOffsetMax).optional(),
    limit: intField(1, historyLimitMax).optional(),
    order_column: z.enum(['start', 'timestamp']).optional(),
    order_direction: z.enum(['asc', 'desc']).optional(),
  })
  .strict();

const syncInput = z
  .object({
    sync_ts: timestampField,
    transfer_id: z.string().regex(/^[0-9-]{4,24}$/, 'must be a transfer id').optional(),
    limit: intField(1, syncLimitMax).optional(),
    count_remain: boolField.optional(),
  })
  .strict();

const retractInput = z
  .object({ reason: z.string().min(1, 'is required').max(retractReasonCharsMax) })
  .strict();

const changeExpirationInput = z
  .object({
    paycode: z.string().regex(/^[0-9 -]{4,40}$/, 'must be a payment code'),
    expire_seconds: intField(1, paycodeExpirySecondsMax),
  })
  .strict();

export const transferRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/wallet/history',
    summary: "The profile's transfers, newest first by default; appdata.<name> filters.",
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'view_history' },
    input: historyInput,
    appdata: true,
    response: z.strictObject({ results: z.array(transfer), more: z.boolean() }),
    async handler({ engine, token, input, appdata }) {
      if (appdataChars(appdata) > historyAppdataFilterCharsMax) {
        throw httpError(edgeErrors, 'invalid', { invalid: { appdata: `filters must total at most ${historyAppdataFilterCharsMax} characters` } });
      }
      return engine.services.ledger.queries.history({
        profileId: token.profileId, offset: input.offset ?? 0, limit: input.limit ?? historyLimitDefault,
        orderColumn: input.order_column ?? 'start', orderDirection: input.order_direction ?? 'desc', appdata,
      });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/history_sync',
    summary: 'Transfers changed after sync_ts (and transfer_id), oldest change first.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'view_history' },
    input: syncInput,
    response: z.strictObject({ results: z.array(transfer), more: z.boolean(), first_sync_ts: z.string().nullable(), last_sync_ts: z.string().nullable(), remain: z.number().int().optional() }),
    async handler({ engine, token, input }) {
      return engine.services.ledger.queries.sync({
        profileId: token.profileId, syncTs: parseUtc(input.sync_ts), transferId: input.transfer_id?.replace(/-/g, '') ?? null,
        limit: input.limit ?? syncLimitDefault, countRemain: input.count_remain ?? false,
      });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/t/:transferId',
    summary: 'TransferDetail, for stakeholders only.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'view_history' },
    input: empty,
    response: transferDetail,
    errors: [403],
    async handler(context) {
      const answer = await transferDetailFor(context, transferIdOf(context.params));
      return answer.transfer;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/retract',
    summary: 'Retracts a waiting transfer with a reason; manage_sent for the sender, manage_received for a recipient-initiated transfer.',
    tags: ['transfers'],
    caller: { kind: 'token' },
    input: retractInput,
    response: transferDetailAnswer,
    errors: [403],
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const token = context.token;
      const result = await context.engine.services.ledger.transfers.retract({ callerId: token.profileId, permissions: token.permissions, transferId, reason: context.input.reason, closedLoopOnly: token.closedLoopOnly });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/skip',
    summary: 'Skips the payment code or the hold of a transfer the caller initiated.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'manage_sent' },
    input: empty,
    response: transferDetailAnswer,
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const result = await context.engine.services.ledger.transfers.skip({ callerId: context.token.profileId, transferId, closedLoopOnly: context.token.closedLoopOnly });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/change_paycode_expiration',
    summary: 'Sets a new expiry (at most 10 years from now) on a transfer waiting for its payment code.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'manage_sent' },
    input: changeExpirationInput,
    response: transferDetailAnswer,
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const result = await context.engine.services.ledger.transfers.changePaycodeExpiration({
        callerId: context.token.profileId, transferId, paycode: context.input.paycode, expireSeconds: context.input.expire_seconds,
      });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/accept',
    summary: 'The invited recipient accepts an invitation transfer; the cash moves to their wallet.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'receive_cash' },
    input: empty,
    // A bill whose distributor's agreement was deactivated: 409 agreement_inactive.
    errors: [409],
    response: transferDetailAnswer,
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const result = await context.engine.services.ledger.transfers.accept({ callerId: context.token.profileId, transferId, closedLoopOnly: context.token.closedLoopOnly });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/refuse',
    summary: 'The invited recipient refuses an invitation transfer; the cash returns to the sender.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'receive_cash' },
    input: empty,
    response: z.strictObject({ transfer }),
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const result = await context.engine.services.ledger.transfers.refuse({ callerId: context.token.profileId, transferId });
      if (!result.ok) raise(result);
      return { transfer: await context.engine.services.ledger.queries.summary(transferId) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/resend',
    summary: 'Sends the invitation message of a waiting invitation transfer again.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'manage_sent' },
    input: empty,
    response: transferDetailAnswer,
    // The recipient's address is not known at the edge: the transfer stands in for it.
    throttle: ({ params, token, clientAddress }) => messageThrottle([`transfer:${params.transferId}`], token?.clientId, clientAddress),
    async handler(context) {
      const transferId = transferIdOf(context.params);
      const result = await context.engine.services.ledger.transfers.resend({ callerId: context.token.profileId, transferId });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),
];
