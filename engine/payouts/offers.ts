// Deposits to a registered account: the offers (standard, and express above its fee) with their add
// and subtract fee options, the check before a send (presend), and the send of a chosen option.
import { parseSerialNumbers, openLoopId } from '../ledger/allocation.ts';
import { failure, sendFailure, type Failure } from '../ledger/errors.ts';
import { payoutExpressFeeHundredths } from '../limits.ts';
import { addMoney, currencyScale, formatMinor, money, subtractMoney, zeroMoney, type Decimal, type Money } from '../money.ts';
import { moneyField } from './amounts.ts';
import type { PayoutsContext } from './context.ts';
import { startPayout, type PayoutResult, type PayoutSendInput } from './start.ts';
import * as store from './store.ts';

/** An option of an offer, every amount in the account's currency. */
export interface DepositOption {
  name: 'add' | 'subtract';
  fee: Money;
  /** What leaves the wallet. */
  sendAmount: Money;
  /** What reaches the bank. */
  depositAmount: Money;
}

export interface DepositOffer {
  name: string;
  title: string;
  options: DepositOption[];
}

export type AccountSendInput = PayoutSendInput & { accountId: string; amount: Decimal; offerName: string; feeOptionName: 'add' | 'subtract'; serialNumbers?: string };

export function offers(amount: Money): DepositOffer[] {
  const option = (name: 'add' | 'subtract', fee: Money): DepositOption =>
    name === 'add' ? { name, fee, sendAmount: addMoney(amount, fee), depositAmount: amount } : { name, fee, sendAmount: amount, depositAmount: subtractMoney(amount, fee) };
  const none = zeroMoney(amount.currency);
  const list: DepositOffer[] = [{ name: 'standard', title: 'Standard (1-3 business days)', options: [option('add', none), option('subtract', none)] }];
  const expressFee = money(amount.currency, payoutExpressFeeHundredths * 10n ** BigInt(currencyScale(amount.currency)) / 100n);
  if (amount.minor > expressFee.minor) list.push({ name: 'express', title: 'Same day', options: [option('add', expressFee), option('subtract', expressFee)] });
  return list;
}

/** The caller's own registered account, the amount in its currency and the serial numbers, checked in that order. */
async function accountSend(ctx: PayoutsContext, profileId: string, accountId: string, amount: Decimal, serialNumbers: string | undefined) {
  const account = await store.selectAccount(ctx.core.sql, accountId);
  if (!account || account.profile_id !== profileId || !account.registered) return failure('bank_account_not_found');
  const parsed = moneyField(amount, account.currency, 'amount');
  if (!parsed.ok) return parsed;
  const serials = parseSerialNumbers(serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  return { ok: true as const, account, minor: parsed.minor, serials: serials.value };
}

export async function presend(ctx: PayoutsContext, profileId: string, accountId: string, amount: Decimal, serialNumbers?: string): Promise<{ ok: true; offers: DepositOffer[]; currency: string } | Failure> {
  const checked = await accountSend(ctx, profileId, accountId, amount, serialNumbers);
  if (!checked.ok) return checked;
  const { account, minor } = checked;
  const held = await ctx.ledger.balance(ctx.core.sql, profileId, openLoopId, account.currency);
  if (minor > held) return sendFailure([{ code: 'insufficient_funds', field_name: 'amount', info: { loop_id: openLoopId, currency: account.currency, held: formatMinor(held, account.currency) } }]);
  return { ok: true, offers: offers(money(account.currency, minor)), currency: account.currency };
}

export async function sendToAccount(ctx: PayoutsContext, input: AccountSendInput): Promise<PayoutResult> {
  const checked = await accountSend(ctx, input.profileId, input.accountId, input.amount, input.serialNumbers);
  if (!checked.ok) return checked;
  const { account } = checked;
  const offer = offers(money(account.currency, checked.minor)).find((item) => item.name === input.offerName);
  const option = offer?.options.find((item) => item.name === input.feeOptionName);
  if (!offer || !option) return failure('deposit_offer_not_found');
  return startPayout(ctx, input, {
    workflowType: 'redeem', currency: account.currency, sendAmount: option.sendAmount.minor, depositAmount: option.depositAmount.minor, fee: option.fee.minor, account,
    serials: checked.serials, holdSeconds: 0, details: { offer_name: offer.name, fee_option_name: option.name },
  });
}
