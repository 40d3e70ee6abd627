// The bank leg of a payout: the outbox sends the escrowed transfer to the connector, and its answer
// either redeems the cash (a `deposit` movement, the fee to its recipient) or returns it to the sender.
import type { Unit } from '../actors/command.ts';
import { escrowHolder, escrowPicks, movementLines, walletHolder } from '../ledger/cash.ts';
import { money } from '../money.ts';
import { transferById } from '../transfers/rows.ts';
import { passGate, returnEscrowIn, type Movement } from '../transfers/gate.ts';
import { transfer } from '../transfers/machine.ts';
import type { BankConnector } from './connector.ts';
import type { PayoutsContext } from './context.ts';
import * as store from './store.ts';

type BankOutcome = Awaited<ReturnType<BankConnector['send']>>;

/** Registers the outbox handler that hands a payout to the bank connector. */
export function registerBankSend(ctx: PayoutsContext): void {
  ctx.core.outbox.register('payout.send', (payload: { transferId: string }) => sendToBank(ctx, payload.transferId));
}

async function sendToBank(ctx: PayoutsContext, transferId: string): Promise<void> {
  const { sql } = ctx.core;
  const row = await transferById(sql, transferId);
  if (!row || row.next_activity !== 'send_to_dfi') return;
  const payout = row.details.payout as { account_id: string; dest_currency: string; dest_amount: string };
  const account = await store.selectAccount(sql, payout.account_id);
  if (!account) throw new Error(`payout account ${payout.account_id} is missing`);
  const outcome = await ctx.connector.send({
    transferId: row.id, accountId: account.id, routingNumber: account.routing_number, accountNumber: account.account_number, achType: account.ach_type,
    holderName: account.holder_name, currency: payout.dest_currency, amount: payout.dest_amount,
  });
  await settle(ctx, row.id, outcome);
}

/** Applies the bank's answer: redeem (and pay the fee) or return the cash to the sender. */
async function settle(ctx: PayoutsContext, transferId: string, outcome: BankOutcome): Promise<void> {
  const row = await transferById(ctx.core.sql, transferId);
  if (!row) throw new Error(`payout transfer ${transferId} is missing`);
  const payout = row.details.payout as PayoutDetails;
  await ctx.core.commands.run('payout.settle', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: transferId }], async (unit: Unit) => {
    const snapshot = await unit.load(transfer, transferId);
    if (!snapshot || snapshot.value !== 'payout') return;
    const at = unit.now;
    if (outcome.ok) {
      await redeem(unit, transferId, row.sender_id!, payout, row.currency);
      await ctx.transfers.applyIn(unit, transferId, { type: 'transfer.payout_succeeded', at: at.toISOString(), result: outcome.result }, { details: { dfi_result: outcome.result } });
    } else {
      await returnEscrowIn(unit, transferId, row.sender_id!);
      await ctx.transfers.applyIn(unit, transferId, { type: 'transfer.payout_failed', at: at.toISOString(), error: outcome.error, message: outcome.message }, {
        details: { dfi_error: { error: outcome.error, message: outcome.message } },
      });
    }
  });
}

interface PayoutDetails {
  account_id: string;
  deposit_minor: string;
  fee_minor: string;
  fee_recipient_id: string | null;
}

/** The deposit leaves the escrow as redeemed cash (movement 1), the fee, if any, goes to its recipient (movement 2); each through the gate. */
async function redeem(unit: Unit, transferId: string, senderId: string, payout: PayoutDetails, currency: string): Promise<void> {
  const leg: Pick<Movement, 'transferId' | 'authority' | 'dedup' | 'transfer'> = {
    transferId,
    // The payout started under the caller's authority; the bank answered.
    authority: { off: 'sender_own_cash' },
    // The payout actor settles once.
    dedup: { off: 'ends_once' },
    transfer: { off: 'recorded_by_path' },
  };
  const deposited = await passGate(unit, {
    ...leg,
    kind: 'sink',
    holding: { off: 'leaves_circulation' },
    cash: async () => (await escrowPicks(unit.tx, transferId, money(currency, BigInt(payout.deposit_minor)))).picks,
    move: { from: escrowHolder(transferId), to: { kind: 'redeemed', id: transferId }, lines: (picks) => movementLines(picks, 1, 'deposit', senderId, payout.account_id) },
  });
  if (!deposited.ok) throw new Error(`a payout's deposit is refused by no rung: ${deposited.error}`);
  if (BigInt(payout.fee_minor) === 0n) return;
  const feeRecipientId = payout.fee_recipient_id!;
  const fee = await passGate(unit, {
    ...leg,
    kind: 'debt',
    holding: { off: 'open_loop' },
    balances: { profileIds: [feeRecipientId, senderId], currencies: [currency] },
    cash: async () => (await escrowPicks(unit.tx, transferId, null)).picks,
    move: { from: escrowHolder(transferId), to: walletHolder(feeRecipientId), lines: (picks) => movementLines(picks, 2, 'move', senderId, feeRecipientId) },
  });
  if (!fee.ok) throw new Error(`a payout's fee is refused by no rung: ${fee.error}`);
}
