// A deposit to an account given in the call (POST send with a DFI recipient): the amount less the
// fee reaches the bank, in the account's own currency.
import { sendFailure } from '../ledger/errors.ts';
import type { AccountInput } from './accounts.ts';
import { subtractMoney, type Decimal } from '../money.ts';
import { amountAndFee } from './amounts.ts';
import type { PayoutsContext } from './context.ts';
import { startPayout, type PayoutResult, type PayoutSendInput } from './start.ts';

export type DfiSendInput = PayoutSendInput & { currency: string; amount: Decimal; fee: Decimal; account: AccountInput };

export async function sendDfi(ctx: PayoutsContext, input: DfiSendInput): Promise<PayoutResult> {
  const money = amountAndFee(input, input.currency);
  if (!money.ok) return money;
  if (input.account.currency !== input.currency) return sendFailure([{ code: 'currency_not_accepted', field_name: 'recipient_account', info: { currency: input.currency } }]);
  return startPayout(ctx, input, {
    workflowType: 'redeem', currency: input.currency, sendAmount: money.amount.minor, depositAmount: subtractMoney(money.amount, money.fee).minor, fee: money.fee.minor,
    account: { new: input.account }, serials: null, holdSeconds: 0, details: {},
  });
}
