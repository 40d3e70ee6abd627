// Pull (merchant terminal): GET /pull/redeemable and POST /pull/redeem, permission pull_payment on
// a business with the pull_payment feature, brand cash only; and the customer's consent that lets a
// merchant pull (POST /wallet/pull-consent, /wallet/pull-consent/revoke, GET /wallet/pull-consents).
import { z } from 'zod';
import { dedupIdCharsMax, loginCharsMax, posMessageCharsMax, serialNumbersFieldCharsMax } from '../../engine/limits.ts';
import { amountField, boolField, boundedString, currencyField, optionalAmountsField } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './pos-errors.ts';
import type { PaymentInput } from '../../engine/pos/fields.ts';

const uidField = boundedString(loginCharsMax, 1);
const merchantInput = z.object({ merchant_uid: uidField }).strict();
export const serialNumbersField = z.string().max(serialNumbersFieldCharsMax, 'has too many serial numbers');

const party = z.looseObject({ title: z.string(), is_individual: z.boolean(), uid_value: z.string() });
export const loopsResponse = z.object({
  loops: z.array(z.looseObject({
    loop_id: z.string(), currency: z.string(), issuer_id: z.string(), title: z.string(), amount: z.string(), max_sendable: z.string(), missing_agreement: z.boolean(),
  })),
  sender_info: party,
  recipient_info: party,
});
export const transferResponse = z.object({ transfer: z.looseObject({ id: z.string(), workflow_type: z.string(), amount: z.string(), currency: z.string() }) });

/** The payment fields pull and processor share (spec: same fields and limits). */
export const paymentFields = {
  amounts: optionalAmountsField.optional(),
  non_service_amount: amountField.optional(),
  non_service_currency: currencyField.optional(),
  serial_numbers: serialNumbersField.optional(),
  private: boolField.optional(),
  message: boundedString(posMessageCharsMax).optional(),
  dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
};

const paymentFieldsSchema = z.object(paymentFields);

export function paymentInput(input: z.output<typeof paymentFieldsSchema>, appdata: Record<string, string>): PaymentInput {
  return {
    amounts: input.amounts, nonServiceAmount: input.non_service_amount, nonServiceCurrency: input.non_service_currency ?? 'USD', serialNumbers: input.serial_numbers,
    private: input.private ?? true, message: input.message, appdata, dedupId: input.dedup_id,
  };
}

export const pullRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/pull/redeemable',
    summary: "The customer's brand cash this merchant redeems (its own designs and designs it has an active redeemer agreement for); needs the customer's pull consent.",
    tags: ['pull'],
    caller: { kind: 'token', permission: 'pull_payment' },
    input: z.object({ sender_uid: uidField, serial_numbers: serialNumbersField.optional() }).strict(),
    response: loopsResponse,
    async handler({ engine, token, input }) {
      const result = await engine.services.pos.payments.redeemable({ merchantId: token.profileId, senderUid: input.sender_uid, serialNumbers: input.serial_numbers });
      if (!result.ok) raise(result);
      return result.body;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/pull/redeem',
    summary: "Pulls brand cash from a consenting customer's wallet to the merchant; redeemed cash settles per its plan. The token's device is the POS device.",
    tags: ['pull'],
    caller: { kind: 'token', permission: 'pull_payment' },
    input: z.object({ sender_uid: uidField, ...paymentFields }).strict(),
    appdata: true,
    errors: [409],
    response: transferResponse,
    async handler({ engine, token, input, appdata }) {
      const result = await engine.services.pos.payments.pull({
        merchantId: token.profileId, merchantPersonalId: token.personalProfileId, deviceId: token.deviceId, senderUid: input.sender_uid, ...paymentInput(input, appdata),
      });
      if (!result.ok) raise(result);
      return { transfer: result.transfer };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/pull-consent',
    summary: 'Lets a merchant pull brand cash from this wallet at its terminals (until revoked).',
    tags: ['pull'],
    caller: { kind: 'token', permission: 'send_cash' },
    input: merchantInput,
    response: z.object({ merchant_id: z.string(), consented: z.boolean() }),
    async handler({ engine, token, input }) {
      const result = await engine.services.pos.payments.grantConsent(token.profileId, input.merchant_uid);
      if (!result.ok) raise(result);
      return { merchant_id: result.merchantId, consented: true };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/pull-consent/revoke',
    summary: 'Withdraws a merchant’s pull consent; its terminals can no longer pull from this wallet.',
    tags: ['pull'],
    caller: { kind: 'token', permission: 'send_cash' },
    input: merchantInput,
    response: z.object({ revoked: z.boolean() }),
    async handler({ engine, token, input }) {
      const result = await engine.services.pos.payments.revokeConsent(token.profileId, input.merchant_uid);
      if (!result.ok) raise(result);
      return { revoked: result.revoked };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/wallet/pull-consents',
    summary: 'The merchants this wallet lets pull payments.',
    tags: ['pull'],
    caller: { kind: 'token', permission: 'view_wallet' },
    input: z.object({}).strict(),
    response: z.object({ consents: z.array(z.object({ merchant_id: z.string(), granted: z.string() })) }),
    async handler({ engine, token }) {
      return { consents: await engine.services.pos.payments.consents(token.profileId) };
    },
  }),
];
