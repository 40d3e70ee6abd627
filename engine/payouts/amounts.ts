// The money fields of a payout call: an amount in the call's currency, and an amount with its fee
// (the fee may be zero but must stay below the amount).
import { failure, type Failure } from '../ledger/errors.ts';
import { money, moneyOf, positiveMoneyOf, type Decimal, type Money } from '../money.ts';

/** A Decimal the edge read, as minor units of the call's currency. */
export function moneyField(amount: Decimal, currency: string, field: string, allowZero = false): { ok: true; minor: bigint } | Failure {
  const parsed = allowZero ? moneyOf(amount, currency) : positiveMoneyOf(amount, currency);
  if (!parsed.ok) return failure('invalid_amount', `${field}: ${parsed.error}`);
  return { ok: true, minor: parsed.value.minor };
}

/** The amount and the fee, both in currency, checked in that order. */
export function amountAndFee(input: { amount: Decimal; fee: Decimal }, currency: string): { ok: true; amount: Money; fee: Money } | Failure {
  const amount = moneyField(input.amount, currency, 'amount');
  if (!amount.ok) return amount;
  const fee = moneyField(input.fee, currency, 'fee', true);
  if (!fee.ok) return fee;
  if (fee.minor >= amount.minor) return failure('invalid_amount', 'fee must be less than amount');
  return { ok: true, amount: money(currency, amount.minor), fee: money(currency, fee.minor) };
}
