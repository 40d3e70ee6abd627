// Currency-exchange deposits: the operator's rates, the exact exchange across two currencies'
// scales, and the send that checks the caller's rate and amount against ours, with an optional hold.
import { failure, sendFailure, type Failure } from '../ledger/errors.ts';
import { holdSecondsMax, redeemersListMax } from '../limits.ts';
import { currencyScale, formatMinor, moneyOf, subtractMoney, type Decimal } from '../money.ts';
import type { AccountInput } from './accounts.ts';
import { amountAndFee } from './amounts.ts';
import type { PayoutsContext } from './context.ts';
import { startPayout, type PayoutResult, type PayoutSendInput } from './start.ts';
import * as store from './store.ts';

export interface FxInput {
  currency: string;
  amount?: Decimal;
  holderUid?: string;
  rate?: string;
  quoteId?: string;
}

export type FxSendInput = PayoutSendInput & { currency: string; amount: Decimal; fee: Decimal; account: AccountInput; fx: FxInput; holdSeconds: number };

/** dest = floor(amount * rate), exactly, across the two currencies' scales. */
export function exchange(amountMinor: bigint, sourceCurrency: string, rate: string, destCurrency: string): bigint {
  const [whole, fraction = ''] = rate.split('.');
  const rateNumerator = BigInt(whole + fraction);
  const rateDenominator = 10n ** BigInt(fraction.length);
  const numerator = amountMinor * rateNumerator * 10n ** BigInt(currencyScale(destCurrency));
  const denominator = rateDenominator * 10n ** BigInt(currencyScale(sourceCurrency));
  return numerator / denominator;
}

function normalizeRate(rate: string): string {
  const [whole, fraction = ''] = rate.trim().split('.');
  const trimmedFraction = fraction.replace(/0+$/, '');
  const trimmedWhole = whole.replace(/^0+(?=\d)/, '');
  return trimmedFraction ? `${trimmedWhole}.${trimmedFraction}` : trimmedWhole;
}

export async function sendFx(ctx: PayoutsContext, input: FxSendInput): Promise<PayoutResult> {
  const money = amountAndFee(input, input.currency);
  if (!money.ok) return money;
  if (input.holdSeconds < 0 || input.holdSeconds > holdSecondsMax) return failure('invalid_amount', `hold_seconds must be 0 to ${holdSecondsMax}`);
  const destCurrency = input.fx.currency;
  if (input.account.currency !== destCurrency) return sendFailure([{ code: 'currency_not_accepted', field_name: 'recipient_account', info: { currency: destCurrency } }]);
  const exchanged = subtractMoney(money.amount, money.fee).minor;
  const quote = await quoteFx(ctx, input, exchanged);
  if (!quote.ok) return quote;
  const { rate, destMinor } = quote;
  return startPayout(ctx, input, {
    workflowType: 'fxdeposit', currency: input.currency, sendAmount: money.amount.minor, depositAmount: exchanged, fee: money.fee.minor,
    account: { new: input.account }, serials: null, holdSeconds: input.holdSeconds,
    details: {
      dest_amount: formatMinor(destMinor, destCurrency), dest_currency: destCurrency, source_amount: formatMinor(money.amount.minor, money.amount.currency),
      source_currency: input.currency, source_amount_without_fee: formatMinor(exchanged, input.currency), fx_rate: normalizeRate(rate),
      fx_quote_id: input.fx.quoteId ?? null, fx_holder_id: input.fx.holderUid ?? null,
    },
  });
}

/** Our rate and what the exchanged amount comes to; a rate or amount the caller gave must match them. */
async function quoteFx(ctx: PayoutsContext, input: FxSendInput, exchanged: bigint): Promise<{ ok: true; rate: string; destMinor: bigint } | Failure> {
  const destCurrency = input.fx.currency;
  const rate = await store.selectRate(ctx.core.sql, input.currency, destCurrency);
  if (!rate) return failure('rate_not_found', `no exchange rate from ${input.currency} to ${destCurrency}`);
  if (input.fx.rate !== undefined && normalizeRate(input.fx.rate) !== normalizeRate(rate)) {
    return sendFailure([{ code: 'invalid_fx', field_name: 'fx.rate', info: { rate } }]);
  }
  const destMinor = exchange(exchanged, input.currency, rate, destCurrency);
  if (input.fx.amount !== undefined) {
    const given = moneyOf(input.fx.amount, destCurrency);
    if (!given.ok || given.value.minor !== destMinor) return sendFailure([{ code: 'invalid_fx', field_name: 'fx.amount', info: { amount: formatMinor(destMinor, destCurrency) } }]);
  }
  if (destMinor <= 0n) return failure('invalid_amount', 'the exchanged amount is zero');
  return { ok: true, rate, destMinor };
}

export async function setRate(ctx: PayoutsContext, source: string, dest: string, rate: string): Promise<{ ok: true } | Failure> {
  if (!/^\d{1,12}(\.\d{1,12})?$/.test(rate) || /^0+(\.0+)?$/.test(rate)) return failure('invalid_amount', 'rate must be a positive decimal');
  await store.upsertRate(ctx.core.sql, source, dest, normalizeRate(rate), ctx.core.clock.now());
  return { ok: true };
}

export async function rates(ctx: PayoutsContext): Promise<{ source_currency: string; dest_currency: string; rate: string }[]> {
  return (await store.selectRates(ctx.core.sql, redeemersListMax)).map((row) => ({ source_currency: row.source_currency, dest_currency: row.dest_currency, rate: row.rate }));
}
