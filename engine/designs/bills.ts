// Bills: a merchant (the recipient, who initiates) bills a customer (the sender) for brand cash of a
// gl_design. The bill transfer waits for payment; when paid, the customer holds the brand cash
// (issued under the bill's plan, the merchant paying the plan's split as in a design send).
// Payment arrives two ways (docs/brand-cash.md): the customer pays from their open loop cash with
// POST /t/<id>/accept, or the operator records a payment received outside. The customer may
// confirm that payment was sent (reminders stop); either side may cancel; after 14 days the
// bill cancels itself through a durable timer. Reminders go out daily until confirmed.
// Here the context is built and the operations wired: bill-create.ts, bill-payment.ts, bill-reminders.ts.
import type { Core } from '../core.ts';
import type { Decimal } from '../money.ts';
import type { Failure } from '../ledger/errors.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransfersService } from '../transfers/service.ts';
import { createBill } from './bill-create.ts';
import { confirmPayment, payFromWallet, recordOutsidePayment } from './bill-payment.ts';
import { expireBillIn, remindBillIn } from './bill-reminders.ts';
import { circulationContext } from './context.ts';
import type { BillInput, BillResult } from './bill-types.ts';
export type { BillInput, BillResult } from './bill-types.ts';

export { billFeature } from './bill-create.ts';

export interface BillsService {
  create(input: BillInput): Promise<BillResult>;
  /** The customer says payment was sent another way: reminders stop; the bill stays cancelable. */
  confirm(input: { callerId: string; transferId: string; declaredBank?: string; declaredAmount?: Decimal; declaredDate?: string }): Promise<{ ok: true; transferId: string } | Failure>;
  /** The operator records a payment received outside Cashloop: the customer gets the brand cash. */
  recordOutsidePayment(transferId: string): Promise<{ ok: true; transferId: string } | Failure>;
}

export function createBillsService(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): BillsService {
  const ctx = circulationContext(core, dependencies);
  const { transfers } = dependencies;
  transfers.onAccept('bill', (callerId, row, closedLoopOnly) => payFromWallet(ctx, callerId, row, closedLoopOnly));
  transfers.onTimer('bill_expire', (unit, transferId, event) => expireBillIn(ctx, unit, transferId, event));
  transfers.onTimer('bill_remind', (unit, transferId) => remindBillIn(ctx, unit, transferId));
  return {
    create: (input) => createBill(ctx, input),
    confirm: (input) => confirmPayment(ctx, input),
    recordOutsidePayment: (transferId) => recordOutsidePayment(ctx, transferId),
  };
}
