// Trades (supplement 4.10): POST /wallet/trade offers cash for cash the recipient sends back;
// POST /t/<id>/accept-trade completes the exchange.
import { transferDetailAnswer } from '../http/schemas.ts';
import { z } from 'zod';
import { dedupIdCharsMax, loginCharsMax, tradeAcceptExpireSecondsDefault, tradeAcceptExpireSecondsMax, tradeEntriesMax } from '../../engine/limits.ts';
import { amountField, boundedString, currencyField, intField } from '../http/fields.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './ledger-errors.ts';
import { transferDetailFor, transferIdOf } from './transfers.ts';

const tradeEntry = z
  .object({
    loop_id: z.string().regex(/^[0-9]{1,20}$/, 'must be a loop id'),
    currency: currencyField,
    amount: amountField,
  })
  .strict();
const tradeEntries = z.array(tradeEntry).min(1, 'needs at least one entry').max(tradeEntriesMax, `takes at most ${tradeEntriesMax} entries`);

const tradeInput = z
  .object({
    recipient_uid: boundedString(loginCharsMax, 1),
    amounts: tradeEntries,
    expect_amounts: tradeEntries,
    // 0 is FerlySite's value when its app leaves the deadline out: the default.
    accept_expire_seconds: intField(0, tradeAcceptExpireSecondsMax).optional(),
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
  })
  .strict();

const acceptTradeInput = z
  .object({
    settler_uid: boundedString(loginCharsMax, 1).optional(),
    distribution_plan_ids: z.record(z.string().regex(/^[0-9]{1,20}$/, 'keys must be loop ids'), z.string().regex(/^[0-9]{10}$/, 'must be a plan id')).optional(),
  })
  .strict();

export const tradeRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/wallet/trade',
    summary: 'Offers cash to a recipient in exchange for the cash named in expect_amounts; the offer waits in escrow until accepted, retracted or expired.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_cash' },
    errors: [409],
    input: tradeInput,
    appdata: true,
    response: transferDetailAnswer,
    async handler(context) {
      const { engine, token, input, appdata } = context;
      const result = await engine.services.ledger.trades.start({
        senderId: token.profileId, senderPersonalId: token.personalProfileId, recipientUid: input.recipient_uid, amounts: input.amounts,
        expectAmounts: input.expect_amounts, acceptExpireSeconds: input.accept_expire_seconds === undefined || input.accept_expire_seconds === 0 ? tradeAcceptExpireSecondsDefault : input.accept_expire_seconds, appdata,
        dedupId: input.dedup_id, closedLoopOnly: token.closedLoopOnly,
      });
      if (!result.ok) raise(result);
      return transferDetailFor(context, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/t/:transferId/accept-trade',
    summary: "The trade's recipient accepts: its expected cash goes to the sender and the offered cash to it, at once.",
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'manage_received' },
    input: acceptTradeInput,
    response: transferDetailAnswer,
    async handler(context) {
      const { engine, token, input, params } = context;
      if (!token.permissions.has('apply_design')) throw httpError(edgeErrors, 'insufficient_scope', { description: 'This call needs the manage_received and apply_design permissions.' });
      const transferId = transferIdOf(params);
      const result = await engine.services.ledger.trades.accept({
        callerId: token.profileId, transferId, settlerUid: input.settler_uid, distributionPlanIds: input.distribution_plan_ids ?? {}, closedLoopOnly: token.closedLoopOnly,
      });
      if (!result.ok) raise(result);
      return transferDetailFor(context, transferId);
    },
  }),
];
