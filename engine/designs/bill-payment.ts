// Paying a bill: the customer from their open loop cash (POST /t/<id>/accept) or the operator
// recording a payment received outside; then the customer gets the brand cash. The customer may
// also confirm a payment sent another way, which stops the reminders.
import type { Unit } from '../actors/command.ts';
import { balanceLockKey, balanceRowLocks, walletHolder } from '../ledger/cash.ts';
import { failure, sendFailure, type Failure } from '../ledger/errors.ts';
import { endsWaitingIn } from '../transfers/gate.ts';
import { transfer } from '../transfers/machine.ts';
import type { TransferRow } from '../transfers/types.ts';
import { isTransferViewer, transferById } from '../transfers/rows.ts';
import type { CirculationContext } from './context.ts';
import { distributeIn, payIn } from './distribution.ts';
import * as store from './store.ts';
import { type Decimal, formatDecimal, money } from '../money.ts';

/** Completes a waiting bill: the customer's payment (if any) reaches the merchant, then the brand cash is issued to the customer. */
async function payBillIn(ctx: CirculationContext, unit: Unit<Failure>, row: TransferRow, paidBy: 'wallet' | 'outside'): Promise<void> {
  const snapshot = await unit.load(transfer, row.id);
  if (!snapshot || snapshot.value !== 'bill') return unit.reject(failure('not_waiting'));
  endsWaitingIn(unit, row.id);
  const design = await store.selectDesign(unit.tx, String(row.details.design_id));
  const plan = await store.selectPlanAnyState(unit.tx, String(row.details.distribution_plan_id));
  if (!design || !plan) throw new Error(`bill ${row.id} lost its design or plan`);
  // The brand cash is distributed now, in the merchant's name: only the issuer or a still active distributor may.
  if (row.recipient_id !== design.issuer_id && !(await store.activeAgreementRoles(unit.tx, design.id, row.recipient_id!)).distributor) {
    return unit.reject(failure('agreement_inactive', "the merchant's distributor agreement for this brand cash is no longer active"));
  }
  let number = 1;
  if (paidBy === 'wallet') {
    const refused = await payIn(unit, row.sender_id!, walletHolder(row.recipient_id!), money(row.currency, row.amount), { transferId: row.id, number, action: 'pay', toId: row.recipient_id! });
    if (refused) return unit.reject(refused);
    number += 1;
  }
  const refused = await distributeIn(unit, { design, plan, senderId: row.recipient_id!, recipientId: row.sender_id!, money: money(row.currency, row.amount), transferId: row.id, number });
  if (refused) return unit.reject(refused);
  unit.cancelTimer(transfer, row.id, 'bill_expire');
  unit.cancelTimer(transfer, row.id, 'bill_remind');
  await ctx.transfers.applyIn(unit, row.id, { type: 'transfer.bill_pay', at: unit.now.toISOString() }, { details: { paid_by: paidBy } });
}

/** Pays the bill in one command locking both wallets and the transfer, sharing the balance rows' locks. */
async function runPayment(ctx: CirculationContext, name: string, row: TransferRow, paidBy: 'wallet' | 'outside'): Promise<{ ok: true; transferId: string } | Failure> {
  const design = await store.selectDesign(ctx.sql, String(row.details.design_id));
  const issuerId = design?.issuer_id ?? row.recipient_id!;
  const locks = [{ kind: 'wallet', id: row.sender_id! }, { kind: 'wallet', id: row.recipient_id! }, { kind: 'transfer', id: row.id }];
  const shared = { rows: balanceRowLocks, keys: [...new Set([row.sender_id!, row.recipient_id!, issuerId])].map((id) => balanceLockKey(id, row.currency)) };
  return ctx.commands.run(name, locks, async (unit: Unit<Failure>) => {
    await payBillIn(ctx, unit, row, paidBy);
    return { ok: true as const, transferId: row.id };
  }, { shared });
}

/** POST /t/<id>/accept on a bill: the billed customer pays it from their open loop cash. */
export async function payFromWallet(ctx: CirculationContext, callerId: string, row: TransferRow, closedLoopOnly: boolean): Promise<{ ok: true; transferId: string } | Failure> {
  if (row.sender_id !== callerId) return failure('not_recipient', 'only the billed customer pays a bill');
  // Paying a bill spends open loop cash, which a closed-loop token may not move.
  if (closedLoopOnly) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'transfer_id', info: { reason: 'this token may move brand cash only' } }]);
  return runPayment(ctx, 'bill.pay', row, 'wallet');
}

export async function recordOutsidePayment(ctx: CirculationContext, transferId: string): Promise<{ ok: true; transferId: string } | Failure> {
  const row = await transferById(ctx.sql, transferId);
  if (!row || row.workflow_type !== 'bill') return failure('transfer_not_found');
  return runPayment(ctx, 'bill.paid_outside', row, 'outside');
}

export async function confirmPayment(
  ctx: CirculationContext, input: { callerId: string; transferId: string; declaredBank?: string; declaredAmount?: Decimal; declaredDate?: string },
): Promise<{ ok: true; transferId: string } | Failure> {
  const row = await transferById(ctx.sql, input.transferId);
  if (!row || row.workflow_type !== 'bill' || !(await isTransferViewer(ctx.sql, row.id, input.callerId))) return failure('transfer_not_found');
  if (row.sender_id !== input.callerId) return failure('not_recipient', 'only the billed customer confirms payment');
  return ctx.commands.run('bill.confirm', [{ kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
    const snapshot = await unit.load(transfer, row.id);
    if (!snapshot || snapshot.value !== 'bill') return unit.reject(failure('not_waiting'));
    await ctx.transfers.applyIn(unit, row.id, { type: 'transfer.bill_confirm', at: unit.now.toISOString() }, {
      details: {
        confirmed: true, confirm_timestamp: snapshot.context.billConfirmedAt ?? unit.now.toISOString(),
        declared_bank: input.declaredBank ?? null, declared_amount: input.declaredAmount ? formatDecimal(input.declaredAmount) : null, declared_date: input.declaredDate ?? null,
      },
    });
    unit.cancelTimer(transfer, row.id, 'bill_remind');
    return { ok: true as const, transferId: row.id };
  });
}
