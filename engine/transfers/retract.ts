// What an initiator does to its waiting transfer: retract it (escrow back to the sender, with a
// reason from the initiator's list), skip the wait (paycode or exchange hold), or resend the invitation.
import type { Unit } from '../actors/command.ts';
import { escrowHolder, escrowPicks, heldNotes, movementLines, walletHolder } from '../ledger/cash.ts';
import { failure, type Failure } from '../ledger/errors.ts';
import { applyIn, cancelIn, loadIn, sentByCaller } from './changes.ts';
import { authorityRefusal, passGate } from './gate.ts';
import type { TransferResult, TransfersContext } from './context.ts';
import { transfer } from './machine.ts';
import * as store from './store.ts';

const senderInitiatedReasons = new Set([
  'wrong_amount', 'wrong_recipient', 'invalid_address', 'never_got_invitation', 'refused', 'too_long', 'recipient_unable', 'wrong_payment_form',
  'unable_to_sign_up', 'not_available', 'computer_error', 'other',
]);
const recipientInitiatedReasons = new Set([
  'wrong_amount', 'wrong_recipient', 'invalid_address', 'never_got_invitation', 'canceled', 'too_long', 'sender_unable', 'wrong_payment_form',
  'unable_to_sign_up', 'not_available', 'computer_error', 'other',
]);
const recipientInitiatedWorkflows = new Set(['bill']);
const bothSidesRetract = new Set(['bill']);

export async function retract(
  ctx: TransfersContext, input: { callerId: string; permissions: ReadonlySet<string>; transferId: string; reason: string; closedLoopOnly?: boolean },
): Promise<TransferResult> {
  const { sql, commands } = ctx.core;
  const row = await store.selectTransfer(sql, input.transferId);
  if (!row || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
  const recipientInitiated = recipientInitiatedWorkflows.has(row.workflow_type);
  const initiator = recipientInitiated ? row.recipient_id : row.sender_id;
  // A bill may be canceled by either side; the reasons are always those of its initiator.
  const otherSide = bothSidesRetract.has(row.workflow_type) && (recipientInitiated ? row.sender_id : row.recipient_id) === input.callerId;
  if (initiator !== input.callerId && !otherSide) return failure('not_initiator');
  const callerIsRecipient = row.recipient_id === input.callerId && (recipientInitiated ? !otherSide : otherSide);
  const needed = callerIsRecipient ? 'manage_received' : 'manage_sent';
  if (!input.permissions.has(needed)) return failure('wrong_permission', needed);
  if (!(recipientInitiated ? recipientInitiatedReasons : senderInitiatedReasons).has(input.reason)) return failure('invalid_reason');
  return commands.run('transfer.retract', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
    await loadIn(unit, row.id);
    const refused = await escrowAuthorityRefusal(unit, row.id, input.closedLoopOnly === true);
    if (refused) return unit.reject(refused);
    if (!(await cancelIn(unit, row.id, row.sender_id!, { type: 'transfer.retract', at: unit.now.toISOString(), reason: input.reason }))) {
      return unit.reject(failure('cannot_retract'));
    }
    return { ok: true as const, transferId: row.id };
  });
}

/** The gate's authority rung for cash a transfer holds: a closed-loop token moves no open loop cash out of escrow. */
async function escrowAuthorityRefusal(unit: Unit<Failure>, transferId: string, closedLoopOnly: boolean): Promise<Failure | null> {
  if (!closedLoopOnly) return null;
  return authorityRefusal({ closedLoopOnly }, (await heldNotes(unit.tx, transferId)).map((note) => note.loopId), 'transfer_id');
}

export async function skip(ctx: TransfersContext, input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult> {
  const sent = await sentByCaller(ctx.core.sql, input.callerId, input.transferId);
  if (!sent.ok) return sent;
  return ctx.core.commands.run('transfer.skip', [{ kind: 'wallet', id: sent.row.sender_id! }, { kind: 'transfer', id: sent.row.id }], async (unit: Unit<Failure>) => {
    const refused = await escrowAuthorityRefusal(unit, sent.row.id, input.closedLoopOnly === true);
    if (refused) return unit.reject(refused);
    return skipIn(ctx, unit, sent.row, input.closedLoopOnly === true);
  });
}

/** Ends the wait: a paycode transfer completes to its recipient, an exchange hold goes to payout. */
async function skipIn(ctx: TransfersContext, unit: Unit<Failure>, row: store.TransferRow, closedLoopOnly: boolean): Promise<TransferResult> {
  const { state } = await loadIn(unit, row.id);
  if (state === 'paycode') {
    const recipient = await ctx.profiles.get(unit.tx, row.recipient_id!);
    const passed = await passGate(unit, {
      kind: 'release',
      transferId: row.id,
      balances: { profileIds: [row.recipient_id!, row.sender_id!], currencies: [row.currency] },
      authority: { closedLoopOnly, fieldName: 'transfer_id' },
      dedup: { off: 'ends_once' },
      cash: async () => (await escrowPicks(unit.tx, row.id, null)).picks,
      // The cash lands in the recipient's wallet as it is (a skip redeems nothing): its holding rules hold for all of it.
      holding: { senderId: row.sender_id!, recipient: { id: row.recipient_id!, isIndividual: recipient?.isIndividual ?? false }, redeemed: new Set() },
      transfer: { off: 'recorded_by_path' },
      move: { from: escrowHolder(row.id), to: walletHolder(row.recipient_id!), lines: (picks) => movementLines(picks, 1, 'move', row.sender_id, row.recipient_id!) },
    });
    if (!passed.ok) return unit.reject(passed);
    await store.updatePaycode(unit.tx, row.id, { state: 'ended' }, unit.now);
    unit.cancelTimer(transfer, row.id, 'paycode_expire');
    await applyIn(unit, row.id, { type: 'transfer.skip', at: unit.now.toISOString() });
  } else if (state === 'holding') {
    unit.cancelTimer(transfer, row.id, 'hold_end');
    await applyIn(unit, row.id, { type: 'transfer.skip', at: unit.now.toISOString() });
    unit.emit('payout.send', { transferId: row.id });
  } else {
    return unit.reject(failure('not_waiting'));
  }
  return { ok: true as const, transferId: row.id };
}

export async function resend(ctx: TransfersContext, input: { callerId: string; transferId: string }): Promise<TransferResult> {
  const sent = await sentByCaller(ctx.core.sql, input.callerId, input.transferId);
  if (!sent.ok) return sent;
  return ctx.core.commands.run('transfer.resend', [{ kind: 'transfer', id: sent.row.id }], (unit: Unit<Failure>) => resendIn(unit, sent.row));
}

/** Counts the invitation sent again and asks the outbox to send its message. */
async function resendIn(unit: Unit<Failure>, row: store.TransferRow): Promise<TransferResult> {
  const { snapshot } = await loadIn(unit, row.id);
  if (!(await applyIn(unit, row.id, { type: 'transfer.invite_resend', at: unit.now.toISOString() }, { details: { sent_count: snapshot.context.sentCount + 1 } }))) {
    return unit.reject(failure('not_waiting'));
  }
  unit.emit('transfer.invitation', { transferId: row.id, senderId: row.sender_id, recipientUid: row.recipient_uid, resend: true });
  return { ok: true as const, transferId: row.id };
}
