// One settlement batch, the body of the pos.settle command: the pending rows grouped by recipient,
// every balance locked in the one order first, then per recipient a `settle` transfer paid from the
// settler's wallet, its rows marked settled and their settlement actors moved on.
import type { Unit } from '../actors/command.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { balanceLockKey, lockBalances, movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import { money, sumMoney, type Money } from '../money.ts';
import { passGate, type TransferRecord } from '../transfers/gate.ts';
import { settlementKind } from './machine.ts';
import * as store from './store.ts';

interface Design {
  id: string;
  currency: string;
}

export async function settleBatch(unit: Unit<Failure>, design: Design, settlerId: string, limit: number) {
  const rows = await store.selectPendingForUpdate(unit.tx, design.id, limit);
  const byRecipient = new Map<string, store.PendingSettlementRow[]>();
  for (const row of rows) byRecipient.set(row.recipient_id, [...(byRecipient.get(row.recipient_id) ?? []), row]);
  // The settler's and every recipient's balances in the one balance order, before any moves.
  await lockBalances(unit.tx, [settlerId, ...byRecipient.keys()].map((id) => balanceLockKey(id, design.currency)));
  const transferIds: string[] = [];
  let total = 0n;
  for (const [recipientId, owed] of byRecipient) {
    const amount = sumMoney(owed.map((row) => money(row.currency, row.amount)), design.currency);
    transferIds.push(await settleRecipient(unit, design, settlerId, recipientId, owed, amount));
    total += amount.minor;
  }
  return { ok: true as const, settled: rows.length, total, transferIds };
}

/** Pays one recipient what it is owed in one `settle` transfer through the gate; answers the transfer id. */
async function settleRecipient(unit: Unit<Failure>, design: Design, settlerId: string, recipientId: string, owed: store.PendingSettlementRow[], amount: Money): Promise<string> {
  const transferId = await unit.newLongId('transfer');
  const paid = recipientId !== settlerId;
  const passed = await passGate(unit, {
    kind: paid ? 'payment' : 'record',
    transferId,
    // settle() refused a closed-loop token: a settlement always pays open loop cash.
    authority: { off: 'checked_before_command' },
    // The pending rows are taken under the settle lock.
    dedup: { off: 'ends_once' },
    cash: async () => {
      if (!paid) return [];
      const picked = await pickFromWallet(unit.tx, settlerId, [{ loopId: openLoopId, currency: amount.currency, minor: amount.minor }], null, { recipientId, accepts: () => true, nonPayment: false, at: unit.now });
      return picked.ok ? picked.value : sendFailure(picked.errors);
    },
    holding: { off: paid ? 'open_loop' : 'nothing_moves' },
    transfer: settleTransfer(design, settlerId, recipientId, owed, amount),
    // The settler owes itself.
    move: paid ? { from: walletHolder(settlerId), to: walletHolder(recipientId), lines: (picks) => movementLines(picks, 1, 'settle', settlerId, recipientId) } : { off: 'nothing_moves' },
  });
  if (!passed.ok) return unit.reject(passed);
  await store.markSettled(unit.tx, owed.map((row) => row.id), transferId, unit.now);
  for (const row of owed) {
    if (!(await unit.load(settlementKind, row.id))) throw new Error(`settlement ${row.id} has no actor`);
    if (!unit.send(settlementKind, row.id, { type: 'settlement.settle', at: unit.now.toISOString(), settleTransferId: transferId })) throw new Error(`settlement ${row.id} was not pending`);
    if (row.role === 'redeemer') await store.settleReceivable(unit.tx, { profileId: row.redeemer_id, transferId: row.redemption_transfer_id, loopId: design.id, distTid: row.dist_tid, money: money(row.currency, row.amount) });
  }
  return transferId;
}

function settleTransfer(design: Design, settlerId: string, recipientId: string, owed: store.PendingSettlementRow[], amount: Money): TransferRecord {
  return {
    ended: {
      workflowType: 'settle', senderId: settlerId, recipientId, money: amount,
      details: { design_id: design.id, settlement_ids: owed.map((row) => row.id), redemption_transfer_ids: [...new Set(owed.map((row) => row.redemption_transfer_id))] },
    },
    views: recipientId === settlerId ? [{ profileId: settlerId, role: 'sender' }] : [{ profileId: settlerId, role: 'sender' }, { profileId: recipientId, role: 'recipient' }],
  };
}
