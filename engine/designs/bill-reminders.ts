// A bill's timers and emails: the request mailed at create and daily reminders until the customer
// confirms payment, and the bill canceling itself when its payment wait runs out.
import type { Unit } from '../actors/command.ts';
import { billReminderIntervalMs } from '../limits.ts';
import { billMessage } from '../messages/templates.ts';
import { formatMinor } from '../money.ts';
import { transfer, type TransferEvent } from '../transfers/machine.ts';
import type { TransferRow } from '../transfers/types.ts';
import { transferById } from '../transfers/rows.ts';
import type { CirculationContext } from './context.ts';
import * as store from './store.ts';

/** Inside a command: the bill's request (reminder 0) or a reminder, to the customer's confirmed email. */
export async function remindIn(ctx: CirculationContext, unit: Unit, row: TransferRow, reminder: number): Promise<void> {
  const [merchant, design, uids] = await Promise.all([
    ctx.profiles.get(unit.tx, row.recipient_id!), store.selectDesign(unit.tx, String(row.details.design_id)), ctx.profiles.confirmedUids(unit.tx, row.sender_id!),
  ]);
  // A customer the bill made has no confirmed email: the requests go to the address it was billed at.
  const email = uids.find((uid) => uid.startsWith('email:')) ?? (row.sender_uid?.startsWith('email:') ? row.sender_uid : undefined);
  if (!email || !design) return;
  const content = billMessage({ merchantTitle: merchant?.title ?? 'A merchant', designTitle: design.title, amount: formatMinor(row.amount, row.currency), currency: row.currency, transferId: row.id, reminder });
  ctx.messages.queue(unit, { channel: 'email', to: email.slice('email:'.length), template: 'transfer-billpay-request', ...content });
}

/** The bill_expire timer: an unpaid bill cancels itself, and its reminders stop. */
export async function expireBillIn(ctx: CirculationContext, unit: Unit, transferId: string, event: TransferEvent): Promise<void> {
  const snapshot = await unit.load(transfer, transferId);
  if (!snapshot || snapshot.value !== 'bill') return;
  await ctx.transfers.applyIn(unit, transferId, event);
  unit.cancelTimer(transfer, transferId, 'bill_remind');
}

/** The bill_remind timer: another reminder, and the next one scheduled, until the customer confirms. */
export async function remindBillIn(ctx: CirculationContext, unit: Unit, transferId: string): Promise<void> {
  const snapshot = await unit.load(transfer, transferId);
  const row = await transferById(unit.tx, transferId);
  if (!snapshot || !row || snapshot.value !== 'bill' || snapshot.context.billConfirmedAt) return;
  const next = await ctx.transfers.applyIn(unit, transferId, { type: 'transfer.bill_remind', at: unit.now.toISOString() }, { details: { reminder_count: (snapshot.context.reminderCount ?? 0) + 1 } });
  if (!next) return;
  await remindIn(ctx, unit, row, (snapshot.context.reminderCount ?? 0) + 1);
  const dueAt = new Date(unit.now.getTime() + billReminderIntervalMs);
  unit.schedule(transfer, transferId, 'bill_remind', dueAt, { type: 'transfer.bill_remind', at: dueAt.toISOString() });
}
