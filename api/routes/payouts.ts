// Bank payouts: presend offers for a registered account, sending to it, and deposits to any
// account with or without currency exchange.
import { transferAndProfileAnswer } from '../http/schemas.ts';
import { z } from 'zod';
import type { AccountInput } from '../../engine/payouts/service.ts';
import {
  accountNumberDigitsMax, dedupIdCharsMax, depositOfferNameCharsMax, dfiAccountFieldCharsMax, fxRateCharsMax, holdSecondsMax, loginCharsMax,
  routingNumberDigits, serialNumbersFieldCharsMax,
} from '../../engine/limits.ts';
import { formatMoney } from '../../engine/money.ts';
import { amountField, boundedString, currencyField, intField } from '../http/fields.ts';
import type { TokenPrincipal } from '../http/principals.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './ledger-errors.ts';
import { transferAndProfile } from './ledger.ts';

const serialNumbersField = z.string().max(serialNumbersFieldCharsMax, 'has too many serial numbers');
const accountIdPattern = /^[0-9]{10}$/;

export const recipientAboutField = z
  .object({
    name: boundedString(dfiAccountFieldCharsMax, 1),
    email: boundedString(dfiAccountFieldCharsMax).optional(),
    phone: boundedString(dfiAccountFieldCharsMax).optional(),
    address: boundedString(dfiAccountFieldCharsMax).optional(),
  })
  .strict();

export const recipientAccountField = z
  .object({
    routing_number: z.string().regex(new RegExp(`^[0-9]{${routingNumberDigits}}$`), `must be ${routingNumberDigits} digits`),
    account_number: z.string().regex(new RegExp(`^[0-9]{4,${accountNumberDigitsMax}}$`), `must be 4 to ${accountNumberDigitsMax} digits`),
    ach_type: z.enum(['checking', 'savings']).optional(),
    rdfi_name: boundedString(dfiAccountFieldCharsMax).optional(),
    currency: currencyField.optional(),
  })
  .strict();

const fxField = z
  .object({
    currency: currencyField,
    amount: amountField.optional(),
    holder_uid: boundedString(loginCharsMax).optional(),
    rate: z.string().max(fxRateCharsMax).regex(/^\d+(\.\d+)?$/, 'must be a decimal rate').optional(),
    quote_id: boundedString(dfiAccountFieldCharsMax).optional(),
  })
  .strict();

/** A bank account from its wire fields, with the defaults every call that names one uses. */
export function accountOf(account: z.output<typeof recipientAccountField>, rest: { defaultCurrency: string; alias: string; holderName: string }): AccountInput {
  return {
    rdfiName: account.rdfi_name ?? `Bank ${account.routing_number}`,
    routingNumber: account.routing_number,
    accountNumber: account.account_number,
    achType: account.ach_type ?? 'checking',
    currency: account.currency ?? rest.defaultCurrency,
    alias: rest.alias,
    holderName: rest.holderName,
  };
}

function accountIdOf(params: Record<string, string>): string {
  return accountIdPattern.test(params.accountId) ? params.accountId : '';
}

const presendInput = z.object({ amount: amountField, serial_numbers: serialNumbersField.optional() }).strict();

const accountSendInput = z
  .object({
    amount: amountField,
    offer_name: boundedString(depositOfferNameCharsMax, 1),
    fee_option_name: z.enum(['add', 'subtract']),
    serial_numbers: serialNumbersField.optional(),
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
  })
  .strict();

const sendDfiInput = z
  .object({
    currency: currencyField,
    amount: amountField,
    fee: amountField,
    recipient_about: recipientAboutField,
    recipient_account: recipientAccountField,
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
  })
  .strict();

const sendFxInput = sendDfiInput.extend({ fx: fxField, hold_seconds: intField(0, holdSecondsMax).optional() }).strict();

/** What send-dfi and send-fx both take: the sender, amount and fee, the account (in `accountCurrency` unless it names one) and appdata. */
function bankSendOf(token: TokenPrincipal, input: z.output<typeof sendDfiInput>, accountCurrency: string, appdata: Record<string, string>) {
  return {
    profileId: token.profileId, personalProfileId: token.personalProfileId, currency: input.currency, amount: input.amount, fee: input.fee,
    account: accountOf(input.recipient_account, { defaultCurrency: accountCurrency, alias: '', holderName: input.recipient_about.name }), appdata, dedupId: input.dedup_id,
    closedLoopOnly: token.closedLoopOnly,
  };
}

export const payoutRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/wallet/account/:accountId/presend',
    summary: 'Deposit offers (with add and subtract fee options) for sending an amount to a registered bank account.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_to_account' },
    input: presendInput,
    response: z.strictObject({ offers: z.array(z.strictObject({ name: z.string(), title: z.string(), options: z.array(z.strictObject({ name: z.enum(['add', 'subtract']), fee: z.string(), send_amount: z.string(), deposit_amount: z.string(), currency: z.string() })) })) }),
    async handler({ engine, token, input, params }) {
      const result = await engine.services.ledger.payouts.presend(token.profileId, accountIdOf(params), input.amount, input.serial_numbers);
      if (!result.ok) raise(result);
      return {
        offers: result.offers.map((offer) => ({
          name: offer.name,
          title: offer.title,
          options: offer.options.map((option) => ({
            name: option.name, fee: formatMoney(option.fee), send_amount: formatMoney(option.sendAmount), deposit_amount: formatMoney(option.depositAmount), currency: result.currency,
          })),
        })),
      };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/account/:accountId/send',
    summary: 'Sends open loop cash to a registered bank account with a chosen offer and fee option.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_to_account' },
    errors: [409],
    input: accountSendInput,
    appdata: true,
    response: transferAndProfileAnswer,
    async handler({ engine, token, input, params, appdata }) {
      const result = await engine.services.ledger.payouts.sendToAccount({
        profileId: token.profileId, personalProfileId: token.personalProfileId, accountId: accountIdOf(params), amount: input.amount,
        offerName: input.offer_name, feeOptionName: input.fee_option_name, serialNumbers: input.serial_numbers, appdata, dedupId: input.dedup_id, closedLoopOnly: token.closedLoopOnly,
      });
      if (!result.ok) raise(result);
      return transferAndProfile(engine, token, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/send-dfi',
    summary: 'Sends open loop cash to any bank account.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_to_account' },
    errors: [409],
    input: sendDfiInput,
    appdata: true,
    response: transferAndProfileAnswer,
    async handler({ engine, token, input, appdata }) {
      const result = await engine.services.ledger.payouts.sendDfi(bankSendOf(token, input, input.currency, appdata));
      if (!result.ok) raise(result);
      return transferAndProfile(engine, token, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/wallet/send-fx',
    summary: 'Sends open loop cash to a bank account in another currency, optionally holding it first.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'send_to_account' },
    errors: [409],
    input: sendFxInput,
    appdata: true,
    response: transferAndProfileAnswer,
    async handler({ engine, token, input, appdata }) {
      const result = await engine.services.ledger.payouts.sendFx({
        ...bankSendOf(token, input, input.fx.currency, appdata),
        fx: { currency: input.fx.currency, amount: input.fx.amount, holderUid: input.fx.holder_uid, rate: input.fx.rate, quoteId: input.fx.quote_id },
        holdSeconds: input.hold_seconds ?? 0,
      });
      if (!result.ok) raise(result);
      return transferAndProfile(engine, token, result.transferId);
    },
  }),
];
