// What an invitation's recipient answers: accept (by the transfer, or by the invitation code it
// was sent) moves the escrow to the accepting profile; refuse returns it to the sender.
import type { Unit } from '../actors/command.ts';
import { escrowHolder, movementLines, walletHolder } from '../ledger/cash.ts';
import { failure, type Failure } from '../ledger/errors.ts';
import { unexpiredEscrowPicks } from '../designs/expiry.ts';
import { redeemedLoopsOf } from './acceptance.ts';
import { applyIn, cancelIn, loadIn } from './changes.ts';
import type { TransferResult, TransfersContext } from './context.ts';
import { passGate } from './gate.ts';
import { transfer } from './machine.ts';
import * as store from './store.ts';

/** The caller owns the invitation's recipient UID. */
async function ownsRecipientUid(ctx: TransfersContext, callerId: string, row: store.TransferRow): Promise<boolean> {
  if (!row.recipient_uid) return false;
  if (row.recipient_uid === `service:${callerId}`) return true;
  return (await ctx.profiles.confirmedUids(ctx.core.sql, callerId)).includes(row.recipient_uid);
}

/** Moves a waiting invitation's escrow to the accepting profile, which becomes its recipient. */
async function acceptInvitationIn(ctx: TransfersContext, unit: Unit<Failure>, row: store.TransferRow, callerId: string, callerIsIndividual: boolean): Promise<void> {
  const { state } = await loadIn(unit, row.id);
  if (state !== 'invite') return unit.reject(failure('not_waiting'));
  const senderId = row.sender_id!;
  const passed = await passGate(unit, {
    kind: 'release',
    transferId: row.id,
    balances: { profileIds: [callerId, senderId], currencies: [row.currency] },
    // The cash was the sender's to send; accepting takes what was sent.
    authority: { off: 'sender_own_cash' },
    dedup: { off: 'ends_once' },
    cash: () => unexpiredEscrowPicks(unit, row.id),
    holding: { senderId, recipient: { id: callerId, isIndividual: callerIsIndividual }, redeemed: await redeemedLoopsOf(unit.tx, await ctx.profiles.get(unit.tx, callerId)) },
    transfer: { off: 'recorded_by_path' },
    move: { from: escrowHolder(row.id), to: walletHolder(callerId), lines: (picks) => movementLines(picks, 1, 'move', senderId, callerId) },
  });
  if (!passed.ok) return unit.reject(passed);
  unit.cancelTimer(transfer, row.id, 'invite_expire');
  await applyIn(unit, row.id, { type: 'transfer.invite_accept', at: unit.now.toISOString() }, {
    recipientId: callerId, recipientPersonalId: callerIsIndividual ? callerId : null,
    addViews: [{ profileId: callerId, role: 'recipient' }],
  });
}

export async function accept(ctx: TransfersContext, input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult> {
  const { sql, commands } = ctx.core;
  const row = await store.selectTransfer(sql, input.transferId);
  if (!row) return failure('transfer_not_found');
  const delegated = ctx.acceptHandlers.get(row.workflow_type);
  if (delegated) return delegated(input.callerId, row, input.closedLoopOnly === true);
  if (!(await ownsRecipientUid(ctx, input.callerId, row))) return failure('not_recipient');
  const caller = await ctx.profiles.get(sql, input.callerId);
  return commands.run('transfer.accept', [{ kind: 'wallet', id: input.callerId }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
    await acceptInvitationIn(ctx, unit, row, input.callerId, caller?.isIndividual ?? false);
    return { ok: true as const, transferId: row.id };
  });
}

export async function acceptCode(ctx: TransfersContext, input: { callerId: string; code: string }): Promise<TransferResult> {
  const { sql, commands } = ctx.core;
  const { invitations } = ctx;
  // Holding the code proves the invitation reached its holder, as following its link does.
  const found = invitations ? await invitations.findByCode(input.code) : null;
  const row = found?.extId ? await store.selectTransfer(sql, found.extId) : null;
  if (!found || !row || row.details?.invite_id !== found.inviteId) return failure('invitation_code_not_found');
  if (row.sender_id === input.callerId) return failure('own_invitation');
  const caller = await ctx.profiles.get(sql, input.callerId);
  const locks = [{ kind: 'wallet', id: input.callerId }, { kind: 'transfer', id: row.id }, { kind: 'invitation', id: found.inviteId }];
  return commands.run('transfer.accept_code', locks, async (unit: Unit<Failure>) => {
    await acceptInvitationIn(ctx, unit, row, input.callerId, caller?.isIndividual ?? false);
    await invitations!.markAcceptedIn(unit, found.inviteId, input.callerId);
    return { ok: true as const, transferId: row.id };
  });
}

export async function refuse(ctx: TransfersContext, input: { callerId: string; transferId: string }): Promise<TransferResult> {
  const row = await store.selectTransfer(ctx.core.sql, input.transferId);
  if (!row) return failure('transfer_not_found');
  if (!(await ownsRecipientUid(ctx, input.callerId, row))) return failure('not_recipient');
  return ctx.core.commands.run('transfer.refuse', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
    await loadIn(unit, row.id);
    if (!(await cancelIn(unit, row.id, row.sender_id!, { type: 'transfer.invite_refuse', at: unit.now.toISOString() }))) return unit.reject(failure('not_waiting'));
    return { ok: true as const, transferId: row.id };
  });
}
